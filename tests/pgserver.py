"""A throw-away PostgreSQL server for the tests: Debian's `postgresql` binaries, a fresh
cluster in a temporary folder, listening on a free loopback port, stopped at the end.

As root (CI), the server runs as the `postgres` system user, since PostgreSQL refuses root.
"""

from __future__ import annotations

import glob
import os
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

USER = "cartiera"
PASSWORD = "cartiera-test"
NO_SERVER = "no PostgreSQL server binary (initdb): install Debian's postgresql package"
NO_RUNUSER = (
    "no runuser (util-linux) to start PostgreSQL as its own user, which it needs when the "
    "tests run as root: install util-linux"
)


def runuser() -> str | None:
    """util-linux's runuser: on PATH, or where Debian puts it (/usr/sbin, which a user's
    PATH may leave out)."""
    found = shutil.which("runuser")
    if found:
        return found
    return next((p for p in ("/usr/sbin/runuser", "/sbin/runuser") if os.access(p, os.X_OK)), None)


def unavailable() -> str | None:
    """Why no throw-away server can start here, or None when one can."""
    if binaries() is None:
        return NO_SERVER
    if os.geteuid() == 0 and runuser() is None:
        return NO_RUNUSER
    return None


def binaries() -> Path | None:
    """The folder of the newest installed server's binaries, or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version)
    if found:
        return Path(found[-1]).parent
    initdb = shutil.which("initdb")
    return Path(initdb).parent if initdb else None


def _version(path: str) -> float:
    try:
        return float(Path(path).parents[1].name)
    except ValueError:
        return 0.0


@dataclass
class Server:
    bin: Path
    data: Path
    port: int
    as_postgres: bool

    def url(self, database: str = "postgres", password: str = PASSWORD) -> str:
        return f"postgresql://{USER}:{password}@127.0.0.1:{self.port}/{database}"

    def run(self, *args: str) -> subprocess.CompletedProcess[str]:
        command = [str(self.bin / args[0]), *args[1:]]
        if self.as_postgres:
            command = [runuser() or "runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, check=True, capture_output=True, text=True)

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(
            host="127.0.0.1", port=self.port, user=USER, password=PASSWORD, dbname="postgres",
            autocommit=True,
        ) as conn:  # fmt: skip
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        self.run("pg_ctl", "-D", str(self.data), "-m", "immediate", "stop")
        shutil.rmtree(self.data.parent, ignore_errors=True)


def start() -> Server:
    folder = Path(tempfile.mkdtemp(prefix="cartiera-pg-"))
    as_postgres = os.geteuid() == 0
    bin_ = binaries()
    assert bin_ is not None, NO_SERVER
    data = folder / "data"
    secret = folder / "password"
    secret.write_text(PASSWORD + "\n")
    if as_postgres:
        shutil.chown(folder, "postgres")
        shutil.chown(secret, "postgres")
        folder.chmod(0o700)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    server = Server(bin_, data, port, as_postgres)
    server.run(
        "initdb", "-D", str(data), "-U", USER, f"--pwfile={secret}", "--auth-local=trust",
        "--auth-host=scram-sha-256", "--encoding=UTF8", "--locale=C.UTF-8",
    )  # fmt: skip
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c fsync=off"
    server.run("pg_ctl", "-D", str(data), "-o", options, "-l", str(folder / "log"), "-w", "start")
    return server
