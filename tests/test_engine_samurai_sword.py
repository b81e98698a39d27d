"""The Samurai Sword rules engine: one test per rule clause of games/samurai-sword/rules.md
(named after its anchor), the worked examples, hidden information, seeded random games with
the invariants, the figures and the heuristic agent."""

from __future__ import annotations

import dataclasses
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from pipeline.common.project import open_project
from pipeline.database.catalog import read_game
from pipeline.database.connection import open_project_db
from pipeline.engine.agents import RandomAgent
from pipeline.engine.core import Seats
from pipeline.games.samurai_sword.agents import Warrior, side_win_rate
from pipeline.games.samurai_sword.engine import SamuraiRules, build_rules
from pipeline.games.samurai_sword.state import SamuraiState
from pipeline.play.examples import run_examples
from pipeline.play.records import card_records, load_rules
from tests.conftest import ROOT, invoke

SLUG = "samurai-sword"
ROLES = {
    3: ["shogun", "ninja-1", "ninja-2"],
    4: ["shogun", "ninja-1", "samurai", "ninja-2"],
    5: ["shogun", "ninja-1", "samurai", "ronin", "ninja-2"],
    6: ["shogun", "ninja-1", "samurai", "ronin", "ninja-2", "ninja-3"],
    7: ["shogun", "ninja-1", "samurai", "ronin", "ninja-2", "ninja-3", "samurai"],
}
# Characters whose abilities do not act on the tests that do not name them, and a card in
# every hand (no one is harmless) that no answer asks for.
CHARACTERS = ["hideyoshi", "ieyasu", "nobunaga", "goemon", "kojiro", "tomoe", "musashi"]
IN_HAND = ["geisha", "diversivo"]


@pytest.fixture(scope="module")
def built_once(built_copy) -> Path:
    """A private copy of the session's built project (see conftest.built_copy)."""
    return built_copy("samurai")


@pytest.fixture(scope="module")
def rules(built_once: Path) -> SamuraiRules:
    return load_rules(open_project(built_once), SLUG)  # type: ignore[return-value]


def table(rules: SamuraiRules, players: int = 4, **seats: Any) -> SamuraiState:
    """A position: `seats` maps "p1".."p7" to what differs from the default seat (a Geisha
    or a Diversivo in hand); other keyword arguments are position keys (turn, rest ...) or
    piles (draw, discard)."""
    position = {k: v for k, v in seats.items() if not k.startswith("p")}
    piles = {k: position.pop(k) for k in ("draw", "discard") if k in position}
    table = {}
    for p in range(players):
        seat = {"role": ROLES[players][p], "character": CHARACTERS[p], "hand": [IN_HAND[p % 2]]}
        seat.update(seats.get(f"p{p + 1}", {}))
        table[p + 1] = seat
    return rules.setup({"seats": table, "piles": piles, **position}, players, {})


def move(rules: SamuraiRules, state: SamuraiState, *specs: dict[str, Any]) -> SamuraiState:
    for spec in specs:
        state.apply(rules.parse_action(state, spec))
        assert rules.invariants(state) == []
    return state


def can(rules: SamuraiRules, state: SamuraiState, spec: dict[str, Any]) -> bool:
    try:
        rules.parse_action(state, spec)
    except ValueError:
        return False
    return True


def hand(state: SamuraiState, p: int) -> list[str]:
    return sorted(state.cards.codes(state.hands[p - 1]))


def kinds(state: SamuraiState, since: int = 0) -> list[str]:
    return [e.kind for e in state.log[since:] if e.kind not in ("action", "chance")]


def end_turn(rules: SamuraiRules, state: SamuraiState) -> SamuraiState:
    move(rules, state, {"end": True})
    while state.phase == "scarto":
        move(rules, state, {"discard": hand(state, state.who + 1)[0]})
    return state


def random_game(rules: SamuraiRules, seed: int, players: int) -> SamuraiState:
    state = rules.new_game(seed, players)
    agent = RandomAgent(seed)
    while not state.is_terminal():
        state.apply(agent.act(state))
    return state


# -- 1. Il gioco ----------------------------------------------------------------------------


def test_in_breve(rules):
    """Nobody leaves the game: a harmless player still plays the next turn."""
    s = table(rules, p2={"resistance": 0})
    end_turn(rules, s)
    assert s.active == 1 and s.res[1] == s.maxres[1] and s.phase == "main"


def test_scheda(rules, built_once):
    """The sheet's player counts for the base game are the ones the engine deals for, and
    no others; what the engine declares of the game holds in play: a seat sees its own role
    and the Shogun's, not the others' (hidden information), and the deal is shuffled."""
    text = (built_once / "games" / SLUG / "rules.md").read_text(encoding="utf-8")
    found = re.search(r"^\| Giocatori \| da (\d+) a (\d+)\b", text, re.M)
    assert found, "the sheet has no Giocatori row"
    low, high = map(int, found.groups())
    info = rules.info
    assert (info.min_players, info.max_players) == (low, high)
    for players in (low - 1, high + 1):
        with pytest.raises(ValueError, match="played by"):
            rules.new_game(1, players)
    s = rules.new_game(1, high)
    seen = [set(s.observation(p)["roles"]) for p in range(high)]
    assert info.hidden_information
    assert all(roles == {str(p), str(s.shogun())} for p, roles in enumerate(seen))
    assert info.chance and s.hands != rules.new_game(2, high).hands


