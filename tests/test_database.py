"""`cartiera db build`: the views, determinism, atomicity and the staleness check."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
from pathlib import Path

import pytest
from conftest import ROOT, edit

from pipeline.database.store import sorted_dump

VIEWS = {
    "bless_cards": {"forma", "occhio", "karma", "preghiera"},
    "blitz_cards": set(),
    "samurai_sword_cards": {"difficolta", "ferite", "resistenza"},
    "mazzo_cards": set(),
    "bldng_cards": {"forma", "colore"},
}


def query(db: Path, sql: str) -> list[tuple]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql).fetchall()


def test_views_have_real_columns(built: Path) -> None:
    db = built / "cards.db"
    for view, attributes in VIEWS.items():
        columns = {row[1] for row in query(db, f"PRAGMA table_info({view})")}
        assert {"number", "name", "kind", "copies"} <= columns, view
        assert attributes <= columns, view
    assert query(db, "select count(*) from bless_cards where forma='Luce'") == [(29,)]
    assert query(db, "select sum(copies) from bless_cards") == [(62,)]
    assert query(db, "select sum(copies) from blitz_cards") == [(54,)]
    assert query(db, "select sum(copies) from bldng_cards") == [(126,)]
    assert query(db, "select sum(copies) from samurai_sword_cards where deck='base'") == [(110,)]


def test_typed_columns_answer_questions(built: Path) -> None:
    db = built / "cards.db"
    # Occhio is an integer column: compare numerically, not as text ("10" < "5" as text)
    rows = query(
        db,
        "select name, occhio from bless_cards where forma='Ombra' and occhio >= 5 order by number",
    )
    assert rows and all(occhio >= 5 for _, occhio in rows)
    assert ("Visione Profonda", 8) in rows
    assert query(db, "select typeof(occhio) from bless_cards limit 1") == [("integer",)]
    katana = query(
        db, "select difficolta, ferite, copies from samurai_sword_cards where name='Katana'"
    )
    assert katana == [(2, 3, 1)]
    parata = query(db, "select copies from samurai_sword_cards where name='Parata'")
    assert parata == [(15,)]


@pytest.mark.skipif(shutil.which("sqlite3") is None, reason="sqlite3 shell not installed")
def test_plain_sqlite3_shell(built: Path) -> None:
    out = subprocess.run(
        ["sqlite3", "cards.db", "select count(*) from bless_cards where forma='Luce'"],
        cwd=built,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "29"


def test_same_sources_same_database(project: Path, cli, tmp_path: Path) -> None:
    assert cli(project, "db", "build").exit_code == 0
    first = (project / "cards.db").read_bytes()
    dump = sorted_dump(project / "cards.db")
    assert cli(project, "db", "build").exit_code == 0
    assert sorted_dump(project / "cards.db") == dump
    assert (project / "cards.db").read_bytes() == first


def test_failed_build_leaves_old_database_untouched(built: Path, cli) -> None:
    db = built / "cards.db"
    before = db.read_bytes()
    edit(
        built / "games/bless/cards.yaml",
        "occhio: 3, karma: 2, preghiera: Eco}",
        "occhio: 99, karma: 2, preghiera: Eco}",
    )
    run = cli(built, "db", "build")
    assert run.exit_code == 1
    assert "occhio 99 is above the maximum" in run.stderr
    assert "the database was not written" in run.stderr
    assert db.read_bytes() == before
    assert [p.name for p in built.iterdir() if p.name.startswith(".cards.db")] == []


def test_one_process_compiles_its_queries_once_and_sees_each_new_database(built: Path, cli) -> None:
    """A build reads each game from cards.db many times (decks, images, the site, the
    examples): the second reading compiles no SQL again, and a `db build` in between,
    which puts a new file in place, is seen by the next reading."""
    from sqlalchemy import event
    from sqlalchemy.engine import Engine
    from sqlalchemy.engine.default import CACHE_HIT

    from pipeline.common.project import open_project
    from pipeline.database.catalog import read_game
    from pipeline.database.connection import open_project_db

    def mazzo() -> list[str]:
        with open_project_db(open_project(built)) as engine:
            return [card.name for deck in read_game(engine, "mazzo").decks for card in deck.cards]

    hits: list[bool] = []

    def executed(conn, cursor, statement, parameters, context, executemany) -> None:
        hits.append(context.cache_hit == CACHE_HIT)

    assert "Spia" in mazzo()
    event.listen(Engine, "after_cursor_execute", executed)
    try:
        assert "Spia" in mazzo()
        assert len(hits) > 10 and all(hits)
    finally:
        event.remove(Engine, "after_cursor_execute", executed)
    edit(built / "games/mazzo/cards.yaml", "name: Spia", "name: Spia Doppia")
    assert cli(built, "db", "build").exit_code == 0
    assert "Spia Doppia" in mazzo() and "Spia" not in mazzo()


def test_games_with_errors_are_never_written(built: Path) -> None:
    """The library refuses them too (the command stops before): neither a db build nor a
    build's refresh writes a database, beside cards.db or in its place."""
    from pipeline.commands.validate import validate
    from pipeline.common.problems import SourceError
    from pipeline.common.project import open_project
    from pipeline.database.store import build_database, refresh

    edit(built / "games/mazzo/cards.yaml", "name: Spia", "name: ''")
    project = open_project(built)
    games = validate(project, layout=False).games
    assert not all(g.ok for g in games)
    before = (built / "cards.db").read_bytes()
    for write in (build_database, refresh):
        with pytest.raises(SourceError, match="not writing the database: mazzo has errors"):
            write(project, games, ())
    assert (built / "cards.db").read_bytes() == before
    assert [p.name for p in built.iterdir() if p.name.startswith(".cards.db")] == []


