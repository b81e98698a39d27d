"""Writing cards.db from loaded games: all or nothing, deterministic, with one view per game."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import tempfile
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any, cast

from sqlalchemy import Connection, Engine, Table, insert, inspect, text
from sqlmodel import SQLModel, create_engine

from pipeline.common.lock import holding_lock
from pipeline.common.output import publish
from pipeline.common.problems import Problem, SourceError
from pipeline.common.project import Project
from pipeline.sources import gamespec, rule_text
from pipeline.sources.load import LoadedGame, canonical_json
from pipeline.sources.rule_text import term_anchor

from . import models
from .connection import clear_errors, open_database, schema_problem, shown
from .shared import Claim, conflict, lines_digest, read_record, this_build

Stage = Callable[[str, Project, Sequence[LoadedGame]], list[str]]
"""A step run on a freshly written database (its URL) before it is published, e.g. playing
and storing the worked examples (pipeline.play.records.DB_STAGES); returns warnings."""


@holding_lock("db build")
def build_database(
    project: Project, games: Sequence[LoadedGame], stages: Sequence[Stage] = (), force: bool = False
) -> list[str]:
    """Write every game into the project's database; only valid games reach this point.

    A SQLite file is written beside the old one and renamed into place, so a failure at any
    step leaves the old database byte for byte as it was. Other databases (a team's
    PostgreSQL server) are rebuilt inside one transaction, serialised by an advisory lock,
    so a failure leaves them as they were and two builds at once never mix; content that
    another project built from other sources is replaced only with `force`
    (pipeline.database.shared).
    """
    with fresh_database(project, games, stages) as (fresh, warnings):
        _install(project, fresh, games, force)
    return warnings


@contextlib.contextmanager
def fresh_database(
    project: Project, games: Sequence[LoadedGame], stages: Sequence[Stage]
) -> Iterator[tuple[Path, list[str]]]:
    """A complete SQLite database of the games (write_sqlite), with the warnings of its
    stages, removed on leaving unless _install() renamed it into place. It is written
    beside the project's SQLite file, so that renaming it there is atomic; for a server,
    in a temporary folder (any other database receives exactly the rows of a SQLite
    database built first, worked examples included). Only valid games are written."""
    bad = [g.slug for g in games if not g.ok]
    if bad:
        raise SourceError(
            Problem(
                "error",
                f"not writing the database: {', '.join(bad)} has errors",
                hint="run `cartiera validate` and fix them",
            )
        )
    path = project.sqlite_path
    with contextlib.ExitStack() as stack:
        if path is None:
            fresh = Path(stack.enter_context(tempfile.TemporaryDirectory())) / "fresh.db"
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
            os.close(fd)
            fresh = Path(name)
            stack.callback(fresh.unlink, missing_ok=True)
        yield fresh, write_sqlite(fresh, games, project, stages)


def _install(
    project: Project,
    fresh: Path,
    games: Sequence[LoadedGame],
    force: bool,
    digest: str | None = None,
) -> None:
    """Make a fresh_database() the project's database: renamed over the SQLite file, or
    copied into the server in one transaction (`digest`: its sqlite_digest(), if known).
    The caller holds the project's lock from before the fresh database was written: taking
    it removes the temporary files of killed writers, which would include this one."""
    if project.sqlite_path is not None:
        publish(fresh, project.sqlite_path)
        return
    mine = this_build(project, digest or sqlite_digest(fresh))
    claim = Claim(shown(project.db_url), mine, force)
    copy_database(fresh, project.db_url, games, claim)


def write_sqlite(
    path: Path,
    games: Sequence[LoadedGame],
    project: Project | None = None,
    stages: Sequence[Stage] = (),
) -> list[str]:
    """A complete SQLite database; with `project`, the `stages` then run on it (the worked
    examples are played with the cards of this very database and stored)."""
    path.unlink(missing_ok=True)
    engine = create_engine(f"sqlite:///{path}")
    try:
        SQLModel.metadata.create_all(engine)
        with engine.begin() as conn:
            _fill(games).insert(conn)
        with engine.begin() as conn:
            _create_views(conn, games)
    finally:
        engine.dispose()
    url = f"sqlite:///{path}"
    warnings = [w for stage in stages for w in stage(url, project, games)] if project else []
    with contextlib.closing(sqlite3.connect(path)) as conn:
        conn.execute("VACUUM")  # a compact file whose bytes depend only on its content
    return warnings


def _fill(games: Sequence[LoadedGame]) -> _Rows:
    """Every row of the games, in a fixed order with explicit ids: same sources, same
    database."""
    ids = _Ids()
    rows = _Rows()
    for position, loaded in enumerate(games):
        game = loaded.game
        assert game is not None
        game_id = ids.next("game")
        rows.add(
            models.Game,
            id=game_id,
            slug=game.slug,
            name=game.name,
            subtitle=game.subtitle,
            players_min=game.players.min,
            players_max=game.players.max,
            age=game.age,
            duration=game.duration,
            publisher=game.publisher,
            designers=canonical_json(game.designers),
            card_size=game.card_size,
            status=game.status,
            status_note=game.status_note,
            description=game.description,
            position=position,
        )
        for pos, (key, attr) in enumerate(game.attributes.items()):
            rows.add(
                models.AttributeDef,
                id=ids.next("attr"),
                game_id=game_id,
                key=key,
                label=attr.label,
                type=attr.type,
                enum_values=canonical_json(attr.values) if attr.values else None,
                min=attr.min,
                max=attr.max,
                multiple=attr.multiple,
                description=attr.description,
                position=pos,
            )
        for pos, (key, tdef) in enumerate(game.texts.items()):
            rows.add(
                models.TextDef,
                id=ids.next("text"),
                game_id=game_id,
                key=key,
                label=tdef.label,
                description=tdef.description,
                position=pos,
            )
        for pos, (key, kind) in enumerate(game.kinds.items()):
            rows.add(
                models.CardKind,
                id=ids.next("kind"),
                game_id=game_id,
                key=key,
                label=kind.label,
                attributes=canonical_json(kind.attributes),
                optional=canonical_json(kind.optional),
                texts=canonical_json(kind.texts),
                description=kind.description,
                position=pos,
            )
        for path, digest in source_files(loaded.docs["game.yaml"].path.parent).items():
            rows.add(
                models.SourceFile,
                id=ids.next("sourcefile"),
                game_id=game_id,
                path=path,
                sha256=digest,
            )
        deck_ids: dict[str, int] = {}
        for pos, (key, deck) in enumerate(game.decks.items()):
            deck_ids[key] = ids.next("deck")
            rows.add(
                models.Deck,
                id=deck_ids[key],
                game_id=game_id,
                code=key,
                name=deck.name,
                status=deck.status,
                expected_total=deck.total,
                expected_kinds=canonical_json(deck.kinds),
                note=deck.note,
                position=pos,
            )
        for pos, comp in enumerate(game.components):
            rows.add(
                models.Component,
                id=ids.next("component"),
                game_id=game_id,
                code=comp.id,
                name=comp.name,
                quantity=comp.quantity,
                note=comp.note,
                position=pos,
            )
        card_ids: dict[str, int] = {}
        for card in sorted(loaded.cards, key=lambda c: c.number):
            card_id = card_ids[card.id] = ids.next("card")
            rows.add(
                models.Card,
                id=card_id,
                game_id=game_id,
                number=card.number,
                code=card.id,
                name=card.name,
                kind=card.kind,
                status=loaded.card_status(card),
                data=None if card.data is None else canonical_json(card.data),
                note=card.note,
            )
            rows.add(
                models.DeckCard,
                deck_id=deck_ids[loaded.deck_of(card)],
                card_id=card_id,
                copies=card.copies,
            )
            for key, value in sorted(card.attributes.items()):
                cell = gamespec.to_cell(game.attributes[key], value)
                is_int = game.attributes[key].type in ("int", "bool")
                rows.add(
                    models.CardAttribute,
                    card_id=card_id,
                    key=key,
                    value_int=cell if isinstance(cell, int) and is_int else None,
                    value_text=cell if isinstance(cell, str) and not is_int else None,
                )
            for key, value in sorted(card.text.items()):
                rows.add(models.CardText, card_id=card_id, key=key, text=value)
        _fill_rules(rows, ids, game_id, loaded)
        for pos, ruling in enumerate(loaded.rulings):
            ruling_id = ids.next("ruling")
            rows.add(
                models.Ruling,
                id=ruling_id,
                game_id=game_id,
                code=ruling.id,
                question=ruling.question,
                answer=ruling.answer,
                source=ruling.source,
                position=pos,
            )
            for card_code in sorted(set(ruling.cards)):
                rows.add(models.RulingCard, ruling_id=ruling_id, card_id=card_ids[card_code])
            for anchor in sorted(set(ruling.clauses)):
                rows.add(models.RulingClause, ruling_id=ruling_id, anchor=anchor)
    return rows


def source_files(folder: Path) -> dict[str, str]:
    """Every file of a game's folder (hidden ones aside), by path relative to it, with the
    sha256 of its content."""
    return {
        path.relative_to(folder).as_posix(): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
        and not any(part.startswith(".") for part in path.relative_to(folder).parts)
    }


def _fill_rules(rows: _Rows, ids: _Ids, game_id: int, loaded: LoadedGame) -> None:
    """Sections and clauses in reading order, glossary terms and where each is used."""
    section_ids: dict[str, int] = {}
    for pos, clause in enumerate(loaded.clauses):
        section_id = section_ids[clause.number] = ids.next("rulesection")
        parent = section_ids.get(clause.parent_number or "")
        rows.add(
            models.RuleSection,
            id=section_id,
            game_id=game_id,
            parent_id=parent,
            number=clause.number,
            anchor=clause.anchor,
            title=clause.title,
            level=clause.level,
            body_md=clause.body_md,
            position=pos,
        )
    for pos, term in enumerate(loaded.terms):
        term_id = ids.next("glossaryterm")
        rows.add(
            models.GlossaryTerm,
            id=term_id,
            game_id=game_id,
            term=term.term,
            anchor=term_anchor(term.term),
            kind=term.kind,
            definition_md=term.definition,
            forms=canonical_json(term.words),
            clause=term.clause,
            position=pos,
        )
        pattern = rule_text.term_pattern(term)
        for clause in loaded.clauses:
            # a clause that holds none of the forms cannot match the pattern: the substring
            # test first makes this loop four times faster (9,000 pairs in the five games)
            if not any(w in clause.title or w in clause.body_md for w in term.words):
                continue
            if pattern.search(clause.title) or pattern.search(clause.body_md):
                rows.add(models.GlossaryUse, term_id=term_id, section_id=section_ids[clause.number])


class _Rows:
    """The rows of a new database, each table's in the order they were added, inserted
    with one executemany a table. Making ORM objects and flushing them through a session
    was half of writing the database (0.33 s of some 0.6 s for the five games). A row is
    checked as the model's constructor would: a field the model lacks, or a required one
    missing, is an error; the others take the model's defaults."""

    def __init__(self) -> None:
        self._tables: dict[type[SQLModel], list[dict[str, Any]]] = {}

    def add(self, model: type[SQLModel], **values: Any) -> None:
        fields = model.model_fields
        unknown = values.keys() - fields.keys()
        if unknown:
            raise TypeError(f"{model.__name__} has no field {sorted(unknown)[0]}")
        row = {}
        for name, info in fields.items():
            if name in values:
                row[name] = values[name]
            elif info.is_required():
                raise TypeError(f"{model.__name__} needs {name}")
            else:
                row[name] = info.get_default(call_default_factory=True)
        self._tables.setdefault(model, []).append(row)

    def insert(self, conn: Connection) -> None:
        """Insert every table's rows, each table after those it refers to."""
        order = {table.name: n for n, table in enumerate(SQLModel.metadata.sorted_tables)}
        for model in sorted(self._tables, key=lambda m: order[_table(m).name]):
            conn.execute(insert(_table(model)), self._tables[model])


