"""The BLITZ rules engine: one test per rule clause of games/blitz/rules.md (named after its
anchor), the worked examples, seeded games with options and the invariants, the agent."""

from __future__ import annotations

import random
from collections import Counter
from itertools import pairwise, product
from pathlib import Path
from typing import Any

import pytest

from pipeline.common.project import open_project
from pipeline.database.catalog import read_game
from pipeline.database.connection import open_project_db
from pipeline.engine.agents import RandomAgent, play
from pipeline.engine.core import Replay, Seats, play_replay
from pipeline.games.blitz.agents import GreedyAgent
from pipeline.games.blitz.cards import (
    ASIDE,
    BLITZ,
    BLOCCA,
    COLLECTION,
    PESCA,
    RAINBOW,
    RUBA,
    SCAMBIA,
    best_plan,
    collection_key,
)
from pipeline.games.blitz.engine import BlitzRules
from pipeline.games.blitz.matches import play_match
from pipeline.games.blitz.state import EVENT_FIELDS, BlitzState, seat_teams
from pipeline.play.examples import example_names, run_examples
from pipeline.play.records import load_rules

RANDOM_GAMES = 200  # with options the conformance test does not set; every action checked
AGENT_GAMES = 200


@pytest.fixture(scope="module")
def built_once(built_copy) -> Path:
    """A private copy of the session's built project (see conftest.built_copy)."""
    return built_copy("blitz")


@pytest.fixture(scope="module")
def rules(built_once: Path) -> BlitzRules:
    return load_rules(open_project(built_once), "blitz")  # type: ignore[return-value]


@pytest.fixture(scope="module")
def ten_seats(rules: BlitzRules) -> BlitzRules:
    """The same rules for a game.yaml declaring 2 to 10 players: two decks from 6 (8.3)."""
    return BlitzRules(Seats(2, 10), rules.table.records, rules.digest)


def at(
    rules: BlitzRules,
    players: int = 2,
    options: dict | None = None,
    hands: dict[int, list[str]] | None = None,
    tables: dict[int, list[str]] | None = None,
    deck: list[str] | None = None,
    discards: list[str] | None = None,
    **position: Any,
):
    """A position: hands and tables by seat, the deck (the draw pile), the discards, whose
    turn, the phase."""
    seats: dict[int, dict[str, list[str]]] = {p: {"hand": c} for p, c in (hands or {}).items()}
    for p, cards in (tables or {}).items():
        seats.setdefault(p, {})["table"] = cards
    piles = {"discard": discards or []} | ({} if deck is None else {"draw": deck})
    return rules.setup({"seats": seats, "piles": piles, **position}, players, options or {})


def move(rules: BlitzRules, state: BlitzState, *specs: dict[str, Any]) -> BlitzState:
    for spec in specs:
        state.apply(rules.parse_action(state, spec))
        assert not rules.invariants(state), rules.invariants(state)
    return state


def described(rules: BlitzRules, state: BlitzState) -> list[dict[str, Any]]:
    return [rules.describe_action(state, a) for a in state.legal_actions()]


def kinds(state: BlitzState, since: int = 0) -> list[str]:
    return [e.kind for e in state.log[since:] if e.kind not in ("action", "chance")]


MAIN = {"turn": 1, "phase": "main"}
DECK = ["terra", "acqua", "aria", "fuoco", "terra", "acqua"]


# -- 1. the game --------------------------------------------------------------------------


def test_in_breve(rules):
    """Whole games use every part the overview names: draws from the deck and from hands,
    exposures, actions, the BLITZ card, and an end."""
    seen: Counter[str] = Counter()
    for seed in range(20):
        state = rules.new_game(seed, 3)
        play(state, [RandomAgent(seed + p) for p in range(3)])
        seen.update(kinds(state))
        seen.update(
            f"from-{'deck' if e.args[0] < 0 else 'hand'}" for e in state.log if e.kind == "draw"
        )
    for kind in ("draw", "expose", "complete", "play", "blitz", "end", "from-deck", "from-hand"):
        assert seen[kind], kind


def test_giocatori(rules, ten_seats):
    for n in range(2, 6):
        assert rules.new_game(1, n).needed == 3
    with pytest.raises(ValueError, match="blitz is played by 2-5 players, not 8"):
        rules.new_game(1, 8)  # games/blitz/game.yaml says 2-5
    for n in range(6, 11):
        assert ten_seats.new_game(1, n).needed == 5
    for n, options in ((1, {}), (6, {"decks": 1}), (11, {}), (4, {"decks": 3})):
        with pytest.raises(ValueError):
            ten_seats.new_game(1, n, options)
    assert seat_teams(4, "pairs") == (0, 1, 0, 1)  # partners sit opposite
    assert seat_teams(6, "pairs") == (0, 1, 2, 0, 1, 2)
    assert seat_teams(6, "teams") == (0, 1, 0, 1, 0, 1)  # teams alternate
    assert seat_teams(3, "none") == (0, 1, 2)
    for n, mode in ((3, "pairs"), (2, "teams"), (4, "trios")):
        with pytest.raises(ValueError):
            seat_teams(n, mode)