def test_obiettivo(rules):
    """The game ends when someone has no honour left; the side with most points wins."""
    s = table(rules, 4, p1={"hand": ["bokken"]}, p2={"resistance": 1, "honour": 1})
    move(rules, s, {"card": "bokken", "target": 2})
    assert s.is_terminal() and s.outcome().how == "ferita"
    scores = s.team_scores()
    assert s.team(s.outcome().winners[0]) == max(scores, key=scores.get)


# -- 2. Il materiale ------------------------------------------------------------------------


def test_contenuto(rules):
    cards = rules.cards
    deck = Counter(cards.kind[c] for c in cards.deck)
    assert deck == {"arma": 32, "proprieta": 15, "azione": 43}
    assert len(cards.characters) == 12
    assert sum(len(r) for r in cards.roles.values()) == 7


def test_carte_ruolo(rules):
    cards = rules.cards
    teams = {cards.code[r]: cards.team[r] for rs in cards.roles.values() for r in rs}
    assert teams == {
        "shogun": "Shogun",
        "samurai": "Shogun",
        "ninja-1": "Ninja",
        "ninja-2": "Ninja",
        "ninja-3": "Ninja",
        "ronin": "Ronin",
    }


def test_carte_personaggio(rules):
    s = rules.new_game(3, 7)
    for p in range(7):
        assert s.res[p] == s.maxres[p] == rules.cards.resistance[s.char[p]] <= 5


def test_carte_da_gioco(rules):
    """Weapons attack, properties stay in front, actions go to the discards."""
    s = table(rules, p1={"hand": ["bokken", "armatura", "cerimonia-del-te"]})
    move(rules, s, {"card": "armatura"}, {"card": "cerimonia-del-te"})
    move(rules, s, {"card": "bokken", "target": 2})
    assert s.cards.codes(s.front[0]) == ["armatura"]
    assert s.cards.codes(s.discard)[-2:] == ["cerimonia-del-te", "bokken"]


# -- 3. Ruoli e squadre ---------------------------------------------------------------------


def test_ruoli(rules):
    """The Shogun is known to all and plays first."""
    for seed in range(5):
        s = rules.new_game(seed, 5)
        assert s.active == s.shogun() and s.turns == 1
        assert all(s.observation(p)["shogun"] == s.shogun() for p in range(5))


def test_ruoli_per_giocatori(rules):
    table_ = {3: (1, 0, 2, 0), 4: (1, 1, 2, 0), 5: (1, 1, 2, 1), 6: (1, 1, 3, 1), 7: (1, 2, 3, 1)}
    for n, want in table_.items():
        s = rules.new_game(n, n)
        got = Counter(s.kind(p) for p in range(n))
        assert tuple(got[k] for k in ("shogun", "samurai", "ninja", "ronin")) == want


def test_squadre(rules):
    """Only the Shogun's role is shown; at the end every role is."""
    s = rules.new_game(11, 6)
    for p in range(6):
        assert set(s.observation(p)["roles"]) == {str(p), str(s.shogun())}
    s = random_game(rules, 11, 6)
    assert len(s.observation(0)["roles"]) == 6


# -- 4. Preparazione ------------------------------------------------------------------------


def test_preparare_ruoli(rules):
    """With four players two of the three Ninja are dealt; the third stays out, unseen."""
    stars = set()
    for seed in range(30):
        s = rules.new_game(seed, 4)
        ninja = [s.cards.code[s.role[p]] for p in range(4) if s.kind(p) == "ninja"]
        out = [s.cards.code[c] for c in s.aside if s.cards.role[c]]
        assert len(ninja) == 2 and len([c for c in out if c.startswith("ninja")]) == 1
        stars.add(tuple(sorted(ninja)))
    assert len(stars) == 3


def test_preparare_personaggi(rules):
    s = rules.new_game(5, 5)
    chars = [s.cards.code[c] for c in s.char]
    assert len(set(chars)) == 5
    assert len([c for c in s.aside if s.cards.kind[c] == "personaggio"]) == 7


def test_onore_iniziale(rules):
    for n, (shogun, other) in {3: (6, 3), 4: (5, 3), 5: (5, 3), 6: (5, 4), 7: (5, 4)}.items():
        s = rules.new_game(1, n)
        for p in range(n):
            assert s.honour[p] == (shogun if p == s.shogun() else other)


