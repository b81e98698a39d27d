"""The Mazzo rules engine: one test per rule clause of games/mazzo/rules.md (named after its
anchor), the worked examples, seeded random games with the invariants, and the agent."""

from __future__ import annotations

import dataclasses
import random
import re
from collections import Counter
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
import yaml

from pipeline.common.project import open_project
from pipeline.database.catalog import read_game
from pipeline.database.connection import open_project_db
from pipeline.engine.agents import RandomAgent, play
from pipeline.engine.core import Replay, Seats, play_replay
from pipeline.games.mazzo.agents import BluffAgent
from pipeline.games.mazzo.engine import MazzoRules, build_rules
from pipeline.games.mazzo.state import ABILITIES, MazzoState
from pipeline.play.examples import example_names, examples_dir, load_scenario, run_examples
from pipeline.play.records import card_records, load_rules

# Clauses with nothing for an engine to do: house rules are agreed outside the Classico.
NOT_ENGINE = {"sistema-aperto"}


@pytest.fixture(scope="module")
def built_once(built_copy) -> Path:
    """A private copy of the session's built project (see conftest.built_copy)."""
    return built_copy("mazzo")


@pytest.fixture(scope="module")
def rules(built_once: Path) -> MazzoRules:
    return load_rules(open_project(built_once), "mazzo")  # type: ignore[return-value]


def at(
    rules: MazzoRules,
    p1: list[str],
    p2: list[str],
    draw: list[str] | None = None,
    loot: list[list[str]] | None = None,
    options: dict[str, Any] | None = None,
    **position: Any,
) -> MazzoState:
    """A position: the two hands, the reserve (the draw pile) and the bottini (loot)."""
    bottini = loot or [[], []]
    seats = {1: {"hand": p1, "loot": bottini[0]}, 2: {"hand": p2, "loot": bottini[1]}}
    piles = {"draw": draw or []}
    return rules.setup({"seats": seats, "piles": piles, **position}, 2, options or {})


def move(rules: MazzoRules, state: MazzoState, *specs: dict[str, Any]) -> MazzoState:
    for spec in specs:
        state.apply(rules.parse_action(state, spec))
    return state


def kinds(state: MazzoState) -> list[str]:
    return [e.kind for e in state.log if e.kind not in ("action", "chance")]


def codes(rules: MazzoRules, cards: list[int]) -> list[str]:
    return sorted(rules.cards.codes[c] for c in cards)


def random_game(rules: MazzoRules, seed: int) -> MazzoState:
    state = rules.new_game(seed)
    play(state, [RandomAgent(2 * seed), RandomAgent(2 * seed + 1)])
    return state


# -- 1. Il gioco --------------------------------------------------------------------------------


def test_in_breve(rules):
    state = random_game(rules, 3)
    attackers = [e.player for e in state.log if e.kind == "turn"]
    assert state.num_players == 2 and len(attackers) > 5
    assert all(a != b for a, b in pairwise(attackers))  # roles swap
    assert state.outcome().scores == tuple(float(len(b)) for b in state.bottini)


def test_carte(rules, built_once):
    """The engine's deck is the one the clause's table lists, and a game is played with all
    of it but the rules card, set aside before the deal (2.1)."""
    table = dict(re.findall(r"^\| ([^|]+?) \| (\d+) \|$", section(built_once, "carte"), re.M))
    kinds = Counter(r.kind for r in rules.cards.records)
    listed = {"Personaggi": "personaggio", "Mazziere": "mazziere", "Carta regole": "regole"}
    assert {kind: int(table[label]) for label, kind in listed.items()} == kinds
    for seed in range(3):
        state = rules.new_game(seed, 2)
        dealt = sorted([*state.hands[0], *state.hands[1], *state.reserve])
        assert dealt == [c for c, used in enumerate(rules.cards.in_play) if used]
        assert [rules.cards.records[c].kind for c in state.out] == ["regole"]


