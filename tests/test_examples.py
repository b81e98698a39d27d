"""Every worked example of games/<slug>/examples is a test: played, checked, narrated."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from pipeline.engine.core import Outcome
from pipeline.examples import Result, _check_result, example_names, run_example, run_examples
from pipeline.play import load_rules
from pipeline.problems import SourceError
from pipeline.project import open_project
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
def project(built_copy):
    """A private copy of the session's built project (see conftest.built_copy)."""
    return open_project(built_copy("examples"))


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
        "format: 2\ntitle: Prova\nclause: fato\nposition:\n  players:\n"
        "    - hand: [carta-che-non-esiste]\n    - {}\nsteps:\n  - play: end\n",
        encoding="utf-8",
    )
    try:
        with pytest.raises(SourceError) as info:
            run_example(project, "bless", "zz-bad", rules)
        assert "carta-che-non-esiste" in str(info.value)
        assert "zz-bad.yaml" in str(info.value)
        path.write_text(
            "format: 2\ntitle: Prova\nclause: fato\nposition: {}\nsteps: [{play: end}]\n",
            encoding="utf-8",
        )
        with pytest.raises(SourceError, match=r"zz-bad.yaml:4"):
            run_example(project, "bless", "zz-bad", rules)
    finally:
        path.unlink()
    assert "zz-bad" not in example_names(project, "bless")


def test_an_unknown_example_is_one_clear_error(project, rules):
    with pytest.raises(SourceError, match="no example 'nessuno'"):
        run_example(project, "bless", "nessuno", rules)


MUTATIONS = [
    # (capability, scenario, text in it, replaced by, a failure that must then be reported)
    ("event details", "14-eco-gia-usata", "side: preghiera}", "side: maledizione}", "missing"),
    ("no events", "14-eco-gia-usata", "responded: [fiume-etereo]", "responded: []", "happened"),
    (
        "exact legal",
        "14-eco-gia-usata",
        "barriera: [faro-della-redenzione]",
        "barriera: []",
        "legal",
    ),
    ("used this turn", "14-eco-gia-usata", "answered: true", "answered: false", "answered"),
    (
        "attributes",
        "14-eco-gia-usata",
        "{forma: Luce, occhio: 5",
        "{forma: Ombra, occhio: 5",
        "forma",
    ),
    ("negative state", "14-eco-gia-usata", "stasi: false}", "stasi: true}", "stasi of orizzonte"),
    ("abilities", "08-impatto-e-barriera", "has: [Impatto]", "has: [Fato]", "lacks ['Fato']"),
    ("decision", "15-fine-turno", "decision: mulligan", "decision: main", "decision"),
    ("player", "15-fine-turno", "      player: 2", "      player: 1", "player: expected 1"),
    ("taken by", "15-fine-turno", "    by: 1", "    by: 2", "taken by player 1, not 2"),
    ("phase", "15-fine-turno", "  phase: end\n", "", "decision: expected 'mulligan'"),
    ("pile size", "15-fine-turno", "hand-1: 4,", "hand-1: 5,", "size of hand-1"),
    (
        "pile order",
        "15-fine-turno",
        "top: {mazzo: visione-profonda}",
        "top: {mazzo: re-ombra}",
        "top",
    ),
    ("ranking", "11-turni-finali", "ranking: [[1], [2]]", "ranking: [[2], [1]]", "result ranking"),
    ("how it ended", "11-turni-finali", "        how: altare", "        how: mazzo", "result how"),
]


@pytest.mark.parametrize(
    ("scenario", "old", "new", "failure"),
    [m[1:] for m in MUTATIONS],
    ids=[m[0] for m in MUTATIONS],
)
def test_each_v2_capability_fails_when_the_engine_disagrees(
    project, rules, scenario: str, old: str, new: str, failure: str
):
    path = project.games_dir / "bless" / "examples" / f"{scenario}.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} is not once in {scenario}"
    path.write_text(text.replace(old, new), encoding="utf-8")
    try:
        result = run_example(project, "bless", scenario, rules)
    finally:
        path.write_text(text, encoding="utf-8")
    assert any(failure in f for f in result.failures), result.failures
    assert all(f.startswith(f"games/bless/examples/{scenario}.yaml:") for f in result.failures)