def test_mano_iniziale(rules):
    s = rules.new_game(2, 7)
    dealt = {e.player: e.args[4] for e in s.log if e.kind == "setup"}
    for seat, size in enumerate((4, 5, 5, 6, 6, 7, 7)):
        assert dealt[(s.shogun() + seat) % 7] == size


# -- 5. Il turno ----------------------------------------------------------------------------


def test_fasi(rules):
    """Recovery, then the Bushido test, then the draw; turns go clockwise."""
    s = table(
        rules,
        p2={"character": "tomoe", "resistance": 0, "front": ["bushido"]},
        draw=["parata"],
    )
    mark = len(s.log)
    end_turn(rules, s)
    assert kinds(s, mark)[:5] == ["end_turn", "turn", "recover", "bushido_test", "bushido_pass"]
    assert kinds(s, mark)[5] == "draw" and s.active == 1


def test_recupero(rules):
    s = table(rules, p2={"resistance": 0}, p3={"resistance": 2})
    end_turn(rules, s)
    assert s.res[1] == s.maxres[1]
    end_turn(rules, s)
    assert s.res[2] == 2


def test_pesca(rules):
    """Two cards; Hideyoshi three; Ieyasu may take the top of the discards first."""
    s = table(rules, 4, turn=4, discard=["katana"])
    end_turn(rules, s)  # player 1, Hideyoshi
    assert len(s.hands[0]) == 1 + 3
    end_turn(rules, s)  # player 2, Ieyasu
    assert s.phase == "pesca"
    move(rules, s, {"draw": "scarti"})
    assert "katana" in hand(s, 2) and len(s.hands[1]) == 3
    end_turn(rules, s)  # player 3, Nobunaga: two cards
    assert len(s.hands[2]) == 3


def test_gioco(rules):
    """Any number of cards in any order; a Parata is only an answer."""
    s = table(rules, p1={"hand": ["parata", "armatura", "concentrazione", "daimyo"]})
    legal = [rules.describe_action(s, a) for a in s.legal_actions()]
    assert {"card": "parata"} not in legal
    move(rules, s, {"card": "concentrazione"}, {"card": "daimyo"}, {"card": "armatura"})
    assert s.phase == "main" and s.who == 0


def test_un_arma_per_turno(rules):
    s = table(rules, p1={"hand": ["bokken", "bokken", "bo"]}, p4={"character": "goemon"})
    move(rules, s, {"card": "bokken", "target": 2})
    assert not can(rules, s, {"card": "bo", "target": 2})
    s = table(rules, p1={"character": "goemon", "hand": ["bokken", "bo", "kiseru"]},
              p4={"character": "hideyoshi"})  # fmt: skip
    move(rules, s, {"card": "bokken", "target": 2}, {"card": "bo", "target": 4})
    assert not can(rules, s, {"card": "kiseru", "target": 2})


def test_limite_mano(rules):
    cards = ["bokken"] * 3 + ["parata"] * 6
    s = table(rules, p1={"hand": cards}, p2={"character": "tomoe", "hand": ["cerimonia-del-te"]})
    assert len(s.hands[0]) == 9 and s.phase == "main"
    move(rules, s, {"end": True})
    assert s.phase == "scarto"
    move(rules, s, {"discard": "bokken"}, {"discard": "bokken"})
    assert len(s.hands[0]) == 7 and s.active == 1
    move(rules, s, {"card": "cerimonia-del-te"})  # player 1 gets an 8th card: no limit now
    assert len(s.hands[0]) == 8 and s.phase == "main"


# -- 6. Armi, distanza e ferite -------------------------------------------------------------


def test_armi(rules):
    cards = rules.cards
    values = {cards.code[c]: (cards.difficulty[c], cards.damage[c]) for c in set(cards.deck)}
    assert values["daikyu"] == (5, 2) and values["shuriken"] == (3, 1)
    assert len([c for c in set(cards.deck) if cards.is_weapon[c]]) == 13


def test_distanza(rules):
    s = table(rules, 7)
    assert [s.distance(0, b) for b in range(1, 7)] == [1, 2, 3, 3, 2, 1]
    s = table(rules, 7, p2={"hand": []}, p3={"resistance": 0})
    assert [s.distance(0, b) for b in (3, 4)] == [1, 2]


def test_difficolta(rules):
    s = table(rules, 5, p2={"character": "benkei", "front": ["armatura", "armatura"]})
    assert s.distance(0, 1) == 1 and s.difficulty(0, 1) == 4
    # Kojiro's weapons reach anyone, whatever the difficulty.
    s = table(rules, 5, p1={"character": "kojiro", "hand": ["bokken"]},
              p3={"character": "benkei", "front": ["armatura"]},
              p5={"character": "hideyoshi"})  # fmt: skip
    assert can(rules, s, {"card": "bokken", "target": 3})