def test_rows_are_checked_as_the_models_would() -> None:
    """The database's rows are written without ORM objects (store._Rows): a misspelled
    field or a missing required one is still an error, and an omitted optional field
    takes the model's default."""
    from pipeline.database import models
    from pipeline.database.store import _Rows

    rows = _Rows()
    with pytest.raises(TypeError, match="Card has no field nmae"):
        rows.add(models.Card, id=1, game_id=1, number=1, code="a", nmae="A", kind="k")
    with pytest.raises(TypeError, match="CardText needs text"):
        rows.add(models.CardText, card_id=1, key="testo")
    rows.add(models.CardAttribute, card_id=1, key="forza", value_int=3)
    assert rows._tables[models.CardAttribute] == [
        {"card_id": 1, "key": "forza", "value_int": 3, "value_text": None}
    ]


def test_check_detects_stale_database(built: Path, cli) -> None:
    assert cli(built, "db", "build", "--check").exit_code == 0
    edit(built / "games/blitz/cards.yaml", "name: Ruba", "name: Rapina")
    run = cli(built, "db", "build", "--check")
    assert run.exit_code == 1
    assert "cards.db is stale" in run.stderr


def test_check_without_database(project: Path, cli) -> None:
    run = cli(project, "db", "build", "--check")
    assert run.exit_code == 1
    assert "does not exist" in run.stderr


def test_committed_database_is_current(cli) -> None:
    run = cli(ROOT, "db", "build", "--check")
    assert run.exit_code == 0, run.output


def test_database_url_option_and_environment(project: Path, cli, tmp_path: Path) -> None:
    other = tmp_path / "altro.db"
    assert cli(project, "--db", f"sqlite:///{other}", "db", "build").exit_code == 0
    assert query(other, "select count(*) from game") == [(5,)]
    env_db = tmp_path / "env.db"
    assert cli(project, "db", "build", env={"CARTIERA_DB": str(env_db)}).exit_code == 0
    assert query(env_db, "select count(*) from bless_cards") == [(62,)]
    assert not (project / "cards.db").exists()


def test_everything_is_in_the_database(built: Path) -> None:
    db = built / "cards.db"
    statuses = dict(query(db, "select slug, status from game"))
    assert statuses["bless"] == "official"
    assert statuses["blitz"] == statuses["mazzo"] == statuses["bldng"] == "reconstructed"
    decks = dict(query(db, "select code, status from deck where code='rising-sun'"))
    assert decks == {"rising-sun": "incomplete"}
    assert (
        query(
            db,
            "select count(*) from component c join game g on g.id=c.game_id "
            "where g.slug='samurai-sword'",
        )[0][0]
        >= 2
    )
    assert query(db, "select count(*) from ruling")[0][0] >= 10
    effects = query(db, "select data from bless_cards where number=1")[0][0]
    assert effects and effects.startswith("{")


def test_other_database_urls_are_rebuilt_in_one_transaction(
    project: Path, cli, tmp_path: Path
) -> None:
    # a URL that is not a plain sqlite:/// file takes the path used for e.g. PostgreSQL
    target = tmp_path / "shared.db"
    url = f"sqlite+pysqlite:///{target}"
    assert cli(project, "--db", url, "db", "build").exit_code == 0
    assert cli(project, "--db", url, "db", "build").exit_code == 0  # over an existing one
    assert query(target, "select count(*) from bless_cards where forma='Luce'") == [(29,)]
    assert query(target, "select count(*) from game") == [(5,)]


