"""Per-game Python: only what a game's data cannot say about itself.

A game module (``pipeline/games/<slug with underscores>.py``) may define:

- ``DATA_MODELS: dict[str, type[pydantic.BaseModel]]`` -- for a card kind, the model that
  its ``data`` field must validate against (e.g. Bless effects, BLDNG project elements);
  the loader validates each card's ``data`` with it and the JSON Schema includes it.
- ``check(game: GameSource, cards: list[CardSource]) -> Iterable[CardProblem]`` -- checks
  particular to the game (e.g. every BLDNG project is completable with the deck's Forme).
  ``card.data`` is still the plain dict/list read from YAML.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType


@dataclass(frozen=True)
class CardProblem:
    """A game-specific problem with one card (or the whole game when card_id is None)."""

    card_id: str | None
    field: str
    message: str
    warning: bool = False


def game_module(slug: str) -> ModuleType | None:
    try:
        return importlib.import_module(f"{__name__}.{slug.replace('-', '_')}")
    except ModuleNotFoundError as exc:
        if exc.name == f"{__name__}.{slug.replace('-', '_')}":
            return None
        raise