def test_attacco(rules):
    s = table(rules, p1={"hand": ["bokken", "bokken"], "front": ["concentrazione"]},
              p2={"resistance": 0}, p4={"hand": ["parata"]})  # fmt: skip
    assert not can(rules, s, {"card": "bokken", "target": 2})  # harmless
    move(rules, s, {"card": "bokken", "target": 4}, {"parry": "parata"})
    assert s.cards.codes(s.discard)[-2:] == ["bokken", "parata"]
    assert "attack" in kinds(s) and s.res[3] == s.maxres[3]


def test_parata(rules):
    s = table(rules, p1={"hand": ["kiseru", "bokken", "grido-di-battaglia"],
                         "front": ["concentrazione"]},
              p2={"character": "hanzo", "hand": ["bo", "kusarigama"]})  # fmt: skip
    move(rules, s, {"card": "kiseru", "target": 2})
    assert s.who == 1 and s.phase == "parata"
    move(rules, s, {"parry": "bo"})
    assert s.res[1] == 4 and hand(s, 2) == ["kusarigama"]
    move(rules, s, {"card": "bokken", "target": 2})  # his last card cannot parry
    assert s.res[1] == 3 and s.phase == "main"
    s2 = table(rules, p1={"hand": ["grido-di-battaglia"]},
               p2={"character": "hanzo", "hand": ["bo", "kusarigama"]})  # fmt: skip
    move(rules, s2, {"card": "grido-di-battaglia"})
    assert s2.res[1] == 3  # a weapon is no Parata against a Grido (ruling hanzo-parata)


def test_ferite(rules):
    s = table(rules, p1={"character": "musashi", "hand": ["kiseru"],
                         "front": ["estrazione-veloce", "estrazione-veloce"]},
              p2={"character": "ginchiyo", "hand": ["bo"]})  # fmt: skip
    move(rules, s, {"card": "kiseru", "target": 2})
    assert s.res[1] == 4 - (2 + 2 + 1 - 1)
    s = table(rules, p1={"hand": ["bokken"]}, p2={"character": "ginchiyo", "hand": ["bo"]})
    move(rules, s, {"card": "bokken", "target": 2})
    assert s.res[1] == 3  # never less than one
    s = table(rules, p1={"hand": ["wakizashi"]}, p2={"resistance": 1})
    move(rules, s, {"card": "wakizashi", "target": 2})
    assert s.res[1] == 0 and s.log[-3].args[0] == 1  # the extra wounds are lost
    # a 2-wound weapon against 1 resistance is told as what it is: 2 wounds, 1 of them lost
    s = table(rules, p1={"hand": ["kiseru"]}, p2={"resistance": 1, "hand": ["bo"]})
    move(rules, s, {"card": "kiseru", "target": 2})
    wound = next(e for e in s.log if e.kind == "wound")
    assert (wound.args[0], wound.args[4]) == (1, 2)  # lost, dealt
    assert (
        "Il giocatore 2 è colpito da 2 ferite, ma gli restava 1 punto resistenza: lo perde e "
        "resta senza resistenza; 1 ferita va persa."
    ) in rules.narrate(s.log, 4)


def test_ultimo_punto(rules):
    s = table(rules, p1={"hand": ["kiseru", "bokken"], "front": ["concentrazione"]},
              p2={"resistance": 2})  # fmt: skip
    move(rules, s, {"card": "kiseru", "target": 2})
    assert s.harmless(1) and (s.honour[0], s.honour[1]) == (6, 2)
    assert not can(rules, s, {"card": "bokken", "target": 2})
    s = table(rules, p1={"hand": ["kiseru"]}, p2={"resistance": 1, "honour": 1})
    move(rules, s, {"card": "kiseru", "target": 2})
    assert s.is_terminal() and s.honour[0] == 6


# -- 7. Proprietà e azioni ------------------------------------------------------------------


def test_proprieta(rules):
    s = table(rules, p1={"hand": ["armatura", "armatura", "daimyo"] + ["parata"] * 6})
    move(rules, s, {"card": "armatura"}, {"card": "armatura"})
    assert s.difficulty(1, 0) == 3 and len(s.hands[0]) == 7
    end_turn(rules, s)
    assert s.cards.codes(s.front[0]) == ["armatura", "armatura"] and len(s.hands[0]) == 7


def test_concentrazione(rules):
    s = table(rules, p1={"hand": ["bokken", "bokken", "bokken"],
                         "front": ["concentrazione", "concentrazione"]})  # fmt: skip
    assert s.weapon_limit(0) == 3
    move(rules, s, *[{"card": "bokken", "target": 2}] * 3)
    assert s.res[1] == 2


def test_armatura(rules):
    s = table(rules, p1={"hand": ["bokken", "bo"]}, p2={"front": ["armatura"]})
    assert not can(rules, s, {"card": "bokken", "target": 2})
    assert can(rules, s, {"card": "bo", "target": 2})


def test_estrazione_veloce(rules):
    s = table(rules, p1={"hand": ["bokken"], "front": ["estrazione-veloce"]})
    move(rules, s, {"card": "bokken", "target": 2})
    assert s.res[1] == s.maxres[1] - 2


