"""Card search: a query (pipeline.search.parser) compiled to one parametrised SQL query over
the views.

Each game in scope contributes one SELECT over its `<slug>_cards` view; the query's words are
resolved against that game's declared vocabulary (a word a game does not know makes that
game's condition false, a word no game knows is an error). User text only ever reaches the
database as bound parameters. The same rules, implemented in site/assets/query.js over the
index that `browser_index` writes, drive the site's query box; tests/data/search_vectors.yaml
holds the cases both must agree on.
"""

from __future__ import annotations

import csv
import io
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy import (
    Engine,
    Integer,
    String,
    and_,
    cast,
    column,
    false,
    func,
    literal,
    not_,
    null,
    or_,
    select,
    table,
    true,
    union_all,
)
from sqlalchemy.ext.compiler import compiles
from sqlalchemy.sql.elements import ColumnElement
from sqlalchemy.sql.functions import GenericFunction
from sqlmodel import Session, col
from sqlmodel import select as model_select

from pipeline.database import models

from .parser import (
    ACCENTS,
    BOOLEAN,
    DROPPED,
    GENERIC,
    LIMITS,
    SPACES,
    STATUS,
    Any_,
    Attribute,
    Node,
    Not,
    Query,
    QueryError,
    SortKey,
    Term,
    Vocabulary,
    closest,
    field_names,
    fold,
    limit_error,
    name_key,
    parse,
    words_of,
)

COLUMNS = ("game", "number", "code", "name", "kind", "copies", "deck", "status")
ORDERING_OPS = (">=", "<=", ">", "<")


def vocabularies(db: Engine) -> list[Vocabulary]:
    """Every game's query vocabulary, read from the declarations stored in the database."""
    with Session(db) as session:
        games = session.exec(model_select(models.Game).order_by(col(models.Game.position))).all()
        out = []
        for game in games:

            def declared(model: Any, game_id: int | None = game.id) -> list[Any]:
                return list(
                    session.exec(
                        model_select(model).where(model.game_id == game_id).order_by(model.position)
                    ).all()
                )

            attrs = declared(models.AttributeDef)
            texts = declared(models.TextDef)
            kinds = declared(models.CardKind)
            decks = declared(models.Deck)
            attributes = {
                a.key: Attribute(
                    a.key, a.label, a.type, tuple(json.loads(a.enum_values or "[]")), a.multiple
                )
                for a in attrs
            }
            out.append(
                Vocabulary(
                    game.slug,
                    game.name,
                    attributes,
                    {k.key: k.label for k in kinds},
                    {d.code: d.name for d in decks},
                    tuple(t.key for t in texts),
                    {t.key: t.label for t in texts},
                )
            )
        return out


def view_name(slug: str) -> str:
    return f"{slug.replace('-', '_')}_cards"


# --- resolving a term for one game --------------------------------------------------------


@dataclass(frozen=True)
class Condition:
    """A term resolved for one game: what to compare, how, with which value."""

    target: str  # "name", "text" (every text), "game", or a view column
    how: str  # contains, words, exact, equal, member, compare, constant
    value: Any = None
    op: str = "="


class _Unknown(Exception):
    """A term that this game's vocabulary cannot resolve; the error if no game can."""

    def __init__(self, message: str, column: int):
        super().__init__(message)
        self.message = message
        self.column = column


def resolve(term: Term, vocab: Vocabulary) -> Condition:
    """The term as a condition on this game's cards; _Unknown when the game has no such word.

    A name the game declares wins over the generic one (BLDNG's attribute `tipo` before the
    card kind, BLITZ's text `testo` before every text); an attribute whose value is not one of
    its own falls back to the generic field of that name."""
    if not term.field:
        if term.op == "!":
            return Condition("name", "exact", words_of(term.value))
        return Condition("name", "words", term.value)
    attribute = vocab.attribute(term.field)
    generic = GENERIC.get(name_key(term.field))
    if attribute is not None:
        try:
            return _attribute_condition(term, attribute)
        except _Unknown as exc:
            if generic is None:
                raise _with_text_hint(exc, term, vocab) from None
    elif (text := vocab.text(term.field)) is not None:
        return _text_condition(term, f"text_{text}")
    if generic is None:
        raise _Unknown(f"unknown attribute '{term.field}'", term.column)
    return _generic_condition(term, generic, vocab)