def test_scopo(rules):
    state = at(
        rules,
        **MAIN,
        hands={1: ["aria"], 2: ["terra"]},
        tables={1: ["fuoco"] * 4 + ["acqua"] * 4 + ["aria"] * 3},
        deck=DECK,
    )
    move(rules, state, {"expose": "aria"})
    assert state.outcome().winners == (0,) and state.outcome().how == "collezioni"


# -- 2. the cards -------------------------------------------------------------------------


def test_composizione(rules):
    inst = rules.table.instances(1)
    roles = Counter(inst.role)
    assert len(inst.card) == 54
    assert roles[COLLECTION] == 36 and roles[BLITZ] == 1 and roles[ASIDE] == 1
    assert all(roles[r] == 4 for r in (PESCA, SCAMBIA, RUBA, BLOCCA))
    assert Counter(inst.type[c] for c in range(54) if inst.role[c] == COLLECTION) == {
        t: 9 for t in range(4)
    }
    state = rules.new_game(3, 4)
    assert len(state.deck) == 53 - 16


def test_carte_collezione(rules):
    assert rules.table.types == ["Fuoco", "Acqua", "Aria", "Terra"]
    state = at(rules, **MAIN, hands={1: ["fuoco", "ruba-x1", "blocca-x1"]}, deck=DECK)
    assert [d for d in described(rules, state) if "expose" in d] == [{"expose": "fuoco"}]


def test_collezioni(rules):
    assert collection_key([2, 2, 2, 2]) == 2
    assert collection_key([0, 1, 2, 3]) == RAINBOW
    assert collection_key([0, 0, 0, 1]) == -1 and collection_key([0, 1, 2]) == -1
    state = at(
        rules, **MAIN, hands={1: ["acqua"]}, tables={1: ["fuoco"] * 3 + ["acqua"]}, deck=DECK
    )
    assert state.comp[0] == [] and state.points(0) == 4


def test_carta_qr(rules):
    state = rules.new_game(5, 5)
    qr = [c for c in range(54) if state.inst.role[c] == ASIDE]
    play(state, [RandomAgent(p) for p in range(5)])
    assert state.zones()["aside"] == qr


# -- 3. set-up ----------------------------------------------------------------------------


def test_distribuzione(rules):
    state = rules.new_game(8, 4)
    assert [len(h) for h in state.hands] == [4, 4, 4, 4]
    assert state.current_player() == 0 and state.decision_kind() in ("draw", "main")
    deals = [e for e in state.log if e.kind == "deal"]
    assert [e.player for e in deals] == [0, 1, 2, 3]
    again = rules.new_game(8, 4)
    assert again.hands == state.hands and again.deck == state.deck


def test_zone(rules):
    state = at(rules, **MAIN, exposed=1, hands={1: ["pesca-x2"], 2: ["terra"]}, deck=DECK)
    move(rules, state, {"card": "pesca-x2"})
    zones = state.zones()
    assert set(zones) == {
        "deck",
        "discards",
        "blitz",
        "aside",
        "hand-1",
        "hand-2",
        "table-1",
        "table-2",
    }
    assert [rules.table.codes[state.inst.card[c]] for c in zones["discards"]] == ["pesca-x2"]


def test_squadre(rules):
    state = at(
        rules,
        4,
        {"teams": "pairs"},
        turn=1,
        hands={1: ["acqua"], 2: ["fuoco"], 3: ["aria"] * 4, 4: ["terra"] * 3},
        tables={2: ["fuoco"] * 4, 3: ["acqua"] * 4 + ["terra"] * 3},
        deck=["terra", "ruba-x1", "fuoco", "aria"],
    )
    assert described(rules, state) == [{"draw": "mazzo"}, {"draw": 4}]  # never the partner
    move(rules, state, {"draw": "mazzo"}, {"expose": "terra", "to": 3})
    assert state.team_collections(0) == 2 and state.comp[2][-1][0] == 3
    # actions strike only opponents: the partner's collections are no target
    state = at(
        rules,
        4,
        {"teams": "pairs"},
        **MAIN,
        exposed=1,
        hands={1: ["ruba-x1"]},
        tables={2: ["fuoco"] * 4, 3: ["acqua"] * 4},
        deck=DECK,
    )
    targets = {d.get("target") for d in described(rules, state) if d.get("card") == "ruba-x1"}
    assert targets == {2}
    # team collections win together
    state = at(
        rules,
        4,
        {"teams": "pairs"},
        **MAIN,
        hands={1: ["aria"]},
        tables={1: ["fuoco"] * 4 + ["aria"] * 3, 3: ["acqua"] * 4},
        deck=DECK,
    )
    move(rules, state, {"expose": "aria"})
    assert state.outcome().winners == (0, 2)


