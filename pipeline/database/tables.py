"""What cards.db must hold to be read by this Cartiera, checked once on opening.

TABLES lists every table of models.py with its columns (tests/test_database.py holds the two
equal), so that a command that reads the database without SQLAlchemy (reader) checks it as
one that uses SQLAlchemy does (connection).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path

from pipeline.common.problems import Problem, SourceError
from pipeline.common.project import Project

# Every table of models.py, with its columns in declaration order.
TABLES: dict[str, tuple[str, ...]] = {
    "game": ("id", "slug", "name", "subtitle", "players_min", "players_max", "age", "duration",
             "publisher", "designers", "card_size", "language", "status", "status_note",
             "description", "position"),
    "attributedef": ("id", "game_id", "key", "label", "type", "enum_values", "min", "max",
                     "multiple", "description", "position"),
    "textdef": ("id", "game_id", "key", "label", "description", "position"),
    "cardkind": ("id", "game_id", "key", "label", "attributes", "optional", "texts",
                 "description", "position"),
    "deck": ("id", "game_id", "code", "name", "status", "expected_total", "expected_kinds",
             "note", "position"),
    "component": ("id", "game_id", "code", "name", "quantity", "note", "position"),
    "card": ("id", "game_id", "number", "code", "name", "kind", "status", "data", "note"),
    "deckcard": ("deck_id", "card_id", "copies"),
    "cardattribute": ("card_id", "key", "value_int", "value_text"),
    "cardtext": ("card_id", "key", "text"),
    "rulesection": ("id", "game_id", "parent_id", "number", "anchor", "title", "level",
                    "body_md", "position"),
    "glossaryterm": ("id", "game_id", "term", "anchor", "kind", "definition_md", "forms",
                     "clause", "position"),
    "glossaryuse": ("term_id", "section_id"),
    "ruling": ("id", "game_id", "code", "question", "answer", "source", "position"),
    "rulingcard": ("ruling_id", "card_id"),
    "rulingclause": ("ruling_id", "anchor"),
    "example": ("id", "game_id", "code", "title", "clauses", "narration_md", "scenario",
                "position"),
    "sourcefile": ("id", "game_id", "path", "sha256"),
}  # fmt: skip

REBUILD = "run `cartiera db build`"


def check_sqlite_file(project: Project) -> Path | None:
    """The project's SQLite file, after checking that it is one; None for a server URL."""
    path = project.sqlite_path
    if path is not None and not path.exists():
        raise SourceError(Problem("error", f"{project.rel(path)} does not exist", hint=REBUILD))
    if path is not None and path.is_file():
        with path.open("rb") as file:
            if file.read(16) != b"SQLite format 3\x00":
                raise SourceError(
                    Problem(
                        "error",
                        f"{project.rel(path)} is not a SQLite database",
                        hint="point --db at a cards.db, or run `cartiera db build`",
                    )
                )
    return path


def sqlite_schema_problem(conn: sqlite3.Connection, where: str) -> Problem | None:
    """connection.schema_problem for a sqlite3 connection."""
    try:
        verdict = conn.execute("PRAGMA quick_check").fetchone()[0]
        if verdict != "ok":
            return Problem("error", f"{where} is damaged ({verdict})", hint=REBUILD)
        listed = conn.execute("SELECT type, name FROM sqlite_master").fetchall()
        tables = {name for kind, name in listed if kind == "table"}
        views = {name for kind, name in listed if kind == "view"}

        def columns(table: str) -> set[str]:
            return {row[1] for row in conn.execute("SELECT * FROM pragma_table_info(?)", (table,))}

        def slugs() -> list[str]:
            return [row[0] for row in conn.execute("SELECT slug FROM game ORDER BY slug")]

        return schema_problem_of(where, tables, columns, views, slugs)
    except sqlite3.DatabaseError as exc:
        detail = (str(exc).splitlines() or [type(exc).__name__])[0]
        return Problem("error", f"{where} is damaged ({detail})", hint=REBUILD)
    except UnicodeDecodeError:  # quick_check quoting bytes of a damaged page
        return Problem("error", f"{where} is damaged (unreadable pages)", hint=REBUILD)


def schema_problem_of(
    where: str,
    tables: set[str],
    columns: Callable[[str], set[str]],
    views: Iterable[str],
    slugs: Callable[[], list[str]],
) -> Problem | None:
    """Why a database holding `tables` (with their `columns`) and `views`, with games
    `slugs`, is not the one this Cartiera writes; None when it is."""
    if not tables & set(TABLES):
        what = "is empty" if not tables else "is not a Cartiera database"
        return Problem("error", f"{where} {what} (no table game)", hint=REBUILD)
    for name, expected in TABLES.items():
        if name not in tables:
            return _older(where, f"no table {name}")
        found = columns(name)
        missing = sorted(c for c in expected if c not in found)
        if missing:
            return _older(where, f"table {name} has no column {missing[0]}")
    views = set(views)
    for slug in slugs():
        if view_name(slug) not in views:
            return _older(where, f"no view {view_name(slug)} for {slug}")
    return None


def view_name(slug: str) -> str:
    """The game's view of its cards (sources.gamespec.view_name, without its imports)."""
    return f"{slug.replace('-', '_')}_cards"


def _older(where: str, detail: str) -> Problem:
    return Problem(
        "error", f"{where} does not have the tables of this Cartiera ({detail})", hint=REBUILD
    )
