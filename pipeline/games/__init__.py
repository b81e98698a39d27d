"""Per-game Python: only what a game's data cannot say about itself.

Each game with Python is a package ``pipeline/games/<slug with underscores>/`` exporting
``PLUGIN`` (pipeline.engine.plugin.GamePlugin), registered as an entry point of the group
``cartiera.games``. Its ``data_models`` map a card kind to the pydantic model its ``data``
must validate against; its ``check(game, cards)`` yields the game's own CardProblems (e.g.
every BLDNG project is completable with the deck's Forme); its ``engine`` builds the rules.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from pipeline.engine.registry import plugin


@dataclass(frozen=True)
class CardProblem:
    """A game-specific problem with one card (or the whole game when card_id is None)."""

    card_id: str | None
    field: str
    message: str
    warning: bool = False


def game_module(slug: str) -> Any:
    """The game's data checks as the loader reads them (``DATA_MODELS``, ``check``), from
    its registered plugin; None for a game without Python."""
    found = plugin(slug)
    if found is None:
        return None
    checks = {"check": found.check} if found.check is not None else {}
    return SimpleNamespace(DATA_MODELS=dict(found.data_models), **checks)
