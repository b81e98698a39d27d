"""A team's shared database: what it was built from, by whom, and whose outputs it serves.

Two designers may point their clones at one PostgreSQL server. Each `db build` records on
the server the digest of the content it wrote (the `db dump` of the sources it read), the
project it came from and when, in a table of its own that no dump shows. A build from other
sources does not overwrite that content without `--force`, and says whose it is; a
`cartiera build` renders only from a server that holds its own project's sources (a server
this project built before is brought up to date first), so no output shows another
project's cards.
"""

from __future__ import annotations

import getpass
import hashlib
import socket
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import Connection, text

from pipeline.common.problems import Problem, SourceError
from pipeline.common.project import Project

RECORD_TABLE = "cartiera_build"
FORCE_HINT = "run `cartiera db build --force` to replace it with this project's sources"


def lines_digest(lines: Sequence[str]) -> str:
    """The digest of a database's content, from its `db dump` lines."""
    return hashlib.sha256("\n".join(lines).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class BuildRecord:
    """What a server's content was built from."""

    digest: str
    builder: str  # user@host
    project: str  # the project's folder on that host
    built_at: str  # UTC, ISO 8601

    def same_origin(self, other: BuildRecord) -> bool:
        return (self.builder, self.project) == (other.builder, other.project)

    def whose(self) -> str:
        return f"{self.builder}:{self.project} at {self.built_at}"


def this_build(project: Project, digest: str) -> BuildRecord:
    now = datetime.now(UTC).replace(microsecond=0).isoformat()
    return BuildRecord(
        digest, f"{getpass.getuser()}@{socket.gethostname()}", str(project.root), now
    )


def read_record(conn: Connection) -> BuildRecord | None:
    """The server's record of its last build, or None (never built by this version)."""
    from sqlalchemy import inspect

    if not inspect(conn).has_table(RECORD_TABLE):
        return None
    row = conn.execute(
        text(f"SELECT digest, builder, project, built_at FROM {RECORD_TABLE} WHERE id = 1")
    ).first()
    return BuildRecord(*row) if row else None


def write_record(conn: Connection, record: BuildRecord) -> None:
    conn.execute(
        text(
            f"CREATE TABLE IF NOT EXISTS {RECORD_TABLE} (id INTEGER PRIMARY KEY, "
            "digest TEXT NOT NULL, builder TEXT NOT NULL, project TEXT NOT NULL, "
            "built_at TEXT NOT NULL)"
        )
    )
    conn.execute(text(f"DELETE FROM {RECORD_TABLE}"))
    conn.execute(
        text(
            f"INSERT INTO {RECORD_TABLE} (id, digest, builder, project, built_at) "
            "VALUES (1, :digest, :builder, :project, :built_at)"
        ),
        record.__dict__,
    )


def conflict(where: str, held: BuildRecord) -> SourceError:
    return SourceError(
        Problem(
            "error",
            f"{where} holds other sources' cards, built by {held.whose()}",
            hint=FORCE_HINT,
        )
    )


@dataclass(frozen=True)
class Claim:
    """A `db build` about to replace a server's content: checked and recorded inside the
    build's locked transaction, so two builds never both pass the check."""

    where: str  # the URL as shown
    mine: BuildRecord
    force: bool = False

    def check(self, conn: Connection) -> None:
        held = read_record(conn)
        if (
            held is not None
            and held.digest != self.mine.digest
            and not held.same_origin(self.mine)
            and not self.force
        ):
            raise conflict(self.where, held)

    def record(self, conn: Connection) -> None:
        write_record(conn, self.mine)