def _with_text_hint(exc: _Unknown, term: Term, vocab: Vocabulary) -> _Unknown:
    """Bless's `preghiera` is an attribute and a text: a value that is not the attribute's
    points to the text's own name."""
    text = vocab.text(term.field)
    if text is None or "(did you mean" in exc.message:
        return exc
    spelled = name_key(vocab.text_labels.get(text, text))
    return _Unknown(f"{exc.message} (did you mean '{spelled}:{term.value}'?)", exc.column)


def _equality_only(term: Term, what: str) -> None:
    if term.op in ORDERING_OPS:
        raise QueryError(f"'{term.op}' compares numbers; {what} takes ':' or '!='", term.column, "")
    _no_piece(term, what)


def _no_piece(term: Term, what: str) -> None:
    if term.op == "~":
        raise QueryError(f"'~' finds a piece of a name or a text, not of {what}", term.column, "")


def _whole_number(term: Term) -> int:
    # ASCII digits only (int() would also take "1_000" and other scripts' digits)
    if re.fullmatch(r"[+-]?[0-9]+", term.value) is None:
        raise QueryError(
            f"expected a whole number after '{term.field}{term.op}'", term.value_column, ""
        )
    if len(term.value.lstrip("+-")) > LIMITS["number"]:
        raise limit_error("number", term.value_column, "")
    return int(term.value)


def _number_condition(term: Term, target: str) -> Condition:
    _no_piece(term, term.field)
    op = "=" if term.op in (":", "!=") else term.op  # "!=" is negated by the caller
    return Condition(target, "compare", _whole_number(term), op)


def _text_condition(term: Term, target: str) -> Condition:
    """Whole words (or a word's beginning, with `*`) in a text, or a piece of it with `~`."""
    if term.op == "~":
        return Condition(target, "contains", fold(term.value))
    _equality_only(term, term.field)
    return Condition(target, "words", term.value)


def _attribute_condition(term: Term, attribute: Attribute) -> Condition:
    target = attribute.key
    if attribute.type == "int":
        return _number_condition(term, target)
    if attribute.type == "str":  # a piece of it, whether asked with ':' or '~'
        if term.op != "~":
            _equality_only(term, attribute.label)
        return Condition(target, "contains", fold(term.value))
    _equality_only(term, attribute.label)
    if attribute.type == "bool":
        flag = BOOLEAN.get(fold(term.value))
        if flag is None:
            raise _Unknown(f"{attribute.label} is sì or no, not '{term.value}'", term.value_column)
        return Condition(target, "equal", int(flag))
    if attribute.type == "enum":
        value = attribute.value(term.value)
        if value is None:
            hint = closest(term.value, attribute.values)
            tip = f" (did you mean '{hint}'?)" if hint else ""
            raise _Unknown(f"unknown {attribute.label} '{term.value}'{tip}", term.value_column)
        return Condition(target, "member" if attribute.multiple else "equal", value)
    raise AssertionError(f"attribute type {attribute.type}")  # game.yaml's schema has no other


def _generic_condition(term: Term, generic: str, vocab: Vocabulary) -> Condition:
    if generic in ("copies", "number"):
        return _number_condition(term, generic)
    if generic in ("name", "text"):
        return _text_condition(term, generic)
    _equality_only(term, term.field)
    if generic == "is":
        return _is_condition(term, vocab)
    if generic == "game":
        if not vocab.matches_game(term.value):
            raise _Unknown(f"unknown game '{term.value}'", term.value_column)
        return Condition("game", "constant", True)
    if generic == "status":
        status = STATUS.get(fold(term.value))
        if status is None:
            raise QueryError(
                f"unknown status '{term.value}' (use ufficiale, ricostruito or incompleto)",
                term.value_column,
                "",
            )
        return Condition("status", "equal", status)
    if generic == "kind":
        kind = vocab.kind(term.value)
        if kind is None:
            raise _Unknown(f"unknown card kind '{term.value}'", term.value_column)
        return Condition("kind", "equal", kind)
    deck = vocab.deck(term.value)
    if deck is None:
        raise _Unknown(f"unknown deck '{term.value}'", term.value_column)
    return Condition("deck", "equal", deck)


def _is_condition(term: Term, vocab: Vocabulary) -> Condition:
    """`is:` as Scryfall's: a card's status, or one of the game's yes/no attributes."""
    status = STATUS.get(fold(term.value))
    if status is not None:
        return Condition("status", "equal", status)
    attribute = vocab.bool_attribute(term.value)
    if attribute is None:
        raise _Unknown(
            f"unknown is: value '{term.value}' (use ufficiale, ricostruito, incompleto "
            "or a yes/no attribute)",
            term.value_column,
        )
    return Condition(attribute.key, "equal", 1)