def test_abilita(rules, built_once):
    state = at(rules, ["cavaliere", "spia"], ["gigante", "corriere"], draw=["ladra", "pirata"])
    declared = {
        ABILITIES[a[2]] for a in state.legal_actions() if a[1] == rules.cards.card("cavaliere")
    }
    assert declared == {"forza", "coraggio"}  # only the printed abilities
    # values are read from the card data: a stronger Cavaliere wins the same clash
    records = card_records(open_project(built_once), "mazzo")
    stronger = [
        dataclasses.replace(r, attributes={**r.attributes, "forza": 10})
        if r.code == "cavaliere"
        else r
        for r in records
    ]
    for table, winner in ((rules, 1), (build_rules(Seats(2, 2), stronger, "x"), -1)):
        s = at(table, ["cavaliere", "spia"], ["lottatrice", "corriere"], draw=["ladra", "pirata"])
        move(table, s, {"attack": "cavaliere", "ability": "forza"}, {"open": "lottatrice"})
        clash = next(e for e in s.log if e.kind == "clash")
        assert clash.args[5] == (1 if winner == 1 else 0)


def test_mazziere(rules):
    state = at(rules, ["gigante", "spia"], ["mazziere", "lottatrice"], draw=["ladra", "pirata"])
    move(rules, state, {"attack": "gigante", "ability": "forza"})
    assert ("open", rules.cards.card("mazziere")) not in state.legal_actions()  # never face up
    move(rules, state, {"nonce": "mazziere"}, {"believe": True})
    assert codes(rules, state.bottini[1]) == ["gigante", "mazziere"]
    # in attack it may declare any ability and wins the clash
    state = at(rules, ["mazziere", "spia"], ["arcimaga", "corriere"], draw=["ladra", "pirata"])
    assert len([a for a in state.legal_actions() if a[1] == rules.cards.card("mazziere")]) == 5
    move(rules, state, {"attack": "mazziere", "ability": "magia"}, {"open": "arcimaga"})
    assert codes(rules, state.bottini[0]) == ["arcimaga", "mazziere"]


# -- 2. Preparazione ----------------------------------------------------------------------------


def test_distribuzione(rules):
    state = rules.new_game(11)
    zones = state.zones()
    assert [len(zones["hand-1"]), len(zones["hand-2"]), len(zones["riserva"])] == [3, 3, 26]
    assert codes(rules, zones["fuori"]) == ["carta-regole"]
    other = rules.new_game(12)
    assert other.reserve != state.reserve  # shuffled by the seed
    assert rules.new_game(11).reserve == state.reserve  # and only by it


def test_ruoli(rules):
    firsts = {rules.new_game(seed).attacker for seed in range(12)}
    assert firsts == {0, 1}  # drawn by lot
    state = rules.new_game(5)
    assert any(e.kind == "chance" and e.args[0] == "primo" for e in state.log)
    attackers = [e.player for e in random_game(rules, 5).log if e.kind == "turn"]
    assert attackers[0] == state.attacker
    assert attackers[1::2] == [1 - state.attacker] * len(attackers[1::2])


# -- 3. Il turno --------------------------------------------------------------------------------


def test_attacco(rules):
    state = at(rules, ["cavaliere", "spia"], ["gigante", "corriere"], draw=["ladra", "pirata"])
    assert state.decision_kind() == "main" and state.current_player() == 0
    move(rules, state, {"attack": "cavaliere", "ability": "coraggio"})
    seen = state.observation(1)
    assert seen["table"] == {"mine": None, "theirs": -1}  # face down for the defender
    assert seen["ability"] == ABILITIES.index("coraggio")
    assert state.observation(0)["table"]["mine"] == rules.cards.card("cavaliere")


def test_dichiarare(rules):
    state = at(rules, ["giullare"], ["spia", "corriere"])
    assert sorted(ABILITIES[a[2]] for a in state.legal_actions()) == [
        "astuzia",
        "magia",
        "velocita",
    ]


