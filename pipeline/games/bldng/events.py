"""BLDNG: what a What happens card does, as the data the rules engine runs.

Each ``evento`` card names its effect (``effetto``) and, where the effect counts cards, how
many (``carte``): Take three cards draws and discards 3, Give 5 cards back discards 5, You
can have up to 15 cards raises the limit to 15. Steal names its shape in the ``forma``
attribute; the card's Italian text says the same in words.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

EVENT_KIND = "evento"
Effect = Literal[
    "pesca-e-scarta",  # Take three cards
    "una-da-ognuno",  # Take one card from each player
    "ruba",  # Steal one Circle / Square / Triangle / Rectangle
    "sposta-progetti",  # Shift all subjects to the right
    "cambia-progetto",  # Change subject
    "inverti",  # Reverse
    "restituisci",  # Give 5 cards back
    "salta-turno",  # Skip your turn
    "limite",  # You can have up to 15 cards
]
COUNTED = ("pesca-e-scarta", "restituisci", "limite")


class WhatHappens(BaseModel):
    """The ``data`` of a What happens card."""

    model_config = ConfigDict(extra="forbid")

    effetto: Effect
    carte: int | None = Field(default=None, ge=1, le=20)

    @model_validator(mode="after")
    def _count(self) -> WhatHappens:
        if (self.effetto in COUNTED) != (self.carte is not None):
            wants = "needs" if self.effetto in COUNTED else "takes no"
            raise ValueError(f"the effect {self.effetto} {wants} carte (how many cards)")
        return self


EVENT_MODELS = {EVENT_KIND: WhatHappens}
