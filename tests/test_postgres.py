"""A team's shared PostgreSQL database: a real server (tests/pgserver.py), the same content
and the same outputs as SQLite, atomic and serialised builds, and one line for each way a
connection fails."""

from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import CARTIERA, ROOT, checkout_env, invoke
from pgserver import Server

from pipeline.common.project import open_project


@pytest.fixture(scope="module")
def pg_url(postgres: Server, shared_project: Path) -> str:
    url = postgres.create_database("cartiera_shared")
    run = invoke(shared_project, "--db", url, "db", "build")
    assert run.exit_code == 0, run.output
    assert "***" in run.stdout and "cartiera-test" not in run.output  # password masked
    return url


def _dump(project: Path, *db: str) -> str:
    run = invoke(project, *db, "db", "dump")
    assert run.exit_code == 0, run.output
    return run.stdout


def test_same_rows_and_views_as_sqlite(pg_url: str, shared_project: Path) -> None:
    sqlite = _dump(shared_project)
    server = _dump(shared_project, "--db", pg_url)
    assert server == sqlite
    views = [line for line in server.splitlines() if line.startswith("view ")]
    assert {v.split()[1] for v in views} >= {
        "bless_cards", "blitz_cards", "samurai_sword_cards", "mazzo_cards", "bldng_cards",
    }  # fmt: skip
    assert server.count("\nexample ") > 0  # the worked examples are there too


def test_check_says_current_then_stale(pg_url: str, shared_project: Path) -> None:
    run = invoke(shared_project, "--db", pg_url, "db", "build", "--check")
    assert run.exit_code == 0, run.output
    import psycopg

    with psycopg.connect(pg_url) as conn:
        name = conn.execute("SELECT name FROM card WHERE code = 'katana'").fetchone()[0]
        conn.execute("UPDATE card SET name = 'Altro nome' WHERE code = 'katana'")
    stale = invoke(shared_project, "--db", pg_url, "db", "build", "--check")
    assert stale.exit_code == 1 and "stale" in stale.stderr
    with psycopg.connect(pg_url) as conn:  # as it was, for the tests that follow
        conn.execute("UPDATE card SET name = %s WHERE code = 'katana'", (name,))


def test_a_failed_build_leaves_the_server_as_it_was(
    pg_url: str, shared_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _dump(shared_project, "--db", pg_url)
    from pipeline.database import store

    def broken(conn: object, games: object) -> None:
        raise OSError("disk full while creating the views")

    monkeypatch.setattr(store, "_create_views", broken)
    run = invoke(shared_project, "--db", pg_url, "db", "build")
    assert run.exit_code == 1 and "disk full" in run.stderr
    monkeypatch.undo()
    assert _dump(shared_project, "--db", pg_url) == before


def test_two_builds_at_once_never_mix(postgres: Server, built: Path, shared_project: Path) -> None:
    url = postgres.create_database("cartiera_race")
    cards = built / "games" / "mazzo" / "cards.yaml"
    text = cards.read_text("utf-8")
    cards.write_text(text.replace("name: Spia", "name: Spia Nascosta", 1), "utf-8")
    assert invoke(built, "db", "build").exit_code == 0  # its own cards.db, to compare with
    env = checkout_env(CARTIERA_DB=url)
    command = [*CARTIERA, "--project"]
    runs = [
        subprocess.Popen(
            [*command, str(p), "db", "build", "--force"],  # two projects: both replace
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for p in (shared_project, built)
    ]
    for run in runs:
        _, err = run.communicate(timeout=240)
        assert run.returncode == 0, err
    final = _dump(shared_project, "--db", url)
    assert final in (_dump(shared_project), _dump(built))  # one build's content, whole
    assert "Spia Nascosta" in _dump(built) and "Spia Nascosta" not in _dump(shared_project)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_outputs_are_byte_identical_to_sqlite(
    pg_url: str, shared_project: Path, tmp_path: Path
) -> None:
    for db, name in ((None, "sqlite"), (pg_url, "pg")):
        prefix = ("--db", db) if db else ()
        out = tmp_path / name
        out.mkdir()
        for slug in ("bless", "blitz", "samurai-sword", "mazzo", "bldng"):
            for fmt in ("csv", "json"):
                run = invoke(shared_project, *prefix, "export", slug, "-f", fmt,
                             "-o", str(out / f"{slug}.{fmt}"))  # fmt: skip
                assert run.exit_code == 0, run.output
        steps = [
            ("deck", "mazzo", "--out", str(out / "mazzo.pdf")),
            ("rulebook", "mazzo", "--out", str(out / "regole.pdf")),
            ("images", "mazzo", "--dpi", "72", "--out", str(out / "png")),
            ("search", "forma:ombra occhio>=5 or katana ordina:nome", "-f", "csv"),
        ]
        for step in steps:
            run = invoke(shared_project, *prefix, *step)
            assert run.exit_code == 0, run.output
            if step[0] == "search":
                (out / "search.csv").write_text(run.stdout, "utf-8")
        from pipeline.publish.site import pages as site

        project = open_project(shared_project, db)
        site.generate(project, with_images=False)
        pages = site.site_dir(project) / "giochi"
        for page in sorted(pages.rglob("*.md")):
            target = out / "site" / page.relative_to(pages)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(page.read_bytes())
    sqlite = tmp_path / "sqlite"
    files = sorted(p.relative_to(sqlite) for p in sqlite.rglob("*") if p.is_file())
    assert len(files) > 30
    for rel in files:
        assert _digest(tmp_path / "sqlite" / rel) == _digest(tmp_path / "pg" / rel), rel


def test_search_vectors_on_postgres(pg_url: str) -> None:
    import test_search
    from sqlalchemy import create_engine

    from pipeline.database.connection import engine_url
    from pipeline.search.sql import Searcher

    searcher = Searcher(create_engine(engine_url(pg_url)))
    for vector in test_search.VECTORS:
        want = vector.get("error") or vector["cards"]
        assert test_search._found(searcher, vector["query"], vector["game"]) == want, vector
    # a column some games lack is an empty number there, which PostgreSQL's UNION accepts
    rows = searcher.search("forza>=8 or difficolta>=5").rows
    assert [(r["game"], r["forza"], r["difficolta"]) for r in rows][-1] == (
        "samurai-sword",
        None,
        5,
    )


@pytest.mark.parametrize(
    ("kind", "expected"),
    [
        ("down", "cannot reach the database server"),
        ("password", "refused the credentials"),
        ("database", "has no such database"),
    ],
)
def test_connection_errors_are_one_line(postgres: Server, kind: str, expected: str) -> None:
    url = {
        "down": "postgresql://cartiera:x@127.0.0.1:9/postgres",
        "password": postgres.url(password="wrong-secret"),
        "database": postgres.url("no_such_database"),
    }[kind]
    run = invoke(ROOT, "--db", url, "export", "bless")
    assert run.exit_code == 1
    lines = run.stderr.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], run.stderr
    assert "Traceback" not in run.output and "wrong-secret" not in run.output


def test_a_missing_driver_is_one_line() -> None:
    code = (
        "import sys; sys.modules['psycopg'] = None; sys.argv = ['cartiera', '--db', "
        "'postgresql://u:p@127.0.0.1:9/x', 'export', 'bless']; "
        "from pipeline.cli.app import run; run()"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env=checkout_env()
    )
    assert done.returncode == 1
    assert "cartiera[postgres]" in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