def test_difesa(rules):
    state = at(rules, ["cavaliere", "spia"], ["paladina", "capitana", "corriere"], draw=[])
    move(rules, state, {"attack": "cavaliere", "ability": "coraggio"})
    legal = state.legal_actions()
    assert {a[1] for a in legal if a[0] == "open"} == {
        rules.cards.card("paladina"),
        rules.cards.card("capitana"),
    }
    assert len([a for a in legal if a[0] == "nonce"]) == 3
    # no character with the ability: «non ce l'ho» only
    state = at(rules, ["cavaliere", "spia"], ["gigante", "corriere"], draw=[])
    move(rules, state, {"attack": "cavaliere", "ability": "coraggio"})
    assert {a[0] for a in state.legal_actions()} == {"nonce"}


def test_non_ce_lho(rules):
    state = at(rules, ["cavaliere", "spia"], ["paladina", "corriere"], draw=["ladra", "pirata"])
    move(rules, state, {"attack": "cavaliere", "ability": "coraggio"}, {"nonce": "paladina"})
    assert state.decision_kind() == "judge" and state.current_player() == 0
    assert state.observation(0)["table"]["theirs"] == -1  # the attacker does not see it
    assert state.legal_actions() == [("believe",), ("doubt",)]


def test_credere(rules):
    # a lie believed: the values compare as in any clash
    state = at(rules, ["regina", "spia"], ["capitana", "corriere"], draw=["ladra", "pirata"])
    move(rules, state, {"attack": "regina", "ability": "coraggio"}, {"nonce": "capitana"})
    move(rules, state, {"believe": True})
    assert codes(rules, state.bottini[1]) == ["capitana", "regina"]
    # the truth believed: a card without the ability loses
    state = at(rules, ["regina", "spia"], ["gigante", "corriere"], draw=["ladra", "pirata"])
    move(rules, state, {"attack": "regina", "ability": "coraggio"}, {"nonce": "gigante"})
    move(rules, state, {"believe": True})
    assert codes(rules, state.bottini[0]) == ["gigante", "regina"]


def test_dubitare(rules):
    state = at(rules, ["strega", "spia", "cavaliere"], ["sciamano", "corriere", "paladina"])
    move(rules, state, {"attack": "strega", "ability": "magia"}, {"nonce": "corriere"})
    move(rules, state, {"doubt": True})
    assert rules.cards.card("strega") in state.hands[0]  # shown and taken back
    assert state.observation(0)["other_known"] == sorted(state.hands[1])  # the hand shown
    assert rules.cards.card("strega") in state.observation(1)["other_known"]


def test_dubito_giusto(rules):
    state = at(rules, ["strega", "spia", "cavaliere"], ["sciamano", "corriere", "paladina"])
    move(rules, state, {"attack": "strega", "ability": "magia"}, {"nonce": "corriere"})
    move(rules, state, {"doubt": True})
    assert state.decision_kind() == "take" and len(state.legal_actions()) == 3
    move(rules, state, {"take": ["sciamano", "paladina"]})
    assert codes(rules, state.bottini[0]) == ["paladina", "sciamano"]
    assert codes(rules, state.hands[0]) == ["cavaliere", "spia", "strega"]
    # the Mazziere has no ability: with it alone the defender told the truth
    state = at(rules, ["strega", "spia"], ["mazziere", "corriere"], draw=["ladra", "pirata"])
    move(rules, state, {"attack": "strega", "ability": "magia"}, {"nonce": "mazziere"})
    move(rules, state, {"doubt": True})
    assert "doubt_wrong" in kinds(state)


