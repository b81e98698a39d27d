"""Opening a database: the driver for each kind of URL, the check that it is Cartiera's
(open_project_db), and one clear line when either fails.

SQLite needs nothing; a team's PostgreSQL server needs the optional extra
``cartiera[postgres]`` (psycopg 3). ``postgresql://`` URLs get that driver without saying so.
Connection failures (no driver, server down, wrong credentials, no such database) become one
SourceError line that never shows the password.
"""

from __future__ import annotations

import contextlib
import functools
import re
import sqlite3
from collections.abc import Iterator

from sqlalchemy import Engine, create_engine, inspect, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, DatabaseError, NoSuchModuleError, OperationalError
from sqlalchemy.pool import NullPool

from pipeline.common.problems import Problem, SourceError
from pipeline.common.project import Project

from .tables import REBUILD, check_sqlite_file, schema_problem_of, sqlite_schema_problem

POSTGRES_EXTRA = "pip install 'cartiera[postgres]'"


def engine_url(url: str) -> str:
    """The SQLAlchemy URL with Cartiera's driver for the kind of database."""
    for prefix in ("postgresql://", "postgres://"):
        if url.startswith(prefix):
            return "postgresql+psycopg://" + url[len(prefix) :]
    return url


def shown(url: str) -> str:
    """The URL as it may be printed: the password masked."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except (ArgumentError, ValueError):  # unparseable (e.g. a port that is not a number)
        return re.sub(r"(://[^:/@]*:)[^@/]*@", r"\1***@", url)


@contextlib.contextmanager
def clear_errors(url: str) -> Iterator[None]:
    """Turn a failure to reach the database into one line."""
    where = shown(url)
    try:
        yield
    except (ModuleNotFoundError, NoSuchModuleError) as exc:
        message = f"no driver for {where}: {exc}"
        hint = POSTGRES_EXTRA if "postgres" in url else "install the database's driver"
        raise SourceError(Problem("error", message, hint=hint)) from None
    except OperationalError as exc:
        raise SourceError(_connection_problem(where, str(exc.orig))) from None
    except ArgumentError as exc:
        raise SourceError(
            Problem("error", f"not a database URL: {where} ({exc})", hint="see README: --db")
        ) from None


def _connection_problem(where: str, detail: str) -> Problem:
    text = detail.strip().splitlines()[0] if detail.strip() else detail
    lowered = detail.lower()
    if "password authentication failed" in lowered or "no password supplied" in lowered:
        return Problem(
            "error",
            f"the server refused the credentials for {where}",
            hint="check the user and password in the URL (or in ~/.pgpass)",
        )
    if "does not exist" in lowered and "database" in lowered:
        return Problem(
            "error",
            f"the server has no such database: {where}",
            hint="create it (createdb NAME) or fix the name in the URL",
        )
    if (
        "connection refused" in lowered
        or "could not connect" in lowered
        or ("no such file or directory" in lowered and "socket" in lowered)
    ):
        return Problem(
            "error",
            f"cannot reach the database server of {where}",
            hint="is the server running and listening at that host and port?",
        )
    return Problem("error", f"cannot use the database {where}: {text}")


def open_database(url: str) -> Engine:
    """An engine on `url`, connected once now so that a bad URL fails here, cleanly."""
    with clear_errors(url):
        try:
            parsed = make_url(engine_url(url))
        except ValueError as exc:  # make_url's own check (a port that is not a number)
            raise ArgumentError(str(exc)) from None
        engine = create_engine(parsed)
        with engine.connect():
            pass
    return engine


@contextlib.contextmanager
def open_project_db(project: Project) -> Iterator[Engine]:
    """A SQLAlchemy engine on the project's database (cards.db or its URL); fails with one
    line when there is none."""
    path = check_sqlite_file(project)
    if path is not None:
        engine = _sqlite_reader(f"sqlite:///file:{path}?mode=ro&uri=true")
    else:
        engine = open_database(project.db_url)
    try:
        where = project.rel(path) if path is not None else shown(project.db_url)
        with clear_errors(project.db_url):
            problem = schema_problem(engine, where)
        if problem is not None:
            raise SourceError(problem)
        yield engine
    finally:
        if path is None:
            engine.dispose()


@functools.lru_cache(maxsize=16)
def _sqlite_reader(url: str) -> Engine:
    """One engine per cards.db for the whole process, so that SQLAlchemy compiles each
    query once: an engine keeps the statements it compiled (opening the database and
    reading Bless with `read_game` took 35 ms with a new engine each time, 17 ms with
    this one). It keeps no connection open: each one opens the file as it is then,
    after a `db build` too."""
    return create_engine(url, poolclass=NullPool)


def schema_problem(engine: Engine, where: str) -> Problem | None:
    """Why the database at `engine` cannot be read as Cartiera's, or None when it can.

    Checked once on opening, so a damaged file, another program's database, an empty
    server database or one written by an older Cartiera is one line naming the cause,
    not an SQL error halfway through a command."""
    try:
        with engine.connect() as conn:
            raw = conn.connection.driver_connection
            if isinstance(raw, sqlite3.Connection):
                return sqlite_schema_problem(raw, where)
            found = inspect(conn)

            def columns(table: str) -> set[str]:
                return {c["name"] for c in found.get_columns(table)}

            def slugs() -> list[str]:
                return list(conn.execute(text("SELECT slug FROM game ORDER BY slug")).scalars())

            tables = set(found.get_table_names())
            return schema_problem_of(where, tables, columns, found.get_view_names(), slugs)
    except DatabaseError as exc:
        detail = str(exc.orig).splitlines()[0] if exc.orig else str(exc)
        return Problem("error", f"{where} is damaged ({detail})", hint=REBUILD)
