"""Bless: the reference rules engine (state, turn, actions, clash, limits, end of the game).

The clause anchors of games/bless/rules.md name what each part implements. Card effects are
data read from cards.db, compiled by .compiler (the vocabulary of .vocab) and resolved by
.effects; the rules every card shares are in the chain of classes that ends in
.state.BlessGame (.common, .values, .effects, .field, .turns); this module is the
``Engine`` that makes games and reads them. Every decision is an action: the main-phase
actions, and ``("choose", x)`` for targets, hosts, the Mulligan, the Offerta, the Fato
guess, the order of effects. A decision with a single option is taken by the engine and
is not an action.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.engine.core import Action, CardRecord, Chance, Event, GameInfo, Seats
from pipeline.engine.plugin import Engine, FigureTable
from pipeline.engine.scenario import PositionView

from . import figures as _figures
from . import scenario
from .common import OPTION_NAMES, SLUG
from .compiler import CardInfo
from .deck import BlessDeck
from .narrate import narrate_bless
from .state import BlessGame


class BlessRules:
    """The 62 cards of a Bless deck compiled from cards.db; makes games."""

    slug = SLUG
    matches = None  # no game of matches

    def __init__(self, seats: Seats, deck: BlessDeck, digest: str):
        if (seats.min, seats.max) != (2, 2):
            raise ValueError(f"the Bless engine plays 2 players, not {seats.min}-{seats.max}")
        self.info = GameInfo.of(SLUG, seats, option_names=OPTION_NAMES)
        self.deck = deck
        self.digest = digest

    @property
    def cards(self) -> list[CardInfo]:
        return self.deck.cards

    @property
    def texts(self) -> dict[int, Mapping[str, str]]:
        return self.deck.texts

    def card(self, code: str) -> int:
        return self.deck.card(code)

    def new_game(
        self,
        seed: int,
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        chance: Chance | None = None,
    ) -> BlessGame:
        _, options, chance = self.info.start(seed, players, options, chance)
        if str(options.get("altar", 5)) not in ("3", "5", "7"):
            raise ValueError(f"altar must be 3, 5 or 7, not {options['altar']!r}")
        if str(options.get("first_player", 0)) not in ("0", "1"):
            raise ValueError(f"first_player must be 0 or 1, not {options['first_player']!r}")
        if not str(options.get("max_turns", 400)).isdigit():
            raise ValueError(f"max_turns must be a whole number, not {options['max_turns']!r}")
        return BlessGame(self.deck, seed, options, chance)

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
        seats = Seats(self.info.min_players, self.info.max_players)
        return BlessRules(seats, BlessDeck(cards, self.texts), f"{self.digest}+{code}")

    def narrate(self, events: Sequence[Event], players: int = 2) -> list[str]:
        return narrate_bless(events, self.cards, self.texts)

    # -- worked examples -----------------------------------------------------------------

    def setup(
        self, position: Mapping[str, Any], players: int, options: Mapping[str, Any]
    ) -> BlessGame:
        self.info.players(players)
        return scenario.setup(self.deck, position, players, options)

    def parse_action(self, state: BlessGame, spec: Mapping[str, Any]) -> Action:
        return scenario.parse_action(state, spec)

    def describe_action(self, state: BlessGame, action: Action) -> dict[str, Any]:
        return scenario.describe_action(state, action)

    def describe_event(self, event: Event) -> dict[str, Any]:
        return scenario.describe_event(self.deck, event)

    def check(self, state: BlessGame, key: str, want: Any) -> list[str]:
        return scenario.check(state, key, want)

    def position_lines(
        self, position: Mapping[str, Any], players: int, options: Mapping[str, Any]
    ) -> list[str]:
        return scenario.position_lines(self.deck, position, players, options)

    def view(self, state: BlessGame) -> PositionView:
        return scenario.view(state)

    # -- balance figures and conformance -------------------------------------------------

    def summarize(self, state: BlessGame) -> dict[str, Any]:
        return _figures.summarize(state)

    def figures(self, summaries: Sequence[Mapping[str, Any]], players: int) -> list[FigureTable]:
        return _figures.figures(self.deck, summaries, players)

    def invariants(self, state: BlessGame) -> list[str]:
        return state.invariants()


def build_rules(seats: Seats, cards: Sequence[CardRecord], digest: str) -> Engine[BlessGame]:
    """The Bless rules over these card records (read from cards.db by pipeline.play.records)."""
    return BlessRules(seats, BlessDeck.from_records(cards), digest)