def test_dubito_sbagliato(rules):
    """3.8: all the attacker's cards go to the defender, one of them drawn blind (the seed
    names "all the attacker's cards"); the played card taken back is among them."""
    state = at(
        rules, ["gigante", "paladina", "cavaliere"], ["spia", "corriere"], draws=["paladina"]
    )
    move(rules, state, {"attack": "gigante", "ability": "forza"}, {"nonce": "spia"})
    move(rules, state, {"doubt": True})
    assert codes(rules, state.bottini[1]) == ["cavaliere", "gigante", "paladina"]
    assert state.hands[0] == [] and state.is_terminal()  # no reserve, no cards: 5.2
    drawn = next(e for e in state.log if e.kind == "blind_draw")
    assert rules.cards.codes[drawn.args[0]] == "paladina"
    # the card shown can be the one drawn: it went back into the hand
    state = at(rules, ["gigante", "paladina"], ["spia", "corriere"], draws=["gigante"])
    move(rules, state, {"attack": "gigante", "ability": "forza"}, {"nonce": "spia"})
    move(rules, state, {"doubt": True})
    assert [rules.cards.codes[e.args[0]] for e in state.log if e.kind == "blind_draw"] == [
        "gigante"
    ]
    # with the option two_card_doubt (the project's reading): the card played and one drawn
    state = at(
        rules,
        ["gigante", "paladina", "cavaliere"],
        ["spia", "corriere"],
        draws=["paladina"],
        options={"two_card_doubt": True},
    )
    move(rules, state, {"attack": "gigante", "ability": "forza"}, {"nonce": "spia"})
    move(rules, state, {"doubt": True})
    assert codes(rules, state.bottini[1]) == ["gigante", "paladina"]
    assert codes(rules, state.hands[0]) == ["cavaliere"]
    # the attacker has no other card: only the one played goes
    for options in ({}, {"two_card_doubt": True}):
        state = at(rules, ["cavaliere"], ["spia", "corriere"], options=options)
        move(rules, state, {"attack": "cavaliere", "ability": "forza"}, {"nonce": "spia"})
        move(rules, state, {"doubt": True})
        assert codes(rules, state.bottini[1]) == ["cavaliere"]


def section(built: Path, anchor: str) -> str:
    with open_project_db(open_project(built)) as engine:
        sections = read_game(engine, "mazzo").sections
    return next(s.body_md for s in sections if s.anchor == anchor)


def test_options_match_the_rule_text(built_once, rules):
    """3.8 and 5.3: the engine's default is the rule text; each option it offers is named in
    the clause it departs from and in a ruling that calls it the project's own."""
    assert set(rules.info.option_names) == {"two_card_doubt", "mazziere_tiebreak"}
    doubt, loot = (
        " ".join(section(built_once, a).split()) for a in ("dubito-sbagliato", "bottino-piu-grande")
    )
    assert "tutta la mano" in doubt and "tutte le altre carte dell'attaccante" in doubt
    assert "`two_card_doubt`" in doubt and "nostra lettura" in doubt
    assert "A parità la partita è pari: il regolamento non prevede spareggi" in loot
    assert "`mazziere_tiebreak`" in loot and "nostra" in loot
    rulings = {
        r["id"]: r["answer"]
        for r in yaml.safe_load((built_once / "games/mazzo/rulings.yaml").read_text())["rulings"]
    }
    # a ruling's answer is plain text (the rulebook prints it as is): the name, no backticks
    assert "opzione two_card_doubt" in rulings["mazzo-dubito-sbagliato"]
    assert "è una lettura e non il testo" in rulings["mazzo-dubito-sbagliato"].lower()
    assert "opzione mazziere_tiebreak" in rulings["mazzo-bottino-piu-grande"]
    assert "nostra invenzione" in rulings["mazzo-bottino-piu-grande"]
    # the engine's wrong doubt by default takes the whole hand, as the clause says
    state = at(
        rules, ["gigante", "paladina", "cavaliere"], ["spia", "corriere"], draws=["cavaliere"]
    )
    move(rules, state, {"attack": "gigante", "ability": "forza"}, {"nonce": "spia"})
    move(rules, state, {"doubt": True})
    assert len(state.bottini[1]) == 3 and not state.hands[0]
    # an option the rule text does not name is refused in one sentence
    with pytest.raises(ValueError, match="no option 'dubbio'"):
        rules.new_game(1, options={"dubbio": True})
    with pytest.raises(ValueError, match="true or false"):
        rules.new_game(1, options={"two_card_doubt": "due"})


# -- 4. Lo scontro ------------------------------------------------------------------------------


