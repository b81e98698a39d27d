"""Reading cards.db with plain SQL, without SQLAlchemy when the database is SQLite.

`cartiera search` runs one query of a few milliseconds; importing SQLAlchemy, SQLModel and
the tables takes a third of a second more than everything else the command needs. A Reader
runs plain SQL on the standard library's sqlite3, or on any SQLAlchemy engine (a team's
PostgreSQL). open_project_reader opens the project's database with the checks that
connection.open_project_db makes (tables).
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Callable, Iterator, Mapping
from typing import TYPE_CHECKING, Any

from pipeline.common.problems import Problem, SourceError
from pipeline.common.project import Project

from .tables import check_sqlite_file, sqlite_schema_problem

if TYPE_CHECKING:
    from sqlalchemy import Engine

# SQL functions that SQLite lacks and a query needs, by name (PostgreSQL's are SQL itself)
Functions = Mapping[str, Callable[..., Any]]


class Reader:
    """Plain SQL on one database: a sqlite3 connection or a SQLAlchemy engine.

    Parameters are named; `placeholder` spells one as the driver wants it."""

    def __init__(self, db: sqlite3.Connection | Engine):
        self.db = db
        if isinstance(db, sqlite3.Connection):
            self.dialect, named = "sqlite", True
        else:
            # sqlite3 takes named parameters whatever SQLAlchemy's own style; psycopg pyformat
            self.dialect = db.dialect.name
            named = self.dialect == "sqlite" or db.dialect.paramstyle == "named"
        self._named = named

    def placeholder(self, name: str) -> str:
        return f":{name}" if self._named else f"%({name})s"

    def rows(
        self,
        sql: str,
        params: Mapping[str, Any] | None = None,
        functions: Functions | None = None,
    ) -> list[dict[str, Any]]:
        """Every row of `sql` as a dict by column name; `functions` are registered first
        on a SQLite connection."""
        functions = functions or {}
        if isinstance(self.db, sqlite3.Connection):
            return _sqlite_rows(self.db, sql, params or {}, functions)
        with self.db.connect() as conn:
            raw = conn.connection.driver_connection
            if isinstance(raw, sqlite3.Connection):
                _register(raw, functions)
            return [dict(r._mapping) for r in conn.exec_driver_sql(sql, dict(params or {}))]


def _register(conn: sqlite3.Connection, functions: Functions) -> None:
    for name, function in functions.items():
        conn.create_function(name, 1, function, deterministic=True)


def _sqlite_rows(
    conn: sqlite3.Connection, sql: str, params: Mapping[str, Any], functions: Functions
) -> list[dict[str, Any]]:
    _register(conn, functions)
    cursor = conn.execute(sql, dict(params))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row, strict=True)) for row in cursor]


@contextlib.contextmanager
def open_project_reader(project: Project) -> Iterator[Reader]:
    """A Reader on the project's database, checked as open_project_db checks it; SQLite is
    read through the standard library, read-only."""
    path = check_sqlite_file(project)
    if path is None:
        from .connection import open_project_db

        with open_project_db(project) as engine:
            yield Reader(engine)
        return
    where = project.rel(path)
    uri = path.resolve().as_uri() + "?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True)
    except sqlite3.Error as exc:
        raise SourceError(Problem("error", f"cannot open {where}: {exc}")) from None
    try:
        problem = sqlite_schema_problem(conn, where)
        if problem is not None:
            raise SourceError(problem)
        yield Reader(conn)
    finally:
        conn.close()
