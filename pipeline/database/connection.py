"""Opening a database by URL: the driver for each kind, and one clear line when it fails.

SQLite needs nothing; a team's PostgreSQL server needs the optional extra
``cartiera[postgres]`` (psycopg 3). ``postgresql://`` URLs get that driver without saying so.
Connection failures (no driver, server down, wrong credentials, no such database) become one
SourceError line that never shows the password.
"""

from __future__ import annotations

import contextlib
import re
from collections.abc import Iterator
from typing import Any

from sqlalchemy import Engine, create_engine
from sqlalchemy.engine import make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError, OperationalError

from pipeline.common.problems import Problem, SourceError

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


def open_database(url: str, check: bool = True, **options: Any) -> Engine:
    """An engine on `url`; with `check`, connect once now so a bad URL fails here, cleanly."""
    with clear_errors(url):
        try:
            parsed = make_url(engine_url(url))
        except ValueError as exc:  # make_url's own check (a port that is not a number)
            raise ArgumentError(str(exc)) from None
        engine = create_engine(parsed, **options)
        if check:
            with engine.connect():
                pass
    return engine