def test_squadre_iniziare_o_ampliare_dal_compagno(rules):
    """rules.md 3.3 and 4.6; seed, Svolgimento del Gioco, "Esporre una carta collezione":
    a card is exposed to start or extend a collection of one's own or of one's team, not
    only to complete a partner's collection."""
    state = at(
        rules,
        4,
        {"teams": "pairs"},
        **MAIN,
        hands={1: ["aria", "terra"], 2: ["fuoco"], 4: ["terra"]},
        tables={3: ["fuoco", "acqua"]},
        deck=DECK,
    )
    exposes = [d for d in described(rules, state) if "expose" in d]
    assert {"expose": "aria", "to": 3} in exposes  # extends the partner's collection
    assert {"expose": "terra", "to": 3} in exposes
    assert not any(d.get("to") in (2, 4) for d in exposes)  # never an opponent's area
    move(rules, state, {"expose": "aria", "to": 3})
    assert [e.args[1] for e in state.log if e.kind == "expose"] == [2]
    assert not state.comp[2] and len(state.loose[2]) == 3 and state.team_points(0) == 3
    state = at(rules, 4, {"teams": "pairs"}, **MAIN, hands={1: ["terra"]}, deck=DECK)
    move(rules, state, {"expose": "terra", "to": 3})  # starts one in the partner's empty area
    assert len(state.loose[2]) == 1 and not state.loose[0]


# -- 4. the turn --------------------------------------------------------------------------


def test_ordine_di_gioco(rules):
    state = rules.new_game(11, 4)
    play(state, [RandomAgent(p) for p in range(4)])
    turns = [e.player for e in state.log if e.kind == "turn"]
    assert turns[:8] == [0, 1, 2, 3, 0, 1, 2, 3]
    assert all(b == (a + 1) % 4 for a, b in pairwise(turns))


def test_fasi(rules):
    state = at(
        rules,
        turn=1,
        hands={1: ["ruba-x1", "fuoco"], 2: ["aria"] * 3},
        tables={2: ["terra"] * 4},
        deck=DECK,
    )
    assert state.decision_kind() == "draw"
    move(rules, state, {"draw": "mazzo"})
    assert state.decision_kind() == "main"
    assert not any("card" in d for d in described(rules, state))  # action only after exposing
    move(rules, state, {"expose": "fuoco"})
    assert {"card": "ruba-x1", "target": 2, "collection": "terra"} in described(rules, state)


def test_pescare(rules):
    state = at(rules, turn=1, hands={1: ["fuoco"], 2: ["acqua"]}, deck=["aria", "terra"])
    assert state.decision_kind() == "main"  # the deck is the only source: drawn at once
    assert sorted(rules.table.codes[state.inst.card[c]] for c in state.hands[0]) == [
        "aria",
        "fuoco",
    ]
    assert len(state.deck) == 1
    # nothing to draw from: the draw is skipped and the turn goes on (blitz-pesca-impossibile)
    state = at(rules, turn=1, hands={1: ["fuoco", "acqua", "aria"], 2: ["terra"]}, deck=[])
    assert "no_draw" in kinds(state) and state.decision_kind() == "main"


def test_pescare_da_avversario(rules):
    hands = {1: ["acqua"], 2: ["fuoco"] * 3, 3: ["terra"] * 2}
    state = at(rules, 3, turn=1, hands=hands, deck=["aria"])
    assert described(rules, state) == [{"draw": "mazzo"}, {"draw": 2}]  # not the 3, with 2
    move(rules, state, {"draw": 2})
    assert [len(h) for h in state.hands] == [2, 2, 2]
    # still possible with the deck finished: then it is the only draw, taken at once
    state = at(rules, 3, turn=1, hands=hands, deck=[])
    draw = next(e for e in state.log if e.kind == "draw")
    assert draw.args[0] == 1 and [len(h) for h in state.hands] == [2, 2, 2]


def test_a_card_seen_going_into_a_hand_stays_there_in_every_world(rules):
    """The player drawn from sees which card went: the worlds drawn for it keep that card
    in the drawer's hand, until the card leaves it (then nobody knows where it goes)."""
    state = at(rules, 2, turn=1, hands={1: ["acqua"], 2: ["fuoco", "terra", "aria"]}, deck=DECK)
    move(rules, state, {"draw": 2})
    (taken,) = next(e for e in reversed(state.log) if e.kind == "draw").args[1]
    assert state.known == [0, 1 << taken]
    assert all(taken in state.determinize(1, seed).hands[0] for seed in range(30))
    (unseen,) = [c for c in state.hands[0] if c != taken]  # seat 2 never saw it go there
    assert any(unseen not in state.determinize(1, seed).hands[0] for seed in range(30))
    code = rules.table.codes[state.inst.card[taken]]
    move(rules, state, {"expose": code})
    assert state.known == [0, 0]


