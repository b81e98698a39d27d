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

import contextlib
import csv
import io
import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from sqlalchemy import Engine

from pipeline.database.reader import Reader, open_project_reader
from pipeline.database.tables import view_name

from .parser import (
    ACCENTS,
    BOOLEAN,
    DROPPED,
    GENERIC,
    LIMITS,
    SPACES,
    STATUS,
    All,
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


def vocabularies(db: Reader) -> list[Vocabulary]:
    """Every game's query vocabulary, read from the declarations stored in the database."""

    def declared(table: str) -> dict[int, list[dict[str, Any]]]:
        by_game: dict[int, list[dict[str, Any]]] = {}
        for row in db.rows(f"SELECT * FROM {table} ORDER BY game_id, position"):
            by_game.setdefault(row["game_id"], []).append(row)
        return by_game

    attrs, texts = declared("attributedef"), declared("textdef")
    kinds, decks = declared("cardkind"), declared("deck")
    out = []
    for game in db.rows("SELECT id, slug, name FROM game ORDER BY position"):
        attributes = {
            a["key"]: Attribute(
                a["key"],
                a["label"],
                a["type"],
                tuple(json.loads(a["enum_values"] or "[]")),
                bool(a["multiple"]),
            )
            for a in attrs.get(game["id"], [])
        }
        game_texts = texts.get(game["id"], [])
        out.append(
            Vocabulary(
                game["slug"],
                game["name"],
                attributes,
                {k["key"]: k["label"] for k in kinds.get(game["id"], [])},
                {d["code"]: d["name"] for d in decks.get(game["id"], [])},
                tuple(t["key"] for t in game_texts),
                {t["key"]: t["label"] for t in game_texts},
            )
        )
    return out


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


_UPPER = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
_FOLD_FROM = _UPPER + "".join(ACCENTS)
_FOLD_TO = _UPPER.lower() + "".join(ACCENTS.values())


def _sqlite_fold(text: str | None) -> str | None:
    return None if text is None else fold(text)


def _sqlite_words(text: str | None) -> str:
    return f" {words_of(text or '')} "


# SQLite has no translate(): the folding, as functions of the connection
SQLITE_FUNCTIONS = {"cartiera_fold": _sqlite_fold, "cartiera_words": _sqlite_words}


def _like_escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def _identifier(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@dataclass(frozen=True)
class Statement:
    """SQL text and its named parameters: every value from the query or the database (the
    user's words, the games' slugs, the folding tables) is a parameter, so nothing of the
    query's text is ever spliced into the SQL."""

    sql: str
    params: dict[str, Any]


class _Writer:
    """Writes one statement's SQL for one database, numbering its parameters."""

    def __init__(self, db: Reader):
        self.db = db
        self.dialect = db.dialect
        self.params: dict[str, Any] = {}
        self.true, self.false = ("true", "false") if self.dialect == "postgresql" else ("1", "0")

    def param(self, value: Any) -> str:
        name = f"p{len(self.params)}"
        self.params[name] = value
        return self.db.placeholder(name)

    def fold(self, expr: str, collation: str | None = None) -> str:
        """A text folded as pipeline.search.parser.fold folds it."""
        if self.dialect == "postgresql":
            # translate() maps character by character: exactly the fold table and ASCII
            # lower case
            folded = f"translate({expr}, {self.param(_FOLD_FROM)}, {self.param(_FOLD_TO)})"
        else:
            folded = f"cartiera_fold({expr})"
        return f"{folded} COLLATE {_identifier(collation)}" if collation else folded

    def words(self, expr: str) -> str:
        """A text as pipeline.search.parser.words_of gives it, with a space on each side."""
        if self.dialect != "postgresql":
            return f"cartiera_words({expr})"
        folded = self.fold(f"coalesce({expr}, '')")
        # characters beyond the length of the target string are dropped by translate()
        spaces = self.param(SPACES + DROPPED)
        spaced = f"translate({folded}, {spaces}, {self.param(' ' * len(SPACES))})"
        return f"(' ' || btrim(regexp_replace({spaced}, ' +', ' ', 'g')) || ' ')"

    def truthy(self, expr: str) -> str:
        """Comparisons with NULL (a card without that attribute) are false, never unknown."""
        return f"coalesce({expr}, {self.false}) = {self.true}"

    def like(self, expr: str, pattern: str) -> str:
        return self.truthy(f"{expr} LIKE {self.param(pattern)} ESCAPE '\\'")

    def any_of(self, parts: Sequence[str]) -> str:
        return "(" + " OR ".join(parts) + ")" if parts else self.false

    def all_of(self, parts: Sequence[str]) -> str:
        return "(" + " AND ".join(parts) + ")" if parts else self.true


class _Compiler:
    def __init__(self, vocab: Vocabulary, out: _Writer, collation: str | None):
        self.vocab = vocab
        self.out = out
        self.collation = collation  # for sorting text: byte order on every database

    def node(self, node: Node) -> str:
        if isinstance(node, Term):
            return self.term(node)
        if isinstance(node, Not):
            return f"NOT ({self.node(node.node)})"
        parts = [self.node(n) for n in node.nodes]
        return self.out.any_of(parts) if isinstance(node, Any_) else self.out.all_of(parts)

    def term(self, term: Term) -> str:
        try:
            cond = resolve(term, self.vocab)
        except _Unknown:
            return self.out.false
        expr = self.condition(cond)
        return f"NOT ({expr})" if term.op == "!=" else f"({expr})"

    def condition(self, cond: Condition) -> str:
        out = self.out
        if cond.how == "constant":
            return out.true if cond.value else out.false
        if cond.how == "contains":
            pattern = f"%{_like_escape(cond.value)}%"
            return out.any_of([out.like(out.fold(c), pattern) for c in self.columns(cond.target)])
        if cond.how == "words":
            return self.words(cond.target, cond.value)
        column = _identifier(cond.target)
        if cond.how == "exact":
            return out.truthy(f"{out.words(column)} = {out.param(f' {cond.value} ')}")
        if cond.how == "member":
            pattern = f"%, {_like_escape(cond.value)}, %"
            return out.like(f"(', ' || {column} || ', ')", pattern)
        assert cond.op in ("=", *ORDERING_OPS)
        return out.truthy(f"{column} {cond.op} {out.param(cond.value)}")

    def columns(self, target: str) -> list[str]:
        """The view columns a name or text condition reads: "text" is every text."""
        if target == "text":
            return [_identifier(f"text_{key}") for key in self.vocab.texts]
        return [_identifier(target)]

    def words(self, target: str, raw: str) -> str:
        prefix = raw.endswith("*")
        wanted = words_of(raw.rstrip("*"))
        columns = self.columns(target)
        if not wanted or not columns:
            return self.out.false
        pattern = f"% {_like_escape(wanted)}{'%' if prefix else ' %'}"
        return self.out.any_of([self.out.like(self.out.words(c), pattern) for c in columns])

    def sort_values(self, key: SortKey) -> tuple[str, str]:
        """(number, text) to sort by for this game; NULL where the game has no such field."""
        generic = GENERIC.get(name_key(key.field))
        attribute = self.vocab.attribute(key.field)
        none_int, none_text = "CAST(NULL AS INTEGER)", "CAST(NULL AS VARCHAR)"
        if attribute is not None:
            column = _identifier(attribute.key)
            if attribute.type in ("int", "bool"):
                return f"CAST({column} AS INTEGER)", none_text
            return none_int, self.out.fold(column, self.collation)
        if generic in ("copies", "number"):
            return f"CAST({_identifier(generic)} AS INTEGER)", none_text
        if generic in ("name", "kind", "deck", "status"):
            return none_int, self.out.fold(_identifier(generic), self.collation)
        if generic == "game":
            return none_int, f"CAST({self.out.param(self.vocab.slug)} AS VARCHAR)"
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


def named_attributes(query: Query, games: Sequence[Vocabulary]) -> tuple[str, ...]:
    """The attributes a query tests or sorts by, in the order it names them: the columns a
    search over several games shows beside the fixed ones. An attribute that two games
    store differently (a number in one, a word in another) is left out, as is one that
    shares its name with a fixed column."""
    found: dict[str, set[bool]] = {}

    def add(vocab: Vocabulary, key: str) -> None:
        if key in vocab.attributes and key not in COLUMNS:
            number = vocab.attributes[key].type in ("int", "bool")
            found.setdefault(key, set()).add(number)

    def walk(node: Node | None) -> None:
        if isinstance(node, Term) and node.field:
            for vocab in games:  # the attribute the term tests there, not a generic field
                with contextlib.suppress(_Unknown, QueryError):
                    add(vocab, resolve(node, vocab).target)
        elif isinstance(node, Not):
            walk(node.node)
        elif isinstance(node, All | Any_):
            for child in node.nodes:
                walk(child)

    walk(query.where)
    for key in query.sort:
        for vocab in games:
            attribute = vocab.attribute(key.field)
            if attribute is not None:
                add(vocab, attribute.key)
    return tuple(key for key, kinds in found.items() if len(kinds) == 1)


def compile_query(
    query: Query,
    games: Sequence[Vocabulary],
    db: Reader,
    extra: Sequence[str] = (),
    everyone: Sequence[Vocabulary] | None = None,
) -> Statement:
    """One SELECT … UNION ALL … statement over `games` (of `everyone` in the database), in
    the SQL of `db`; `extra` adds attribute columns, empty in a game without them."""
    if not games:
        raise QueryError("no game to search", 1, query.text)
    _check_terms(query.where, games, everyone or games, query.text)
    _check_sort(query.sort, games, query.text)
    out = _Writer(db)
    # PostgreSQL sorts text by the locale's rules unless told byte order (SQLite's default)
    collation = "C" if db.dialect == "postgresql" else None
    selects = []
    for position, vocab in enumerate(games):
        compiler = _Compiler(vocab, out, collation)
        cols = [f"CAST({out.param(vocab.slug)} AS VARCHAR) AS game"]
        cols += [_identifier(n) for n in COLUMNS[1:]]
        cols += [_identifier(n) if n in vocab.attributes else _missing(n, games) for n in extra]
        cols.append(f"{position:d} AS game_position")
        for i, key in enumerate(query.sort):
            number, text = compiler.sort_values(key)
            cols += [f"{number} AS sort_{i}_n", f"{text} AS sort_{i}_t"]
        where = "" if query.where is None else f" WHERE {compiler.node(query.where)}"
        view = _identifier(view_name(vocab.slug))
        selects.append(f"SELECT {', '.join(cols)} FROM {view}{where}")
    order: list[str] = []
    for i, key in enumerate(query.sort):
        n, t = f"found.sort_{i}_n", f"found.sort_{i}_t"
        # NULLs sort last everywhere (SQLite and PostgreSQL disagree on where they go)
        order += [f"({n} IS NULL AND {t} IS NULL)", f"({n} IS NULL)"]
        order += [f"{n} DESC", f"{t} DESC"] if key.descending else [n, t]
    order += ["found.game_position", "found.number", "found.deck"]
    shown = ", ".join(f"found.{_identifier(n)}" for n in (*COLUMNS, *extra))
    union = " UNION ALL ".join(selects)
    sql = f"SELECT {shown} FROM ({union}) AS found ORDER BY {', '.join(order)}"
    return Statement(sql, out.params)


def _missing(key: str, games: Sequence[Vocabulary]) -> str:
    """An attribute column for a game that has no such attribute: NULL of the type the
    other games store it as, so that PostgreSQL's UNION agrees on the column's type."""
    number = any(v.attributes[key].type in ("int", "bool") for v in games if key in v.attributes)
    return f"CAST(NULL AS {'BIGINT' if number else 'VARCHAR'}) AS {_identifier(key)}"


@dataclass(frozen=True)
class SearchResult:
    query: Query
    columns: tuple[str, ...]
    rows: list[dict[str, Any]]
    total: int  # the cards found, of which `rows` holds the first (all, with no limit)


class Searcher:
    """Searches one database; reads its games' vocabularies once."""

    def __init__(self, db: Reader | Engine):
        self.db = db if isinstance(db, Reader) else Reader(db)
        self.games = vocabularies(self.db)

    def search(self, text: str, game: str | None = None, limit: int | None = None) -> SearchResult:
        """The cards that `text` finds in the game `game`, or in every game."""
        query = parse(text)
        games = self.games
        if game is not None:
            games = [v for v in games if v.slug == game]
            if not games:
                raise QueryError(f"the database holds no game '{game}'", 1, text)
        # one game: all its attributes; several: those the query names
        extra = tuple(games[0].attributes) if len(games) == 1 else named_attributes(query, games)
        stmt = compile_query(query, games, self.db, extra, self.games)
        sql, params = stmt.sql, dict(stmt.params)
        if limit is not None:
            params["limit"] = limit
            sql += f" LIMIT {self.db.placeholder('limit')}"
        rows = self.db.rows(sql, params, SQLITE_FUNCTIONS)
        total = len(rows)
        if limit is not None and total == limit:
            counted = f"SELECT count(*) AS n FROM ({stmt.sql}) AS counted"
            total = self.db.rows(counted, stmt.params, SQLITE_FUNCTIONS)[0]["n"]
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
    if not isinstance(db, str | os.PathLike):
        return Searcher(db).search(text, game, limit)
    from pipeline.common.project import Project, database_url

    with open_project_reader(Project(Path.cwd(), database_url(db))) as reader:
        return Searcher(reader).search(text, game, limit)


def browser_index(db: Reader | Engine) -> dict[str, Any]:
    """What site/assets/query.js needs to run the same queries in the browser: the folding
    tables, each game's vocabulary, and every card's searchable values."""
    reader = db if isinstance(db, Reader) else Reader(db)
    out = []
    for vocab in vocabularies(reader):
        view = _identifier(view_name(vocab.slug))
        cards = []
        for row in reader.rows(f"SELECT * FROM {view} ORDER BY number, deck"):
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