def _table(model: type[SQLModel]) -> Table:
    return cast(Table, model.__table__)  # type: ignore[attr-defined]


class _Ids:
    def __init__(self) -> None:
        self._last: dict[str, int] = {}

    def next(self, table: str) -> int:
        self._last[table] = self._last.get(table, 0) + 1
        return self._last[table]


def _quote(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def view_sql(loaded: LoadedGame) -> str:
    """The game's card view: one row per distinct card, one real column per attribute."""
    game = loaded.game
    assert game is not None
    slug = game.slug.replace("'", "''")
    columns = [
        "c.number AS number",
        "c.code AS code",
        "c.name AS name",
        "c.kind AS kind",
        "dc.copies AS copies",
        "d.code AS deck",
        "c.status AS status",
    ]
    for key, attr in game.attributes.items():
        value = "a.value_int" if attr.type in ("int", "bool") else "a.value_text"
        columns.append(
            f"(SELECT {value} FROM cardattribute a WHERE a.card_id = c.id "
            f"AND a.key = '{key}') AS {_quote(key)}"
        )
    for key in game.texts:
        columns.append(
            f"(SELECT t.text FROM cardtext t WHERE t.card_id = c.id "
            f"AND t.key = '{key}') AS {_quote(gamespec.text_column(key))}"
        )
    columns += ["c.data AS data", "c.note AS note"]
    body = ",\n  ".join(columns)
    return (
        f"CREATE VIEW {_quote(gamespec.view_name(game.slug))} AS\nSELECT\n  {body}\n"
        "FROM card c\nJOIN game g ON g.id = c.game_id\n"
        "JOIN deckcard dc ON dc.card_id = c.id\nJOIN deck d ON d.id = dc.deck_id\n"
        f"WHERE g.slug = '{slug}'"
    )


def _create_views(conn, games: Sequence[LoadedGame]) -> None:
    for loaded in games:
        conn.execute(text(view_sql(loaded)))


def _drop_views(conn, games: Sequence[LoadedGame]) -> None:
    for loaded in games:
        conn.execute(text(f"DROP VIEW IF EXISTS {_quote(gamespec.view_name(loaded.slug))}"))


BUILD_LOCK = 7_202_611  # the advisory lock key every `cartiera db build` takes on PostgreSQL


def copy_database(
    source: Path, url: str, games: Sequence[LoadedGame], claim: Claim | None = None
) -> None:
    """Replace the content of the database at `url` with the rows of the SQLite `source`;
    `claim` checks, under the lock, that the content may be replaced, and records it."""
    src = create_engine(f"sqlite:///{source}")
    dest = open_database(url)
    try:
        with src.connect() as read, clear_errors(url), dest.begin() as conn:
            if dest.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": BUILD_LOCK})
            if claim is not None:
                claim.check(conn)
            _drop_views(conn, games)
            SQLModel.metadata.drop_all(conn)
            SQLModel.metadata.create_all(conn)
            for table in SQLModel.metadata.sorted_tables:
                rows = [dict(r._mapping) for r in read.execute(table.select())]
                if rows:
                    conn.execute(table.insert(), rows)
            _create_views(conn, games)
            if claim is not None:
                claim.record(conn)
    finally:
        src.dispose()
        dest.dispose()


def neutral_dump(db: Engine) -> list[str]:
    """The database's content as sorted lines of JSON, the same on SQLite and PostgreSQL:
    a team diffs two databases with it (`cartiera db dump`)."""
    lines = []
    with db.connect() as conn:
        for table in SQLModel.metadata.sorted_tables:
            for row in conn.execute(table.select()):
                values = {k: _neutral(v) for k, v in row._mapping.items()}
                dumped = json.dumps(values, sort_keys=True, ensure_ascii=False)
                lines.append(f"{table.name} {dumped}")
        for name in sorted(inspect(conn).get_view_names()):
            columns = [c["name"] for c in inspect(conn).get_columns(name)]
            lines.append(f"view {name} {json.dumps(columns)}")
    return sorted(lines)


def _neutral(value: object) -> object:
    return value if value is None or isinstance(value, (bool, int, float, str)) else str(value)


def sqlite_digest(path: Path) -> str:
    """The digest of a SQLite database's content as `db dump` shows it."""
    engine = create_engine(f"sqlite:///{path}")
    try:
        return lines_digest(neutral_dump(engine))
    finally:
        engine.dispose()


def database_digest(project: Project) -> str:
    """The digest of the content of the project's database, whichever kind it is: what
    every output of `cartiera build` is made from."""
    if project.sqlite_path is not None:
        return lines_digest(sorted_dump(project.sqlite_path))
    server = open_database(project.db_url)
    try:
        with clear_errors(project.db_url):
            return lines_digest(neutral_dump(server))
    finally:
        server.dispose()


def server_snapshot(url: str, target: Path, games: Sequence[LoadedGame]) -> None:
    """The rows of the server database at `url` copied into the SQLite file `target`, all
    read in one transaction (REPEATABLE READ on PostgreSQL): `cartiera build` makes every
    output from this one copy, so a team mate's `db build` during the build cannot give
    pages of the old cards beside images of the new."""
    target.unlink(missing_ok=True)
    dest = create_engine(f"sqlite:///{target}")
    server = open_database(url)
    try:
        SQLModel.metadata.create_all(dest)
        with clear_errors(url), server.connect() as conn, dest.begin() as write:
            if server.dialect.name == "postgresql":
                conn = conn.execution_options(isolation_level="REPEATABLE READ")
            with conn.begin():
                for table in SQLModel.metadata.sorted_tables:
                    rows = [dict(r._mapping) for r in conn.execute(table.select())]
                    if rows:
                        write.execute(table.insert(), rows)
            _create_views(write, games)
    finally:
        dest.dispose()
        server.dispose()


def snapshot_digest(path: Path, server: bool) -> str:
    """database_digest() of a snapshot: the same function of the content as for the
    database it was copied from (a SQLite file's sorted dump, a server's neutral dump)."""
    return sqlite_digest(path) if server else lines_digest(sorted_dump(path))


def sorted_dump(path: Path) -> list[str]:
    """The database as SQL statements, sorted: equal content gives an equal dump."""
    with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as conn:
        return sorted(conn.iterdump())


def is_current(
    project: Project, games: Sequence[LoadedGame], stages: Sequence[Stage] = ()
) -> tuple[bool, str]:
    """Whether the project's database holds exactly what the sources give."""
    path = project.sqlite_path
    if path is None:
        with tempfile.TemporaryDirectory() as tmp:
            fresh = Path(tmp) / "fresh.db"
            write_sqlite(fresh, games, project, stages)
            new = neutral_dump(create_engine(f"sqlite:///{fresh}"))
        server = open_database(project.db_url)
        where = shown(project.db_url)
        try:
            with clear_errors(project.db_url):
                problem = schema_problem(server, where)
                if problem is not None:
                    return False, problem.message
                old = neutral_dump(server)
        finally:
            server.dispose()
        if old == new:
            return True, f"{where} is current"
        return False, f"{where} is stale ({len(set(old) ^ set(new))} rows differ)"
    if not path.exists():
        return False, f"{project.rel(path)} does not exist"
    with tempfile.TemporaryDirectory() as tmp:
        fresh = Path(tmp) / "fresh.db"
        write_sqlite(fresh, games, project, stages)
        try:
            old = sorted_dump(path)
        except sqlite3.DatabaseError as exc:
            return False, f"{project.rel(path)} is not a readable SQLite database ({exc})"
        new = sorted_dump(fresh)
    if old == new:
        return True, f"{project.rel(path)} is current"
    changed = len(set(old) ^ set(new))
    return False, f"{project.rel(path)} is stale ({changed} statements differ)"


@holding_lock("db build")
def refresh(project: Project, games: Sequence[LoadedGame], stages: Sequence[Stage]) -> str | None:
    """Bring the project's database to its sources before `cartiera build` renders from it;
    return what to tell the user (None: a current SQLite file).
    The database the sources give is written once: compared with the project's, and
    installed in its place when they differ.
    A server that holds another project's different content is not touched: the build
    stops with one line saying whose it is."""
    path = project.sqlite_path
    with fresh_database(project, games, stages) as (fresh, _):
        if path is not None:
            if _same_content(path, fresh):
                return None
            existed = path.exists()
            _install(project, fresh, games, force=False)
            if not existed:
                return f"{project.rel(path)} did not exist and has been built"
            return f"{project.rel(path)} was stale and has been rebuilt"
        where = shown(project.db_url)
        ours = sqlite_digest(fresh)
        server = open_database(project.db_url)
        try:
            with clear_errors(project.db_url), server.connect() as conn:
                held = read_record(conn)
            with clear_errors(project.db_url):
                have = lines_digest(neutral_dump(server)) if held is not None else None
        finally:
            server.dispose()
        if have == ours:
            return f"using {where}: it holds this project's sources"
        if held is not None and not held.same_origin(this_build(project, ours)):
            raise conflict(where, held)
        _install(project, fresh, games, force=False, digest=ours)
        return f"{where} did not hold this project's sources: rebuilt it from them"


def _same_content(path: Path, fresh: Path) -> bool:
    """Whether the SQLite file at `path` exists and holds what `fresh` holds."""
    if not path.exists():
        return False
    try:
        return sorted_dump(path) == sorted_dump(fresh)
    except sqlite3.DatabaseError:
        return False
