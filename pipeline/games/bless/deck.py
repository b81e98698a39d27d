"""Bless: the deck as the engine reads it, one CardInfo per copy of each card with its
texts. What a game state, the scenarios, the narration and the figures are given (never the
rules object that made them)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from pipeline.engine.core import CardRecord

from .compiler import CardInfo


class BlessDeck:
    """The 62 cards of a Bless deck compiled from cards.db (instance i is ``cards[i]``)."""

    def __init__(
        self, cards: Sequence[CardInfo], texts: Mapping[int, Mapping[str, str]] | None = None
    ):
        self.cards = list(cards)
        self.texts = dict(texts or {})
        self.by_code = {c.code: c.index for c in self.cards}

    @classmethod
    def from_records(cls, records: Sequence[CardRecord]) -> BlessDeck:
        """One CardInfo per copy of each card (attributes and structured effects)."""
        cards: list[CardInfo] = []
        texts: dict[int, dict[str, str]] = {}
        for card in sorted(records, key=lambda c: c.number):
            for _ in range(card.copies):
                index = len(cards)
                texts[index] = dict(card.texts)
                cards.append(
                    CardInfo(
                        index, card.number, card.code, card.name, dict(card.attributes), card.data
                    )
                )
        return cls(cards, texts)

    def card(self, code: str) -> int:
        """The instance of the card with this code."""
        if code not in self.by_code:
            raise KeyError(f"no card {code!r} in the Bless deck")
        return self.by_code[code]

    def code(self, c: int) -> str:
        return str(self.cards[c].code)
