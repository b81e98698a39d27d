"""BLDNG: the rules object that the platform builds from cards.db, and its hooks.

The game itself is in state.py, the deck as the engine reads it in cards.py; scenarios,
figures and narration are in their own modules, which each hook below calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.engine.core import Action, CardRecord, Chance, Event, GameInfo, Seats
from pipeline.engine.plugin import Engine, FigureTable
from pipeline.engine.scenario import PositionView

from . import figures as _figures
from . import scenario
from .cards import BldngCards
from .narrate import narrate, position_lines
from .state import FREE, OPTION_NAMES, SLUG, BldngState


class BldngRules:
    """The deck and its rules; makes games for game.yaml's number of builders."""

    slug = SLUG
    matches = None  # no game of matches

    def __init__(self, seats: Seats, cards: Sequence[CardRecord], digest: str):
        self.info = GameInfo.of(SLUG, seats, option_names=OPTION_NAMES)
        self.cards = BldngCards(cards)
        self.digest = digest

    def new_game(
        self,
        seed: int,
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        chance: Chance | None = None,
    ) -> BldngState:
        players, options, chance = self.info.start(seed, players, options, chance)
        state = BldngState(self.cards, players, chance, free=bool(options.get(FREE)))
        state.deal_new()
        return state

    def narrate(self, events: Sequence[Event], players: int = 2) -> list[str]:
        return narrate(self.cards, events, players)

    # -- worked examples -----------------------------------------------------------------

    def setup(
        self, position: Mapping[str, Any], players: int, options: Mapping[str, Any]
    ) -> BldngState:
        self.info.start(0, players, options, None)  # the player count and the option names
        return scenario.setup(self.cards, position, players, options)

    def parse_action(self, state: BldngState, spec: Mapping[str, Any]) -> Action:
        return scenario.parse_action(state, spec)

    def describe_action(self, state: BldngState, action: Action) -> dict[str, Any]:
        return scenario.describe_action(state, action)

    def describe_event(self, event: Event) -> dict[str, Any]:
        return scenario.describe_event(self.cards, event)

    def check(self, state: BldngState, key: str, want: Any) -> list[str]:
        return scenario.check(state, key, want)

    def position_lines(
        self, position: Mapping[str, Any], players: int, options: Mapping[str, Any]
    ) -> list[str]:
        return position_lines(self.cards, position, players)

    def view(self, state: BldngState) -> PositionView:
        return scenario.view(state)

    # -- balance figures and conformance -------------------------------------------------

    def summarize(self, state: BldngState) -> dict[str, Any]:
        return _figures.summarize(self.cards, state)

    def figures(self, summaries: Sequence[Mapping[str, Any]], players: int) -> list[FigureTable]:
        return _figures.figures(self.cards, summaries, players)

    def invariants(self, state: BldngState) -> list[str]:
        return _figures.invariants(self.cards, state)


def build_rules(seats: Seats, cards: Sequence[CardRecord], digest: str) -> Engine[BldngState]:
    """The plugin's entry: BLDNG's rules over the cards read from cards.db."""
    return BldngRules(seats, cards, digest)
