"""Every worked example of games/<slug>/examples is a test: played, checked, narrated. And the
one scenario vocabulary holds: each shared check fails when the engine disagrees, and no
scenario, however wrong, ends in a traceback."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pipeline.common.problems import SourceError
from pipeline.common.project import open_project
from pipeline.engine.core import Outcome
from pipeline.engine.scenario import Result
from pipeline.play.examples import (
    Move,
    _check_result,
    _zone,
    example_names,
    examples_dir,
    load_scenario,
    run_example,
    run_examples,
    vocabulary,
)
from pipeline.play.records import load_rules
from pipeline.sources.yamlfile import plain, read_yaml
from tests.conftest import ROOT, invoke

GAMES = ("bldng", "bless", "blitz", "mazzo", "samurai-sword")
EXAMPLES = [
    (slug, path.stem)
    for slug in GAMES
    for path in sorted((ROOT / "games" / slug / "examples").glob("*.yaml"))
]
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
def rules_of(project):
    return functools.cache(lambda slug: load_rules(project, slug))


@pytest.fixture(scope="module")
def rules(rules_of):
    return rules_of("bless")


def test_every_game_has_its_examples():
    """Per game, so an example deleted by mistake shows which game lost it (issue 30 added
    BLITZ 17-19 and Mazzo 14-15)."""
    per_game = {slug: sum(1 for s, _ in EXAMPLES if s == slug) for slug in GAMES}
    assert per_game == {"bldng": 14, "bless": 16, "blitz": 19, "mazzo": 15, "samurai-sword": 24}


@pytest.mark.parametrize(("slug", "name"), EXAMPLES, ids=[f"{s}/{n}" for s, n in EXAMPLES])
def test_example(project, rules_of, slug: str, name: str):
    result = run_example(project, slug, name, rules_of(slug))
    assert result.passed, "\n".join(result.failures)
    scenario, _ = load_scenario(examples_dir(project, slug) / f"{name}.yaml", project, slug)
    moves = [step for step in scenario.steps if isinstance(step, Move)]
    assert result.narration or not moves, "the engine told nothing"
    assert result.markdown.startswith(f"### {result.title}")
    assert "**Che cosa succede**" in result.markdown


@pytest.mark.parametrize("slug", GAMES)
def test_every_cited_clause_exists(project, slug: str):
    """The clause-to-example traceability: each example cites clauses of its own rulebook."""
    from pipeline.database.catalog import read_game
    from pipeline.database.connection import open_project_db

    with open_project_db(project) as engine:
        anchors = {s.anchor for s in read_game(engine, slug).sections}
    for path in sorted(examples_dir(project, slug).glob("*.yaml")):
        scenario, _ = load_scenario(path, project, slug)
        assert set(scenario.clauses) <= anchors, f"{path.name} cites a clause that is not there"


def test_the_examples_cover_the_rules_that_need_them(project, rules):
    results = run_examples(project, "bless", rules)
    assert len(results) >= 10
    assert {r.clause for r in results} >= TOPICS


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


def test_an_unknown_example_is_one_clear_error(project, rules):
    with pytest.raises(SourceError, match="no example 'nessuno'"):
        run_example(project, "bless", "nessuno", rules)


MUTATIONS = [
    # (capability, game, scenario, text in it, replaced by, a failure that must then be reported)
    (
        "event details",
        "bless",
        "14-eco-gia-usata",
        "side: preghiera}",
        "side: maledizione}",
        "missing",
    ),
    (
        "no events",
        "bless",
        "14-eco-gia-usata",
        "responded: [fiume-etereo]",
        "responded: []",
        "happened",
    ),
    (
        "exact legal",
        "bless",
        "14-eco-gia-usata",
        "barrier: [faro-della-redenzione]",
        "barrier: []",
        "legal",
    ),
    (
        "used this turn",
        "bless",
        "14-eco-gia-usata",
        "answered: true",
        "answered: false",
        "answered",
    ),
    (
        "attributes",
        "bless",
        "14-eco-gia-usata",
        "{form: Luce, eye: 5",
        "{form: Ombra, eye: 5",
        "form",
    ),
    (
        "negative state",
        "bless",
        "14-eco-gia-usata",
        "stasis: false}",
        "stasis: true}",
        "stasis of orizzonte",
    ),
    (
        "abilities",
        "bless",
        "08-impatto-e-barriera",
        "has: [Impatto]",
        "has: [Fato]",
        "lacks ['Fato']",
    ),
    ("decision", "bless", "15-fine-turno", "decision: mulligan", "decision: main", "decision"),
    (
        "player",
        "bless",
        "15-fine-turno",
        "      player: 2",
        "      player: 1",
        "player: expected 1",
    ),
    ("taken by", "bless", "15-fine-turno", "    by: 1", "    by: 2", "taken by player 1, not 2"),
    ("phase", "bless", "15-fine-turno", "  phase: end\n", "", "decision: expected 'mulligan'"),
    (
        "seat zone size",
        "bless",
        "15-fine-turno",
        "1: {hand: 4}",
        "1: {hand: 5}",
        "seat 1 hand size: expected 5, got 4",
    ),
    (
        "pile size",
        "bless",
        "15-fine-turno",
        "draw: 57",
        "draw: 56",
        "pile draw size: expected 56, got 57",
    ),
    (
        "pile order",
        "bless",
        "15-fine-turno",
        "top: {draw: visione-profonda}",
        "top: {draw: re-ombra}",
        "top",
    ),
    (
        "ranking",
        "bless",
        "11-turni-finali",
        "ranking: [[1], [2]]",
        "ranking: [[2], [1]]",
        "result ranking",
    ),
    (
        "how it ended",
        "bless",
        "11-turni-finali",
        "        how: altare",
        "        how: mazzo",
        "result how",
    ),
    (
        "whose turn",
        "mazzo",
        "01-scontro-scoperto",
        "      turn: 2",
        "      turn: 1",
        "turn: expected seat 1, got seat 2",
    ),
    (
        "seat zone cards",
        "mazzo",
        "01-scontro-scoperto",
        "hand: [gigante, spia]",
        "hand: [gigante, drago]",
        "seat 1 hand: expected ['drago', 'gigante']",
    ),
    (
        "seat attribute",
        "samurai-sword",
        "06-shogun-in-tre",
        "2: {resistance: 3}",
        "2: {resistance: 2}",
        "seat 2 resistance: expected 2, got 3",
    ),
    (
        "pile cards",
        "bldng",
        "08-rimescolare-gli-scarti",
        "discard: 0}",
        "discard: [cerchio-giallo]}",
        "pile discard: expected ['cerchio-giallo'], got []",
    ),
    (
        "seat in a pairs game",
        "blitz",
        "01-blocca-contro-blocca",
        "      turn: 1\n",
        "      turn: 2\n",
        "turn: expected seat 2",
    ),
    (
        "a site's size",
        "bldng",
        "01-prime-pescate",
        "1: {site: 3}",
        "1: {site: 4}",
        "seat 1 site size: expected 4, got 3",
    ),
]


@pytest.mark.parametrize(
    ("slug", "scenario", "old", "new", "failure"),
    [m[1:] for m in MUTATIONS],
    ids=[m[0] for m in MUTATIONS],
)
def test_each_check_fails_when_the_engine_disagrees(
    project, rules_of, slug: str, scenario: str, old: str, new: str, failure: str
):
    path = project.games_dir / slug / "examples" / f"{scenario}.yaml"
    text = path.read_text(encoding="utf-8")
    assert text.count(old) == 1, f"{old!r} is not once in {scenario}"
    path.write_text(text.replace(old, new), encoding="utf-8")
    try:
        result = run_example(project, slug, scenario, rules_of(slug))
    finally:
        path.write_text(text, encoding="utf-8")
    assert any(failure in f for f in result.failures), result.failures
    assert all(f.startswith(f"games/{slug}/examples/{scenario}.yaml:") for f in result.failures)


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


def test_a_pile_is_checked_in_order_a_seat_zone_in_any_order():
    assert _zone("pile discard", ["bo", "kiseru"], ["bo", "kiseru"], ordered=True) == []
    assert _zone("pile discard", ["bo", "kiseru"], ["kiseru", "bo"], ordered=True) == [
        "pile discard: expected ['kiseru', 'bo'], got ['bo', 'kiseru']"
    ]
    assert _zone("seat 1 hand", ["bo", "kiseru"], ["kiseru", "bo"], ordered=False) == []
    assert _zone("seat 1 hand", ["bo", "bo"], 3, ordered=False) == [
        "seat 1 hand size: expected 3, got 2"
    ]
    assert _zone("seat 1 honour", 3, 3, ordered=False) == []


class _Ended:
    def __init__(self, outcome: Outcome | None):
        self._outcome = outcome

    def outcome(self) -> Outcome | None:
        return self._outcome


def test_results_can_say_draws_rankings_and_team_wins():
    draw = _Ended(Outcome((), "stallo"))
    assert _check_result(draw, Result(draw=True)) == []  # type: ignore[arg-type]
    assert _check_result(draw, Result(winner=1)) == ["result winner: expected 1, got None"]  # type: ignore[arg-type]
    teams = _Ended(Outcome((0, 2), "squadra", ((0, 2), (1, 3))))
    assert _check_result(teams, Result(winners=[3, 1], ranking=[[3, 1], [4, 2]])) == []  # type: ignore[arg-type]
    assert _check_result(teams, Result(draw=True)) == ["result draw: expected True, got False"]  # type: ignore[arg-type]
    assert _check_result(_Ended(None), Result(over=False)) == []  # type: ignore[arg-type]
    assert _check_result(_Ended(None), Result(winner=1)) == ["the game is not over"]  # type: ignore[arg-type]


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


# -- refused moves: every failed check is reported, exit 1, no traceback -----------------------

MAZZO_HEAD = """\
format: 3
title: Prova
clauses: [difesa]
players: 2
position:
  turn: 1
  seats:
    1: {hand: [cavaliere, spia]}
    2: {hand: [paladina, corriere]}
  piles:
    draw: [gigante, arcimaga]