def clash_winner(rules: MazzoRules, mine: str, theirs: str, ability: str, open_: bool) -> int:
    state = at(rules, [mine, "spia"], [theirs, "corriere"], draw=["ladra", "pirata"])
    move(rules, state, {"attack": mine, "ability": ability})
    move(rules, state, {"open": theirs} if open_ else {"nonce": theirs})
    if not open_:
        move(rules, state, {"believe": True})
    return next(e.args[5] for e in state.log if e.kind == "clash")


def test_confronto(rules):
    assert clash_winner(rules, "lottatrice", "gigante", "forza", True) == 1  # 9 < 10
    assert clash_winner(rules, "gigante", "lottatrice", "forza", True) == 0
    assert clash_winner(rules, "gigante", "arcimaga", "forza", False) == 0  # no Forza: loses
    assert clash_winner(rules, "gigante", "mazziere", "forza", False) == 1  # the Mazziere wins


def test_pareggio(rules):
    state = at(rules, ["cavaliere", "spia"], ["guerriera", "corriere"], draw=["ladra", "pirata"])
    move(rules, state, {"attack": "cavaliere", "ability": "forza"}, {"open": "guerriera"})
    assert codes(rules, state.bottini[0]) == ["cavaliere"]
    assert codes(rules, state.bottini[1]) == ["guerriera"]


def test_ultima_carta(rules):
    state = at(rules, ["cavaliere", "sciamano"], ["gigante", "corriere"])
    move(rules, state, {"attack": "cavaliere", "ability": "coraggio"}, {"nonce": "corriere"})
    move(rules, state, {"believe": True})
    last = next(e for e in state.log if e.kind == "last_card")
    assert "attack" not in kinds(state)[kinds(state).index("last_card") :]
    clash = [e for e in state.log if e.kind == "clash"][-1]
    assert clash.args[3:] == (10, 9, 1)  # best values: Gigante 10 beats Sciamano's Magia 9
    assert last.player == 1 and state.is_terminal()
    state = at(rules, ["cavaliere", "mazziere"], ["gigante", "corriere"])
    move(rules, state, {"attack": "cavaliere", "ability": "coraggio"}, {"nonce": "corriere"})
    move(rules, state, {"believe": True})
    assert [e for e in state.log if e.kind == "clash"][-1].args[5] == 0  # the Mazziere wins


# -- 5. Fine del turno e della partita ----------------------------------------------------------


def test_fine_del_turno(rules):
    # a right doubt leaves the defender with one card: it is dealt two, the attacker none
    state = at(
        rules,
        ["strega", "spia", "cavaliere"],
        ["sciamano", "corriere", "paladina"],
        draw=["gigante", "arcimaga", "ladra"],
    )
    move(rules, state, {"attack": "strega", "ability": "magia"}, {"nonce": "corriere"})
    move(rules, state, {"doubt": True}, {"take": ["sciamano", "paladina"]})
    assert [len(h) for h in state.hands] == [3, 3] and codes(rules, state.reserve) == ["ladra"]
    assert state.attacker == 1
    # equal hands: the next defender (this turn's attacker) is dealt first; an odd card goes to it
    state = at(rules, ["cavaliere", "spia"], ["guerriera", "corriere"], draw=["ladra"])
    move(rules, state, {"attack": "cavaliere", "ability": "forza"}, {"open": "guerriera"})
    assert codes(rules, state.hands[0]) == ["ladra", "spia"]