def test_senza_carte(rules):
    state = at(
        rules,
        turn=2,
        phase="main",
        hands={1: [], 2: ["fuoco"] * 4},
        deck=["aria", "terra", "acqua"],
    )
    move(rules, state, {"end": True})
    draw = [e for e in state.log if e.kind == "draw"][-1]
    assert draw.player == 0 and draw.args[0] == -1 and len(draw.args[1]) == 2
    state = at(rules, turn=2, phase="main", hands={1: [], 2: ["fuoco"] * 4}, deck=["aria"])
    move(rules, state, {"end": True})
    assert len(state.hands[0]) == 1 and not state.deck
    # a hand emptied outside one's turn (by answering with a Blocca) is no empty turn
    state = at(
        rules,
        turn=2,
        phase="main",
        exposed=1,
        hands={1: ["blocca-x1"], 2: ["ruba-x1"]},
        tables={1: ["aria"] * 4},
        deck=["aria", "terra", "acqua"],
    )
    move(rules, state, {"card": "ruba-x1", "target": 1, "collection": "aria"}, {"block": True})
    draw = [e for e in state.log if e.kind == "draw"][-1]
    assert draw.player == 0 and len(draw.args[1]) == 1


def test_esporre(rules):
    state = at(rules, **MAIN, hands={1: ["fuoco", "acqua"], 2: ["terra"]}, deck=DECK)
    move(rules, state, {"expose": "fuoco"})
    assert state.turn_player == 1  # one exposure a turn: with nothing else to do, it ends
    assert [rules.table.codes[state.inst.card[c]] for c in state.loose[0]] == ["fuoco"]


def test_giocare_azione(rules):
    state = at(
        rules,
        **MAIN,
        exposed=1,
        hands={1: ["ruba-x1", "pesca-x2", "fuoco"], 2: ["terra"]},
        tables={2: ["aria"] * 4},
        deck=DECK,
    )
    move(rules, state, {"card": "pesca-x2"})
    assert not any("card" in d for d in described(rules, state))  # one action a turn


def test_passare(rules):
    state = at(rules, **MAIN, hands={1: ["fuoco", "acqua"], 2: ["terra"]}, deck=DECK)
    mark = len(state.log)
    move(rules, state, {"end": True})
    assert kinds(state, mark)[:2] == ["pass", "turn"] and state.turn_player == 1
    assert len(state.hands[0]) == 2