# --- compiling ----------------------------------------------------------------------------


class _Fold(GenericFunction[str]):
    """A text folded as pipeline.search.parser.fold folds it."""

    name = "cartiera_fold"
    type = String()
    inherit_cache = True


class _Words(GenericFunction[str]):
    """A text as pipeline.search.parser.words_of gives it, with a space on each side."""

    name = "cartiera_words"
    type = String()
    inherit_cache = True


_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_FOLD_FROM = _UPPER + "".join(ACCENTS)
_FOLD_TO = _UPPER.lower() + "".join(ACCENTS.values())


@compiles(_Fold, "postgresql")
def _fold_pg(element: _Fold, compiler: Any, **kw: Any) -> str:
    # translate() maps character by character: exactly the fold table and ASCII lower case
    arg = compiler.process(element.clauses, **kw)
    return f"translate({arg}, {_quote(_FOLD_FROM)}, {_quote(_FOLD_TO)})"


@compiles(_Words, "postgresql")
def _words_pg(element: _Words, compiler: Any, **kw: Any) -> str:
    arg = compiler.process(element.clauses, **kw)
    folded = f"translate(coalesce({arg}, ''), {_quote(_FOLD_FROM)}, {_quote(_FOLD_TO)})"
    # characters beyond the length of the target string are dropped by translate()
    spaced = f"translate({folded}, {_quote(SPACES + DROPPED)}, {_quote(' ' * len(SPACES))})"
    return f"(' ' || btrim(regexp_replace({spaced}, ' +', ' ', 'g')) || ' ')"


