"""Bless: the reference rules engine (state, turn, actions, clash, limits, end of the game).

The clause anchors of games/bless/rules.md name what each part implements. Card effects are
data read from cards.db and run by bless_effects; this module only holds the rules that
every card shares. Every decision is an action: the main-phase actions, and ``("choose", x)``
for targets, hosts, the Mulligan, the Offerta, the Fato guess, the order of effects.
A decision with a single option is taken by the engine and is not an action.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.engine.core import (
    CardRecord,
    Chance,
    Event,
)

from .common import (
    EVENT_FIELDS,
    INFO,
    SLUG,
)
from .compiler import (
    ALT,
    HAND,
    LEGAME,
    MAL,
    MAZZO,
    PRE,
    VUOTO,
    CardInfo,
)
from .figures import BlessFigures
from .narrate import narrate_bless
from .scenario import BlessScenarios
from .state import BlessGame


class BlessRules(BlessScenarios, BlessFigures):
    """The 62 cards of a Bless deck compiled from cards.db; makes games."""

    slug = SLUG
    info = INFO
    event_fields = EVENT_FIELDS

    def __init__(
        self,
        cards: Sequence[CardInfo],
        digest: str,
        texts: Mapping[int, Mapping[str, str]] | None = None,
    ):
        self.cards = list(cards)
        self.digest = digest
        self.texts = dict(texts or {})
        self.by_code = {c.code: c.index for c in self.cards}

    @classmethod
    def from_records(cls, records: Sequence[CardRecord], digest: str) -> BlessRules:
        """One CardInfo per copy of each card (attributes and structured effects)."""
        cards: list[CardInfo] = []
        texts: dict[int, dict[str, str]] = {}
        for card in sorted(records, key=lambda c: c.number):
            for _ in range(card.copies):
                index = len(cards)
                texts[index] = dict(card.texts)
                cards.append(
                    CardInfo(
                        index, card.number, card.code, card.name, dict(card.attributes), card.data
                    )
                )
        return cls(cards, digest, texts)

    def new_game(
        self,
        seed: int,
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        chance: Chance | None = None,
    ) -> BlessGame:
        if players not in (None, 2):
            raise ValueError(f"Bless is played by 2, not {players}")
        options = dict(options or {})
        unknown = sorted(set(options) - set(INFO.option_names))
        if unknown:
            known = ", ".join(INFO.option_names)
            raise ValueError(f"Bless has no option '{unknown[0]}' (options: {known})")
        if str(options.get("altar", 5)) not in ("3", "5", "7"):
            raise ValueError(f"altar must be 3, 5 or 7, not {options['altar']!r}")
        if str(options.get("first_player", 0)) not in ("0", "1"):
            raise ValueError(f"first_player must be 0 or 1, not {options['first_player']!r}")
        if not str(options.get("max_turns", 400)).isdigit():
            raise ValueError(f"max_turns must be a whole number, not {options['max_turns']!r}")
        return BlessGame(self, seed, options, chance)

    def invariants(self, state: BlessGame) -> list[str]:
        return state.invariants()

    def edited(
        self, code: str, attributes: Mapping[str, Any] | None = None, data: Any = None
    ) -> BlessRules:
        """The same rules with one card changed, as a designer would change its source."""
        i = self.card(code)
        old = self.cards[i]
        attrs = {
            "forma": {1: "Luce", 2: "Ombra", 3: "Duale"}[old.forma],
            "occhio": old.occhio,
            "karma": old.karma,
            "preghiera": ("Impulso", "Eco", "Legame")[old.prayer],
            **(attributes or {}),
        }
        cards = list(self.cards)
        cards[i] = CardInfo(i, old.number, old.code, old.name, attrs, data or old.data)
        return BlessRules(cards, f"{self.digest}+{code}", self.texts)

    def card(self, code: str) -> int:
        if code not in self.by_code:
            raise KeyError(f"no card {code!r} in the Bless deck")
        return self.by_code[code]

    def position(
        self, spec: Mapping[str, Any], seed: int = 0, dice: Sequence[int] = ()
    ) -> BlessGame:
        """A game set up in a given position (players numbered 1 and 2, cards by code).

        Cards not placed anywhere go to the Mazzo, under the ones listed on top of it, in
        number order. ``dice`` scripts the die rolls of Fato clashes.
        """
        options = {"altar": spec.get("altar", 5), "max_turns": spec.get("max_turns", 400)}
        chance = Chance(seed, forced={"dado": list(dice)})
        g = BlessGame(self, seed, options, chance, deal=False)
        g.piles[MAZZO] = []
        placed: list[int] = []

        def put(code: str, zone: int) -> int:
            c = self.card(code)
            if c in placed:
                raise ValueError(f"{code} is placed twice")
            placed.append(c)
            g.piles[zone].append(c)
            g.zone[c] = zone
            g.since[c] = g._tick()
            return c

        bonds = []
        for p, side in enumerate(spec.get("players", [])):
            for code in side.get("hand", []):
                put(code, 2 * HAND + p)
            for item in side.get("maledizioni", []):
                item = {"card": item} if isinstance(item, str) else item
                c = put(item["card"], 2 * MAL + p)
                g.corrupt[c] = int(bool(item.get("corrotta", False)))
                g.stasi[c] = int(bool(item.get("stasi", False)))
            for item in side.get("preghiere", []):
                item = {"card": item} if isinstance(item, str) else item
                c = put(item["card"], 2 * PRE + p)
                if self.cards[c].prayer == LEGAME:
                    if "host" not in item:
                        raise ValueError(f"the Legame {item['card']} needs a host")
                    bonds.append((c, item["host"]))
            for code in side.get("altare", []):
                put(code, 2 * ALT + p)
        for code in spec.get("vuoto", []):
            put(code, VUOTO)
        top = [put(code, MAZZO) for code in spec.get("mazzo", [])]
        rest = [c for c in range(len(self.cards)) if c not in placed]
        for c in rest:
            g.zone[c] = MAZZO
        g.piles[MAZZO] = sorted(rest, reverse=True) + top[::-1]
        for legame, code in bonds:
            g.host[legame] = self.card(code)
        for code in spec.get("attacked", []):
            g.attacked[self.card(code)] = int(spec.get("turn", 3))
        for code in spec.get("invoked", []):
            g.invoked[self.card(code)] = int(spec.get("turn", 3))
        for code in spec.get("responded", []):
            g.responded[self.card(code)] = int(spec.get("turn", 3))
        for code in spec.get("barriera", []):
            g.barrier[self.card(code)] = int(spec.get("turn", 3))
        g.turn = int(spec.get("turn", 3))
        g.active = int(spec.get("active", 1)) - 1
        g.first = int(spec.get("first", 1)) - 1
        g.actions = int(spec.get("actions", 3))
        g.scores = [int(x) for x in spec.get("scores", [0, 0])]
        g.bonus = g.scores[:]
        final = spec.get("final")
        if final:
            g.final_by, g.final_how = int(final["by"]) - 1, final.get("how", "altare")
            g.final_last = int(final["last_turn"])
        g._dirty()
        if spec.get("phase") == "end":
            g._push(("end_turn",))
        g._run()
        return g

    def narrate(self, events: Sequence[Event], players: int = 2) -> list[str]:
        return narrate_bless(events, self.cards, self.texts)


def build_rules(cards: Sequence[CardRecord], digest: str) -> BlessRules:
    """The Bless rules over these card records (read from cards.db by pipeline.play)."""
    return BlessRules.from_records(cards, digest)
