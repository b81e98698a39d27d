"""Every worked example of games/<slug>/examples is a test: played, checked, narrated."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from pipeline.database import build_database
from pipeline.examples import example_names, run_example, run_examples
from pipeline.play import load_rules
from pipeline.problems import SourceError
from pipeline.project import open_project
from pipeline.validate import validate
from tests.conftest import ROOT

NAMES = sorted(p.stem for p in (ROOT / "games" / "bless" / "examples").glob("*.yaml"))
TOPICS = {
    "fasi-scontro",
    "attaccata-corrotta",
    "offerta-pareggio",
    "simulazione",
    "rivalita",
    "fato",
    "attacco-diretto",
    "impatto",
    "catena-eco",
    "ospite",
    "vittoria",
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("examples") / "proj"
    shutil.copytree(ROOT / "games", root / "games")
    project = open_project(root)
    build_database(project, validate(project, layout=False).games)
    return project


@pytest.fixture(scope="module")
def rules(project):
    return load_rules(project, "bless")


@pytest.mark.parametrize("name", NAMES)
def test_example(project, rules, name: str):
    result = run_example(project, "bless", name, rules)
    assert result.passed, "\n".join(result.failures)
    assert result.narration, "the engine told nothing"
    assert result.markdown.startswith(f"### {result.title}")
    assert "**Che cosa succede**" in result.markdown


def test_the_examples_cover_the_rules_that_need_them(project, rules):
    results = run_examples(project, "bless", rules)
    assert len(results) >= 10
    assert {r.clause for r in results} >= TOPICS
    from pipeline.catalog import read_game
    from pipeline.database import open_engine

    with open_engine(project) as engine:
        anchors = {s.anchor for s in read_game(engine, "bless").sections}
    assert {r.clause for r in results} <= anchors  # each names a real clause


def test_a_wrong_expectation_fails(project, rules):
    path = project.games_dir / "bless" / "examples" / "01-scontro-base.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("scores: [2, 0]", "scores: [3, 0]"), encoding="utf-8")
    try:
        result = run_example(project, "bless", "01-scontro-base", rules)
    finally:
        path.write_text(text, encoding="utf-8")
    assert not result.passed
    assert any("scores: expected [3, 0], got [2, 0]" in f for f in result.failures)
    assert "Verifica non riuscita" in result.markdown


def test_a_bad_scenario_points_at_its_line(project, rules, tmp_path: Path):
    path = project.games_dir / "bless" / "examples" / "zz-bad.yaml"
    path.write_text(
        "title: Prova\nclause: fato\nposition:\n  players:\n    - hand: [carta-che-non-esiste]\n"
        "    - {}\nsteps:\n  - end\n",
        encoding="utf-8",
    )
    try:
        with pytest.raises(SourceError) as info:
            run_example(project, "bless", "zz-bad", rules)
        assert "carta-che-non-esiste" in str(info.value)
        assert "zz-bad.yaml" in str(info.value)
        path.write_text(
            "title: Prova\nclause: fato\nposition: {}\nsteps: [end]\n", encoding="utf-8"
        )
        with pytest.raises(SourceError, match=r"zz-bad.yaml:3"):
            run_example(project, "bless", "zz-bad", rules)
    finally:
        path.unlink()
    assert "zz-bad" not in example_names(project, "bless")


def test_an_unknown_example_is_one_clear_error(project, rules):
    with pytest.raises(SourceError, match="no example 'nessuno'"):
        run_example(project, "bless", "nessuno", rules)