def _quote(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _sqlite_words(text: str | None) -> str:
    return f" {words_of(text or '')} "


def _register_sqlite_functions(conn: Any) -> None:
    """SQLite has no translate(): the same folding, as functions of this connection."""
    raw = conn.connection.driver_connection
    raw.create_function("cartiera_fold", 1, lambda t: None if t is None else fold(t),
                        deterministic=True)  # fmt: skip
    raw.create_function("cartiera_words", 1, _sqlite_words, deterministic=True)


def _fold_sql(expr: Any, collation: str | None = None) -> Any:
    folded = _Fold(expr)
    return folded.collate(collation) if collation else folded


def _words_sql(expr: Any) -> Any:
    return _Words(expr)


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _truthy(expr: Any) -> ColumnElement[bool]:
    """Comparisons with NULL (a card without that attribute) are false, never unknown."""
    return func.coalesce(expr, false()) == true()


class _Compiler:
    def __init__(self, vocab: Vocabulary, view: Any, collation: str | None):
        self.vocab = vocab
        self.view = view
        self.collation = collation  # for sorting text: byte order on every database

    def node(self, node: Node) -> ColumnElement[bool]:
        if isinstance(node, Term):
            return self.term(node)
        if isinstance(node, Not):
            return not_(self.node(node.node))
        parts = [self.node(n) for n in node.nodes]
        return or_(*parts) if isinstance(node, Any_) else and_(*parts)

    def term(self, term: Term) -> ColumnElement[bool]:
        try:
            cond = resolve(term, self.vocab)
        except _Unknown:
            return false()
        negate = term.op == "!="
        expr = self.condition(cond)
        return not_(expr) if negate else expr

    def condition(self, cond: Condition) -> ColumnElement[bool]:
        c = self.view.c
        if cond.how == "constant":
            return true() if cond.value else false()
        if cond.how == "contains":
            pattern = f"%{_like_escape(cond.value)}%"
            found = [
                _truthy(_fold_sql(column_).like(pattern, escape="\\"))
                for column_ in self.columns(cond.target)
            ]
            return or_(*found) if found else false()
        if cond.how == "words":
            return self.words(cond.target, cond.value)
        if cond.how == "exact":
            return _truthy(_words_sql(c[cond.target]) == f" {cond.value} ")
        if cond.how == "member":
            joined = literal(", ") + c[cond.target] + literal(", ")
            pattern = f"%, {_like_escape(cond.value)}, %"
            return _truthy(joined.like(pattern, escape="\\"))
        column_ = c[cond.target]
        ops = {
            "=": column_.__eq__,
            ">=": column_.__ge__,
            "<=": column_.__le__,
            ">": column_.__gt__,
            "<": column_.__lt__,
        }
        return _truthy(ops[cond.op](cond.value))

    def columns(self, target: str) -> list[Any]:
        """The view columns a name or text condition reads: "text" is every text."""
        if target == "text":
            return [self.view.c[f"text_{key}"] for key in self.vocab.texts]
        return [self.view.c[target]]

    def words(self, target: str, raw: str) -> ColumnElement[bool]:
        prefix = raw.endswith("*")
        wanted = words_of(raw.rstrip("*"))
        columns = self.columns(target)
        if not wanted or not columns:
            return false()
        pattern = f"% {_like_escape(wanted)}{'%' if prefix else ' %'}"
        return or_(
            *(_truthy(_words_sql(column_).like(pattern, escape="\\")) for column_ in columns)
        )

    def sort_values(self, key: SortKey) -> tuple[Any, Any]:
        """(number, text) to sort by for this game; NULL where the game has no such field."""
        c = self.view.c
        generic = GENERIC.get(name_key(key.field))
        attribute = self.vocab.attribute(key.field)
        none_int, none_text = cast(null(), Integer), cast(null(), String)
        if attribute is not None:
            col = c[attribute.key]
            if attribute.type in ("int", "bool"):
                return cast(col, Integer), none_text
            return none_int, _fold_sql(col, self.collation)
        if generic in ("copies", "number"):
            return cast(c[generic], Integer), none_text
        if generic in ("name", "kind", "deck", "status"):
            return none_int, _fold_sql(c[generic], self.collation)
        if generic == "game":
            return none_int, literal(self.vocab.slug)
        return none_int, none_text


def _check_terms(
    node: Node | None, games: Sequence[Vocabulary], everyone: Sequence[Vocabulary], text: str
) -> None:
    """A word that no game in scope understands is an error, with the nearest name; a game
    is named among all the database's games (naming another game finds nothing)."""
    if node is None:
        return
    if isinstance(node, Not):
        _check_terms(node.node, games, everyone, text)
        return
    if isinstance(node, Term):
        first: _Unknown | None = None
        is_game = bool(node.field) and GENERIC.get(name_key(node.field)) == "game"
        for vocab in everyone if is_game else games:
            try:
                resolve(node, vocab)
                return
            except _Unknown as exc:
                first = first or exc
            except QueryError as exc:
                raise QueryError(exc.message, exc.column, text) from None
        assert first is not None
        message = first.message
        if message.startswith("unknown attribute"):
            hint = closest(node.field, field_names(games))
            message += f" (did you mean '{hint}'?)" if hint else ""
        raise QueryError(message, first.column, text)
    for child in node.nodes:
        _check_terms(child, games, everyone, text)


def _check_sort(sort: Sequence[SortKey], games: Sequence[Vocabulary], text: str) -> None:
    sortable = {"copies", "number", "name", "kind", "deck", "status", "game"}
    for key in sort:
        if GENERIC.get(name_key(key.field)) in sortable:
            continue
        if any(v.attribute(key.field) for v in games):
            continue
        hint = closest(key.field, field_names(games))
        tip = f" (did you mean '{hint}'?)" if hint else ""
        raise QueryError(f"cannot sort by unknown field '{key.field}'{tip}", key.column, text)


def compile_query(
    query: Query,
    games: Sequence[Vocabulary],
    extra: Sequence[str] = (),
    collation: str | None = None,
    everyone: Sequence[Vocabulary] | None = None,
) -> Any:
    """One SELECT … UNION ALL … statement over `games` (of `everyone` in the database);
    `extra` adds view columns (one game only); `collation` names the database's byte-order
    collation where it is not the default."""
    if not games:
        raise QueryError("no game to search", 1, query.text)
    _check_terms(query.where, games, everyone or games, query.text)
    _check_sort(query.sort, games, query.text)
    selects = []
    for position, vocab in enumerate(games):
        names = [*COLUMNS[1:], *vocab.attributes, *(f"text_{t}" for t in vocab.texts)]
        view = table(view_name(vocab.slug), *(column(n) for n in names))
        compiler = _Compiler(vocab, view, collation)
        cols: list[Any] = [literal(vocab.slug).label("game")]
        cols += [view.c[n] for n in (*COLUMNS[1:], *extra)]
        cols.append(literal(position).label("game_position"))
        for i, key in enumerate(query.sort):
            number, text = compiler.sort_values(key)
            cols += [number.label(f"sort_{i}_n"), text.label(f"sort_{i}_t")]
        stmt = select(*cols).select_from(view)
        if query.where is not None:
            stmt = stmt.where(compiler.node(query.where))
        selects.append(stmt)
    union = union_all(*selects).subquery("found") if len(selects) > 1 else selects[0].subquery()
    order: list[Any] = []
    for i, key in enumerate(query.sort):
        n, t = union.c[f"sort_{i}_n"], union.c[f"sort_{i}_t"]
        # NULLs sort last everywhere (SQLite and PostgreSQL disagree on where they go)
        order += [and_(n.is_(None), t.is_(None)), n.is_(None)]
        order += [n.desc(), t.desc()] if key.descending else [n, t]
    order += [union.c.game_position, union.c.number, union.c.deck]
    return select(*(union.c[n] for n in (*COLUMNS, *extra))).order_by(*order)


@dataclass(frozen=True)
class SearchResult:
    query: Query
    columns: tuple[str, ...]
    rows: list[dict[str, Any]]
    total: int  # the cards found, of which `rows` holds the first (all, with no limit)


class Searcher:
    """Searches one database; reads its games' vocabularies once."""

    def __init__(self, db: Engine):
        self.db = db
        self.games = vocabularies(db)

    def search(self, text: str, game: str | None = None, limit: int | None = None) -> SearchResult:
        """The cards that `text` finds in the game `game`, or in every game."""
        query = parse(text)
        games = self.games
        if game is not None:
            games = [v for v in games if v.slug == game]
            if not games:
                raise QueryError(f"the database holds no game '{game}'", 1, text)
        extra = tuple(games[0].attributes) if len(games) == 1 else ()
        collation = "C" if self.db.dialect.name == "postgresql" else None
        stmt = compile_query(query, games, extra, collation, self.games)
        with self.db.connect() as conn:
            if self.db.dialect.name == "sqlite":
                _register_sqlite_functions(conn)
            limited = stmt if limit is None else stmt.limit(limit)
            rows = [dict(r._mapping) for r in conn.execute(limited)]
            total = len(rows)
            if limit is not None and total == limit:
                counted = select(func.count()).select_from(stmt.subquery())
                total = conn.execute(counted).scalar_one()
        return SearchResult(query, (*COLUMNS, *extra), rows, total)


def search(
    db: Engine | str | os.PathLike[str],
    text: str,
    game: str | None = None,
    limit: int | None = None,
) -> SearchResult:
    """The cards that `text` finds, in the game `game` or in every game of the database.

    `db` is what `cartiera --db` takes (a SQLAlchemy URL or a SQLite file path) or an open
    Engine; a database that cannot be read is a SourceError, as on the command line."""
    if isinstance(db, Engine):
        return Searcher(db).search(text, game, limit)
    from pipeline.common.project import Project, database_url
    from pipeline.database.connection import open_project_db

    with open_project_db(Project(Path.cwd(), database_url(db))) as engine:
        return Searcher(engine).search(text, game, limit)


def browser_index(db: Engine) -> dict[str, Any]:
    """What site/assets/query.js needs to run the same queries in the browser: the folding
    tables, each game's vocabulary, and every card's searchable values."""
    games = vocabularies(db)
    out = []
    with db.connect() as conn:
        for vocab in games:
            names = [*COLUMNS[1:], *vocab.attributes, *(f"text_{t}" for t in vocab.texts)]
            view = table(view_name(vocab.slug), *(column(n) for n in names))
            rows = conn.execute(select(view).order_by(view.c.number, view.c.deck)).mappings()
            cards = []
            for row in rows:
                cards.append(
                    {
                        **{k: row[k] for k in COLUMNS[1:]},
                        "attributes": {k: row[k] for k in vocab.attributes},
                        "texts": [row[f"text_{t}"] or "" for t in vocab.texts],
                    }
                )
            out.append({**vocab.to_json(), "cards": cards})
    return {
        "format": 1,
        "fold": {"accents": ACCENTS, "spaces": SPACES, "dropped": DROPPED},
        "generic": GENERIC,
        "status": STATUS,
        "boolean": {k: bool(v) for k, v in BOOLEAN.items()},
        "limits": LIMITS,
        "games": out,
    }


def render(result: SearchResult, fmt: str) -> str:
    """The found cards as json, csv or ids (one `game/code` per line); `table` is drawn by
    the CLI with rich, from `result` itself."""
    if fmt == "json":
        return json.dumps(result.rows, ensure_ascii=False, indent=2) + "\n"
    if fmt == "ids":
        return "".join(f"{r['game']}/{r['code']}\n" for r in result.rows)
    out = io.StringIO()
    writer = csv.DictWriter(out, fieldnames=list(result.columns), lineterminator="\n")
    writer.writeheader()
    writer.writerows(result.rows)
    return out.getvalue()