steps:
"""


def _write(project_dir: Path, slug: str, text: str, name: str = "zz-broken") -> Path:
    path = project_dir / "games" / slug / "examples" / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def scratch(built_copy) -> Path:
    """A built project whose examples folders the tests below write broken scenarios into."""
    return built_copy("broken-examples")


def test_a_refused_legal_option_and_play_report_every_failed_check(scratch: Path):
    _write(
        scratch,
        "mazzo",
        MAZZO_HEAD
        + "  - expect:\n      legal: [{attack: drago, ability: coraggio}]\n      decision: defend\n"
        + "  - play: {open: drago}\n"
        + "  - play: {attack: cavaliere, ability: coraggio}\n"
        + "  - expect: {decision: attack, player: 1}\n",
    )
    try:
        run = invoke(scratch, "example", "mazzo", "zz-broken")
    finally:
        (scratch / "games/mazzo/examples/zz-broken.yaml").unlink()
    errors = run.stderr.splitlines()
    assert run.exit_code == 1
    # the refused option, a decision, the refused play, a decision, a player: one line each
    assert len(errors) == 5, run.stderr
    assert all(line.startswith("games/mazzo/examples/zz-broken.yaml:") for line in errors)
    prefix = "games/mazzo/examples/zz-broken.yaml"
    assert errors[0].startswith(f"{prefix}:13: error: step 1: legal option {{'attack': 'drago'")
    assert f"{prefix}:16: error: step 2: {{'open': 'drago'}} is refused" in run.stderr
    assert f"{prefix}:18: error: step 4: player: expected 1, got 2" in run.stderr
    assert "Traceback" not in run.output


# What the engine plays by itself once the position is placed is a step like the others.
AUTO = {
    "mazzo": """\