def test_fine_della_partita(rules):
    state = at(
        rules,
        ["strega", "spia", "paladina"],
        ["sciamano", "corriere"],
        loot=[[], ["gigante", "arcimaga", "lottatrice"]],
    )
    move(rules, state, {"attack": "strega", "ability": "magia"}, {"nonce": "corriere"})
    move(rules, state, {"doubt": True})
    assert state.is_terminal() and len(state.hands[0]) == 3  # left in hand, in no bottino
    assert state.outcome().winners == (1,) and state.outcome().scores == (2.0, 3.0)
    # the narration says the cards left in a hand are not counted
    assert rules.narrate(state.log, 2)[-1].endswith(
        "Le 3 carte rimaste in mano al Giocatore 1 non entrano in nessun bottino e non contano."
    )
    # a reserve that still has cards keeps the game going
    state = at(rules, ["cavaliere"], ["spia", "corriere"], draw=["ladra", "pirata"])
    move(rules, state, {"attack": "cavaliere", "ability": "forza"}, {"nonce": "spia"})
    move(rules, state, {"believe": True})
    assert not state.is_terminal()


def end_with(rules: MazzoRules, bottini: list[list[str]]) -> Any:
    state = at(rules, ["cavaliere", "spia"], ["guerriera", "gigante"], loot=bottini)
    move(rules, state, {"attack": "cavaliere", "ability": "forza"}, {"open": "guerriera"})
    return state.outcome()


def test_bottino_piu_grande(rules):
    assert end_with(rules, [["ladra", "pirata"], ["drago"]]).winners == (0,)
    tie = end_with(rules, [["ladra"], ["drago"]])
    assert tie.draw and tie.how == "pari"
    # the rulebook names no tie-break: the Mazziere in a bottino does not break a tie
    with_mazziere = end_with(rules, [["ladra"], ["mazziere"]])
    assert with_mazziere.draw and with_mazziere.how == "pari"
    # the project's own tie-break, only with the option mazziere_tiebreak
    state = at(
        rules,
        ["cavaliere", "spia"],
        ["guerriera", "gigante"],
        loot=[["ladra"], ["mazziere"]],
        options={"mazziere_tiebreak": True},
    )
    move(rules, state, {"attack": "cavaliere", "ability": "forza"}, {"open": "guerriera"})
    assert state.outcome().winners == (1,) and state.outcome().how == "spareggio"


def test_vittoria_immediata(rules):
    state = at(
        rules,
        ["arcimaga", "mazziere", "spia"],
        ["gigante", "corriere"],
        loot=[["ladra", "pirata", "drago"], []],
        draw=["golem", "monaco"],
        draws=["mazziere"],
    )
    move(rules, state, {"attack": "arcimaga", "ability": "magia"}, {"nonce": "gigante"})
    move(rules, state, {"doubt": True})
    assert state.outcome().winners == (1,) and state.outcome().how == "mazziere"
    # the Mazziere played, shown and taken back can be drawn blind: it wins at once
    state = at(rules, ["mazziere", "spia", "gigante"], ["corriere", "paladina"], draws=["mazziere"])
    move(rules, state, {"attack": "mazziere", "ability": "magia"}, {"nonce": "paladina"})
    move(rules, state, {"doubt": True})
    assert state.outcome().winners == (1,) and state.outcome().how == "mazziere"
    # with two_card_doubt it goes straight to the defender's bottino: no win at once
    state = at(
        rules,
        ["mazziere", "spia", "gigante"],
        ["corriere", "paladina"],
        draws=["spia"],
        options={"two_card_doubt": True},
    )
    move(rules, state, {"attack": "mazziere", "ability": "magia"}, {"nonce": "paladina"})
    move(rules, state, {"doubt": True})
    assert not state.is_terminal() and rules.cards.card("mazziere") in state.bottini[1]


def test_rules_clauses_have_tests(built_once):
    with open_project_db(open_project(built_once)) as engine:
        sections = read_game(engine, "mazzo").sections
    anchors = [s.anchor for s in sections if s.level >= 3]
    assert len(anchors) > 15
    missing = [
        a for a in anchors if a not in NOT_ENGINE and f"test_{a.replace('-', '_')}" not in globals()
    ]
    assert not missing, f"clauses without a test: {missing}"


# -- the whole engine ---------------------------------------------------------------------------