def test_bushido(rules):
    s = table(rules, p1={"hand": ["bushido", "bushido"]})
    legal = [rules.describe_action(s, a) for a in s.legal_actions()]
    assert [a for a in legal if a.get("card") == "bushido"] == [
        {"card": "bushido", "target": p} for p in (1, 2, 3, 4)
    ]
    move(rules, s, {"card": "bushido", "target": 3})
    assert not can(rules, s, {"card": "bushido", "target": 2})  # one in play at a time
    # A non-weapon passes it left; a weapon with no weapon in hand costs 1 honour.
    s = table(rules, p2={"front": ["bushido"]}, draw=["parata", "katana"])
    end_turn(rules, s)
    assert s.cards.codes(s.front[2]) == ["bushido"] and s.honour[1] == 3
    s = table(rules, p2={"front": ["bushido"]}, draw=["katana"])
    end_turn(rules, s)
    assert s.front[1] == [] and s.honour[1] == 2 and "bushido" in s.cards.codes(s.discard)
    s = table(rules, p2={"front": ["bushido"], "hand": ["bo"]}, draw=["katana"])
    end_turn(rules, s)
    move(rules, s, {"honour": True})
    assert s.honour[1] == 2 and "bo" in hand(s, 2)


def test_azioni(rules):
    """Actions ignore distance, then go to the discards; others answer from the left."""
    s = table(rules, 7, p1={"hand": ["diversivo", "jujitsu"]}, p4={"hand": ["katana"]},
              p6={"hand": ["bo"]})  # fmt: skip
    move(rules, s, {"card": "diversivo", "target": 4})
    assert "katana" in hand(s, 1)
    move(rules, s, {"card": "jujitsu"})
    assert s.who == 5  # the first from the left with a weapon to discard
    assert [e.player for e in s.log if e.kind == "wound"] == [1, 2, 4]  # 4 is harmless


def test_geisha(rules):
    s = table(rules, p1={"hand": ["geisha", "geisha", "geisha"], "front": ["bushido"]},
              p3={"hand": ["bo", "kiseru"]})  # fmt: skip
    move(rules, s, {"card": "geisha", "target": 1, "property": "bushido"})
    assert s.front[0] == []
    move(rules, s, {"card": "geisha", "target": 3})
    assert len(s.hands[2]) == 1 and s.cards.codes(s.discard)[-1] in ("bo", "kiseru")
    assert not can(rules, s, {"card": "geisha", "target": 1})  # not one's own hand


def test_diversivo(rules):
    s = table(rules, p1={"hand": ["diversivo"]}, p3={"hand": ["bo"]}, p2={"hand": []})
    assert not can(rules, s, {"card": "diversivo", "target": 2})
    move(rules, s, {"card": "diversivo", "target": 3})
    assert hand(s, 1) == ["bo"] and s.hands[2] == []
    # The victim knows where its card went, and a world redrawn for it keeps it there.
    assert s.observation(2)["known"] == {"0": ["bo"]} and s.observation(3)["known"] == {}
    assert all("bo" in hand(s.determinize(2, seed), 1) for seed in range(10))
    move(rules, s, {"card": "bo", "target": 4})
    assert s.observation(2)["known"] == {}


def test_cerimonia_del_te(rules):
    s = table(rules, p1={"hand": ["cerimonia-del-te"]}, draw=["bo"] * 3 + ["kiseru", "katana"])
    move(rules, s, {"card": "cerimonia-del-te"})
    assert hand(s, 1) == ["bo", "bo", "bo"] and [len(h) for h in s.hands] == [3, 2, 2, 2]
    assert "kiseru" in hand(s, 2) and "katana" in hand(s, 3)


def test_grido_di_battaglia(rules):
    s = table(rules, 5, p1={"hand": ["grido-di-battaglia"]}, p2={"resistance": 0},
              p3={"hand": ["parata"]}, p5={"character": "chiyome"})  # fmt: skip
    move(rules, s, {"card": "grido-di-battaglia"}, {"discard": "parata"})
    assert [s.res[p] for p in range(1, 5)] == [0, 5, s.maxres[3] - 1, 4]
    assert s.hands[2] == []  # the Parata went


def test_jujitsu(rules):
    s = table(rules, p1={"hand": ["jujitsu"]}, p2={"hand": ["bo", "parata"]},
              p3={"hand": ["parata"]}, p4={"hand": []})  # fmt: skip
    move(rules, s, {"card": "jujitsu"}, {"discard": "bo"})
    assert (s.res[1], s.res[2], s.res[3]) == (s.maxres[1], s.maxres[2] - 1, s.maxres[3])


def test_respirazione(rules):
    s = table(rules, p1={"resistance": 1, "hand": ["respirazione"]}, draw=["katana"])
    move(rules, s, {"card": "respirazione", "target": 4})
    assert s.res[0] == s.maxres[0] and "katana" in hand(s, 4)


