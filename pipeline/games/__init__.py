"""Per-game Python: only what a game's data cannot say about itself.

Each game with Python is a package ``pipeline/games/<slug with underscores>/`` exporting
``PLUGIN`` (pipeline.engine.plugin.GamePlugin), registered as an entry point of the group
``cartiera.games``. Its ``data_models`` map a card kind to the pydantic model its ``data``
must validate against; its ``check(game, cards)`` yields the game's own CardProblems (e.g.
every BLDNG project is completable with the deck's Forme); its ``engine`` builds the rules.
"""

from __future__ import annotations

from dataclasses import dataclass

from pipeline.engine.plugin import GamePlugin
from pipeline.engine.registry import plugin


@dataclass(frozen=True)
class CardProblem:
    """A game-specific problem with one card (or the whole game when card_id is None)."""

    card_id: str | None
    field: str
    message: str
    warning: bool = False


def game_module(slug: str) -> GamePlugin | None:
    """The game's registered plugin, which the loader reads for its ``data_models`` and
    ``check``; None for a game without Python."""
    return plugin(slug)