def test_examples_name_known_rulings(built_once):
    project = open_project(built_once)
    known = {
        r["id"]
        for r in yaml.safe_load((project.games_dir / "mazzo" / "rulings.yaml").read_text())[
            "rulings"
        ]
    }
    named = set()
    for path in sorted(examples_dir(project, "mazzo").glob("*.yaml")):
        named |= set(load_scenario(path, project, "mazzo")[0].rulings)
    assert named and named <= known, named - known


def test_examples(built_once, rules):
    project = open_project(built_once)
    results = run_examples(project, "mazzo", rules)
    assert len(results) >= 10
    assert [f for r in results for f in r.failures] == []
    titles = " ".join(r.title.lower() for r in results)
    for needed in ("bluff creduto", "scoperto dal «dubito»", "«dubito» sbagliato", "pari"):
        assert needed in titles
    assert {"mazziere", "vittoria-immediata", "bottino-piu-grande"} <= {r.clause for r in results}
    assert len(example_names(project, "mazzo")) == len(results)


def test_random_games_keep_the_invariants(rules):
    for seed in range(300):
        state = rules.new_game(seed)
        agents = [RandomAgent(seed), RandomAgent(seed + 1)]
        cards = sorted(c for z in state.zones().values() for c in z)
        while not state.is_terminal():
            assert state.legal_actions()
            state.apply(agents[state.current_player()].act(state))
            assert rules.invariants(state) == []
            assert sorted(c for z in state.zones().values() for c in z) == cards
        assert state.outcome() is not None


def test_observation_hides_and_determinize_keeps_it(rules):
    for seed in range(40):
        state = rules.new_game(seed)
        agents = [RandomAgent(seed), RandomAgent(seed + 1)]
        while not state.is_terminal():
            me = state.current_player()
            copy = state.determinize(me, seed)
            assert copy.observation(me) == state.observation(me)
            assert sorted(c for z in copy.zones().values() for c in z) == list(range(33))
            assert copy.legal_actions() == state.legal_actions()
            state.apply(agents[me].act(state))


def test_replay_round_trip(rules):
    state = random_game(rules, 21)
    replay = Replay.from_json(Replay.of(state, rules, 21, {}).to_json())
    again = play_replay(rules, replay)
    assert again.log == state.log and rules.narrate(again.log, 2)


def test_bluffer_beats_random(rules):
    wins = 0
    for i in range(200):
        me = i % 2
        agents = [RandomAgent(i), RandomAgent(i)]
        agents[me] = BluffAgent(i)
        state = rules.new_game(5000 + i)
        play(state, agents)
        wins += me in state.outcome().winners
    assert wins >= 170, wins  # 97% over 1,000 games; 85% leaves room for chance


def test_bluffer_sees_only_its_observation(rules):
    """Hidden cards dealt again (same observation) never change what the agent does."""
    for seed in range(30):
        state = rules.new_game(seed)
        rng = random.Random(seed)
        while not state.is_terminal():
            me = state.current_player()
            other = state.determinize(me, seed + 99)
            assert BluffAgent(seed).act(state) == BluffAgent(seed).act(other)
            state.apply(rng.choice(state.legal_actions()))


def test_figures(rules):
    summaries = [rules.summarize(random_game(rules, seed)) for seed in range(60)]
    tables = {t.key: t for t in rules.figures(summaries, 2)}
    assert set(tables) == {"primo-attacco", "bluff", "mazziere", "bottini", "personaggi"}
    assert len(tables["personaggi"].rows) == 31
    starts = tables["primo-attacco"].rows
    draws = sum(1 for summary in summaries if not summary["winners"]) / len(summaries)
    assert sum(row[1]["rate"] for row in starts) + draws == pytest.approx(1.0)
    # a "vittorie" row is a side's win rate, held against parity: no share of all games
    for key in ("primo-attacco", "mazziere"):
        assert all(row[0].startswith("chi ") for row in tables[key].rows), tables[key].rows
    assert sum(row[1] for row in tables["bottini"].rows) == 120  # two bottini per game
    bluff = dict(tables["bluff"].rows)
    assert 0 < bluff["«dubito» giusti"]["low"] <= bluff["«dubito» giusti"]["rate"] < 1
