"""The Samurai Sword check that data cannot state: an action's text says what its data does.

The engine plays an action from its ``data``; the card shows its ``effetto`` text. Every
count in the data (cards drawn, wounds, points) must appear in the text, as a figure or as
an Italian word, and so must what the others are asked to discard; otherwise a designer who
changes one forgot the other.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

from pipeline.engine.plugin import CardProblem
from pipeline.sources.formats import CardSource, GameSource

from .data import AzioneData

COUNTS = ("pesca", "pescano_altri", "pesca_scelto", "ferite", "onore_in_mano")
WORDS = {1: "una|un|uno|1", 2: "due|2", 3: "tre|3", 4: "quattro|4", 5: "cinque|5"}
ASKED = {"parata": "parata", "arma": "arma"}


def check(game: GameSource, cards: list[CardSource]) -> Iterable[CardProblem]:
    for card in cards:
        if card.kind == "azione" and card.data is not None:
            yield from _action_text(card)


def _action_text(card: CardSource) -> Iterator[CardProblem]:
    data = AzioneData.model_validate(card.data)
    text = str(card.text.get("effetto", "")).lower()
    for name in COUNTS:
        value = getattr(data, name)
        if value and not re.search(rf"\b({WORDS.get(value, str(value))})\b", text):
            yield CardProblem(
                card.id,
                "text.effetto",
                f"the data says {name}: {value}, the text does not say {value} "
                "(fix: make the text and the data agree)",
            )
    if data.richiede and ASKED[data.richiede] not in text:
        yield CardProblem(
            card.id,
            "text.effetto",
            f"the data asks the others for a {data.richiede}, the text does not name it "
            "(fix: make the text and the data agree)",
        )