def test_daimyo(rules):
    s = table(rules, 5, p1={"hand": ["daimyo", "daimyo"]}, p4={"hand": ["daimyo"]})
    before = s.team_scores()
    move(rules, s, {"card": "daimyo"})
    assert len(s.hands[0]) == 3 and s.team_scores()["Shogun"] == before["Shogun"] - 1
    assert before["Ronin"] == 3 * 2  # the Ronin's Daimyo is worth nothing, never multiplied


# -- 8. Personaggi e indifesi ---------------------------------------------------------------


def test_abilita(rules):
    """The abilities read from the character data that no other clause test covers."""
    # Nobunaga: 1 resistance for a card, never the last.
    s = table(rules, p1={"character": "nobunaga", "resistance": 2}, p3={"character": "benkei"})
    move(rules, s, {"ability": True})
    assert s.res[0] == 1 and len(s.hands[0]) == 2 and not can(rules, s, {"ability": True})
    # Tomoe draws one card when her weapon wounds; Ushiwaka one per wound.
    s = table(rules, p1={"character": "tomoe", "hand": ["kiseru"]},
              p2={"character": "ushiwaka", "hand": ["bo"]})  # fmt: skip
    move(rules, s, {"card": "kiseru", "target": 2})
    assert len(s.hands[0]) == 1 and len(s.hands[1]) == 3
    # Chiyome: only weapons wound her.
    s = table(rules, p1={"hand": ["grido-di-battaglia"]}, p2={"character": "chiyome"})
    move(rules, s, {"card": "grido-di-battaglia"})
    assert s.res[1] == s.maxres[1]


def test_indifeso(rules):
    s = table(rules, p1={"hand": ["bokken", "cerimonia-del-te"]}, p2={"hand": []})
    assert s.harmless(1) and not can(rules, s, {"card": "bokken", "target": 2})
    move(rules, s, {"card": "cerimonia-del-te"})
    assert not s.harmless(1) and can(rules, s, {"card": "bokken", "target": 2})


# -- 9. Onore e fine della partita ----------------------------------------------------------


def test_onore(rules):
    s = table(
        rules, p1={"hand": ["bokken", "daimyo"]}, p2={"resistance": 1}, draw=[], rest="discard"
    )
    total = sum(s.honour)
    move(rules, s, {"card": "bokken", "target": 2})
    assert sum(s.honour) == total  # passed on, not lost
    move(rules, s, {"card": "daimyo"})
    assert sum(s.honour) == total - 4  # to the box


def test_mazzo_esaurito(rules):
    s = table(rules, p1={"hand": ["daimyo"]}, draw=["bo"], rest="discard")
    move(rules, s, {"card": "daimyo"})
    assert s.honour == [4, 2, 2, 2] and len(s.hands[0]) == 2
    assert len(s.deck) == len(rules.cards.deck) - 5 and s.discard == []
    # With the discards empty too, the honour is lost and no card taken.
    s = table(rules, p1={"character": "nobunaga"}, p3={"character": "hideyoshi"},
              draw=[], rest="discard")  # fmt: skip
    s.hands[2] += s.discard
    s.discard = []
    move(rules, s, {"ability": True})
    assert s.honour == [4, 2, 2, 2] and s.deck == [] and hand(s, 1) == ["geisha"]


def test_fine_partita(rules):
    """The game ends at once, in the middle of an effect: player 4 never answers."""
    s = table(rules, p1={"hand": ["grido-di-battaglia"]},
              p3={"resistance": 1, "honour": 1}, p4={"hand": ["parata"]})  # fmt: skip
    move(rules, s, {"card": "grido-di-battaglia"})
    assert s.is_terminal() and s.res[1] == s.maxres[1] - 1 and hand(s, 4) == ["parata"]
    s = table(rules, 3, p1={"hand": ["kiseru"]}, p2={"resistance": 0}, p3={"resistance": 1})
    move(rules, s, {"card": "kiseru", "target": 3})
    assert s.outcome().how == "ultimo-in-piedi" and s.outcome().winners == (0,)
    # 9.4: at the end every role card is shown, and the narration tells them
    assert rules.narrate(s.log, 3)[-1].endswith(
        "Si scoprono i ruoli: il giocatore 1 è Shogun, il giocatore 2 è Ninja e il giocatore 3 "
        "è Ninja."
    )


def test_punteggio(rules):
    s = table(rules, 5, p1={"hand": ["daimyo", "daimyo"]}, p2={"honour": 2}, p5={"hand": ["bo"]})
    assert s.team_scores() == {"Shogun": 5 + 3 + 2, "Ninja": 2 + 3, "Ronin": 3 * 2}