format: 3
title: Prova
clauses: [ultima-carta]
position:
  seats:
    1: {hand: [spia]}
    2: {hand: [gigante]}
steps:
  - expect:
      events:
        - {kind: last_card, player: 1, card: spia, other: gigante}
        - {kind: clash, value: 10, other_value: 10, winner: 0}
      seats: {1: {hand: 0, loot: 1}, 2: {hand: 0, loot: 1}}
""",
    "bldng": """\
format: 3
title: Prova
clauses: [prime-pescate]
players: 2
position:
  seats:
    1:
      project: scacchiera
      site: [cerchio-blu, cerchio-verde, quadrato-giallo, quadrato-rosso, rettangolo-blu,
        rettangolo-verde, triangolo-giallo, cerchio-rosso]
    2: {project: vetrata, site: [cerchio-rosso]}
  piles:
    draw: [reverse, quadrato-verde, cerchio-giallo]
steps:
  - expect:
      events:
        - {kind: whathappens, player: 1, card: reverse}
        - {kind: reverse, player: 1}
        - {kind: draw, player: 1, card: quadrato-verde}
      decision: discard
      seats: {1: {site: 9}}
      piles: {draw: [cerchio-giallo], discard: [reverse]}
""",
}


@pytest.mark.parametrize("slug", sorted(AUTO))
def test_what_the_engine_plays_by_itself_is_narrated_and_checked(project, rules_of, slug: str):
    path = _write(Path(project.root), slug, AUTO[slug], "zz-auto")
    try:
        result = run_example(project, slug, "zz-auto", rules_of(slug))
        path.write_text(AUTO[slug].replace("player: 1, card:", "player: 2, card:"), "utf-8")
        wrong = run_example(project, slug, "zz-auto", rules_of(slug))
    finally:
        path.unlink()
    assert result.passed, result.failures
    assert len(result.narration) >= 2, result.narration
    assert any("did not all happen" in f for f in wrong.failures), wrong.failures


# Broken scenarios, a dozen per failure class: each ends `cartiera example` with exit 1 and
# messages that name the file and the line; none with a traceback (invoke re-raises one).
SAMURAI_HEAD = """\
format: 3
title: Prova
clauses: [distanza]
players: 4
"""
SAMURAI_SEATS = """\
  seats:
    1: {role: shogun, character: benkei}
    2: {role: ninja-1, character: tomoe}
    3: {role: samurai, character: kojiro}
    4: {role: ninja-2, character: ieyasu}
