"""Mazzo, regolamento Classico: the rules object that the platform builds from cards.db.

A card's strength is read from its data: the five ability attributes of a ``personaggio``
(absent means it lacks the ability), kind ``mazziere`` for the card that wins every clash,
kind ``regole`` for the card taken out before the game. The game itself is in state.py.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.engine.core import CardRecord, Chance, Event, GameInfo

from .figures import FigureMixin
from .narrate import narrate, position_lines
from .scenario import ScenarioMixin
from .state import SLUG, MazzoState


class MazzoRules(ScenarioMixin, FigureMixin):
    """The 33 cards of the deck, as the engine reads them; makes games."""

    slug = SLUG

    def __init__(self, cards: Sequence[CardRecord], digest: str):
        super().__init__(cards)
        self.digest = digest
        self.info = GameInfo(SLUG, 2, 2, ("none",), hidden_information=True, chance=True)

    def new_game(
        self,
        seed: int,
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        chance: Chance | None = None,
    ) -> MazzoState:
        if players not in (None, 2):
            raise ValueError(f"Mazzo is a game for 2 players, not {players}")
        if options:
            raise ValueError(f"Mazzo takes no options (got {', '.join(sorted(options))})")
        state = MazzoState(self, chance or Chance(seed))
        state.deal_new()
        return state

    def narrate(self, events: Sequence[Event], players: int = 2) -> list[str]:
        return narrate(self, events)

    def position_lines(
        self,
        position: Mapping[str, Any],
        players: int = 2,
        options: Mapping[str, Any] | None = None,
    ) -> list[str]:
        return position_lines(self, position)


def build_rules(cards: Sequence[CardRecord], digest: str) -> MazzoRules:
    """The plugin's entry: Mazzo's rules over the cards read from cards.db."""
    return MazzoRules(cards, digest)