def test_moltiplicatori(rules):
    want = {
        3: {"Shogun": 6 * 2, "Ninja": 3 + 3},
        5: {"Shogun": 5 + 3, "Ninja": 3 + 3, "Ronin": 3 * 2},
        6: {"Shogun": 5 + 4 * 2, "Ninja": 4 * 3, "Ronin": 4 * 3},
        7: {"Shogun": 5 + 4 + 4, "Ninja": 4 * 3, "Ronin": 4 * 3},
    }
    for n, scores in want.items():
        assert table(rules, n).team_scores() == scores


def test_ninja_doppio(rules):
    seats = {f"p{p}": {"hand": ["bo"]} for p in range(1, 5)}
    s = table(rules, 4, **seats)  # Ninja with 1 and 2 stars: the second counts twice
    assert s.team_scores() == {"Shogun": 5 + 3 * 2, "Ninja": 3 + 3 * 2}
    seats["p2"] = {"hand": ["bo"], "honour": 1}
    assert table(rules, 4, **seats).team_scores()["Ninja"] == 1 + 3 * 2


def test_parita(rules):
    seats = {f"p{p}": {"hand": ["bo"]} for p in range(1, 6)}
    seats["p1"]["honour"] = 3  # Shogun 3 + Samurai 3 = 6 = Ninja 3 + 3 = Ronin 3 × 2
    s = table(rules, 5, **seats)
    s.finish("mazzo")
    assert s.team(s.outcome().winners[0]) == "Ninja"
    seats["p2"]["honour"] = seats["p5"]["honour"] = 2  # Shogun and Ronin tie: the Ronin loses
    s = table(rules, 5, **seats)
    s.finish("mazzo")
    assert s.team(s.outcome().winners[0]) == "Shogun"


# -- 10. La partita a tre -------------------------------------------------------------------


def test_ruoli_in_tre(rules):
    s = rules.new_game(4, 3)
    assert sorted(s.kind(p) for p in range(3)) == ["ninja", "ninja", "shogun"]
    assert sorted(s.honour) == [3, 3, 6]


def test_shogun_in_tre(rules):
    s = table(rules, 3, turn=3, p1={"character": "tomoe", "hand": []},
              p3={"character": "hideyoshi"})  # fmt: skip
    end_turn(rules, s)
    assert len(s.hands[0]) == 3 and s.weapon_limit(0) == 2
    assert s.team_scores()["Shogun"] == 12


# -- 11. L'espansione Rising Sun ------------------------------------------------------------


def test_rising_sun_contenuto(rules):
    with pytest.raises(ValueError, match="Rising Sun"):
        rules.new_game(1, 5, {"espansione": "rising-sun"})
    assert all(rules.cards.records[c].deck == "base" for c in rules.cards.deck)


def test_otto_giocatori(rules):
    with pytest.raises(ValueError, match="samurai-sword is played by 3-7 players, not 8"):
        rules.new_game(1, 8)


def test_ultimo_punto_rising_sun(rules):
    """The base game does not discard from the deck when a player loses the last point."""
    s = table(rules, p1={"hand": ["kiseru"]}, p2={"resistance": 1})
    deck = len(s.deck)
    move(rules, s, {"card": "kiseru", "target": 2})
    assert len(s.deck) == deck


def test_rules_clauses_have_tests(built_once):
    with open_project_db(open_project(built_once)) as engine:
        sections = read_game(engine, SLUG).sections
    anchors = [s.anchor for s in sections if s.level >= 3 or "." in s.number.strip(".")]
    assert len(anchors) > 50
    missing = [a for a in anchors if f"test_{a.replace('-', '_')}" not in globals()]
    assert not missing, f"clauses without a test: {missing}"


# -- the engine as a whole ------------------------------------------------------------------


def test_examples(built_once, rules):
    results = run_examples(open_project(built_once), SLUG, rules)
    assert len(results) >= 10
    failed = {r.name: r.failures for r in results if not r.passed}
    assert not failed
    silent = {r.name for r in results if not r.narration}  # the ones that only look
    assert silent == {"17-ninja-doppio", "19-ruoli-nascosti"}


def test_effects_come_from_the_card_data(built_once):
    """Change Benkei's data and the Bokken's attributes: the engine plays the new cards."""
    records = card_records(open_project(built_once), SLUG)
    changed = [
        dataclasses.replace(r, data={})
        if r.code == "benkei"
        else dataclasses.replace(r, attributes={**r.attributes, "difficolta": 3})
        if r.code == "bokken"
        else r
        for r in records
    ]
    rules = build_rules(Seats(3, 7), changed, "changed")
    s = table(rules, 5, p1={"hand": ["bokken"]}, p3={"character": "benkei"})
    assert s.difficulty(0, 2) == 2 and can(rules, s, {"card": "bokken", "target": 3})


