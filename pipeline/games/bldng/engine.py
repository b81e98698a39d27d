"""BLDNG: the rules object that the platform builds from cards.db (2 to 6 builders).

The game itself is in state.py, the deck as the engine reads it in cards.py; scenarios,
figures and narration are in their own modules.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.engine.core import CardRecord, Chance, Event, GameInfo

from .figures import FigureMixin
from .narrate import narrate, position_lines
from .scenario import ScenarioMixin
from .state import SLUG, BldngState


class BldngRules(ScenarioMixin, FigureMixin):
    """The deck and its rules; makes games for 2 to 6 players."""

    slug = SLUG

    def __init__(self, cards: Sequence[CardRecord], digest: str):
        super().__init__(cards)
        self.digest = digest
        self.info = GameInfo(SLUG, 2, 6, ("none",), hidden_information=True, chance=True)

    def new_game(
        self,
        seed: int,
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        chance: Chance | None = None,
    ) -> BldngState:
        players = players or self.info.min_players
        if not self.info.min_players <= players <= self.info.max_players:
            raise ValueError(f"BLDNG is a game for 2 to 6 players, not {players}")
        if options:
            raise ValueError(f"BLDNG takes no options (got {', '.join(sorted(options))})")
        state = BldngState(self, players, chance or Chance(seed))
        state.deal_new()
        return state

    def narrate(self, events: Sequence[Event], players: int = 2) -> list[str]:
        return narrate(self, events, players)

    def position_lines(
        self,
        position: Mapping[str, Any],
        players: int = 2,
        options: Mapping[str, Any] | None = None,
    ) -> list[str]:
        return position_lines(self, position, players)


def build_rules(cards: Sequence[CardRecord], digest: str) -> BldngRules:
    """The plugin's entry: BLDNG's rules over the cards read from cards.db."""
    return BldngRules(cards, digest)