def test_examples_that_no_longer_hold_are_left_out(project: Path, cli) -> None:
    assert cli(project, "db", "build").exit_code == 0
    before = {r[0] for r in query(project / "cards.db", "select code from example")}
    assert "10-legame-senza-ospite" in before
    edit(
        project / "games/bless/cards.yaml",
        "{forma: Luce, occhio: 3, karma: 2, preghiera: Eco}",
        "{forma: Luce, occhio: 4, karma: 2, preghiera: Eco}",
    )
    run = cli(project, "db", "build")
    assert run.exit_code == 0
    assert "10-legame-senza-ospite.yaml: warning: the example no longer holds" in run.stderr
    after = {r[0] for r in query(project / "cards.db", "select code from example")}
    assert after == before - {"10-legame-senza-ospite"}


def test_a_build_plays_again_only_the_examples_of_the_game_it_changed(
    project: Path, cli, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """Playing the worked examples was half of a `db build`: their results are kept in the
    cache under the cards, the scenarios and the code, and a build after an edit plays
    only the edited game's. What the cache gives is what playing gives: the same bytes."""
    from pipeline.play import records

    cache = tmp_path / "cache"
    monkeypatch.setenv("CARTIERA_CACHE", str(cache))  # empty, and this test's own
    played: list[str] = []
    play = records.run_examples
    monkeypatch.setattr(
        records, "run_examples", lambda p, slug, rules: played.append(slug) or play(p, slug, rules)
    )
    every = ["bldng", "bless", "blitz", "mazzo", "samurai-sword"]

    def build() -> bytes:
        played.clear()
        run = cli(project, "db", "build")
        assert run.exit_code == 0, run.output
        return (project / "cards.db").read_bytes()

    first = build()
    assert sorted(played) == every
    assert build() == first and played == []
    edit(project / "games/mazzo/cards.yaml", "name: Spia", "name: Spia Doppia")
    edited = build()
    assert played == ["mazzo"]
    stored = query(project / "cards.db", "select narration_md from example")
    assert any("Spia Doppia" in text for (text,) in stored)  # the new name, played again
    for entry in (cache / "examples").iterdir():  # torn entries (a killed build) are
        entry.write_text("[{", encoding="utf-8")  # played again, to the same bytes
    assert build() == edited and sorted(played) == every
    (project / "games/mazzo/examples/01-scontro-scoperto.yaml").write_text(
        "format: 3\ntitle: [\n", encoding="utf-8"
    )  # a scenario that cannot be read is an error again at every build, never kept
    for _ in range(2):
        run = cli(project, "db", "build")
        assert run.exit_code == 1 and "01-scontro-scoperto.yaml" in run.output


def test_the_opening_check_expects_the_models_tables() -> None:
    """`search` checks cards.db without importing the models: their tables are listed
    again in database/tables.py, and must not drift from models.py."""
    from sqlmodel import SQLModel

    from pipeline.database import models  # noqa: F401  (fills SQLModel.metadata)
    from pipeline.database.tables import TABLES

    declared = {n: tuple(c.name for c in t.columns) for n, t in SQLModel.metadata.tables.items()}
    assert declared == TABLES, "copy models.py's tables and columns into database/tables.py"
    # the view's name too is written twice (sources may not import the database's)
    from pipeline.database.tables import view_name
    from pipeline.sources.gamespec import view_name as declared_view

    assert all(view_name(slug) == declared_view(slug) for slug in ("bless", "samurai-sword"))


def test_search_reads_sqlite_without_sqlalchemy(built: Path) -> None:
    """The light reader gives what SQLAlchemy gives, row for row."""
    from sqlalchemy import create_engine

    from pipeline.common.project import open_project
    from pipeline.database.reader import open_project_reader
    from pipeline.search.sql import Searcher, browser_index

    project = open_project(built, None)
    engine = create_engine(f"sqlite:///{built / 'cards.db'}")
    with open_project_reader(project) as reader:
        assert reader.dialect == "sqlite" and not hasattr(reader.db, "dialect")
        for query in ("occhio>=5 ordina:-occhio", "-forma:luce or o:katana", "is:incompleto"):
            light, heavy = Searcher(reader).search(query), Searcher(engine).search(query)
            assert light.rows == heavy.rows and light.rows, query
        assert browser_index(reader) == browser_index(engine)
