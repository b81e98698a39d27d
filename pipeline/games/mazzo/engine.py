"""Mazzo, regolamento Classico: the rules object that the platform builds from cards.db.

A card's strength is read from its data: the five ability attributes of a ``personaggio``
(absent means it lacks the ability), kind ``mazziere`` for the card that wins every clash,
kind ``regole`` for the card taken out before the game. The game itself is in state.py;
scenarios, figures and narration are in their own modules, which each hook below calls.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.engine.core import Action, CardRecord, Chance, Event, GameInfo, Seats
from pipeline.engine.plugin import Engine, FigureTable
from pipeline.engine.scenario import PositionView

from . import figures as _figures
from . import scenario
from .narrate import narrate, position_lines
from .state import OPTION_NAMES, SLUG, MazzoCards, MazzoState


class MazzoRules:
    """The 33 cards of the deck, as the engine reads them; makes games."""

    slug = SLUG
    matches = None  # no game of matches

    def __init__(self, seats: Seats, cards: Sequence[CardRecord], digest: str):
        if (seats.min, seats.max) != (2, 2):
            raise ValueError(f"the Mazzo engine plays 2 players, not {seats.min}-{seats.max}")
        self.info = GameInfo.of(SLUG, seats, option_names=OPTION_NAMES)
        self.cards = MazzoCards(cards)
        self.digest = digest

    def new_game(
        self,
        seed: int,
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        chance: Chance | None = None,
    ) -> MazzoState:
        _, options, chance = self.info.start(seed, players, options, chance)
        state = MazzoState(self.cards, chance, options)
        state.deal_new()
        return state

    def narrate(self, events: Sequence[Event], players: int = 2) -> list[str]:
        return narrate(self.cards, events)

    # -- worked examples -----------------------------------------------------------------

    def setup(
        self, position: Mapping[str, Any], players: int, options: Mapping[str, Any]
    ) -> MazzoState:
        self.info.players(players)
        self.info.start(0, players, options, None)  # unknown option names fail here
        return scenario.setup(self.cards, position, players, options)

    def parse_action(self, state: MazzoState, spec: Mapping[str, Any]) -> Action:
        return scenario.parse_action(state, spec)

    def describe_action(self, state: MazzoState, action: Action) -> dict[str, Any]:
        return scenario.describe_action(state, action)

    def describe_event(self, event: Event) -> dict[str, Any]:
        return scenario.describe_event(self.cards, event)

    def check(self, state: MazzoState, key: str, want: Any) -> list[str]:
        return scenario.check(state, key, want)

    def position_lines(
        self, position: Mapping[str, Any], players: int, options: Mapping[str, Any]
    ) -> list[str]:
        return position_lines(self.cards, position)

    def view(self, state: MazzoState) -> PositionView:
        return scenario.view(state)

    # -- balance figures and conformance -------------------------------------------------

    def summarize(self, state: MazzoState) -> dict[str, Any]:
        return _figures.summarize(self.cards, state)

    def figures(self, summaries: Sequence[Mapping[str, Any]], players: int) -> list[FigureTable]:
        return _figures.figures(self.cards, summaries, players)

    def invariants(self, state: MazzoState) -> list[str]:
        return _figures.invariants(self.cards, state)


def build_rules(seats: Seats, cards: Sequence[CardRecord], digest: str) -> Engine[MazzoState]:
    """The plugin's entry: Mazzo's rules over the cards read from cards.db."""
    return MazzoRules(seats, cards, digest)