def test_hidden_information(rules):
    """No other role, hand or deck order in an observation; determinize keeps it."""
    s = rules.new_game(21, 7)
    for p in range(7):
        seen = s.observation(p)
        worlds = [s.determinize(p, seed) for seed in range(5)]
        assert all(other.observation(p) == seen for other in worlds)
        assert set(seen["roles"]) == {str(p), str(s.shogun())}
        assert any(other.role != s.role for other in worlds)
        assert any(other.hands[p - 1] != s.hands[p - 1] for other in worlds)
        assert all(other.hands[p] == s.hands[p] for other in worlds)
        assert isinstance(seen["deck"], int)
    changed = s.clone()  # what player 1 cannot see changes: the deck order, two roles
    changed.deck.reverse()
    a, b = [q for q in range(7) if q not in (0, s.shogun())][:2]
    changed.role[a], changed.role[b] = changed.role[b], changed.role[a]
    assert changed.observation(0) == s.observation(0)


def test_random_games(rules):
    """Seeded random games for 3-7 players end, with the invariants after every action;
    the same seed plays the same game."""
    for seed in range(100):
        n = 3 + seed % 5
        s = rules.new_game(seed, n)
        agent = RandomAgent(seed)
        while not s.is_terminal():
            s.apply(agent.act(s))
            assert rules.invariants(s) == []
        assert s.outcome().winners and s.current_player() == -1
        if seed < 5:
            assert random_game(rules, seed, n).log == s.log


def test_clone_is_independent(rules):
    s = rules.new_game(8, 5)
    copy = s.clone()
    agent = RandomAgent(1)
    for _ in range(30):
        copy.apply(agent.act(copy))
    assert s.log == rules.new_game(8, 5).log


def test_figures(rules):
    summaries = [rules.summarize(random_game(rules, seed, 5)) for seed in range(40)]
    tables = {t.key: t for t in rules.figures(summaries, 5)}
    assert set(tables) == {"lati", "modi", "personaggi", "armi"}
    sides = {row[0]: row[2] for row in tables["lati"].rows}
    assert set(sides) == {"Shogun", "Ninja", "Ronin"}
    # its "giocatori" are each side's players (it gave the table's, 5 on every row)
    game = random_game(rules, 0, 5)
    members = Counter(game.team(p) for p in range(5))
    assert {row[0]: row[1] for row in tables["lati"].rows} == members
    assert sum(r["rate"] for r in sides.values()) == pytest.approx(1.0)
    assert all(r["low"] <= r["rate"] <= r["high"] for r in sides.values())
    assert sum(row[1] for row in tables["modi"].rows) == 40
    assert tables["armi"].rows and all(row[1] > 0 and row[2] >= 0 for row in tables["armi"].rows)


def test_warrior_beats_random(rules):
    """The heuristic plays one side, random the others: its side wins far more often (the
    2,000-game figure: `side_win_rate(rules, 2000)`)."""
    assert side_win_rate(rules, 200) >= 0.75


def test_warrior_never_reads_hidden_state(rules):
    """The agent's choice is the same in a state where all it cannot see was redrawn."""
    for seed in range(20):
        s = rules.new_game(seed, 5)
        agent = RandomAgent(seed)
        for _ in range(seed * 3):
            if s.is_terminal():
                break
            s.apply(agent.act(s))
        if s.is_terminal():
            continue
        me = s.current_player()
        other = s.determinize(me, seed)
        assert Warrior(7).act(s) == Warrior(7).act(other)


def test_cli_simulate_record_replay(built_once, tmp_path):
    """`cartiera simulate` prints the side table for 3 and 7 players; a recorded game
    replays with its Italian narration; the expansion is refused in one line."""
    for players in ("3", "7"):
        run = invoke(built_once, "simulate", SLUG, "--players", players, "--games", "20")
        assert run.exit_code == 0, run.output
        assert "Vittorie di ogni squadra" in run.stdout and "Shogun" in run.stdout
    saved = tmp_path / "partita.json"
    run = invoke(built_once, "record", SLUG, "--out", str(saved), "--players", "5", "--seed", "2")
    assert run.exit_code == 0, run.output
    run = invoke(built_once, "replay", str(saved))
    assert run.exit_code == 0 and "Lo Shogun è il giocatore" in run.stdout
    run = invoke(built_once, "simulate", SLUG, "--option", "espansione=rising-sun")
    assert run.exit_code == 2 and "Rising Sun" in run.output and "Traceback" not in run.output


def test_action_texts_agree_with_their_data():
    """validate's game check: an action whose data and text disagree is an error."""
    from ruamel.yaml import YAML

    from pipeline.games.samurai_sword.checks import check
    from pipeline.sources.formats import CardsSource

    raw = YAML(typ="safe").load((ROOT / "games" / SLUG / "cards.yaml").read_text("utf-8"))
    cards = CardsSource.model_validate(raw).cards
    assert list(check(None, cards)) == []  # type: ignore[arg-type]
    tea = next(c for c in cards if c.id == "cerimonia-del-te")
    wrong = tea.model_copy(update={"data": {**tea.data, "pesca": 4}})
    problems = list(check(None, [wrong]))  # type: ignore[arg-type]
    assert [(p.card_id, p.field) for p in problems] == [("cerimonia-del-te", "text.effetto")]
