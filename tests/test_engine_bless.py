"""The Bless rules engine: one test per rule clause (named after its anchor in
games/bless/rules.md), and one scenario per card in which its effect changes the outcome."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest

from pipeline.common.project import open_project
from pipeline.engine.core import Seats
from pipeline.games.bless.compiler import KAR, OCC
from pipeline.games.bless.deck import BlessDeck
from pipeline.games.bless.engine import BlessRules
from pipeline.games.bless.state import BlessGame
from pipeline.play.records import load_rules

ZONE_NAMES = {2: "hand", 3: "maledizioni", 4: "preghiere", 5: "altare"}
# A card in hand keeps the turn going (with nothing left to do, a turn ends: 7.3); in the
# second player's hand it stands for SPARE_2, so that both may hold one.
SPARE, SPARE_2 = "voce-del-guru", "mesit-campione-dell-ombra"


@pytest.fixture(scope="module")
def built_once(built_copy) -> Path:
    """A copy of the project with cards.db built from its sources, once for this module."""
    return built_copy("bless")


@pytest.fixture(scope="module")
def rules(built_once: Path) -> BlessRules:
    return load_rules(open_project(built_once), "bless")  # type: ignore[return-value]


def game(
    rules: BlessRules,
    p1: dict | None = None,
    p2: dict | None = None,
    dice: tuple[int, ...] | list[int] = (),
    seed: int = 0,
    **spec: Any,
) -> BlessGame:
    """A position: seat 1's and seat 2's zones, the Mazzo (draw pile) and the Vuoto (discard
    pile) by their Italian names, whose turn (`active`), and the other position keys."""
    p2 = dict(p2 or {})
    if "hand" in p2:
        p2["hand"] = [SPARE_2 if c == SPARE else c for c in p2["hand"]]
    piles = {"draw": spec.pop("mazzo", []), "discard": spec.pop("vuoto", [])}
    if "active" in spec:
        spec["turn"] = spec.pop("active")
    altar = spec.pop("altar", 5)
    position = {"seats": {1: p1 or {}, 2: p2}, "piles": piles, "seed": seed, "dice": list(dice)}
    return rules.setup({**position, **spec}, 2, {"altar": altar})


def play(rules: BlessRules, g: BlessGame, *moves: Any) -> BlessGame:
    for move in moves:
        action = move if isinstance(move, tuple) else rules.parse_action(g, move)
        assert action in g.legal_actions(), f"{move} is not legal now ({g.pending})"
        g.apply(action)
        g.check_invariants()
    return g


def pick(rules: BlessRules, g: BlessGame, *values: Any) -> BlessGame:
    """Answer decisions that only some variants of a scenario ask (none: nothing happens)."""
    for value in values:
        if g.pending is not None and g.pending.kind != "main":
            play(rules, g, {"choose": value})
    return g


def can(rules: BlessRules, g: BlessGame, move: Any) -> bool:
    return rules.parse_action(g, move) in g.legal_actions()


def end_turn(rules: BlessRules, g: BlessGame) -> BlessGame:
    """End the turn, keeping the whole hand at the Mulligan."""
    player = g.active
    play(rules, g, "end")
    if g.pending is not None and g.pending.kind == "mulligan" and g.pending.player == player:
        play(rules, g, {"choose": []})
    return g


def clash_of(g: BlessGame) -> Any:
    """The last clash event: (attacker, defender, eye, eye, result 0/1/2 = att./def./tie)."""
    return next(e for e in reversed(g.log) if e.kind == "clash")


def attack_move(attacker: str, defender: str) -> dict[str, str]:
    return {"attack": attacker, "target": defender}


def corrotta(code: str) -> dict[str, Any]:
    return {"card": code, "corrupted": True}


def where(rules: BlessRules, g: BlessGame, code: str) -> str:
    zone = g.zone[rules.card(code)]
    if zone in (0, 1):
        return ("mazzo", "vuoto")[zone]
    return f"{ZONE_NAMES[zone >> 1]}-{(zone & 1) + 1}"


def hand(rules: BlessRules, g: BlessGame, player: int) -> list[str]:
    return [rules.cards[c].code for c in g.piles[2 * 2 + player - 1]]


def maledizioni(rules: BlessRules, g: BlessGame, player: int) -> list[str]:
    return [rules.cards[c].code for c in g.piles[2 * 3 + player - 1]]


def eye(rules: BlessRules, g: BlessGame, code: str) -> int:
    return g.stat(rules.card(code), OCC)


def karma(rules: BlessRules, g: BlessGame, code: str) -> int:
    return g.stat(rules.card(code), KAR)


def corrupted(rules: BlessRules, g: BlessGame, code: str) -> bool:
    return bool(g.corrupt[rules.card(code)])


def blank(rules: BlessRules, code: str, side: str) -> BlessRules:
    """The same rules with one side of one card left without effect."""
    i = rules.card(code)
    cards = list(rules.cards)
    cards[i] = rules.cards[i].blanked(side)
    seats = Seats(rules.info.min_players, rules.info.max_players)
    return BlessRules(seats, BlessDeck(cards, rules.texts), f"{rules.digest}-{code}-{side}")


# -- every card: its effect changes the outcome as the card says ------------------------------
#
# Each test plays a position twice: with the card as printed, and with that side of the card
# blanked (as if its effect were «Nessun effetto»). The outcome must differ as the text says.


def test_card_re_luce(rules):
    def attack(r):
        g = game(r, {"curses": ["re-luce"]}, {"curses": [corrotta("lama-del-mattino")]})
        return play(r, g, attack_move("re-luce", "lama-del-mattino"))

    g = attack(rules)
    assert g.pending.kind == "offer"  # Re Luce won against a stronger Luce card
    assert not corrupted(rules, g, "re-luce")
    assert corrupted(rules, attack(blank(rules, "re-luce", "maledizione")), "re-luce")

    def pray(r):
        g = game(
            r,
            {"hand": ["re-luce"], "curses": ["orizzonte"]},
            {"curses": ["taglio-nelle-tenebre"]},
        )
        play(r, g, {"cast": "re-luce", "as": "preghiera"})
        seen = [eye(r, g, "orizzonte")]
        end_turn(r, g)
        seen.append(eye(r, g, "orizzonte"))
        end_turn(r, g)
        return [*seen, eye(r, g, "orizzonte")]

    assert pray(rules) == [7, 7, 5]  # until the end of the next turn
    assert pray(blank(rules, "re-luce", "preghiera")) == [5, 5, 5]


def test_card_zoreo_campione_della_luce(rules):
    def attack(r):
        g = game(
            r,
            {"curses": ["zoreo-campione-della-luce"]},
            {"curses": ["falce-della-notte"]},
        )
        return play(r, g, attack_move("zoreo-campione-della-luce", "falce-della-notte"))

    assert not corrupted(rules, attack(rules), "zoreo-campione-della-luce")  # 7 against 4
    assert corrupted(
        rules,
        attack(blank(rules, "zoreo-campione-della-luce", "maledizione")),
        "zoreo-campione-della-luce",
    )

    def bond(r):
        g = game(r, {"hand": ["zoreo-campione-della-luce"], "curses": ["lama-del-mattino"]})
        play(r, g, {"cast": "zoreo-campione-della-luce", "as": "preghiera"})
        play(r, g, {"attack": "lama-del-mattino", "direct": True})
        return g.scores[0], where(r, g, "zoreo-campione-della-luce")

    assert bond(rules) == (5, "vuoto")  # +2 Karma on a Luce host, then the Legame breaks
    assert bond(blank(rules, "zoreo-campione-della-luce", "preghiera")) == (3, "preghiere-1")


def test_card_lama_del_mattino(rules):
    def eye_with_one_ombra(r):
        g = game(r, {"curses": ["lama-del-mattino", "taglio-nelle-tenebre"]})
        return eye(r, g, "lama-del-mattino")

    assert eye_with_one_ombra(rules) == 6
    assert eye_with_one_ombra(blank(rules, "lama-del-mattino", "maledizione")) == 4

    def bond(r):
        g = game(
            r,
            {"hand": ["lama-del-mattino"], "curses": ["orizzonte"]},
            {"curses": [corrotta("taglio-nelle-tenebre")]},
        )
        play(r, g, {"cast": "lama-del-mattino", "as": "preghiera"}, {"choose": "orizzonte"})
        play(r, g, attack_move("orizzonte", "taglio-nelle-tenebre"))
        return corrupted(r, g, "orizzonte")

    assert not bond(rules)  # Rivalità: 8 against 5
    assert bond(blank(rules, "lama-del-mattino", "preghiera"))  # 5 against 5: a tie


def test_card_dragone_di_fiele(rules):
    def direct(r):
        g = game(r, {"curses": ["dragone-di-fiele"]}, {"curses": ["fondale-marino"]})
        return can(r, g, {"attack": "dragone-di-fiele", "direct": True})

    assert direct(rules)  # more Luce cards than the opponent
    assert not direct(blank(rules, "dragone-di-fiele", "maledizione"))

    def pray(r):
        g = game(
            r,
            {
                "hand": ["dragone-di-fiele"],
                "curses": ["orizzonte"],
                "prayers": [{"card": "vento-tetro", "host": "fondale-marino"}],
            },
            {"curses": ["fondale-marino"], "prayers": ["re-ombra"]},
        )
        play(r, g, {"cast": "dragone-di-fiele", "as": "preghiera"})
        pick(r, g, "orizzonte")
        return eye(r, g, "orizzonte")

    assert pray(rules) == 7  # two other Preghiere on the field
    assert pray(blank(rules, "dragone-di-fiele", "preghiera")) == 5


def test_card_battito_d_ali(rules):
    def attacked(r):
        g = game(
            r,
            {"hand": ["re-luce", "re-ombra"], "curses": ["lenora-spada-oscura"]},
            {"curses": ["battito-d-ali"]},
        )
        play(r, g, attack_move("lenora-spada-oscura", "battito-d-ali"))
        if g.pending.kind == "target":
            play(r, g, {"choose": "re-luce"})
        return len(hand(r, g, 1))

    assert attacked(rules) == 1  # the attacker discards a card of their choice
    assert attacked(blank(rules, "battito-d-ali", "maledizione")) == 2

    assert breaks_a_preghiera(rules, "battito-d-ali")


def breaks_a_preghiera(rules, code):
    def pray(r):
        g = game(r, {"hand": [code]}, {"prayers": ["fiume-etereo"]})
        play(r, g, {"cast": code, "as": "preghiera"})
        if g.pending.kind == "target":
            play(r, g, {"choose": "fiume-etereo"})
        return where(r, g, "fiume-etereo")

    return pray(rules) == "vuoto" and pray(blank(rules, code, "preghiera")) == "preghiere-2"


def test_card_tormenta_degli_angeli(rules):
    def calo(r):
        g = game(
            r,
            {"hand": ["tormenta-degli-angeli"]},
            {"curses": ["orizzonte", "lenora-spada-oscura", "sguardo-brillante"]},
        )
        play(r, g, {"cast": "tormenta-degli-angeli"})
        while g.pending.kind == "target":
            assert g.pending.player == 1  # the opponent chooses which of theirs break
            play(r, g, ("choose", g.pending.options[0]))
        return len(maledizioni(r, g, 2))

    assert calo(rules) == 1
    assert calo(blank(rules, "tormenta-degli-angeli", "maledizione")) == 3

    def pray(r):
        g = game(r, {"hand": ["tormenta-degli-angeli"]}, {"prayers": ["fiume-etereo"]})
        play(r, g, {"cast": "tormenta-degli-angeli", "as": "preghiera"})
        return where(r, g, "fiume-etereo")

    assert pray(rules) == "preghiere-1"
    assert pray(blank(rules, "tormenta-degli-angeli", "preghiera")) == "preghiere-2"


def test_card_ali_di_mos(rules):
    assert wins_against_a_big_eye(rules, "ali-di-mos")

    def bond(r):
        g = game(
            r,
            {
                "curses": ["orizzonte"],
                "prayers": [{"card": "ali-di-mos", "host": "orizzonte"}],
            },
            {"hand": [SPARE], "curses": ["lenora-spada-oscura", "sguardo-brillante"]},
            active=2,
        )
        play(r, g, attack_move("lenora-spada-oscura", "orizzonte"))
        return eye(r, g, "orizzonte"), can(r, g, attack_move("sguardo-brillante", "orizzonte"))

    assert bond(rules) == (6, False)  # Barriera once Corrotta, and +1 Occhio
    assert bond(blank(rules, "ali-di-mos", "preghiera")) == (5, True)


def wins_against_a_big_eye(rules, code):
    def attack(r):
        g = game(r, {"curses": [code]}, {"curses": [corrotta("lenora-spada-oscura")]})
        play(r, g, attack_move(code, "lenora-spada-oscura"))
        if g.pending.kind == "offer":
            play(r, g, {"choose": "yes"})
        return g.scores[0]

    return attack(rules) == 3 and attack(blank(rules, code, "maledizione")) == 0


def rivalry_wins(rules, code, target="taglio-nelle-tenebre"):
    def attack(r):
        g = game(r, {"curses": [code]}, {"curses": [corrotta(target)]})
        play(r, g, attack_move(code, target))
        return corrupted(r, g, code)

    return not attack(rules) and attack(blank(rules, code, "maledizione"))


def test_card_catene_lucenti(rules):
    assert rivalry_wins(rules, "catene-lucenti")

    def pray(r):
        g = game(
            r,
            {"hand": ["catene-lucenti"], "curses": ["orizzonte"]},
            {"hand": [SPARE], "curses": ["lenora-spada-oscura"]},
        )
        play(r, g, {"cast": "catene-lucenti", "as": "preghiera"})
        pick(r, g, "lenora-spada-oscura")
        end_turn(r, g)
        return can(r, g, attack_move("lenora-spada-oscura", "orizzonte"))

    assert not pray(rules)  # it cannot attack in the next turn
    assert pray(blank(rules, "catene-lucenti", "preghiera"))


def barrier_holds(rules, code):
    def attacked(r):
        g = game(
            r,
            {"curses": [code]},
            {"hand": [SPARE], "curses": ["lenora-spada-oscura", "sguardo-brillante"]},
            active=2,
        )
        play(r, g, attack_move("lenora-spada-oscura", code))
        return can(r, g, attack_move("sguardo-brillante", code))

    return not attacked(rules) and attacked(blank(rules, code, "maledizione"))


def test_card_anelli_del_sigillo(rules):
    assert barrier_holds(rules, "anelli-del-sigillo")

    def pray(r):
        g = game(
            r,
            {"hand": ["anelli-del-sigillo"], "curses": ["orizzonte"]},
            {"hand": [SPARE], "curses": ["lenora-spada-oscura"]},
        )
        play(r, g, {"cast": "anelli-del-sigillo", "as": "preghiera"})
        pick(r, g, "orizzonte")
        end_turn(r, g)
        return can(r, g, attack_move("lenora-spada-oscura", "orizzonte"))

    assert not pray(rules)
    assert pray(blank(rules, "anelli-del-sigillo", "preghiera"))


def test_card_tocco_divino(rules):
    def attack(r):
        g = game(r, {"curses": ["tocco-divino"]}, {"curses": [corrotta("catene-lucenti")]})
        play(r, g, attack_move("tocco-divino", "catene-lucenti"))
        return g.pending.kind

    assert attack(rules) == "offer"  # Occhio 0 wins against Karma 2
    assert attack(blank(rules, "tocco-divino", "maledizione")) == "main"

    def pray(r):
        g = game(r, {"hand": ["tocco-divino"], "prayers": ["fiume-etereo"]})
        play(r, g, {"cast": "tocco-divino", "as": "preghiera"})
        return where(r, g, "fiume-etereo"), can(r, g, {"attack": "fiume-etereo", "direct": True})

    assert pray(rules) == ("maledizioni-1", True)  # converted, and not in Stasi
    assert pray(blank(rules, "tocco-divino", "preghiera")) == ("preghiere-1", False)


def test_card_voce_del_guru(rules):
    g = game(rules, {"curses": ["voce-del-guru"]}, {"curses": [corrotta("orizzonte")]})
    assert eye(rules, g, "voce-del-guru") == 7 and not rules.cards[rules.card("voce-del-guru")].mal

    def pray(r):
        g = game(
            r,
            {"hand": ["voce-del-guru"], "curses": ["battito-d-ali"]},
            {"prayers": ["fiume-etereo"]},
        )
        play(r, g, {"cast": "voce-del-guru", "as": "preghiera"})
        if g.pending.kind == "target":
            play(r, g, {"choose": "fiume-etereo"})
        return where(r, g, "fiume-etereo")

    assert pray(rules) == "vuoto"  # it used Battito d'Ali's Preghiera: break 1 Preghiera
    assert pray(blank(rules, "voce-del-guru", "preghiera")) == "preghiere-2"


def test_card_pendolo_veggente(rules):
    def calo(r):
        g = game(r, {"hand": ["pendolo-veggente"]}, {"hand": ["re-luce", "re-ombra"]})
        play(r, g, {"cast": "pendolo-veggente"})
        return len(hand(r, g, 2))

    assert calo(rules) == 1  # a random card of the opponent's hand
    assert calo(blank(rules, "pendolo-veggente", "maledizione")) == 2

    def pray(r):
        g = game(r, {"hand": ["pendolo-veggente", "re-luce"]})
        play(r, g, {"cast": "pendolo-veggente", "as": "preghiera"})
        if g.pending.kind == "target":
            play(r, g, {"choose": "sguardo-brillante"})
        return where(r, g, "sguardo-brillante"), g.pending.kind

    assert pray(rules) == ("hand-1", "mulligan")  # took a card, and the turn ended
    assert pray(blank(rules, "pendolo-veggente", "preghiera")) == ("mazzo", "main")


def test_card_corona_di_stirpe(rules):
    def calo(r):
        g = game(
            r,
            {
                "hand": ["vento-tetro"],
                "curses": ["corona-di-stirpe", "orizzonte"],
                "prayers": ["fiume-etereo"],
            },
        )
        play(r, g, {"cast": "vento-tetro", "as": "preghiera"}, {"choose": "orizzonte"})
        return eye(r, g, "corona-di-stirpe")

    assert calo(rules) == 7  # playing a Legame invoked Fiume Etereo: Luce +1
    assert calo(blank(rules, "corona-di-stirpe", "maledizione")) == 6
    assert rebinds(rules, "corona-di-stirpe")


def rebinds(rules, code):
    def host_breaks(r):
        g = game(
            r,
            {
                "curses": [corrotta("orizzonte"), "re-luce"],
                "prayers": [{"card": code, "host": "orizzonte"}],
            },
            {"curses": ["sguardo-brillante"]},
            active=2,
        )
        karma_before = karma(r, g, "orizzonte")
        play(r, g, attack_move("sguardo-brillante", "orizzonte"), {"choose": "yes"})
        host = g.host[r.card(code)]
        return karma_before, where(r, g, code), r.cards[host].code if host >= 0 else None

    assert host_breaks(rules) == (3, "preghiere-1", "re-luce")
    return host_breaks(blank(rules, code, "preghiera")) == (2, "vuoto", None)


def impact_blesses(rules, code):
    def attack(r):
        g = game(r, {"curses": [code]}, {"curses": ["orizzonte"]})
        play(r, g, attack_move(code, "orizzonte"))
        return g.scores[0]

    points = karma(rules, game(rules, {"curses": [code]}), code)
    return attack(rules) == points and attack(blank(rules, code, "maledizione")) == 0


def test_card_elica_empirea(rules):
    assert impact_blesses(rules, "elica-empirea")

    def pray(r):
        g = game(
            r,
            {"hand": ["elica-empirea"], "curses": ["orizzonte", "re-luce"]},
            {"curses": ["lenora-spada-oscura"]},
        )
        play(r, g, {"cast": "elica-empirea", "as": "preghiera"})
        pick(r, g, "orizzonte", "re-luce")
        return eye(r, g, "orizzonte"), eye(r, g, "re-luce")

    assert pray(rules) == (6, 4)
    assert pray(blank(rules, "elica-empirea", "preghiera")) == (5, 3)


def test_card_lume_nomade(rules):
    def alone(r):
        return eye(r, game(r, {"curses": ["lume-nomade", "taglio-nelle-tenebre"]}), "lume-nomade")

    assert alone(rules) == 6
    assert alone(blank(rules, "lume-nomade", "maledizione")) == 3
    g = game(rules, {"curses": ["lume-nomade", "orizzonte"]})
    assert eye(rules, g, "lume-nomade") == 3  # another Luce Maledizione: no bonus

    def pray(r):
        g = game(r, {"hand": ["lume-nomade"], "curses": [corrotta("orizzonte"), "re-luce"]})
        play(r, g, {"cast": "lume-nomade", "as": "preghiera"})
        seen = (eye(r, g, "orizzonte"), eye(r, g, "re-luce"))
        end_turn(r, g)
        return (*seen, eye(r, g, "orizzonte"))

    assert pray(rules) == (7, 3, 5)  # only the Corrotte, only this turn
    assert pray(blank(rules, "lume-nomade", "preghiera")) == (5, 3, 5)


def test_card_fiamma_perpetua(rules):
    def attack(r):
        g = game(
            r,
            {"curses": ["fiamma-perpetua"]},
            {"curses": [corrotta("lenora-spada-oscura")]},
        )
        play(r, g, attack_move("fiamma-perpetua", "lenora-spada-oscura"))
        return g.pending.kind, corrupted(r, g, "fiamma-perpetua")

    assert attack(rules) == ("offer", False)  # 6 against 6: the tie is a win
    assert attack(blank(rules, "fiamma-perpetua", "maledizione")) == ("offer", True)
    assert plus_on_target(rules, "fiamma-perpetua", 2)


def plus_on_target(rules, code, amount):
    def pray(r):
        g = game(r, {"hand": [code], "curses": ["orizzonte"]})
        play(r, g, {"cast": code, "as": "preghiera"})
        return eye(r, g, "orizzonte")

    return pray(rules) == 5 + amount and pray(blank(rules, code, "preghiera")) == 5


def test_card_faro_della_redenzione(rules):
    assert barrier_holds(rules, "faro-della-redenzione")
    assert breaks_a_preghiera(rules, "faro-della-redenzione")


def test_card_raggio_vanescente(rules):
    assert rivalry_wins(rules, "raggio-vanescente")

    def pray(r):
        g = game(
            r,
            {"hand": ["raggio-vanescente"], "curses": ["orizzonte"]},
            {"curses": ["lenora-spada-oscura"]},
        )
        play(r, g, {"cast": "raggio-vanescente", "as": "preghiera"})
        if g.pending.kind == "target":
            play(r, g, {"choose": "lenora-spada-oscura"})
        return corrupted(r, g, "orizzonte"), where(r, g, "lenora-spada-oscura")

    assert pray(rules) == (True, "vuoto")  # paid with its own Pura, broke a card
    assert pray(blank(rules, "raggio-vanescente", "preghiera")) == (False, "maledizioni-2")


def test_card_sole_vigilato(rules):
    def corrupt_eye(r):
        return eye(r, game(r, {"curses": [corrotta("sole-vigilato")]}), "sole-vigilato")

    assert corrupt_eye(rules) == 4
    assert corrupt_eye(blank(rules, "sole-vigilato", "maledizione")) == 1
    assert bond_on_corrupt_host(rules, "sole-vigilato", 2)


def bond_on_corrupt_host(rules, code, amount):
    def bond(r, state):
        g = game(
            r,
            {
                "curses": [{"card": "orizzonte", "corrupted": state}],
                "prayers": [{"card": code, "host": "orizzonte"}],
            },
        )
        return eye(r, g, "orizzonte")

    return (
        bond(rules, True) == 5 + amount
        and bond(rules, False) == 5
        and bond(blank(rules, code, "preghiera"), True) == 5
    )


def suppress_opens_attack(rules, code, shielded, attacker):
    def pray(r):
        g = game(r, {"hand": [code], "curses": [attacker]}, {"curses": [shielded]})
        before = can(r, g, attack_move(attacker, shielded))
        play(r, g, {"cast": code, "as": "preghiera"})
        pick(r, g, shielded)
        return before, can(r, g, attack_move(attacker, shielded))

    return pray(rules) == (False, True) and pray(blank(rules, code, "preghiera"))[1] is False


def test_card_picchi_oltrenuvola(rules):
    assert barrier_holds(rules, "picchi-oltrenuvola")
    assert suppress_opens_attack(rules, "picchi-oltrenuvola", "fiume-etereo", "lenora-spada-oscura")


def purifies_on_calo(rules, code):
    def calo(r):
        g = game(r, {"hand": [code, "re-luce"], "curses": [corrotta("orizzonte")]})
        play(r, g, {"cast": code})
        if g.pending.kind == "yesno":
            play(r, g, {"choose": "yes"})
        return corrupted(r, g, "orizzonte"), where(r, g, "re-luce")

    return calo(rules) == (False, "vuoto") and calo(blank(rules, code, "maledizione")) == (
        True,
        "hand-1",
    )


def test_card_tempio_di_herset(rules):
    assert purifies_on_calo(rules, "tempio-di-herset")

    def bond(r):
        g = game(
            r,
            {
                "curses": ["orizzonte"],
                "prayers": [{"card": "tempio-di-herset", "host": "orizzonte"}],
            },
            {"curses": ["lenora-spada-oscura", "sguardo-brillante"]},
        )
        return eye(r, g, "orizzonte")

    assert bond(rules) == 7
    assert bond(blank(rules, "tempio-di-herset", "preghiera")) == 5


def obelisk(rules, code, mine, other, wipe):
    def static(r, cards):
        g = game(r, {"curses": [code, *cards]})
        return eye(r, g, code), eye(r, g, cards[0])

    assert static(rules, [mine]) == (5, eye(rules, game(rules, {"curses": [mine]}), mine) + 2)
    assert static(rules, [mine, other])[0] == 3
    assert static(blank(rules, code, "maledizione"), [mine])[0] == 3

    def pray(r):
        g = game(
            r,
            {"hand": [code, "re-luce"], "curses": [mine, other]},
            {"curses": [wipe, "crepuscolo"]},
        )
        play(r, g, {"cast": code, "as": "preghiera"})
        return where(r, g, other), where(r, g, wipe), where(r, g, "crepuscolo"), g.pending.kind

    assert pray(rules) == ("vuoto", "vuoto", "vuoto", "mulligan")  # Duali too; the turn ends
    assert pray(blank(rules, code, "preghiera"))[3] == "main"
    return True


def test_card_obelisco_del_sole(rules):
    assert obelisk(
        rules, "obelisco-del-sole", "orizzonte", "taglio-nelle-tenebre", "lenora-spada-oscura"
    )


def test_card_orizzonte(rules):
    def calo(r):
        g = game(r, {"hand": ["orizzonte"]})
        play(r, g, {"cast": "orizzonte"})
        return g.scores[0]

    assert calo(rules) == 1
    assert calo(blank(rules, "orizzonte", "maledizione")) == 0
    assert minus_when_attacked(rules, "orizzonte", "faro-della-redenzione", "lenora-spada-oscura")


def minus_when_attacked(rules, code, attacker, defender):
    def pray(r):
        g = game(r, {"hand": [code], "curses": [attacker]}, {"curses": [corrotta(defender)]})
        play(r, g, {"cast": code, "as": "preghiera"})
        pick(r, g, defender)
        play(r, g, attack_move(attacker, defender))
        return g.pending.kind

    return pray(rules) == "offer" and pray(blank(rules, code, "preghiera")) == "main"


def cannot_be_attacked_by(rules, code, forbidden, allowed):
    def attack(r, attacker):
        g = game(r, {"curses": [attacker]}, {"curses": [code]})
        return can(r, g, attack_move(attacker, code))

    return (
        not attack(rules, forbidden)
        and attack(rules, allowed)
        and attack(blank(rules, code, "maledizione"), forbidden)
    )


def form_bonus(rules, code, mine, other):
    def pray(r):
        g = game(r, {"hand": [code], "curses": [mine, other]})
        play(r, g, {"cast": code, "as": "preghiera"})
        return eye(r, g, mine) - eye(rules, game(rules, {"curses": [mine]}), mine), eye(
            r, g, other
        ) - eye(rules, game(rules, {"curses": [other]}), other)

    return pray(rules) == (1, 0) and pray(blank(rules, code, "preghiera")) == (0, 0)


def test_card_fiume_etereo(rules):
    assert cannot_be_attacked_by(rules, "fiume-etereo", "lenora-spada-oscura", "sguardo-brillante")
    assert form_bonus(rules, "fiume-etereo", "orizzonte", "taglio-nelle-tenebre")


def test_card_mangrovia_celeste(rules):
    def direct(r):
        g = game(
            r,
            {"curses": ["mangrovia-celeste"], "prayers": ["fiume-etereo"]},
            {"prayers": ["picchi-oltrenuvola"]},
        )
        play(r, g, {"attack": "mangrovia-celeste", "direct": True})
        return g.scores[0]

    assert direct(rules) == 2  # one Karma per Luce Preghiera on the field
    assert direct(blank(rules, "mangrovia-celeste", "maledizione")) == 0

    def bond(r):
        g = game(
            r,
            {
                "prayers": [
                    {"card": "mangrovia-celeste", "host": "sguardo-brillante"},
                    "fiume-etereo",
                ]
            },
            {"curses": ["sguardo-brillante"]},
        )
        return eye(r, g, "sguardo-brillante")

    assert bond(rules) == 5
    assert bond(blank(rules, "mangrovia-celeste", "preghiera")) == 8


def test_card_fiore_di_lamus(rules):
    def calo(r):
        g = game(r, {"hand": ["fiore-di-lamus", "fiume-etereo"]})
        play(r, g, {"cast": "fiore-di-lamus"})
        return where(r, g, "fiume-etereo"), g.actions

    assert calo(rules) == ("preghiere-1", 2)  # calata for free
    assert calo(blank(rules, "fiore-di-lamus", "maledizione")) == ("hand-1", 2)

    def bond(r):
        g = game(
            r,
            {
                "curses": ["re-luce"],
                "prayers": [{"card": "fiore-di-lamus", "host": "re-luce"}],
            },
            {"curses": ["sguardo-brillante", "lenora-spada-oscura"]},
        )
        return eye(r, g, "re-luce")

    assert bond(rules) == 8
    assert bond(blank(rules, "fiore-di-lamus", "preghiera")) == 3


def eye_is_karma_on_their_turn(rules, code):
    def static(r, active):
        g = game(r, {"hand": ["zodiaco"], "curses": [code]}, {"hand": [SPARE]}, active=active)
        return eye(r, g, code)

    return (
        static(rules, 1) == 1
        and static(rules, 2) == 4
        and static(blank(rules, code, "maledizione"), 2) == 1
    )


def karma_this_turn(rules, code, mine):
    def pray(r):
        g = game(r, {"hand": [code], "curses": [mine]})
        play(r, g, {"cast": code, "as": "preghiera"})
        play(r, g, {"attack": mine, "direct": True})
        return g.scores[0]

    base = karma(rules, game(rules, {"curses": [mine]}), mine)
    return pray(rules) == base + 1 and pray(blank(rules, code, "preghiera")) == base


def test_card_roccia_radiosa(rules):
    assert eye_is_karma_on_their_turn(rules, "roccia-radiosa")
    assert karma_this_turn(rules, "roccia-radiosa", "orizzonte")


def draws_at_turn_start(rules, code):
    def start(r):
        g = game(r, {"curses": [code]}, {"hand": [SPARE]}, active=2)
        end_turn(r, g)
        return len(hand(r, g, 1))

    return start(rules) == 1 and start(blank(rules, code, "maledizione")) == 0


def looks_at_three(rules, code):
    def pray(r):
        g = game(
            r, {"hand": [code]}, mazzo=["re-ombra", "zoreo-campione-della-luce", "lama-del-mattino"]
        )
        play(r, g, {"cast": code, "as": "preghiera"})
        if g.pending.kind == "target":
            assert len(g.pending.options) == 3
            play(r, g, {"choose": "lama-del-mattino"})
        return where(r, g, "lama-del-mattino")

    return pray(rules) == "hand-1" and pray(blank(rules, code, "preghiera")) == "mazzo"


def test_card_sguardo_brillante(rules):
    assert draws_at_turn_start(rules, "sguardo-brillante")
    assert looks_at_three(rules, "sguardo-brillante")


def portal(rules, code, from_void, other):
    def broken(r):
        g = game(
            r,
            {"hand": ["re-luce"], "curses": [corrotta(code)]},
            {"curses": ["sguardo-brillante"]},
            active=2,
        )
        play(r, g, attack_move("sguardo-brillante", code), {"choose": "no"})
        return where(r, g, "re-luce")

    assert broken(rules) == "maledizioni-1"
    assert broken(blank(rules, code, "maledizione")) == "hand-1"

    def pray(r):
        g = game(r, {"hand": [code]}, vuoto=[from_void, other])
        play(r, g, {"cast": code, "as": "preghiera"})
        if g.pending.kind == "into":
            play(r, g, {"choose": "maledizione"})
        return where(r, g, from_void), where(r, g, other)

    assert pray(rules) == ("maledizioni-1", "vuoto")  # the topmost card of that Forma
    assert pray(blank(rules, code, "preghiera")) == ("vuoto", "vuoto")
    return True


def test_card_portale_solenne(rules):
    assert portal(rules, "portale-solenne", "orizzonte", "lenora-spada-oscura")


def test_card_re_ombra(rules):
    def attack(r):
        g = game(r, {"curses": ["re-ombra"]}, {"curses": [corrotta("falce-della-notte")]})
        return play(r, g, attack_move("re-ombra", "falce-della-notte"))

    assert attack(rules).pending.kind == "offer"
    assert corrupted(rules, attack(blank(rules, "re-ombra", "maledizione")), "re-ombra")

    def pray(r):
        g = game(
            r,
            {"hand": ["re-ombra"], "curses": ["taglio-nelle-tenebre"]},
            {"curses": ["orizzonte"]},
        )
        play(r, g, {"cast": "re-ombra", "as": "preghiera"})
        return eye(r, g, "taglio-nelle-tenebre")

    assert pray(rules) == 7
    assert pray(blank(rules, "re-ombra", "preghiera")) == 5


def test_card_mesit_campione_dell_ombra(rules):
    assert rivalry_wins(rules, "mesit-campione-dell-ombra", target="lama-del-mattino")

    def bond(r):
        g = game(r, {"hand": ["mesit-campione-dell-ombra"], "curses": ["taglio-nelle-tenebre"]})
        play(r, g, {"cast": "mesit-campione-dell-ombra", "as": "preghiera"})
        play(r, g, {"attack": "taglio-nelle-tenebre", "direct": True})
        return g.scores[0], where(r, g, "mesit-campione-dell-ombra")

    assert bond(rules) == (4, "vuoto")
    assert bond(blank(rules, "mesit-campione-dell-ombra", "preghiera")) == (2, "preghiere-1")


def test_card_falce_della_notte(rules):
    def eye_with_one_luce(r):
        return eye(r, game(r, {"curses": ["falce-della-notte", "orizzonte"]}), "falce-della-notte")

    assert eye_with_one_luce(rules) == 6
    assert eye_with_one_luce(blank(rules, "falce-della-notte", "maledizione")) == 4

    def bond(r):
        g = game(
            r,
            {"hand": ["falce-della-notte"], "curses": ["taglio-nelle-tenebre"]},
            {"curses": [corrotta("orizzonte")]},
        )
        play(
            r,
            g,
            {"cast": "falce-della-notte", "as": "preghiera"},
            {"choose": "taglio-nelle-tenebre"},
        )
        play(r, g, attack_move("taglio-nelle-tenebre", "orizzonte"))
        return corrupted(r, g, "taglio-nelle-tenebre")

    assert not bond(rules)
    assert bond(blank(rules, "falce-della-notte", "preghiera"))


def test_card_taglio_nelle_tenebre(rules):
    def attack(r):
        g = game(
            r,
            {"curses": ["taglio-nelle-tenebre"]},
            {"curses": [corrotta("visione-profonda")]},
        )
        play(r, g, attack_move("taglio-nelle-tenebre", "visione-profonda"))
        return g.pending.kind

    assert attack(rules) == "offer"  # a Corrotta Ombra
    assert attack(blank(rules, "taglio-nelle-tenebre", "maledizione")) == "main"
    assert breaks_a_preghiera(rules, "taglio-nelle-tenebre")


def test_card_lenora_spada_oscura(rules):
    def direct(r):
        g = game(r, {"hand": ["re-luce"], "curses": ["lenora-spada-oscura"]})
        play(r, g, {"attack": "lenora-spada-oscura", "direct": True})
        return g.actions

    assert direct(rules) == 3  # 3 - 1 for the attack + 1 when it blesses
    assert direct(blank(rules, "lenora-spada-oscura", "maledizione")) == 2

    def pray(r):
        g = game(
            r,
            {"hand": ["lenora-spada-oscura"], "curses": ["orizzonte"]},
            {"curses": ["sguardo-brillante"]},
        )
        play(r, g, {"cast": "lenora-spada-oscura", "as": "preghiera"})
        return where(r, g, "sguardo-brillante")

    assert pray(rules) == "vuoto"
    assert pray(blank(rules, "lenora-spada-oscura", "preghiera")) == "maledizioni-2"


def test_card_sussurro_fatale(rules):
    def broken(r):
        g = game(
            r,
            {"curses": [corrotta("sussurro-fatale")]},
            {"curses": ["lenora-spada-oscura"]},
            active=2,
        )
        play(r, g, attack_move("lenora-spada-oscura", "sussurro-fatale"), {"choose": "yes"})
        return corrupted(r, g, "lenora-spada-oscura")

    assert broken(rules)  # when it breaks, it corrupts a Maledizione
    assert not broken(blank(rules, "sussurro-fatale", "maledizione"))

    def pray(r):
        g = game(
            r,
            {"hand": ["sussurro-fatale"], "curses": ["orizzonte"]},
            {"curses": ["lenora-spada-oscura", "sguardo-brillante"]},
        )
        play(r, g, {"cast": "sussurro-fatale", "as": "preghiera"})
        if g.pending.kind == "target":
            play(r, g, {"choose": "orizzonte"}, {"choose": "sguardo-brillante"})
        return corrupted(r, g, "orizzonte"), where(r, g, "sguardo-brillante")

    assert pray(rules) == (True, "vuoto")
    assert pray(blank(rules, "sussurro-fatale", "preghiera")) == (False, "maledizioni-2")


def test_card_ali_di_som(rules):
    assert wins_against_a_big_eye(rules, "ali-di-som")

    def bond(r):
        g = game(
            r,
            {
                "curses": ["orizzonte"],
                "prayers": [{"card": "ali-di-som", "host": "orizzonte"}],
            },
            {"curses": ["lenora-spada-oscura"]},
        )
        play(r, g, attack_move("orizzonte", "lenora-spada-oscura"))
        return g.scores[0]

    assert bond(rules) == 1  # Impatto, with 2 - 1 Karma
    assert bond(blank(rules, "ali-di-som", "preghiera")) == 0


def test_card_eclissi(rules):
    def taunt(r):
        g = game(r, {"curses": ["lenora-spada-oscura"]}, {"curses": ["eclissi", "orizzonte"]})
        return can(r, g, attack_move("lenora-spada-oscura", "orizzonte"))

    assert not taunt(rules)
    assert taunt(blank(rules, "eclissi", "maledizione"))
    assert breaks_a_preghiera(rules, "eclissi")


def test_card_luna_caduta(rules):
    assert rivalry_wins(rules, "luna-caduta", target="orizzonte")
    assert minus_when_attacked(rules, "luna-caduta", "taglio-nelle-tenebre", "fiamma-perpetua")


def test_card_obelisco_del_buio(rules):
    assert obelisk(rules, "obelisco-del-buio", "taglio-nelle-tenebre", "orizzonte", "fiume-etereo")


def test_card_nube_mentale(rules):
    def attack(r):
        g = game(
            r,
            {"curses": ["nube-mentale"]},
            {
                "curses": [corrotta("orizzonte")],
                "prayers": [{"card": "sole-vigilato", "host": "orizzonte"}],
            },
        )
        play(r, g, attack_move("nube-mentale", "orizzonte"))
        return g.pending.kind

    assert attack(rules) == "offer"  # its Occhio (7) is not its original one (5)
    assert attack(blank(rules, "nube-mentale", "maledizione")) == "main"

    def pray(r):
        g = game(
            r,
            {"hand": ["nube-mentale"], "curses": ["orizzonte"]},
            {"hand": [SPARE], "curses": ["sguardo-brillante"]},
        )
        play(r, g, {"cast": "nube-mentale", "as": "preghiera"})
        pick(r, g, "sguardo-brillante")
        seen = [eye(r, g, "sguardo-brillante")]
        end_turn(r, g)
        seen.append(eye(r, g, "sguardo-brillante"))
        end_turn(r, g)
        return [*seen, eye(r, g, "sguardo-brillante")]

    assert pray(rules) == [8, 3, 8]  # only in the next turn
    assert pray(blank(rules, "nube-mentale", "preghiera")) == [8, 8, 8]


def test_card_vetta_solitaria(rules):
    assert barrier_holds(rules, "vetta-solitaria")
    assert suppress_opens_attack(rules, "vetta-solitaria", "fondale-marino", "sguardo-brillante")


def test_card_oscurita(rules):
    def static(r):
        g = game(
            r,
            {"curses": ["oscurita", "taglio-nelle-tenebre"]},
            {"curses": ["lenora-spada-oscura"], "prayers": ["re-ombra"]},
        )
        return eye(r, g, "oscurita")

    assert static(rules) == 3
    assert static(blank(rules, "oscurita", "maledizione")) == 0

    def pray(r):
        g = game(r, {"hand": ["oscurita"], "curses": ["taglio-nelle-tenebre", "visione-profonda"]})
        play(r, g, {"cast": "oscurita", "as": "preghiera"})
        pick(r, g, "taglio-nelle-tenebre")
        return eye(r, g, "taglio-nelle-tenebre")

    assert pray(rules) == 8  # the original Occhio of the other Ombra, Visione Profonda
    assert pray(blank(rules, "oscurita", "preghiera")) == 5


def test_card_cristallo_di_pece(rules):
    assert eye_is_karma_on_their_turn(rules, "cristallo-di-pece")
    assert karma_this_turn(rules, "cristallo-di-pece", "taglio-nelle-tenebre")


def test_card_visione_profonda(rules):
    assert draws_at_turn_start(rules, "visione-profonda")
    assert looks_at_three(rules, "visione-profonda")


def test_card_volo_notturno(rules):
    assert impact_blesses(rules, "volo-notturno")

    def pray(r):
        g = game(
            r,
            {"hand": ["volo-notturno"], "curses": ["taglio-nelle-tenebre"]},
            {"curses": ["orizzonte", "lenora-spada-oscura"]},
        )
        play(r, g, {"cast": "volo-notturno", "as": "preghiera"})
        pick(r, g, "taglio-nelle-tenebre")
        return eye(r, g, "taglio-nelle-tenebre")

    assert pray(rules) == 7
    assert pray(blank(rules, "volo-notturno", "preghiera")) == 5


def test_card_trama_celeste(rules):
    def calo(r):
        g = game(
            r,
            {
                "hand": ["trama-celeste"],
                "curses": ["orizzonte"],
                "prayers": ["fiume-etereo"],
            },
        )
        play(r, g, {"cast": "trama-celeste"})
        return eye(r, g, "orizzonte")

    assert calo(rules) == 6  # it invoked Fiume Etereo
    assert calo(blank(rules, "trama-celeste", "maledizione")) == 5

    def pray(r):
        g = game(
            r,
            {"hand": ["trama-celeste"], "curses": ["faro-della-redenzione"]},
            {"prayers": ["fiume-etereo"]},
        )
        play(r, g, {"cast": "trama-celeste", "as": "preghiera"})
        if g.pending.kind == "target":
            play(r, g, {"choose": "fiume-etereo"})
        return where(r, g, "fiume-etereo")

    assert pray(rules) == "vuoto"
    assert pray(blank(rules, "trama-celeste", "preghiera")) == "preghiere-2"


def test_card_stella_ascendente(rules):
    assert rivalry_wins(rules, "stella-ascendente", target="orizzonte")

    def bond(r):
        g = game(
            r,
            {
                "curses": ["re-luce", "orizzonte"],
                "prayers": [{"card": "stella-ascendente", "host": "re-luce"}],
            },
            {"curses": ["sguardo-brillante", "lenora-spada-oscura"]},
        )
        return eye(r, g, "re-luce")

    assert bond(rules) == 6  # three Maledizioni with a higher original Occhio
    assert bond(blank(rules, "stella-ascendente", "preghiera")) == 3


def test_card_costellazione_errante(rules):
    def direct(r):
        g = game(r, {"curses": ["costellazione-errante"]})
        play(r, g, {"attack": "costellazione-errante", "direct": True})
        return g.scores[0], where(r, g, "costellazione-errante")

    assert direct(rules) == (4, "mazzo")
    assert direct(blank(rules, "costellazione-errante", "maledizione")) == (4, "maledizioni-1")
    assert rebinds(rules, "costellazione-errante")


def test_card_vento_tetro(rules):
    assert impact_blesses(rules, "vento-tetro")
    assert bond_on_corrupt_host(rules, "vento-tetro", 2)


def test_card_rosone_dimenticato(rules):
    def free(r, cards):
        g = game(r, {"hand": cards}, actions=0)
        return can(r, g, {"cast": "rosone-dimenticato"})

    assert free(rules, ["rosone-dimenticato"])
    assert not free(rules, ["rosone-dimenticato", "re-luce"])
    assert not free(blank(rules, "rosone-dimenticato", "maledizione"), ["rosone-dimenticato"])

    def bond(r, others):
        g = game(
            r,
            {
                "curses": ["taglio-nelle-tenebre", *others],
                "prayers": [{"card": "rosone-dimenticato", "host": "taglio-nelle-tenebre"}],
            },
        )
        return eye(r, g, "taglio-nelle-tenebre")

    assert bond(rules, []) == 8
    assert bond(rules, ["visione-profonda"]) == 5
    assert bond(blank(rules, "rosone-dimenticato", "preghiera"), []) == 5


def test_card_zodiaco(rules):
    assert not rules.cards[rules.card("zodiaco")].mal

    def pray(r):
        g = game(r, {"hand": ["zodiaco", "fiume-etereo", "orizzonte"]}, actions=1)
        play(r, g, {"cast": "zodiaco", "as": "preghiera"})
        return can(r, g, {"cast": "fiume-etereo", "as": "preghiera"}), can(
            r, g, {"cast": "orizzonte"}
        )

    assert pray(rules) == (True, False)  # only Preghiere are free
    assert pray(blank(rules, "zodiaco", "preghiera")) == (False, False)


def test_card_fondale_marino(rules):
    assert cannot_be_attacked_by(
        rules, "fondale-marino", "sguardo-brillante", "lenora-spada-oscura"
    )
    assert form_bonus(rules, "fondale-marino", "taglio-nelle-tenebre", "orizzonte")


def test_card_vessillo_del_presagio(rules):
    assert impact_blesses(rules, "vessillo-del-presagio")

    def bond(r):
        g = game(
            r,
            {
                "curses": ["orizzonte"],
                "prayers": [{"card": "vessillo-del-presagio", "host": "orizzonte"}],
            },
            {"curses": ["lenora-spada-oscura"], "prayers": ["fiume-etereo"]},
            active=2,
        )
        play(r, g, attack_move("lenora-spada-oscura", "orizzonte"))
        if g.pending.kind == "yesno":
            assert g.pending.player == 0  # the host's controller decides
            play(r, g, {"choose": "yes"}, {"choose": "fiume-etereo"})
        return where(r, g, "fiume-etereo")

    assert bond(rules) == "vuoto"
    assert bond(blank(rules, "vessillo-del-presagio", "preghiera")) == "preghiere-2"


def test_card_oltretomba(rules):
    def broken(r):
        g = game(
            r,
            {"curses": [corrotta("oltretomba")]},
            {"curses": ["sguardo-brillante"]},
            vuoto=["re-luce", "orizzonte", "lenora-spada-oscura", "taglio-nelle-tenebre"],
            active=2,
        )
        play(r, g, attack_move("sguardo-brillante", "oltretomba"), {"choose": "no"})
        if g.pending.kind == "target":
            assert "re-luce" not in [r.cards[c].code for c in g.pending.options]  # top 3 only
            play(r, g, {"choose": "orizzonte"}, {"choose": "maledizione"})
        return where(r, g, "orizzonte")

    assert broken(rules) == "maledizioni-1"
    assert broken(blank(rules, "oltretomba", "maledizione")) == "vuoto"

    def pray(r, theirs):
        g = game(r, {"hand": ["oltretomba"]}, {"curses": theirs}, vuoto=["re-luce"])
        play(r, g, {"cast": "oltretomba", "as": "preghiera"})
        if g.pending.kind == "into":
            play(r, g, {"choose": "maledizione"})
        return where(r, g, "re-luce")

    assert pray(rules, ["orizzonte"]) == "maledizioni-1"
    assert pray(rules, []) == "vuoto"  # not fewer Maledizioni than the opponent
    assert pray(blank(rules, "oltretomba", "preghiera"), ["orizzonte"]) == "vuoto"


def test_card_passi_persi(rules):
    def static(r):
        g = game(
            r,
            {"curses": ["passi-persi"]},
            {
                "curses": [corrotta("orizzonte")],
                "prayers": [{"card": "sole-vigilato", "host": "orizzonte"}],
            },
        )
        return eye(r, g, "orizzonte")

    assert static(rules) == 5
    assert static(blank(rules, "passi-persi", "maledizione")) == 7

    def pray(r):
        g = game(
            r,
            {"hand": ["passi-persi"], "curses": ["orizzonte", "re-luce"]},
            {"curses": ["lenora-spada-oscura", "sguardo-brillante"]},
        )
        play(r, g, {"cast": "passi-persi", "as": "preghiera"})
        if g.pending.kind == "target":
            assert g.pending.player == 1  # the opponent chooses first
            play(r, g, {"choose": "sguardo-brillante"}, {"choose": "re-luce"})
        return where(r, g, "sguardo-brillante"), where(r, g, "re-luce")

    assert pray(rules) == ("hand-2", "hand-1")
    assert pray(blank(rules, "passi-persi", "preghiera")) == ("maledizioni-2", "maledizioni-1")


def test_card_prima_notte(rules):
    def calo(r):
        g = game(r, {"hand": ["prima-notte"]}, vuoto=["orizzonte", "re-luce"])
        play(r, g, {"cast": "prima-notte"})
        return where(r, g, "orizzonte"), where(r, g, "re-luce")

    assert calo(rules) == ("hand-1", "vuoto")  # only a card with Occhio 4 or more
    assert calo(blank(rules, "prima-notte", "maledizione")) == ("vuoto", "vuoto")

    def pray(r):
        g = game(
            r,
            {"hand": ["prima-notte"], "curses": [{"card": "orizzonte", "stasis": True}]},
            {"curses": ["lenora-spada-oscura"]},
        )
        play(r, g, {"cast": "prima-notte", "as": "preghiera"})
        end_turn(r, g)
        return can(r, g, attack_move("lenora-spada-oscura", "orizzonte"))

    assert not pray(rules)
    assert pray(blank(rules, "prima-notte", "preghiera"))


def test_card_dado_nero(rules):
    def attack(r):
        g = game(r, {"curses": ["dado-nero"]}, {"curses": [corrotta("orizzonte")]}, dice=[2])
        play(r, g, attack_move("dado-nero", "orizzonte"))
        if g.pending.kind == "fato":
            play(r, g, {"choose": "pari"})
        return g.pending.kind

    assert attack(rules) == "offer"  # guessed «Pari» and rolled 2
    assert attack(blank(rules, "dado-nero", "maledizione")) == "main"

    def pray(r):
        g = game(r, {"hand": ["dado-nero", SPARE]}, mazzo=["orizzonte"])
        play(r, g, {"cast": "dado-nero", "as": "preghiera"})
        if g.pending.kind == "into":
            play(r, g, {"choose": "maledizione"})
        return where(r, g, "orizzonte")

    assert pray(rules) == "maledizioni-1"
    assert pray(blank(rules, "dado-nero", "preghiera")) == "mazzo"


def test_card_varco_sepolto(rules):
    assert portal(rules, "varco-sepolto", "lenora-spada-oscura", "orizzonte")


def test_card_crepuscolo(rules):
    assert purifies_on_calo(rules, "crepuscolo")

    def pray(r):
        g = game(
            r,
            {"hand": ["crepuscolo"], "curses": ["re-ombra"]},
            {"curses": [corrotta("orizzonte")]},
        )
        play(r, g, {"cast": "crepuscolo", "as": "preghiera"})
        pick(r, g, "orizzonte", "Ombra")
        play(r, g, attack_move("re-ombra", "orizzonte"))
        return g.pending.kind

    assert pray(rules) == "offer"  # now Ombra: Re Ombra always wins against it
    assert pray(blank(rules, "crepuscolo", "preghiera")) == "main"


def test_card_cancelli_di_mezzo(rules):
    g = game(rules, {"curses": ["cancelli-di-mezzo"]})
    assert rules.cards[rules.card("cancelli-di-mezzo")].keywords == {"Barriera", "Impatto"}
    assert barrier_holds(rules, "cancelli-di-mezzo")
    assert impact_blesses(rules, "cancelli-di-mezzo")
    assert g.stat(rules.card("cancelli-di-mezzo"), OCC) == 6

    def bond(r):
        g = game(
            r,
            {"curses": ["re-luce"]},
            {
                "curses": [corrotta("lenora-spada-oscura")],
                "prayers": [{"card": "cancelli-di-mezzo", "host": "lenora-spada-oscura"}],
            },
        )
        play(r, g, attack_move("re-luce", "lenora-spada-oscura"))
        return g.pending.kind

    assert bond(rules) == "offer"  # Lenora is now Luce: Re Luce always wins against it
    assert bond(blank(rules, "cancelli-di-mezzo", "preghiera")) == "main"


def test_card_oblio_e_prigione(rules):
    assert not rules.cards[rules.card("oblio-e-prigione")].mal

    def pray(r, theirs):
        g = game(r, {"hand": ["oblio-e-prigione"], "curses": ["re-luce"]}, {"curses": theirs})
        play(r, g, {"cast": "oblio-e-prigione", "as": "preghiera"})
        if g.pending.kind == "target":
            play(r, g, {"choose": "sguardo-brillante"})
        return where(r, g, "re-luce"), where(r, g, "sguardo-brillante")

    assert pray(rules, ["lenora-spada-oscura", "sguardo-brillante"]) == ("vuoto", "maledizioni-1")
    assert pray(rules, ["sguardo-brillante"]) == ("maledizioni-1", "maledizioni-2")  # only one
    blanked = blank(rules, "oblio-e-prigione", "preghiera")
    assert pray(blanked, ["lenora-spada-oscura", "sguardo-brillante"]) == (
        "maledizioni-1",
        "maledizioni-2",
    )


def test_card_pozza_di_luce_oscura(rules):
    def corrupted_by_attack(r):
        g = game(
            r,
            {"curses": ["pozza-di-luce-oscura"]},
            {"hand": [SPARE], "curses": ["sguardo-brillante"]},
            vuoto=["re-luce"],
            active=2,
        )
        play(r, g, attack_move("sguardo-brillante", "pozza-di-luce-oscura"))
        return where(r, g, "re-luce")

    assert corrupted_by_attack(rules) == "hand-1"
    assert corrupted_by_attack(blank(rules, "pozza-di-luce-oscura", "maledizione")) == "vuoto"

    def pray(r):
        g = game(
            r,
            {"hand": ["pozza-di-luce-oscura"], "curses": ["orizzonte"]},
            {"hand": [SPARE], "curses": ["lenora-spada-oscura", "sguardo-brillante"]},
        )
        play(r, g, {"cast": "pozza-di-luce-oscura", "as": "preghiera"})
        pick(r, g, "orizzonte")
        end_turn(r, g)
        play(r, g, attack_move("lenora-spada-oscura", "orizzonte"))
        return can(r, g, attack_move("sguardo-brillante", "orizzonte"))

    assert not pray(rules)  # Barriera until the end of the next turn
    assert pray(blank(rules, "pozza-di-luce-oscura", "preghiera"))


def test_every_card_has_a_test(rules):
    names = {name for name in globals() if name.startswith("test_card_")}
    codes = [c.code for c in rules.cards]
    missing = [code for code in codes if f"test_card_{code.replace('-', '_')}" not in names]
    assert not missing, f"cards without a scenario: {missing}"


# -- one test per clause of games/bless/rules.md, named after its anchor ----------------------


def test_rules_clauses_have_tests(rules, built_once):
    """Every numbered clause of the rulebook in the database has its test here."""
    from pipeline.database.catalog import read_game
    from pipeline.database.connection import open_project_db

    with open_project_db(open_project(built_once)) as engine:
        sections = read_game(engine, "bless").sections
    anchors = [s.anchor for s in sections if s.level >= 3 or "." in s.number.strip(".")]
    assert anchors, "the rulebook has no clauses"
    missing = [a for a in anchors if f"test_{a.replace('-', '_')}" not in globals()]
    assert not missing, f"clauses without a test: {missing}"


def test_in_breve(rules):
    g = rules.new_game(1)
    assert len(g.info) == 62 and len({c.code for c in g.info}) == 62  # 62 different cards
    assert sorted(c for pile in g.piles for c in pile) == list(range(62))  # one shared deck
    assert g.current_player() in (0, 1)  # two players


def test_due_usi(rules):
    g = game(rules, {"hand": ["orizzonte"]})
    ways = {a[2] for a in g.legal_actions() if a[0] == "cala"}
    assert ways == {"maledizione", "preghiera"}


def test_obiettivo(rules):
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["orizzonte"]},
        {"hand": [SPARE]},
        final={"by": 2, "how": "mazzo", "last_turn": 3},
    )
    play(rules, g, {"attack": "orizzonte", "direct": True})
    end_turn(rules, g)
    assert g.is_terminal() and g.winner == 0 and g.scores == [2, 0]  # the most points wins


def test_materiale(rules):
    g = rules.new_game(7)
    assert g.scores == [0, 0]
    g = game(rules, {"curses": ["dado-nero"]}, {"curses": ["orizzonte"]}, seed=3)
    play(rules, g, attack_move("dado-nero", "orizzonte"), {"choose": "dispari"})
    rolls = [e.args[1] for e in g.log if e.kind == "chance" and e.args[0] == "dado"]
    assert len(rolls) == 1 and 1 <= rolls[0] <= 6  # the one extra: a six-sided die


def test_campo(rules):
    g = game(
        rules,
        {"hand": ["obelisco-del-sole"], "prayers": ["fondale-marino"]},
        {"curses": ["taglio-nelle-tenebre"], "prayers": ["re-ombra"], "altar": ["eclissi"]},
    )
    side = g.observation(0)["sides"][1]
    assert {"maledizioni", "preghiere", "altare"} <= set(side)
    play(rules, g, {"cast": "obelisco-del-sole", "as": "preghiera"})
    # «in campo»: both zones of both sides, never the Altare
    assert [where(rules, g, c) for c in ("fondale-marino", "taglio-nelle-tenebre", "re-ombra")] == [
        "vuoto"
    ] * 3
    assert where(rules, g, "eclissi") == "altare-2"


def test_altare(rules):
    g = game(
        rules,
        {"curses": ["oscurita"], "altar": ["eclissi", "re-ombra"]},
        {"hand": ["orizzonte"], "altar": ["taglio-nelle-tenebre"]},
    )
    assert g.observation(0)["altare"] == ["eclissi", "re-ombra"]  # its owner sees it
    assert g.observation(1)["sides"][0]["altare"] == 2  # the other, only how many
    assert "eclissi" not in str(g.observation(1))
    assert eye(rules, g, "oscurita") == 0  # Ombra cards in the Altare are not in the field


def test_zone_comuni(rules):
    g = game(
        rules,
        {"hand": ["portale-solenne"]},
        vuoto=["orizzonte", "lume-nomade", "lenora-spada-oscura"],
    )
    face_up = ["orizzonte", "lume-nomade", "lenora-spada-oscura"]
    assert g.observation(1)["vuoto"] == face_up
    play(rules, g, {"cast": "portale-solenne", "as": "preghiera"}, {"choose": "maledizione"})
    assert where(rules, g, "lume-nomade") == "maledizioni-1"  # the last Luce to arrive is on top
    assert g.observation(0)["vuoto"][-1] == "portale-solenne"  # the Impulso went on top
    g = rules.new_game(5)
    assert len(g.piles[0]) == 62 - 8  # one Mazzo for both players


def test_anatomia(rules, built_once):
    from pipeline.database.catalog import read_game
    from pipeline.database.connection import open_project_db

    with open_project_db(open_project(built_once)) as engine:
        cards = read_game(engine, "bless").cards
    assert len(rules.cards) == len(cards) == 62
    for info, card in zip(rules.cards, cards, strict=True):
        assert (info.code, info.occhio, info.karma) == (
            card.code,
            card.attributes["occhio"],
            card.attributes["karma"],
        )
        assert info.data == card.data  # the effects the engine runs are the database's


def test_occhio(rules):
    g = game(rules, {"curses": ["sguardo-brillante"]}, {"curses": [corrotta("orizzonte")]})
    play(rules, g, attack_move("sguardo-brillante", "orizzonte"))
    assert g.pending.kind == "offer" and not corrupted(rules, g, "sguardo-brillante")


def test_karma(rules):
    g = game(rules, {"hand": [SPARE], "curses": ["sole-vigilato"]})
    play(rules, g, {"attack": "sole-vigilato", "direct": True})
    assert g.scores == [4, 0]


def test_forma(rules):
    g = game(rules, {"hand": ["fiume-etereo"], "curses": ["orizzonte", "taglio-nelle-tenebre"]})
    play(rules, g, {"cast": "fiume-etereo", "as": "preghiera"})
    assert (eye(rules, g, "orizzonte"), eye(rules, g, "taglio-nelle-tenebre")) == (6, 5)


def test_duali(rules):
    g = game(rules, {"curses": ["crepuscolo"]})
    c = rules.card("crepuscolo")
    assert g.forma(c) == 3  # Luce and Ombra at once


def test_scelta_zona(rules):
    def calo(as_what):
        g = game(rules, {"hand": ["orizzonte", SPARE]})
        play(rules, g, {"cast": "orizzonte", "as": as_what})
        return g.scores[0], where(rules, g, "orizzonte")

    assert calo("maledizione") == (1, "maledizioni-1")
    assert calo("preghiera") == (0, "preghiere-1")


def test_maledizione(rules):
    g = game(
        rules,
        {"curses": ["fiume-etereo", "orizzonte"]},
        {"curses": ["lenora-spada-oscura"]},
        active=2,
    )
    assert not can(rules, g, attack_move("lenora-spada-oscura", "fiume-etereo"))  # its effect works
    assert eye(rules, g, "orizzonte") == 5  # its Preghiera effect does not
    assert can(rules, g, attack_move("lenora-spada-oscura", "orizzonte"))


def test_preghiera(rules):
    g = game(
        rules,
        {"hand": [SPARE], "prayers": ["fiume-etereo"]},
        {"curses": ["lenora-spada-oscura"], "prayers": ["re-ombra"]},
    )
    legal = g.legal_actions()
    # the Preghiera of the player's own card in play is offered, and no other
    assert [a for a in legal if a[0] == "invoke"] == [("invoke", rules.card("fiume-etereo"))]
    assert not any(a[0] == "attack" for a in legal)  # nothing to attack, nothing attacks
    assert ("direct", rules.card("fiume-etereo")) not in legal


def test_lasciare_il_campo(rules):
    g = game(
        rules,
        {
            "hand": ["passi-persi", "re-luce"],
            "curses": [corrotta("orizzonte"), "taglio-nelle-tenebre"],
            "prayers": [{"card": "sole-vigilato", "host": "orizzonte"}],
        },
        {"curses": ["lenora-spada-oscura"]},
    )
    play(rules, g, {"cast": "re-luce", "as": "preghiera"})
    assert eye(rules, g, "orizzonte") == 9  # 5 + 2 (Legame, Corrotta) + 2 (Re Luce)
    play(rules, g, {"cast": "passi-persi", "as": "preghiera"}, {"choose": "orizzonte"})
    assert where(rules, g, "orizzonte") == "hand-1"
    assert where(rules, g, "sole-vigilato") == "vuoto"  # its Legame broke
    play(rules, g, {"cast": "orizzonte"})
    assert (eye(rules, g, "orizzonte"), corrupted(rules, g, "orizzonte")) == (
        5,
        False,
    )  # a new card


def test_convertire(rules):
    g = game(rules, {"hand": ["tocco-divino", SPARE], "prayers": ["orizzonte"]})
    play(rules, g, {"cast": "tocco-divino", "as": "preghiera"})
    c = rules.card("orizzonte")
    assert where(rules, g, "orizzonte") == "maledizioni-1"
    assert g.scores == [0, 0]  # Converting is not Calare: no CALO
    assert not g.stasi[c] and not g.corrupt[c]


def test_controllo(rules):
    g = game(
        rules,
        {"hand": ["oblio-e-prigione"], "curses": ["re-luce"]},
        {
            "curses": [corrotta("orizzonte"), "lenora-spada-oscura"],
            "prayers": [{"card": "sole-vigilato", "host": "orizzonte"}],
        },
    )
    play(rules, g, {"cast": "oblio-e-prigione", "as": "preghiera"}, {"choose": "orizzonte"})
    assert where(rules, g, "orizzonte") == "maledizioni-1"
    assert (
        corrupted(rules, g, "orizzonte") and eye(rules, g, "orizzonte") == 7
    )  # state and Legame kept
    assert g.host[rules.card("sole-vigilato")] == rules.card("orizzonte")
    play(rules, g, {"remove_stasi": "orizzonte"} if g.stasi[rules.card("orizzonte")] else "end")
    if g.active == 0:
        play(rules, g, attack_move("orizzonte", "lenora-spada-oscura"), {"choose": "yes"})
        assert g.scores[0] == 2  # its points go to its new controller


def test_tre_tipologie(rules):
    g = game(
        rules,
        {
            "hand": [SPARE],
            "prayers": ["fiume-etereo", {"card": "vento-tetro", "host": "orizzonte"}],
        },
        {"curses": ["orizzonte"]},
    )
    invocable = {rules.cards[a[1]].code for a in g.legal_actions() if a[0] == "invoke"}
    assert invocable == {"fiume-etereo"}  # only the Eco carry the Invocazione


def test_impulso(rules):
    g = game(rules, {"hand": ["battito-d-ali", SPARE]}, {"prayers": ["fiume-etereo"]})
    play(rules, g, {"cast": "battito-d-ali", "as": "preghiera"}, {"choose": "fiume-etereo"})
    assert where(rules, g, "battito-d-ali") == "vuoto"  # resolved, then broke
    assert g.observation(0)["vuoto"] == ["fiume-etereo", "battito-d-ali"]


def test_eco(rules):
    g = game(rules, {"hand": ["fiume-etereo", SPARE], "curses": ["orizzonte"]})
    play(rules, g, {"cast": "fiume-etereo", "as": "preghiera"})
    assert where(rules, g, "fiume-etereo") == "preghiere-1" and eye(rules, g, "orizzonte") == 6
    play(rules, g, {"invoke": "fiume-etereo"})
    assert eye(rules, g, "orizzonte") == 7


def test_catena_eco(rules):
    g = game(
        rules,
        {
            "hand": ["fondale-marino", SPARE],
            "curses": ["orizzonte"],
            "prayers": ["fiume-etereo"],
        },
    )
    play(rules, g, {"cast": "fondale-marino", "as": "preghiera"})
    assert eye(rules, g, "orizzonte") == 6  # Fiume Etereo answered once
    assert [e.kind for e in g.log].count("respond") == 1
    play(rules, g, {"invoke": "fondale-marino"})
    assert eye(rules, g, "orizzonte") == 6  # it already answered this turn
    assert [e.kind for e in g.log].count("respond") == 1
    end_turn(rules, g)
    other = game(
        rules,
        {"hand": ["fondale-marino", SPARE]},
        {"prayers": ["fiume-etereo"], "curses": ["orizzonte"]},
    )
    play(rules, other, {"cast": "fondale-marino", "as": "preghiera"})
    assert eye(rules, other, "orizzonte") == 5  # the opponent's Eco never answer


def test_legame(rules):
    g = game(rules, {"hand": ["vento-tetro", SPARE]})
    assert not can(rules, g, {"cast": "vento-tetro", "as": "preghiera"})  # no host: cannot
    g = game(rules, {"hand": ["dado-nero", SPARE]}, mazzo=["vento-tetro"])
    play(rules, g, {"cast": "dado-nero", "as": "preghiera"}, {"choose": "preghiera"})
    assert where(rules, g, "vento-tetro") == "vuoto"  # played without a host: it breaks
    g = game(rules, {"hand": ["vento-tetro", SPARE]}, {"curses": ["orizzonte"]})
    play(rules, g, {"cast": "vento-tetro", "as": "preghiera"})
    assert g.host[rules.card("vento-tetro")] == rules.card("orizzonte")  # an opponent's host


def test_ospite(rules):
    g = game(
        rules,
        {"hand": ["sole-vigilato", "vento-tetro", SPARE], "curses": ["orizzonte", "re-luce"]},
        {
            "curses": ["lenora-spada-oscura"],
            "prayers": [{"card": "ali-di-som", "host": "lenora-spada-oscura"}],
        },
    )
    play(rules, g, {"cast": "sole-vigilato", "as": "preghiera"})
    hosts = g.pending.options
    assert rules.card("lenora-spada-oscura") not in hosts  # it holds the opponent's Legame
    play(
        rules,
        g,
        {"choose": "orizzonte"},
        {"cast": "vento-tetro", "as": "preghiera"},
        {"choose": "orizzonte"},
    )
    assert where(rules, g, "sole-vigilato") == "vuoto"  # the old Legame goes
    assert g.host[rules.card("vento-tetro")] == rules.card("orizzonte")


def test_prima_del_turno(rules):
    g = rules.new_game(11)
    assert [len(g.piles[4]), len(g.piles[5])] == [4, 4]
    kinds = [e.kind for e in g.log]
    assert kinds.index("first") < kinds.index("action") if "action" in kinds else True
    assert g.pending.kind == "mulligan" and g.pending.player == g.first
    g.apply(("choose", ()))
    assert g.pending.kind == "mulligan" and g.pending.player == 1 - g.first
    g.apply(("choose", ()))
    assert g.turn == 1 and g.active == g.first


def test_primo_turno(rules):
    g = rules.new_game(3, options={"first_player": 1})
    g.apply(("choose", ()))
    g.apply(("choose", ()))
    assert (g.turn, g.active, g.actions) == (1, 1, 2)
    end_turn(rules, g)
    assert (g.turn, g.active, g.actions) == (2, 0, 3)


def test_mulligan(rules):
    g = game(
        rules,
        {"hand": ["re-luce", "re-ombra", "orizzonte", "eclissi", "zodiaco", "lama-del-mattino"]},
        mazzo=["sguardo-brillante", "visione-profonda"],
    )
    play(rules, g, "end")
    assert g.pending.kind == "mulligan"
    play(rules, g, {"choose": ["re-luce", "re-ombra", "orizzonte"]})
    assert sorted(hand(rules, g, 1)) == sorted(
        ["eclissi", "zodiaco", "lama-del-mattino", "sguardo-brillante"]
    )
    assert {where(rules, g, c) for c in ("re-luce", "re-ombra", "orizzonte")} == {"mazzo"}
    g = game(
        rules,
        {"hand": ["re-luce", "re-ombra", "orizzonte", "eclissi", "zodiaco", "lama-del-mattino"]},
    )
    play(rules, g, "end", {"choose": []})
    assert len(hand(rules, g, 1)) == 6  # more than 4 is fine


def test_mazzo_esaurito(rules):
    codes = [c.code for c in rules.cards]
    keep = ["re-luce", "orizzonte"]
    g = game(
        rules,
        {"hand": ["re-ombra"]},
        vuoto=[c for c in codes if c not in keep + ["re-ombra"]],
        mazzo=keep,
    )
    play(rules, g, "end", {"choose": []})
    assert where(rules, g, "re-luce") == "hand-1" and where(rules, g, "orizzonte") == "hand-1"
    assert len(hand(rules, g, 1)) == 4 and g.final_by == 0 and g.final_how == "mazzo"
    assert "refill" in [e.kind for e in g.log]


def test_fasi_del_turno(rules):
    g = game(rules, {"hand": ["orizzonte", SPARE]}, {"hand": [SPARE]})
    start = len(g.log)
    end_turn(rules, g)
    kinds = [
        e.kind for e in g.log[start:] if e.kind in ("end_turn", "stasi_end", "mulligan", "turn")
    ]
    assert kinds == ["end_turn", "stasi_end", "mulligan", "turn"]


def test_inizio_turno(rules):
    g = game(
        rules,
        {"curses": ["sguardo-brillante", "visione-profonda"]},
        {"hand": [SPARE]},
        active=2,
    )
    end_turn(rules, g)
    assert g.pending.kind == "order" and g.pending.player == 0  # the Giocatore Attivo orders
    play(rules, g, {"choose": "visione-profonda"})
    assert len(hand(rules, g, 1)) == 2
    effects = [rules.cards[e.args[0]].code for e in g.log if e.kind == "effect"]
    assert effects[-2:] == ["visione-profonda", "sguardo-brillante"]


def test_fase_principale(rules):
    g = game(rules, {"hand": ["re-luce", "re-ombra", "orizzonte", "eclissi"]})
    play(rules, g, {"cast": "re-luce"}, {"cast": "re-ombra"})
    assert g.actions == 1
    play(rules, g, {"cast": "orizzonte"})
    assert (g.pending.kind, g.pending.player) == ("mulligan", 0)  # no Actions left: Fine Turno


def test_fine_turno(rules):
    g = game(
        rules,
        {"hand": ["orizzonte", SPARE]},
        {"curses": [{"card": "lenora-spada-oscura", "stasis": True}]},
    )
    play(rules, g, {"cast": "orizzonte"})
    assert g.stasi[rules.card("orizzonte")]
    end_turn(rules, g)
    assert not g.stasi[rules.card("orizzonte")] and not g.stasi[rules.card("lenora-spada-oscura")]


def test_calare(rules):
    g = game(rules, {"hand": ["portale-solenne", SPARE]}, vuoto=["orizzonte"])
    play(rules, g, {"cast": "portale-solenne", "as": "preghiera"}, {"choose": "maledizione"})
    assert where(rules, g, "orizzonte") == "maledizioni-1" and g.scores == [
        0,
        0,
    ]  # played, not calata
    assert g.actions == 2


def test_stasi(rules):
    g = game(rules, {"hand": ["orizzonte", SPARE]}, {"curses": ["lenora-spada-oscura"]})
    play(rules, g, {"cast": "orizzonte"})
    assert not can(rules, g, attack_move("orizzonte", "lenora-spada-oscura"))
    end_turn(rules, g)
    assert can(rules, g, attack_move("lenora-spada-oscura", "orizzonte"))  # can be attacked


def test_rimuovere_stasi(rules):
    g = game(
        rules,
        {"hand": ["orizzonte"]},
        {"curses": [{"card": "lenora-spada-oscura", "stasis": True}]},
    )
    play(rules, g, {"cast": "orizzonte"})
    assert not can(rules, g, {"remove_stasi": "lenora-spada-oscura"})  # only your own
    play(rules, g, {"remove_stasi": "orizzonte"}, attack_move("orizzonte", "lenora-spada-oscura"))
    assert corrupted(rules, g, "lenora-spada-oscura")  # Calare, Stasi, attack: one turn


def test_attaccare(rules):
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["sguardo-brillante"]},
        {"curses": ["orizzonte", "re-luce"]},
    )
    play(rules, g, attack_move("sguardo-brillante", "orizzonte"))
    assert g.actions == 2
    assert not can(rules, g, attack_move("sguardo-brillante", "re-luce"))  # once per turn


def test_attacco_diretto(rules):
    g = game(rules, {"hand": [SPARE], "curses": [corrotta("orizzonte")]}, {"curses": []})
    play(rules, g, {"attack": "orizzonte", "direct": True})
    assert g.scores == [2, 0] and g.piles[10] == [] and g.actions == 2  # no card to the Altare
    g = game(rules, {"hand": [SPARE], "curses": ["orizzonte"]}, {"curses": ["re-luce"]})
    assert not can(rules, g, {"attack": "orizzonte", "direct": True})


def test_invocare(rules):
    g = game(rules, {"hand": ["fiume-etereo", SPARE], "curses": ["orizzonte"]})
    play(rules, g, {"cast": "fiume-etereo", "as": "preghiera"}, {"invoke": "fiume-etereo"})
    assert g.actions == 1 and eye(rules, g, "orizzonte") == 7  # invoked in its first turn
    assert not can(rules, g, {"invoke": "fiume-etereo"})  # once per turn


def test_pura(rules):
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["taglio-nelle-tenebre"]},
        {"curses": ["sguardo-brillante"]},
    )
    play(rules, g, attack_move("taglio-nelle-tenebre", "sguardo-brillante"))
    assert where(rules, g, "taglio-nelle-tenebre") == "maledizioni-1"
    assert corrupted(rules, g, "taglio-nelle-tenebre")


def test_corrotta(rules):
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["re-luce", "zodiaco"]},
        {"curses": [corrotta("orizzonte")]},
    )
    play(rules, g, attack_move("zodiaco", "orizzonte"), {"choose": "no"})
    assert where(rules, g, "orizzonte") == "vuoto"  # a Corrotta that loses breaks
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["re-luce", "orizzonte"]},
        {"curses": [corrotta("sguardo-brillante")]},
    )
    play(rules, g, attack_move("re-luce", "sguardo-brillante"))
    assert corrupted(rules, g, "sguardo-brillante")  # attacked again: still Corrotta, nothing else


def test_simulazione(rules):
    g = game(
        rules,
        {"hand": [SPARE], "curses": [corrotta("orizzonte")]},
        {"curses": ["elica-empirea", "lume-nomade", "zodiaco"]},
    )
    assert can(rules, g, attack_move("orizzonte", "elica-empirea"))  # 5 beats 4
    assert can(rules, g, attack_move("orizzonte", "lume-nomade"))  # no +3: Elica is Luce
    assert not can(rules, g, attack_move("orizzonte", "zodiaco"))  # 5 loses to 7
    g = game(
        rules,
        {"hand": [SPARE], "curses": [corrotta("orizzonte")]},
        {"curses": ["picchi-oltrenuvola"]},
    )
    assert not can(rules, g, attack_move("orizzonte", "picchi-oltrenuvola"))  # a tie is a loss
    g = game(
        rules,
        {"hand": [SPARE], "curses": [corrotta("fiamma-perpetua")]},
        {"curses": ["battito-d-ali"]},
    )
    assert can(rules, g, attack_move("fiamma-perpetua", "battito-d-ali"))  # unless ties win
    g = game(
        rules,
        {"hand": [SPARE], "curses": [corrotta("orizzonte")]},
        {"curses": ["dado-nero"]},
    )
    assert can(rules, g, attack_move("orizzonte", "dado-nero"))  # Fato: no simulation


def test_spezzare(rules):
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["sguardo-brillante"]},
        {"curses": [corrotta("orizzonte")]},
        vuoto=["re-luce"],
    )
    play(rules, g, attack_move("sguardo-brillante", "orizzonte"), {"choose": "no"})
    assert g.observation(0)["vuoto"] == ["re-luce", "orizzonte"]


def test_fasi_scontro(rules):
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["catene-lucenti"]},
        {"curses": ["taglio-nelle-tenebre"]},
    )
    start = len(g.log)
    play(rules, g, attack_move("catene-lucenti", "taglio-nelle-tenebre"))
    kinds = [e.kind for e in g.log[start:] if e.kind in ("attack", "clash", "corrupt")]
    assert kinds == ["attack", "clash", "corrupt"]
    clash = next(e for e in g.log if e.kind == "clash")
    assert clash.args[2:] == (8, 5, 0)  # Rivalità first, then the comparison: the attacker wins


def test_modifica_occhio(rules):
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["catene-lucenti"]},
        {"curses": [corrotta("sguardo-brillante"), "taglio-nelle-tenebre"]},
    )
    assert eye(rules, g, "catene-lucenti") == 5  # Rivalità counts only in a clash
    play(rules, g, attack_move("catene-lucenti", "taglio-nelle-tenebre"))
    assert next(e for e in g.log if e.kind == "clash").args[2] == 8


def test_confronto(rules):
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["orizzonte"]},
        {"curses": [corrotta("elica-empirea")]},
    )
    play(rules, g, attack_move("orizzonte", "elica-empirea"))
    assert next(e for e in g.log if e.kind == "clash").args[4] == 0 and g.pending.kind == "offer"


def test_esito_scontro(rules):
    g = game(rules, {"hand": [SPARE], "curses": ["re-luce"]}, {"curses": ["sole-vigilato"]})
    play(rules, g, attack_move("re-luce", "sole-vigilato"))
    # Sole Vigilato becomes Corrotta (+3) only in step 4: in the clash it was 1 against 3
    assert not corrupted(rules, g, "re-luce") and corrupted(rules, g, "sole-vigilato")
    assert eye(rules, g, "sole-vigilato") == 4


def test_attaccata_corrotta(rules):
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["taglio-nelle-tenebre"]},
        {"curses": ["sguardo-brillante"]},
    )
    play(rules, g, attack_move("taglio-nelle-tenebre", "sguardo-brillante"))
    assert corrupted(rules, g, "taglio-nelle-tenebre") and corrupted(rules, g, "sguardo-brillante")


def test_pareggio(rules):
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["orizzonte"]},
        {"curses": ["picchi-oltrenuvola"]},
    )
    play(rules, g, attack_move("orizzonte", "picchi-oltrenuvola"))
    assert next(e for e in g.log if e.kind == "clash").args[4] == 2
    assert corrupted(rules, g, "orizzonte") and corrupted(rules, g, "picchi-oltrenuvola")


def test_vince(rules):
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["tocco-divino"]},
        {"curses": [corrotta("sguardo-brillante")]},
    )
    play(rules, g, attack_move("tocco-divino", "sguardo-brillante"))
    assert g.pending.kind == "offer"  # Occhio 0 wins: Karma 1 is 2 or less
    g = game(
        rules,
        {"hand": ["fiume-etereo", SPARE], "curses": ["tocco-divino"]},
        {"curses": [corrotta("nube-mentale")]},
    )
    play(rules, g, {"cast": "fiume-etereo", "as": "preghiera"})
    play(rules, g, attack_move("tocco-divino", "nube-mentale"))
    # both «Vince» hold (Karma 2; an Occhio of 1 that is not the original 0): a tie
    assert clash_of(g).args[4] == 2
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["ali-di-mos"]},
        {"curses": [corrotta("mesit-campione-dell-ombra")]},
    )
    play(rules, g, attack_move("ali-di-mos", "mesit-campione-dell-ombra"))
    # the condition reads the Occhio after step 1: Mesit has 4 + 3 (Rivalità), so 6 or more
    assert clash_of(g).args[3] == 7 and g.pending.kind == "offer"


def test_vince_sempre(rules):
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["re-luce"]},
        {"curses": [corrotta("tocco-divino")]},
    )
    play(rules, g, attack_move("re-luce", "tocco-divino"))
    assert g.pending.kind == "offer"  # «Vince sempre» beats Tocco's «Vince»
    g = game(
        rules,
        {"hand": ["crepuscolo", SPARE], "curses": ["re-luce"]},
        {"curses": ["re-ombra"]},
    )
    play(rules, g, {"cast": "crepuscolo", "as": "preghiera"}, {"choose": "re-luce"})
    play(rules, g, {"choose": "Ombra"}, attack_move("re-luce", "re-ombra"))
    assert clash_of(g).args[4] == 1  # Re Luce is Ombra now: Re Ombra «Vince sempre»
    g = game(
        rules,
        {"hand": ["crepuscolo", SPARE], "curses": ["re-luce"]},
        {
            "curses": ["re-ombra"],
            "prayers": [{"card": "cancelli-di-mezzo", "host": "re-ombra"}],
        },
    )
    play(rules, g, {"cast": "crepuscolo", "as": "preghiera"}, {"choose": "re-luce"})
    play(rules, g, {"choose": "Ombra"}, attack_move("re-luce", "re-ombra"))
    assert clash_of(g).args[4] == 2  # two «Vince sempre» that hold: a tie


def test_rivalita(rules):
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["catene-lucenti"]},
        {"curses": ["lenora-spada-oscura"]},
    )
    play(rules, g, attack_move("catene-lucenti", "lenora-spada-oscura"))
    assert next(e for e in g.log if e.kind == "clash").args[2:4] == (8, 6)  # attacking
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["lenora-spada-oscura"]},
        {"curses": ["catene-lucenti"]},
    )
    play(rules, g, attack_move("lenora-spada-oscura", "catene-lucenti"))
    assert next(e for e in g.log if e.kind == "clash").args[2:4] == (6, 8)  # attacked
    g = game(rules, {"hand": [SPARE], "curses": ["catene-lucenti"]}, {"curses": ["crepuscolo"]})
    play(rules, g, attack_move("catene-lucenti", "crepuscolo"))
    assert next(e for e in g.log if e.kind == "clash").args[2] == 5  # not against a Duale
    g = game(
        rules,
        {
            "hand": [SPARE],
            "curses": ["cancelli-di-mezzo"],
            "prayers": [{"card": "lama-del-mattino", "host": "cancelli-di-mezzo"}],
        },
        {"curses": ["lenora-spada-oscura"]},
    )
    play(rules, g, attack_move("cancelli-di-mezzo", "lenora-spada-oscura"))
    assert next(e for e in g.log if e.kind == "clash").args[2] == 6  # nor for a Duale


def test_impatto(rules):
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["volo-notturno"]},
        {"curses": ["sguardo-brillante"]},
    )
    play(rules, g, attack_move("volo-notturno", "sguardo-brillante"))
    assert g.scores == [1, 0]  # it lost, but it corrupted the attacked Pura
    g = game(
        rules,
        {"curses": ["volo-notturno"]},
        {"hand": [SPARE], "curses": ["orizzonte"]},
        active=2,
    )
    play(rules, g, attack_move("orizzonte", "volo-notturno"))
    assert g.scores == [1, 0]  # attacked, it corrupted the Pura that lost
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["volo-notturno"]},
        {"curses": [corrotta("orizzonte")]},
    )
    play(rules, g, attack_move("volo-notturno", "orizzonte"), {"choose": "no"})
    assert g.scores == [0, 0]  # the opponent was Corrotta and broke: no Impatto


def test_barriera(rules):
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["faro-della-redenzione"]},
        {"hand": [SPARE], "curses": ["lenora-spada-oscura", "sguardo-brillante"]},
        active=2,
    )
    play(rules, g, attack_move("lenora-spada-oscura", "faro-della-redenzione"))
    assert corrupted(rules, g, "faro-della-redenzione")  # the clash ended normally
    assert not can(rules, g, attack_move("sguardo-brillante", "faro-della-redenzione"))
    end_turn(rules, g)
    end_turn(rules, g)
    assert can(rules, g, attack_move("sguardo-brillante", "faro-della-redenzione"))


def test_fato(rules):
    def attack(guess, roll):
        g = game(
            rules,
            {"hand": [SPARE], "curses": ["dado-nero"]},
            {"curses": [corrotta("orizzonte")]},
            dice=[roll],
        )
        play(rules, g, attack_move("dado-nero", "orizzonte"))
        assert g.pending.kind == "fato" and g.pending.player == 0
        play(rules, g, {"choose": guess})
        return g.pending.kind

    assert attack("dispari", 3) == "offer"
    assert attack("pari", 3) == "main"  # wrong: the Occhio decides (0 against 5)
    g = game(
        rules,
        {"hand": [SPARE], "curses": [corrotta("dado-nero")]},
        {"curses": ["sguardo-brillante"]},
    )
    assert can(rules, g, attack_move("dado-nero", "sguardo-brillante"))  # a Fato clash
    g = game(
        rules,
        {"curses": ["dado-nero"]},
        {"hand": [SPARE], "curses": ["orizzonte"]},
        active=2,
        dice=[4],
    )
    play(rules, g, attack_move("orizzonte", "dado-nero"))
    assert g.pending.player == 0  # the controller of the Fato card guesses, even when attacked


def test_blessare(rules):
    g = game(
        rules,
        {
            "hand": [SPARE],
            "curses": ["orizzonte"],
            "prayers": [{"card": "zoreo-campione-della-luce", "host": "orizzonte"}],
        },
    )
    play(rules, g, {"attack": "orizzonte", "direct": True})
    assert g.scores == [4, 0]  # its Karma at that moment
    events = [e for e in g.log if e.kind == "bless"]
    assert events[-1].player == 0 and events[-1].args[1] == 4


def test_offerta(rules):
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["sguardo-brillante"]},
        {"curses": [corrotta("orizzonte")]},
    )
    play(rules, g, attack_move("sguardo-brillante", "orizzonte"))
    assert g.pending.kind == "offer" and g.pending.player == 0
    play(rules, g, {"choose": "yes"})
    assert where(rules, g, "orizzonte") == "altare-1" and g.scores == [1, 0]
    g = game(
        rules,
        {"hand": [SPARE], "curses": ["sguardo-brillante"]},
        {"curses": [corrotta("orizzonte")]},
    )
    play(rules, g, attack_move("sguardo-brillante", "orizzonte"), {"choose": "no"})
    assert where(rules, g, "orizzonte") == "vuoto" and g.scores == [0, 0]
    g = game(
        rules,
        {"hand": [SPARE], "curses": [corrotta("dado-nero")]},
        {"curses": ["orizzonte"]},
        dice=[2],
    )
    play(rules, g, attack_move("dado-nero", "orizzonte"), {"choose": "dispari"})
    assert where(rules, g, "dado-nero") == "vuoto" and g.scores == [
        0,
        0,
    ]  # nothing for the defender


def test_offerta_pareggio(rules):
    g = game(
        rules,
        {"hand": [SPARE], "curses": [corrotta("dado-nero")]},
        {"curses": [corrotta("tocco-divino")]},
        dice=[2],
    )
    play(rules, g, attack_move("dado-nero", "tocco-divino"), {"choose": "pari"})
    assert next(e for e in g.log if e.kind == "clash").args[4] == 2  # two «Vince»: a tie
    assert where(rules, g, "dado-nero") == "vuoto" and g.pending.kind == "offer"
    play(rules, g, {"choose": "yes"})
    assert where(rules, g, "tocco-divino") == "altare-1" and g.scores == [2, 0]


def test_turni_finali(rules):
    g = game(
        rules,
        {
            "hand": [SPARE],
            "curses": ["sguardo-brillante"],
            "altar": ["re-luce", "re-ombra", "eclissi", "zodiaco"],
        },
        {"curses": [corrotta("orizzonte")]},
    )
    play(rules, g, attack_move("sguardo-brillante", "orizzonte"), {"choose": "yes"})
    assert (g.final_by, g.final_how, g.final_last) == (0, "altare", 3 + 5)


def test_ordine_turni_finali(rules):
    g = game(
        rules,
        {
            "hand": [SPARE],
            "curses": ["sguardo-brillante"],
            "altar": ["re-luce", "re-ombra", "eclissi", "zodiaco"],
        },
        {"hand": [SPARE], "curses": [corrotta("orizzonte")]},
    )
    play(rules, g, attack_move("sguardo-brillante", "orizzonte"), {"choose": "yes"})
    players = []
    while not g.is_terminal():
        end_turn(rules, g)
        if not g.is_terminal():
            players.append(g.active)
    assert players == [1, 0, 1, 0, 1] and g.turn == 8
    # Started by the player who is not active (here a card that makes the attacked player
    # draw, with the Mazzo empty): the turn under way is the first Final Turn.
    drawing = rules.edited(
        "battito-d-ali",
        data={
            "maledizione": [{"trigger": "on_attacked", "effects": [{"op": "draw"}]}],
            "preghiera": rules.cards[rules.card("battito-d-ali")].data["preghiera"],
        },
    )
    placed = {"sguardo-brillante", "battito-d-ali", SPARE}
    rest = [c.code for c in rules.cards if c.code not in placed]
    g = game(
        drawing,
        {"hand": [SPARE], "curses": ["sguardo-brillante"]},
        {"curses": ["battito-d-ali"]},
        vuoto=rest,
    )
    play(drawing, g, attack_move("sguardo-brillante", "battito-d-ali"))
    assert (g.final_by, g.final_how, g.final_last) == (1, "mazzo", 3 + 4)


def test_nuove_attivazioni(rules):
    g = game(
        rules,
        {
            "hand": [SPARE],
            "curses": ["sguardo-brillante"],
            "altar": ["re-luce", "re-ombra", "eclissi", "zodiaco"],
        },
        {"curses": [corrotta("orizzonte")]},
        final={"by": 2, "how": "mazzo", "last_turn": 6},
    )
    play(rules, g, attack_move("sguardo-brillante", "orizzonte"), {"choose": "yes"})
    assert (g.final_by, g.final_how, g.final_last) == (1, "mazzo", 6)


def test_vittoria(rules):
    def last_turn(scores):
        g = game(
            rules,
            {"hand": [SPARE]},
            {"hand": [SPARE]},
            scores=scores,
            final={"by": 2, "how": "altare", "last_turn": 3},
        )
        end_turn(rules, g)
        assert g.is_terminal()
        return g.winner, g.returns()

    assert last_turn([5, 3]) == (0, [1.0, -1.0])
    assert last_turn([3, 5]) == (1, [-1.0, 1.0])
    assert last_turn([4, 4]) == (1, [-1.0, 1.0])  # a tie goes to who started the Final Turns


def test_durata_partita(rules):
    for altar in (3, 7):
        have = [
            "re-luce",
            "re-ombra",
            "eclissi",
            "zodiaco",
            "zoreo-campione-della-luce",
            "lama-del-mattino",
        ][: altar - 1]
        g = game(
            rules,
            {"hand": [SPARE], "curses": ["sguardo-brillante"], "altar": have},
            {"curses": [corrotta("orizzonte")]},
            altar=altar,
        )
        play(rules, g, attack_move("sguardo-brillante", "orizzonte"), {"choose": "yes"})
        assert g.final_by == 0 and g.final_last == 8  # still five Final Turns
    g = rules.new_game(1, options={"altar": 3})
    assert g.altar_limit == 3


def test_obblighi(rules):
    g = game(rules, {"hand": ["tocco-divino", SPARE]})
    play(rules, g, {"cast": "tocco-divino", "as": "preghiera"})
    assert where(rules, g, "tocco-divino") == "vuoto" and g.pending.kind == "main"  # nothing to do
    g = game(
        rules,
        {"hand": ["raggio-vanescente", SPARE], "curses": [corrotta("orizzonte")]},
        {"curses": ["lenora-spada-oscura"]},
    )
    play(rules, g, {"cast": "raggio-vanescente", "as": "preghiera"})
    assert where(rules, g, "lenora-spada-oscura") == "maledizioni-2"  # the cost cannot be paid


def test_duali_forma(rules):
    g = game(rules, {"hand": ["fiume-etereo", "fondale-marino", SPARE], "curses": ["crepuscolo"]})
    play(rules, g, {"cast": "fiume-etereo", "as": "preghiera"})
    assert eye(rules, g, "crepuscolo") == 3  # Luce
    play(rules, g, {"cast": "fondale-marino", "as": "preghiera"})
    assert eye(rules, g, "crepuscolo") >= 4  # and Ombra


def test_maggiore_minore(rules):
    g = game(
        rules,
        {"hand": ["lenora-spada-oscura", SPARE], "curses": ["battito-d-ali"]},
        {"curses": ["fiamma-perpetua", "orizzonte"]},
    )
    play(rules, g, {"cast": "lenora-spada-oscura", "as": "preghiera"})
    assert g.pending.kind == "target" and g.pending.player == 0
    assert {rules.cards[c].code for c in g.pending.options} == {"battito-d-ali", "fiamma-perpetua"}
    play(rules, g, {"choose": "fiamma-perpetua"})
    assert where(rules, g, "fiamma-perpetua") == "vuoto"


def test_ordine_effetti(rules):
    g = game(
        rules,
        {
            "hand": ["obelisco-del-sole", "re-luce"],
            "curses": ["varco-sepolto", "sussurro-fatale"],
        },
        {"hand": [SPARE], "curses": ["oltretomba", "orizzonte"]},
        vuoto=["lume-nomade"],
    )
    play(rules, g, {"cast": "obelisco-del-sole", "as": "preghiera"})
    assert g.pending.kind == "order" and g.pending.player == 0  # the active player's first
    play(rules, g, {"choose": "sussurro-fatale"})
    play(rules, g, ("choose", g.pending.options[0]), {"choose": "maledizione"})
    owners = [e.player for e in g.log if e.kind == "effect" and e.args[2] == "on_break"]
    assert owners == [0, 0, 1]


def test_durata_effetti(rules):
    g = game(
        rules,
        {
            "hand": ["volo-notturno", "raggio-vanescente", SPARE],
            "curses": ["taglio-nelle-tenebre"],
        },
        {"hand": [SPARE], "curses": ["orizzonte", "re-luce"]},
    )
    play(rules, g, {"cast": "volo-notturno", "as": "preghiera"}, {"choose": "taglio-nelle-tenebre"})
    assert eye(rules, g, "taglio-nelle-tenebre") == 7
    play(rules, g, {"cast": "raggio-vanescente", "as": "preghiera"}, {"choose": "orizzonte"})
    assert eye(rules, g, "taglio-nelle-tenebre") == 6  # it reads the count continuously
    end_turn(rules, g)
    assert eye(rules, g, "taglio-nelle-tenebre") == 6  # until the end of the next turn
    end_turn(rules, g)
    assert eye(rules, g, "taglio-nelle-tenebre") == 5


def test_imposta_somma(rules):
    g = game(
        rules,
        {
            "hand": ["fiume-etereo", SPARE],
            "curses": ["re-luce"],
            "prayers": [{"card": "fiore-di-lamus", "host": "re-luce"}],
        },
        {"curses": ["sguardo-brillante"]},
    )
    play(rules, g, {"cast": "fiume-etereo", "as": "preghiera"})
    assert eye(rules, g, "re-luce") == 9  # set to 8, then +1
    g = game(
        rules,
        {
            "hand": ["fiume-etereo", SPARE],
            "curses": ["re-luce"],
            "prayers": [{"card": "mangrovia-celeste", "host": "re-luce"}],
        },
    )
    play(rules, g, {"cast": "fiume-etereo", "as": "preghiera"})
    assert eye(rules, g, "re-luce") == 5  # «sempre»: the addition does not count
    g = game(
        rules,
        {
            "hand": ["oscurita", SPARE],
            "curses": ["taglio-nelle-tenebre", "visione-profonda"],
            "prayers": [{"card": "fiore-di-lamus", "host": "taglio-nelle-tenebre"}],
        },
        {"curses": ["orizzonte"]},
    )
    assert eye(rules, g, "taglio-nelle-tenebre") == 5
    play(rules, g, {"cast": "oscurita", "as": "preghiera"}, {"choose": "taglio-nelle-tenebre"})
    assert eye(rules, g, "taglio-nelle-tenebre") == 8  # the last setting wins
    g = game(
        rules,
        {
            "curses": ["passi-persi"],
            "prayers": [
                {"card": "mangrovia-celeste", "host": "sguardo-brillante"},
                "fiume-etereo",
            ],
        },
        {"curses": ["sguardo-brillante"]},
    )
    assert eye(rules, g, "sguardo-brillante") == 5  # two «sempre»: the last setting


def test_limiti(rules):
    g = game(rules, {"hand": ["fiume-etereo", SPARE], "prayers": ["re-luce", "orizzonte"]})
    play(rules, g, {"cast": "fiume-etereo", "as": "preghiera"})
    assert g.pending.kind == "limit"  # a third Eco
    g = game(
        rules,
        {"hand": ["zodiaco", SPARE]},
        {"curses": ["re-luce", "orizzonte", "eclissi", "lenora-spada-oscura"]},
    )
    play(rules, g, {"cast": "zodiaco"})
    assert len(maledizioni(rules, g, 1)) == 1 and len(maledizioni(rules, g, 2)) == 4  # per player
    g.check_invariants()


def test_superamento(rules):
    g = game(
        rules,
        {
            "hand": ["zodiaco", SPARE],
            "curses": ["re-luce", corrotta("orizzonte"), "eclissi", "lenora-spada-oscura"],
        },
    )
    play(rules, g, {"cast": "zodiaco"})
    assert g.pending.kind == "limit"
    assert {rules.cards[c].code for c in g.pending.options} == {
        "re-luce",
        "eclissi",
        "lenora-spada-oscura",
    }
    play(rules, g, {"choose": "eclissi"})
    assert where(rules, g, "eclissi") == "vuoto" and where(rules, g, "zodiaco") == "maledizioni-1"
    g = game(
        rules,
        {
            "hand": ["zodiaco", SPARE],
            "curses": [
                corrotta(c) for c in ("re-luce", "orizzonte", "eclissi", "lenora-spada-oscura")
            ],
        },
    )
    play(rules, g, {"cast": "zodiaco"})
    assert where(rules, g, "zodiaco") == "vuoto"  # nothing to choose: the newcomer goes
    g = game(
        rules,
        {
            "hand": ["fiume-etereo", SPARE],
            "curses": ["orizzonte"],
            "prayers": ["re-luce", "fondale-marino"],
        },
    )
    play(rules, g, {"cast": "fiume-etereo", "as": "preghiera"}, {"choose": "fondale-marino"})
    # checked before the effect: Fondale Marino was gone, so only Re Luce answered
    answered = [rules.cards[e.args[0]].code for e in g.log if e.kind == "respond"]
    assert where(rules, g, "fondale-marino") == "vuoto" and answered == ["re-luce"]
    assert eye(rules, g, "orizzonte") == 8


def test_parole_effetti(rules):
    g = game(rules, {"hand": ["fiore-di-lamus", "fiume-etereo"]})
    play(rules, g, {"cast": "fiore-di-lamus"})
    assert g.actions == 2  # «gratuitamente»: calata without an Action
    g = game(rules, {"hand": ["prima-notte", SPARE]}, vuoto=["orizzonte"])
    play(rules, g, {"cast": "prima-notte"})
    assert where(rules, g, "orizzonte") == "hand-1"  # «prendere»: into the hand


def test_a_designer_edit_changes_the_play(project, cli):
    """Edit a card in games/bless, rebuild cards.db: the engine plays the new card."""
    cards = project / "games" / "bless" / "cards.yaml"
    text = cards.read_text(encoding="utf-8")
    text = text.replace(
        "attributes: {forma: Luce, occhio: 5, karma: 2, preghiera: Eco}\n    text:\n"
        '      maledizione: "CALO: guadagni 1 Punto Vittoria."',
        "attributes: {forma: Luce, occhio: 9, karma: 2, preghiera: Eco}\n    text:\n"
        '      maledizione: "CALO: guadagni 3 Punti Vittoria."',
        1,
    )
    text = text.replace(
        "        - trigger: on_play\n          effects:\n            - op: score\n"
        "              amount: 1\n",
        "        - trigger: on_play\n          effects:\n            - op: score\n"
        "              amount: 3\n",
        1,
    )
    cards.write_text(text, encoding="utf-8")
    run = cli(project, "db", "build")
    assert run.exit_code == 0, run.output
    edited = load_rules(open_project(project), "bless")
    g = game(edited, {"hand": ["orizzonte", SPARE]})
    play(edited, g, {"cast": "orizzonte"})
    assert g.scores == [3, 0] and eye(edited, g, "orizzonte") == 9


def test_invariants_name_each_broken_state(rules):
    """The checks the conformance test runs after every action see what they claim to."""
    g = game(rules, {"hand": ["re-luce", SPARE], "curses": [corrotta("orizzonte")]})
    assert g.invariants() == []
    in_hand, on_field = rules.card("re-luce"), rules.card("orizzonte")
    broken = g.clone()
    broken.corrupt[in_hand] = 1
    assert broken.invariants() == ["a state off the field"]
    broken = g.clone()
    broken.stasi[in_hand] = 1
    assert broken.invariants() == ["a state off the field"]
    broken = g.clone()
    broken.host[in_hand] = on_field
    assert broken.invariants() == ["a bond from off the field"]
    broken = g.clone()
    broken.piles[0].append(in_hand)
    assert "a card is missing or in two zones" in broken.invariants()


def test_random_games_of_every_altar_score_what_was_blessed(rules):
    """What Bless's random games show beyond the conformance test (which plays every
    engine's standard game, its invariants checked after every action): the short and long
    Altari (3 and 7) keep the invariants too and replay; every game has a winner; the scores
    are the sum of what the log says was blessed and scored; and the Final Turns start both
    ways, by a full Altare and by an empty Mazzo."""
    from pipeline.engine.agents import RandomAgent
    from pipeline.engine.core import Replay, play_replay

    hows = set()
    for seed in range(60):
        options = ({}, {"altar": 3}, {"altar": 7})[seed % 3]
        g = rules.new_game(seed, 2, options)
        agents = [RandomAgent(2 * seed), RandomAgent(2 * seed + 1)]
        while not g.is_terminal():
            g.apply(agents[g.current_player()].act(g))
            assert g.invariants() == [], f"seed {seed}, {options}"
        assert g.winner in (0, 1) and g.final_by in (0, 1), f"seed {seed}: no winner"
        earned = [0, 0]
        for e in g.log:
            if e.kind == "bless":
                earned[e.player] += e.args[1]
            elif e.kind == "score":
                earned[e.player] += e.args[0]
        assert earned == g.scores, f"seed {seed}: the scores are not what was blessed"
        hows.add(g.final_how)
        if seed < 3:
            replay = Replay.from_json(Replay.of(g, rules, seed, options).to_json())
            assert play_replay(rules, replay).log == g.log
    assert hows == {"altare", "mazzo"}


def test_every_declared_field_of_a_game_has_its_slot():
    """GameFields and its root compiler.Reader declare each field annotated for mypy and in
    __slots__ for Python (and as a member of its C class in a .pxd: test_compiled checks
    that one)."""
    import pipeline.games.bless.common as common
    import pipeline.games.bless.compiler as compiler

    total = 0
    for module, name in ((common, "GameFields"), (compiler, "Reader")):
        source = Path(module.__file__).with_name(f"{module.__name__.rsplit('.', 1)[1]}.py")
        tree = ast.parse(source.read_text(encoding="utf-8"))
        fields = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name)
        annotated = {n.target.id for n in fields.body if isinstance(n, ast.AnnAssign)}
        assert annotated == set(getattr(module, name).__slots__), name
        total += len(annotated)
    assert total > 40


def capped_game(rules: BlessRules, seed: int, cap: int) -> BlessGame:
    from pipeline.engine.agents import RandomAgent

    g = rules.new_game(seed, 2, {"max_turns": cap})
    agents = [RandomAgent(seed), RandomAgent(seed + 7)]
    while not g.is_terminal():
        g.apply(agents[g.current_player()].act(g))
    return g


def test_turn_cap_stops_the_game(rules):
    """13.1 and 13.4: Bless ends only after the fifth Final Turn, its winner by Punti
    Vittoria. The engine's turn cap (option max_turns) is a safeguard, no rule: a game it cuts
    short is stopped, with no winner and zero returns, and is not a draw."""
    full = capped_game(rules, 0, 400)  # random play, seed 0: Final Turns 32-36
    assert full.turn == full.final_last == 36 and full.outcome().winners == (0,)
    assert not full.outcome().stopped
    for cap in (3, 33):  # before the Final Turns, and during them
        g = capped_game(rules, 0, cap)
        assert g.turn == cap and (g.final_by >= 0) == (cap == 33)
        outcome = g.outcome()
        assert outcome.stopped and outcome.winners == () and not outcome.draw
        assert outcome.how == "turni-esauriti" and g.returns() == [0.0, 0.0]
        last = rules.narrate(g.log)[-1]
        assert "interrompe la partita al limite di turni" in last and "senza risultato" in last


def test_a_card_seen_going_into_a_hand_stays_there_in_every_world(rules):
    """Prima Notte takes a card from the Vuoto, where both players see it go: every world
    drawn for the opponent (the search's determinize) keeps it in the taker's hand, while
    the rest of that hand is dealt again. A card taken from the Mazzo is not seen; a card
    that leaves the hand is forgotten."""
    g = game(rules, {"hand": ["prima-notte", "pendolo-veggente", SPARE]}, vuoto=["orizzonte"])
    play(rules, g, {"cast": "prima-notte"})
    taken, other = rules.card("orizzonte"), rules.card(SPARE)
    assert where(rules, g, "orizzonte") == "hand-1" and g.known == [0, 1 << taken]
    worlds = [g.determinize(1, seed) for seed in range(30)]
    assert all(w.zone[taken] == g.zone[taken] for w in worlds)
    assert any(w.zone[other] != g.zone[other] for w in worlds)
    play(rules, g, {"cast": "pendolo-veggente", "as": "preghiera"})  # takes from the Mazzo
    pick(rules, g, rules.cards[g.pending.options[0]].code if g.pending else None)
    assert g.known == [0, 1 << taken]
    play(rules, g, {"choose": []})  # its turn has ended: the Mulligan, keeping the hand
    play(rules, g, {"cast": "orizzonte"})  # seat 2, with nothing to play, has passed
    assert g.known == [0, 0]
    g.known[1] = 1 << taken  # seat 2 "knows" a card in seat 1's hand that is on the field
    assert "a card known to be in the other hand is not there" in g.invariants()