"""
BLESS_HEAD = "format: 3\ntitle: Prova\nclauses: [fato]\n"
BLITZ_HEAD = "format: 3\ntitle: Prova\nclauses: [catena-blocca]\nplayers: 2\n"
BLDNG_HEAD = "format: 3\ntitle: Prova\nclauses: [prime-pescate]\nplayers: 2\n"
BLDNG_SEATS = """\
  seats:
    1: {project: scacchiera, site: [quadrato-blu]}
    2: {project: vetrata, site: [cerchio-rosso]}
"""
END = "steps:\n  - expect: {result: {over: false}}\n"


def mazzo(old: str = "", new: str = "", steps: str = END) -> str:
    """The Mazzo scenario above with one change, and its steps."""
    return MAZZO_HEAD.replace(old, new).removesuffix("steps:\n") + steps


def samurai(seats: str = SAMURAI_SEATS, more: str = "", steps: str = END) -> str:
    return SAMURAI_HEAD + "position:\n" + seats + more + steps


def expect(text: str) -> str:
    return "steps:\n  - expect: " + text + "\n"


BROKEN = {
    "nonsense yaml": [
        ("mazzo", "format: [3\n"),
        ("mazzo", "format: 3\ntitle: 'x\n"),
        ("bless", "\tformat: 3\n"),
        ("bless", "- - -\n"),
        ("blitz", "just a sentence\n"),
        ("blitz", ""),
        ("bldng", "{{{}}}\n"),
        ("bldng", "format: 3\nformat: 3\n"),
        ("samurai-sword", "[1, 2, 3]\n"),
        ("samurai-sword", "format: 3\ntitle: x\nsteps: *nowhere\n"),
        ("mazzo", "format: 3\n  title: x\n"),
        ("bless", "%YAML 9.9\n---\nformat: 3\n"),
    ],
    "wrong types": [
        ("mazzo", "format: 3\ntitle: [1]\nclauses: [difesa]\n" + END),
        ("mazzo", "format: 3\ntitle: x\nclauses: difesa\n" + END),
        ("mazzo", MAZZO_HEAD.replace("players: 2", "players: two") + "  - play: {nonce: spia}\n"),
        ("mazzo", MAZZO_HEAD.replace("turn: 1", "turn: first") + "  - play: {nonce: spia}\n"),
        ("mazzo", mazzo("{hand: [cavaliere, spia]}", "{hand: cavaliere}")),
        ("mazzo", mazzo("  seats:\n", "  seats: [1, 2]\n  xseats:\n")),
        (
            "bless",
            BLESS_HEAD + "position:\n  seats: {1: {curses: [{card: 3, corrupted: maybe}]}}\n" + END,
        ),
        ("bless", BLESS_HEAD + "position:\n  scores: [a, b]\n" + END),
        ("blitz", BLITZ_HEAD + "position:\n  phase: lunch\n" + END),
        ("bldng", BLDNG_HEAD + "position:\n  direction: sideways\n" + BLDNG_SEATS + END),
        ("samurai-sword", samurai(steps=expect("{seats: {1: {hand: {a: 1}}}}"))),
        ("samurai-sword", samurai(steps=expect("{legal: 3, events: 5}"))),
    ],
    "unknown cards": [
        ("mazzo", mazzo("cavaliere, spia", "cavaliere, unicorno")),
        ("mazzo", mazzo("draw: [gigante", "draw: [gigantessa")),
        ("mazzo", mazzo("{hand: [paladina, corriere]}", "{hand: [paladina], loot: [x]}")),
        ("mazzo", mazzo("cavaliere, spia", "cavaliere, cavaliere")),
        ("bless", BLESS_HEAD + "position:\n  seats: {1: {hand: [carta-che-non-esiste]}}\n" + END),
        ("bless", BLESS_HEAD + "position:\n  piles: {discard: [nessuna]}\n" + END),
        ("blitz", BLITZ_HEAD + "position:\n  seats: {1: {hand: [plasma]}}\n" + END),
        ("blitz", BLITZ_HEAD + "position:\n  piles: {draw: [fuoco, ghiaccio]}\n" + END),
        (
            "bldng",
            BLDNG_HEAD + "position:\n" + BLDNG_SEATS.replace("quadrato-blu", "esagono-blu") + END,
        ),
        ("bldng", BLDNG_HEAD + "position:\n" + BLDNG_SEATS.replace("scacchiera", "piramide") + END),
        ("samurai-sword", samurai(SAMURAI_SEATS.replace("benkei", "zorro"))),
        ("samurai-sword", samurai(more="  piles: {draw: [lancia-laser]}\n")),
    ],
    "unknown seats": [
        ("mazzo", mazzo("  seats:\n", "  seats:\n    3: {hand: [drago]}\n")),
        ("mazzo", mazzo("turn: 1", "turn: 3")),
        ("mazzo", mazzo("  seats:\n", "  seats:\n    0: {hand: [drago]}\n")),
        ("mazzo", MAZZO_HEAD + "  - expect: {seats: {4: {hand: 2}}}\n"),
        ("mazzo", mazzo("players: 2", "players: 3")),
        ("bless", BLESS_HEAD + "position:\n  seats: {5: {hand: [re-ombra]}}\n" + END),
        ("bless", BLESS_HEAD + "players: 4\n" + END),
        ("blitz", BLITZ_HEAD + "position:\n  seats: {7: {table: [fuoco]}}\n" + END),
        ("blitz", BLITZ_HEAD + "position:\n  skip: [9]\n" + END),
        ("bldng", BLDNG_HEAD + "position:\n  turn: 4\n" + BLDNG_SEATS + END),
        ("samurai-sword", samurai(more="    6: {role: ronin, character: goemon}\n")),
        ("samurai-sword", samurai(steps=expect("{distance: [{from: 1, to: 9, value: 1}]}"))),
    ],
    "missing keys": [
        ("mazzo", "title: x\nclauses: [difesa]\n" + END),
        ("mazzo", "format: 3\nclauses: [difesa]\n" + END),
        ("mazzo", "format: 3\ntitle: x\n" + END),
        ("mazzo", "format: 3\ntitle: x\nclauses: [difesa]\n"),
        ("mazzo", "format: 3\ntitle: x\nclauses: [difesa]\nsteps: []\n"),
        ("mazzo", MAZZO_HEAD + "  - {}\n"),
        ("mazzo", MAZZO_HEAD + "  - by: 1\n"),
        ("bless", BLESS_HEAD + "position:\n  seats: {1: {curses: [{corrupted: true}]}}\n" + END),
        ("samurai-sword", SAMURAI_HEAD + "position:\n  seats:\n    1: {role: shogun}\n" + END),
        ("samurai-sword", samurai(steps=expect("{distance: [{from: 1, to: 2}]}"))),
        ("samurai-sword", SAMURAI_HEAD + END),
        ("bldng", BLDNG_HEAD + "position:\n  seats: {1: {project: scacchiera}}\n" + END),
    ],
    "unknown keys": [
        ("mazzo", mazzo("  turn: 1\n", "  turn: 1\n  attacker: 1\n")),
        ("mazzo", mazzo("{hand: [cavaliere, spia]}", "{hand: [cavaliere], pocket: [spia]}")),
        ("mazzo", mazzo("  piles:\n", "  piles:\n    trash: []\n")),
        ("mazzo", MAZZO_HEAD + "  - expect: {hands: {1: [spia]}}\n"),
        ("mazzo", MAZZO_HEAD + "  - expect: {seats: {1: {pocket: 2}}}\n"),
        ("mazzo", MAZZO_HEAD + "  - play: {nonce: spia}\n    when: now\n"),
        ("mazzo", mazzo("clauses: [difesa]", "clause: difesa")),
        ("mazzo", mazzo("format: 3", "format: 2")),
        ("bless", BLESS_HEAD + "position:\n  barriera: []\n" + END),
        ("bless", BLESS_HEAD + "steps:\n  - expect: {cards: {re-ombra: {corrotta: true}}}\n"),
        ("blitz", BLITZ_HEAD + "position:\n  hands: {1: [fuoco]}\n" + END),
        ("samurai-sword", samurai(SAMURAI_SEATS.replace("benkei}", "benkei, mano: []}"))),
    ],
}


@pytest.mark.parametrize(
    ("slug", "text"),
    [case for cases in BROKEN.values() for case in cases],
    ids=[f"{kind}-{i}" for kind, cases in BROKEN.items() for i in range(len(cases))],
)
def test_a_broken_scenario_is_one_located_error(scratch: Path, slug: str, text: str):
    path = _write(scratch, slug, text)
    try:
        run = invoke(scratch, "example", slug, "zz-broken")
    finally:
        path.unlink()
    assert run.exit_code == 1, run.output
    assert re.search(rf"games/{slug}/examples/zz-broken\.yaml:\d+", run.stderr), run.stderr
    assert "Traceback" not in run.output


# -- random positions: validation and set-up refuse them with a located error, nothing else ---

NAMES = st.sampled_from(
    [
        "turn", "turn_number", "phase", "seats", "piles", "hand", "draw", "discard", "loot",
        "site", "project", "table", "curses", "role", "character", "rest", "draws", "x",
        "direction", "barrier", "scores", "exposed", "skip", "front", "card",
    ]
)  # fmt: skip
CARDS = st.sampled_from(
    ["drago", "spia", "fuoco", "aria", "re-ombra", "bokken", "shogun", "benkei", "vetrata",
     "quadrato-blu", "main", "end", "draw", "nessuna"]
)  # fmt: skip
LEAVES = st.none() | st.booleans() | st.integers(-2, 12) | CARDS
VALUES = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(NAMES | st.integers(0, 6), inner, max_size=3)
    ),
    max_leaves=10,
)
SEATS = st.dictionaries(st.integers(0, 6), st.dictionaries(NAMES, VALUES, max_size=4), max_size=4)
POSITIONS = st.fixed_dictionaries({}, optional={"seats": SEATS, "piles": VALUES}).flatmap(
    lambda base: st.dictionaries(NAMES, VALUES, max_size=3).map(lambda more: {**more, **base})
)


@pytest.mark.parametrize("slug", GAMES)
def test_random_positions_never_escape_as_a_traceback(project, rules_of, slug: str):
    rules = rules_of(slug)
    path = project.games_dir / slug / "examples" / "zz-random.yaml"

    @settings(max_examples=40, deadline=None, suppress_health_check=list(HealthCheck))
    @given(position=POSITIONS, players=st.integers(1, 6))
    def play(position: dict[str, Any], players: int) -> None:
        scenario = {
            "format": 3,
            "title": "Prova",
            "clauses": ["x"],
            "players": players,
            "position": position,
            "steps": [{"expect": {"result": {"over": False}, "seats": {1: {"hand": 0}}}}],
        }
        path.write_text(yaml.safe_dump(scenario), encoding="utf-8")
        try:
            run_example(project, slug, "zz-random", rules)
        except SourceError as exc:
            assert re.search(rf"games/{slug}/examples/zz-random\.yaml:\d+", str(exc)), exc

    try:
        play()
    finally:
        path.unlink(missing_ok=True)
    assert "zz-random" not in example_names(project, slug)


def test_every_game_declares_its_vocabulary():
    for slug in GAMES:
        words = vocabulary(slug)
        assert slug == "bldng" or "hand" in words.seat.model_fields  # a BLDNG seat has a site
        assert "draw" in words.piles.model_fields


def _schema_of(path: Path) -> dict[str, Any]:
    """The schema an editor uses for the file: the one its first line names."""
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# yaml-language-server: $schema="), f"{path.name}: no schema line"
    return json.loads((path.parent / first.split("$schema=", 1)[1]).read_text(encoding="utf-8"))


def _as_json(path: Path) -> Any:
    """The file as an editor's YAML server checks it: JSON, where seat numbers are strings."""
    return json.loads(json.dumps(plain(read_yaml(path, path.name).tree)))


@pytest.mark.parametrize("slug", GAMES)
def test_the_schema_checks_position_and_expectations(slug: str):
    paths = sorted((ROOT / "games" / slug / "examples").glob("*.yaml"))
    schema = _schema_of(paths[0])
    assert schema["title"] == f"Cartiera: {slug} examples/*.yaml"
    for path in paths:
        jsonschema.validate(_as_json(path), schema)
    data = _as_json(paths[0])
    wrong_position = json.loads(json.dumps(data))
    wrong_position["position"]["seats"]["1"]["pocket"] = []
    check = next(i for i, step in enumerate(data["steps"]) if "expect" in step)
    wrong_expect = json.loads(json.dumps(data))
    wrong_expect["steps"][check]["expect"]["seats"] = {"1": {"pocket": 2}}
    wrong_seat = json.loads(json.dumps(data))
    wrong_seat["position"]["seats"]["one"] = {}
    for wrong in (wrong_position, wrong_expect, wrong_seat):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(wrong, schema)