def test_checks_after_a_refused_step_are_still_reported(project, rules):
    path = project.games_dir / "bless" / "examples" / "01-scontro-base.yaml"
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("target: taglio-nelle-tenebre}", "direct: true}"), "utf-8")
    try:
        result = run_example(project, "bless", "01-scontro-base", rules)
    finally:
        path.write_text(text, encoding="utf-8")
    assert (
        "step 1: {'attack': 'catene-lucenti', 'direct': True} is not legal here"
        in (result.failures[0])
    )
    assert any("step 4:" in f and "scores" in f for f in result.failures)


class _Ended:
    def __init__(self, outcome: Outcome | None):
        self._outcome = outcome

    def outcome(self) -> Outcome | None:
        return self._outcome


def test_results_can_say_draws_rankings_and_team_wins():
    draw = _Ended(Outcome((), "stallo"))
    assert _check_result(draw, Result(draw=True)) == []
    assert _check_result(draw, Result(winner=1)) == ["result winner: expected 1, got None"]
    teams = _Ended(Outcome((0, 2), "squadra", ((0, 2), (1, 3))))
    assert _check_result(teams, Result(winners=[3, 1], ranking=[[3, 1], [4, 2]])) == []
    assert _check_result(teams, Result(draw=True)) == ["result draw: expected True, got False"]
    assert _check_result(_Ended(None), Result(over=False)) == []
    assert _check_result(_Ended(None), Result(winner=1)) == ["the game is not over"]


# Rulings the scenarios do not show yet (the engine tests in test_engine_bless.py do). The
# list may only shrink: a new ruling about the engine comes with a scenario that names it
# (``rulings:``), so that the ruling, the rule text and the engine cannot drift apart unseen.
NOT_IN_A_SCENARIO_YET = {
    "altare-fuori-dal-campo", "attacco-diretto-corrotta", "azioni-fuori-turno",
    "blessa-e-lascia-il-campo", "conversione", "controllo-e-punti", "copia-di-copia",
    "corrotta-simulazione-pareggio", "costo-maledizione-pura", "duali-e-forme",
    "durata-partita-turni", "eclissi-bersaglio-unico", "eco-invocata-da-effetto",
    "effetti-in-attesa", "fato-dado", "fiore-senza-avversari", "impulso-in-campo",
    "invocare-per-effetto", "karma-prima-dello-scontro", "legame-senza-ospite",
    "limite-maledizioni-per-giocatore", "mazzo-esaurito-pesca", "mulligan-iniziale-ordine",
    "offerta-solo-attaccante", "oltretomba-esclusa-questa", "ordine-inizio-turno",
    "oscurita-altra-ombra", "pareggio-che-vince", "perdere-effetto", "primo-giocatore-azioni",
    "prossimo-turno", "quando-giochi", "rimuovere-stasi-propria", "scontro-senza-carte",
    "stasi-giocata-o-calata", "turni-finali-nuove-attivazioni", "valori-non-negativi",
    "vince-e-rivalita", "vuoto-in-cima", "zodiaco-invocare",
}  # fmt: skip


def test_every_engine_ruling_has_a_scenario(project):
    from pipeline.examples import examples_dir, load_scenario

    rulings = {
        r["id"]
        for r in yaml.safe_load((project.games_dir / "bless" / "rulings.yaml").read_text())[
            "rulings"
        ]
    }
    shown: set[str] = set()
    for path in sorted(examples_dir(project, "bless").glob("*.yaml")):
        scenario, _ = load_scenario(path, project, "bless")
        assert set(scenario.rulings) <= rulings, f"{path.name} names an unknown ruling"
        shown |= set(scenario.rulings)
    assert {"ultimo-mulligan", "legame-che-si-sposta"} <= shown
    assert rulings - shown == NOT_IN_A_SCENARIO_YET, (
        "a ruling without a scenario, or one now shown that the list still names"
    )