def test_riordinare(rules):
    assert best_plan((4, 1, 1, 1)) == ((1, 0, 0, 0), 0)  # four equal (10) over different (8)
    assert best_plan((5, 1, 1, 1)) == ((1, 0, 0, 0), 1)
    assert best_plan((4, 4, 3, 3)) == ((0, 0, 0, 0), 3)  # more collections first
    # ruling blitz-motore-riordino: the engine's grouping has at once the most complete
    # collections and the most points (7.3) of every grouping, for every area of one deck
    for counts in product(range(10), repeat=4):
        every = []
        for r in range(min(counts) + 1):  # r of four different, then all the equal ones
            e = sum((c - r) // 4 for c in counts)
            every.append((e + r, sum(counts) + 6 * e + 4 * r))
        equal, rainbow = best_plan(counts)
        mine = (sum(equal) + rainbow, sum(counts) + 6 * sum(equal) + 4 * rainbow)
        assert mine == (max(k for k, _ in every), max(p for _, p in every)), counts
    state = at(
        rules,
        **MAIN,
        hands={1: ["fuoco"], 2: ["terra"]},
        tables={1: ["fuoco"] * 3 + ["acqua", "aria", "terra"]},
        deck=DECK,
    )
    assert [k for k, _ in state.comp[0]] == [RAINBOW]
    move(rules, state, {"expose": "fuoco"})
    assert [k for k, _ in state.comp[0]] == [0] and state.points(0) == 13


# -- 5. action cards ----------------------------------------------------------------------


def test_azioni_regole_comuni(rules):
    state = at(
        rules,
        **MAIN,
        blitz_played=True,  # actions need no exposure: only their effects limit them
        hands={1: ["ruba-x1", "pesca-x2", "scambia-x1", "blocca-x1", "fuoco"], 2: []},
        tables={2: ["acqua"]},
        deck=[],
    )
    # no complete collection to steal, no card in the deck, nothing to swap, Blocca only answers
    assert described(rules, state) == [{"expose": "fuoco"}, {"end": True}]
    move(rules, state, {"expose": "fuoco"})
    assert described(rules, state) == [  # now there is a card of his own to swap
        {
            "card": "scambia-x1",
            "target": 2,
            "mode": "tavolo",
            "give": "fuoco",
            "take": "acqua",
            "from": "sciolte",
        },
        {"end": True},
    ]


def test_pesca_x2(rules):
    state = at(
        rules,
        **MAIN,
        exposed=1,
        hands={1: ["pesca-x2"], 2: ["blocca-x1"]},
        deck=["fuoco", "acqua", "aria"],
    )
    move(rules, state, {"card": "pesca-x2"})
    assert "respond" not in [state.decision_kind()] and "block" not in kinds(state)
    assert len(state.hands[0]) == 2 and state.exposes_left == 2
    move(rules, state, {"expose": "fuoco"}, {"expose": "acqua"})
    assert len(state.loose[0]) == 2
    state = at(
        rules, **MAIN, exposed=1, hands={1: ["pesca-x2", "terra"], 2: ["aria"]}, deck=["fuoco"]
    )
    move(rules, state, {"card": "pesca-x2"})
    assert len(state.hands[0]) == 2 and not state.deck


def test_scambia_x1(rules):
    position = dict(
        MAIN,
        exposed=1,
        hands={1: ["scambia-x1", "ruba-x1"], 2: ["aria", "terra"]},
        tables={1: ["acqua"], 2: ["fuoco"] * 4},
        deck=DECK,
    )
    state = at(rules, **position)
    move(rules, state, {"card": "scambia-x1", "target": 2, "mode": "mano"})
    assert state.log[-1].kind == "reveal" and state.decision_kind() == "swap"
    assert state.observation(1)["revealed"] == ["aria", "terra"]  # everyone sees that hand
    move(rules, state, {"take": "terra", "give": "ruba-x1"})
    assert [rules.table.codes[state.inst.card[c]] for c in state.hands[0]] == ["terra"]
    # the swapper knows the other hand as it left it (not the card it drew next), and the
    # other knows which card went to the swapper
    (shown,) = [e.args[1] for e in state.log if e.kind == "reveal"]
    (_, took, gave) = next(e.args for e in state.log if e.kind == "swap_hand")
    after = {*shown, gave} - {took}
    assert state.known == [sum(1 << c for c in after), 1 << took]
    assert set(state.hands[1]) > after  # the new card from the deck
    assert any(e.kind == "swap_hand" for e in state.log)
    # table for table, even from a complete collection, which then falls apart
    state = at(rules, **position)
    move(
        rules,
        state,
        {
            "card": "scambia-x1",
            "target": 2,
            "mode": "tavolo",
            "give": "acqua",
            "take": "fuoco",
            "from": "fuoco",
        },
    )
    assert state.comp[1] == [] and len(state.loose[1]) == 4 and len(state.loose[0]) == 1
    # with no other card in hand, only the table
    state = at(rules, **dict(position, hands={1: ["scambia-x1"], 2: ["aria"]}))
    modes = {d.get("mode") for d in described(rules, state) if d.get("card")}
    assert modes == {"tavolo"}


def test_ruba_x1(rules):
    state = at(
        rules,
        **MAIN,
        exposed=1,
        hands={1: ["ruba-x1"], 2: ["aria"]},
        tables={2: ["terra"] * 4 + ["acqua", "fuoco", "aria", "terra"]},
        deck=DECK,
    )
    options = {d["collection"] for d in described(rules, state) if d.get("card")}
    assert options == {"terra", "diverse"}
    move(rules, state, {"card": "ruba-x1", "target": 2, "collection": "terra"})
    assert [k for k, _ in state.comp[0]] == [3] and [k for k, _ in state.comp[1]] == [RAINBOW]


def test_blocca_x1(rules):
    state = at(
        rules,
        4,
        {"teams": "pairs"},
        **MAIN,
        exposed=1,
        hands={1: ["ruba-x1", "acqua"], 2: ["aria"], 4: ["blocca-x1"]},
        tables={2: ["terra"] * 4},
        deck=DECK,
    )
    move(rules, state, {"card": "ruba-x1", "target": 2, "collection": "terra"})
    assert state.decision_kind() == "respond" and state.current_player() == 3  # the partner
    move(rules, state, {"block": True})
    assert state.comp[1] and not state.comp[0] and state.skip[0]
    # the blocked player's next turn is skipped
    while state.turn_player != 0 or state.decision_kind() == "respond":
        state.apply(state.legal_actions()[-1])
    assert any(e.kind == "skip" and e.player == 0 for e in state.log)


def test_catena_blocca(rules):
    position = dict(
        MAIN,
        exposed=1,
        hands={1: ["ruba-x1", "blocca-x1"], 2: ["blocca-x1", "blocca-x1"]},
        tables={2: ["aria"] * 4},
        deck=DECK,
    )
    state = at(rules, **position)
    move(rules, state, {"card": "ruba-x1", "target": 2, "collection": "aria"})
    move(rules, state, {"block": True}, {"block": True}, {"block": True})
    resolve = next(e for e in state.log if e.kind == "resolve")
    assert resolve.args == (False, (0,))  # three Blocca: the Ruba fails, its player skips once
    assert state.comp[1] and state.skip == [True, False]
    state = at(rules, **position)
    move(rules, state, {"card": "ruba-x1", "target": 2, "collection": "aria"})
    move(rules, state, {"block": True}, {"block": True}, {"block": False})
    assert next(e for e in state.log if e.kind == "resolve").args == (True, (1,))
    assert state.comp[0] and not state.comp[1]


# -- 6. the BLITZ card --------------------------------------------------------------------


def test_blitz_requisito(rules):
    position = dict(
        MAIN,
        exposed=1,
        hands={1: ["blitz", "acqua"], 2: ["blocca-x1"]},
        tables={1: ["fuoco"] * 3, 2: ["aria"]},
        deck=DECK,
    )
    state = at(rules, **position)
    assert not any(d.get("card") == "blitz" for d in described(rules, state))
    state = at(rules, **dict(position, tables={1: ["fuoco"] * 4, 2: ["aria"]}))
    move(rules, state, {"card": "blitz", "targets": [2]})
    assert "block" not in kinds(state) and state.blitz_mode  # it cannot be blocked


def test_blitz_effetto(rules):
    state = at(
        rules,
        4,
        **MAIN,
        exposed=1,
        hands={1: ["blitz", "acqua"]},
        tables={1: ["fuoco"] * 4, 2: ["aria"], 3: ["terra", "terra"], 4: ["acqua"] * 4 + ["aria"]},
        deck=DECK,
    )
    choices = [d["targets"] for d in described(rules, state) if d.get("card") == "blitz"]
    # "da massimo due avversari" (seed, La Carta BLITZ): one opponent or two, every choice
    assert choices == [[2], [3], [4], [2, 3], [2, 4], [3, 4]]
    move(rules, state, {"card": "blitz", "targets": [3, 4]})
    assert state.loose[2] == [] and state.loose[3] == [] and len(state.comp[3]) == 1
    assert len(state.loose[0]) == 3 and state.zones()["blitz"] and not state.zones()["discards"]


def test_modalita_blitz(rules):
    position = dict(
        MAIN,
        blitz_played=True,
        hands={1: ["scambia-x1", "ruba-x1"], 2: ["aria"]},
        tables={1: ["fuoco"] * 4, 2: ["acqua", "terra"] * 2},
        deck=DECK,
    )
    state = at(rules, **position)
    swaps = [d for d in described(rules, state) if d.get("card") == "scambia-x1"]
    assert swaps and all(d.get("mode") == "mano" for d in swaps)  # no card of the last collection
    move(rules, state, {"card": "scambia-x1", "target": 2, "mode": "mano"})  # one swap: made
    assert any(e.kind == "swap_hand" for e in state.log)
    assert state.blitz_mode and state.comp[0]


# -- 7. end and points --------------------------------------------------------------------


def test_collezioni_per_vincere(rules, ten_seats):
    assert at(rules, **MAIN, hands={1: ["fuoco"]}, deck=DECK).needed == 3
    state = at(
        ten_seats,
        6,
        **MAIN,
        hands={1: ["ruba-x1", "fuoco"]},
        tables={1: ["fuoco"] * 7 + ["acqua"] * 4 + ["aria"] * 4 + ["terra"] * 4},
        deck=DECK,
    )
    assert state.needed == 5 and not state.is_terminal()
    move(rules, state, {"expose": "fuoco"})
    assert state.outcome().how == "collezioni"
    assert not any(e.kind == "pass" for e in state.log)  # at once, in the middle of the turn


def test_mazzo_esaurito(rules):
    position = dict(MAIN, hands={1: ["fuoco", "acqua"], 2: ["aria", "terra", "blocca-x1"]}, deck=[])
    state = at(rules, **position)
    move(rules, state, {"end": True})
    assert not state.is_terminal()  # the Giocatore 2 still holds 3 cards
    state = at(rules, **dict(position, hands={1: ["fuoco", "acqua"], 2: ["aria", "terra"]}))
    move(rules, state, {"end": True})
    assert state.outcome().how == "mazzo-esaurito"


def test_mazzo_esaurito_passare_non_chiude(rules):
    """rules.md 7.2 and 4.8; seed, Fine del Gioco ("quando il mazzo è finito e tutti i
    giocatori hanno meno di 3 carte in mano") and Svolgimento ("può passare il turno"): a
    round of passes with the deck finished does not end the game while a hand holds 3."""
    state = at(
        rules,
        **MAIN,
        hands={1: ["fuoco", "acqua"], 2: ["blocca-x1"] * 3},
        deck=[],
    )
    for _ in range(4):  # two whole rounds in which nobody exposes or plays
        move(rules, state, {"end": True})
        assert not state.is_terminal()
        assert max(len(h) for h in state.hands) >= 3


def test_mazzo_esaurito_partita_interrotta(rules):
    """Ruling blitz-partita-interrotta: when no rule can end the game (Blocca cards nobody
    may play go round the hands), the engine's safeguard stops it with no result, and does
    not report it as ended by the deck (rules.md 7.2)."""
    state = at(
        rules,
        3,
        **MAIN,
        hands={1: ["blocca-x1"] * 3, 2: ["blocca-x1", "ruba-x1"], 3: ["ruba-x1", "ruba-x1"]},
        tables={1: ["fuoco"]},
        deck=[],
    )  # every decision has one option: the cards go round until the safeguard
    while not state.is_terminal():
        assert max(len(h) for h in state.hands) >= 3
        state.apply(state.legal_actions()[-1])
    outcome = state.outcome()
    assert outcome.stopped and outcome.how == "interrotta" and outcome.winners == ()
    assert state.returns() == [0.0, 0.0, 0.0] and min(state.own_turns) >= 60
    assert "si interrompe" in rules.narrate(state.log, 3)[-1]


def test_punti(rules):
    state = at(
        rules,
        **MAIN,
        hands={1: ["ruba-x1"] * 3},
        tables={1: ["fuoco"] * 4 + ["acqua", "aria", "terra", "fuoco"] + ["aria"]},
        deck=DECK,
    )
    assert state.points(0) == 10 + 8 + 1  # cards in hand are worth nothing


def test_vincitore(rules):
    def ending(t1: list[str], t2: list[str]) -> tuple:
        state = at(
            rules, **MAIN, hands={1: ["fuoco", "fuoco"], 2: []}, tables={1: t1, 2: t2}, deck=[]
        )
        move(rules, state, {"end": True})
        return state.outcome().winners

    assert ending(["aria"] * 4, ["terra"] * 3) == (0,)
    assert ending(["aria", "acqua", "fuoco"] * 3, ["terra", "acqua", "aria", "fuoco", "terra"]) == (
        1,
    )  # collections
    assert ending(["aria"] * 4 + ["acqua"], ["terra"] * 4 + ["fuoco"]) == (0, 1)  # shared


def test_rush_blitz(rules):
    position = dict(
        MAIN,
        hands={1: ["fuoco", "acqua"], 2: ["aria"]},
        deck=[],
        discards=["ruba-x1", "pesca-x2"],
        blitz_played=True,
    )
    state = at(rules, options={"rush": True}, **position)
    move(rules, state, {"end": True})
    assert state.rush_on and "rush" in kinds(state)
    rush_deck = [rules.table.role[state.inst.card[c]] for c in state.deck + state.hands[1]]
    assert BLITZ not in rush_deck and state.zones()["blitz"]
    while not state.is_terminal():  # passing for ever would never end it (7.2): expose
        state.apply(state.legal_actions()[0])
    assert state.outcome().how in ("rush", "rush-esaurito")
    state = at(rules, **position)  # not agreed: points decide
    move(rules, state, {"end": True})
    assert state.outcome().how == "mazzo-esaurito"


# -- 8. match modes and more decks --------------------------------------------------------


def test_round_singoli(rules):
    result = play_match(rules, "rounds", 3, 2, {}, [GreedyAgent(1), RandomAgent(2)])
    sides = result["history"]
    winner = result["winners"]
    assert winner and len(sides) == result["rounds"] >= 5
    assert all(set(winner) <= set(s) for s in sides[-5:])
    assert len(sides) == 5 or not set(winner) <= set(sides[-6])
    with pytest.raises(ValueError):
        play_match(rules, "tornei", 3, 2, {}, [RandomAgent(1), RandomAgent(2)])


def test_campionato(rules):
    result = play_match(rules, "points", 4, 3, {}, [RandomAgent(p) for p in range(3)])
    totals = result["totals"]
    (champion,) = result["winners"]
    assert totals[champion] >= 255 and totals[champion] == max(totals)


def test_piu_mazzi(ten_seats):
    inst = ten_seats.table.instances(2)
    assert len(inst.card) == 108
    state = ten_seats.new_game(2, 7)
    aside = Counter(state.inst.role[c] for c in state.zones()["aside"])
    assert aside == {ASIDE: 2, BLITZ: 1} and state.needed == 5
    assert len(state.deck) == 108 - 3 - 28


# -- the whole engine ---------------------------------------------------------------------


def test_rules_clauses_have_tests(rules, built_once):
    """Every numbered clause of the BLITZ rules in the database has its test here."""
    with open_project_db(open_project(built_once)) as engine:
        sections = read_game(engine, "blitz").sections
    anchors = [s.anchor for s in sections if s.level >= 3 or "." in s.number.strip(".")]
    assert len(anchors) > 30
    missing = [a for a in anchors if f"test_{a.replace('-', '_')}" not in globals()]
    assert not missing, f"clauses without a test: {missing}"


def test_examples_hold(rules, built_once):
    project = open_project(built_once)
    names = example_names(project, "blitz")
    results = run_examples(project, "blitz", rules)
    assert len(results) == len(names) >= 10
    failed = {r.name: r.failures for r in results if not r.passed}
    assert not failed, failed
    clauses = {c for r in results for c in r.clauses}
    assert {"catena-blocca", "blitz-effetto", "scambia-x1", "rush-blitz"} <= clauses
    assert all(r.narration for r in results)


def test_games_with_options_keep_the_invariants(ten_seats):
    rules = ten_seats
    rng = random.Random(7)
    hows: Counter[str] = Counter()
    for seed in range(RANDOM_GAMES):
        players = rng.choice([2, 3, 4, 5, 4, 6])
        teams = (
            rng.choice(["none", "pairs", "teams"]) if players % 2 == 0 and players >= 4 else "none"
        )
        options = {"teams": teams, "rush": rng.random() < 0.5, "blitz_mode": rng.random() < 0.1}
        state = rules.new_game(seed, players, options)
        agents = [RandomAgent(seed * 11 + p) for p in range(players)]
        while not state.is_terminal():
            state.apply(agents[state.current_player()].act(state))
            problems = rules.invariants(state)
            assert not problems, (seed, options, problems)
        hows[state.outcome().how] += 1
        if seed % 25 == 0:
            replay = Replay.from_json(Replay.of(state, rules, seed, options, players).to_json())
            assert play_replay(rules, replay).log == state.log
    assert hows["collezioni"] and hows["rush"] and hows["mazzo-esaurito"] + hows["rush-esaurito"]


def test_every_event_is_told_and_described(rules):
    seen = set()
    for seed in range(30):
        state = rules.new_game(seed, 4, {"teams": "pairs", "rush": True})
        play(state, [GreedyAgent(seed) if p % 2 else RandomAgent(seed + p) for p in range(4)])
        for event in state.log:
            seen.add(event.kind)
            d = rules.describe_event(event)
            assert d["kind"] == event.kind and set(d) - {"kind", "player"} <= set(
                EVENT_FIELDS[event.kind]
            )
        lines = rules.narrate(state.log, 4)
        assert lines and all(line.endswith(".") for line in lines)
    assert seen <= set(EVENT_FIELDS) and len(seen) >= 15


def test_observation_hides_hands_and_deck(rules):
    state = rules.new_game(12, 3)
    for _ in range(15):
        state.apply(state.legal_actions()[0])
    seen = state.observation(0)
    other = state.determinize(0, 99)
    assert other.observation(0) == seen and other.hands[0] == state.hands[0]
    assert (other.hands[1], other.hands[2], other.deck) != (
        state.hands[1],
        state.hands[2],
        state.deck,
    )
    assert (
        "deck" in seen
        and isinstance(seen["deck"], int)
        and seen["hand_sizes"][1] == len(state.hands[1])
    )


def test_greedy_beats_random(rules):
    wins = 0
    for seed in range(AGENT_GAMES):
        seat = seed % 2
        state = rules.new_game(seed, 2)
        agents = [RandomAgent(seed), RandomAgent(seed)]
        agents[seat] = GreedyAgent(seed)  # type: ignore[call-overload]
        play(state, agents)
        wins += seat in state.outcome().winners
    assert wins / AGENT_GAMES >= 0.85, wins


def test_figures(rules):
    summaries = []
    for seed in range(40):
        state = rules.new_game(seed, 4, {"teams": "pairs", "rush": True})
        play(state, [RandomAgent(seed + p) for p in range(4)])
        summaries.append(rules.summarize(state))
    tables = {t.key: t for t in rules.figures(summaries, 4)}
    assert set(tables) == {"fine", "collezioni", "blitz", "blocca", "durata"}
    ends = dict(tables["fine"].rows)
    assert abs(sum(cell["rate"] for cell in ends.values()) - 1) < 1e-9
    assert all(cell["low"] <= cell["rate"] <= cell["high"] for cell in ends.values())
    assert sum(count for _, count in tables["durata"].rows) == 40


def test_simulate_matches_from_the_cli(built_once, cli):
    run = cli(
        built_once,
        "simulate",
        "blitz",
        "--match",
        "rounds",
        "--games",
        "4",
        "--agents",
        "greedy,random",
    )
    assert run.exit_code == 0, run.output
    assert "Sfide vinte dall'agente greedy" in run.stdout and "Round per sfida" in run.stdout
    assert run.stdout.startswith("Sfide di BLITZ, round singoli")  # as the game is named
    again = cli(
        built_once,
        "simulate",
        "blitz",
        "--match",
        "points",
        "--games",
        "3",
        "--json",
        "--jobs",
        "2",
    )
    assert again.exit_code == 0 and '"mode": "points"' in again.stdout
    bad = cli(built_once, "simulate", "blitz", "--match", "tornei")
    assert bad.exit_code == 2 and "no match mode 'tornei'" in bad.output
