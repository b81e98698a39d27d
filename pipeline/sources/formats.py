"""Pydantic models of the source files under games/<slug>/, as written by designers."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

Slug = str
Status = Literal["official", "reconstructed", "incomplete"]
CardSize = Literal["poker", "bridge", "tarot", "mini", "euro"]
ID_PATTERN = r"^[a-z0-9]+(-[a-z0-9]+)*$"


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Players(Strict):
    min: int = Field(ge=1, le=20)
    max: int = Field(ge=1, le=20)


class Attribute(Strict):
    label: str
    type: Literal["int", "enum", "str", "bool"]
    values: list[str] | None = None
    min: int | None = None
    max: int | None = None
    multiple: bool = False
    description: str | None = None


class TextField(Strict):
    label: str
    description: str | None = None


class Kind(Strict):
    label: str
    attributes: list[str] = []
    optional: list[str] = []
    texts: list[str] = []
    description: str | None = None


class Deck(Strict):
    name: str
    status: Status = "official"
    total: int | None = Field(default=None, ge=0)
    kinds: dict[str, int] = {}
    note: str | None = None


class Component(Strict):
    id: str = Field(pattern=ID_PATTERN)
    name: str
    quantity: int | None = Field(default=None, ge=0)
    note: str | None = None


class GameSource(Strict):
    """games/<slug>/game.yaml"""

    slug: Slug = Field(pattern=ID_PATTERN)
    name: str
    subtitle: str | None = None
    players: Players
    age: str | None = None
    duration: str | None = None
    publisher: str | None = None
    designers: list[str] = []
    card_size: CardSize = "poker"
    status: Status
    status_note: str | None = None
    description: str
    attributes: dict[str, Attribute] = {}
    texts: dict[str, TextField] = {}
    kinds: dict[str, Kind]
    decks: dict[str, Deck]
    components: list[Component] = []


class CardSource(Strict):
    """One entry of games/<slug>/cards.yaml. `data` is checked by the game's module."""

    number: int = Field(ge=0)
    id: str = Field(pattern=ID_PATTERN)
    name: str = Field(min_length=1)
    kind: str
    copies: int = Field(default=1, ge=1)
    deck: str | None = None
    status: Status | None = None
    attributes: dict[str, Any] = {}
    text: dict[str, str] = {}
    data: Any = None
    note: str | None = None


class CardsSource(Strict):
    """games/<slug>/cards.yaml"""

    cards: list[CardSource]


class RulingSource(Strict):
    id: str = Field(pattern=ID_PATTERN)
    question: str
    answer: str
    source: Literal["seed", "publisher", "interpretation"]
    clauses: list[str] = []
    cards: list[str] = []


class RulingsSource(Strict):
    """games/<slug>/rulings.yaml"""

    rulings: list[RulingSource]


class TermSource(Strict):
    term: str = Field(min_length=1)
    kind: str = Field(min_length=1)
    definition: str = Field(min_length=1)
    forms: list[str] = []
    clause: str | None = None

    @property
    def words(self) -> list[str]:
        """The words that name the term in running text."""
        return self.forms or [self.term]


class GlossarySource(Strict):
    """games/<slug>/glossary.yaml"""

    terms: list[TermSource]


class SeedParagraph(Strict):
    """One paragraph of the seed, named by its whole text (when short) or its fingerprint;
    `starts` is a label for people, `line` picks one of several identical paragraphs."""

    text: str | None = Field(default=None, min_length=1)
    fingerprint: str | None = Field(default=None, pattern=r"^[0-9a-f]{12}$")
    starts: str | None = Field(default=None, min_length=1)
    line: int | None = Field(default=None, ge=1)
    clauses: list[str] = []
    reason: str | None = None


class SeedMapSource(Strict):
    """games/<slug>/seedmap.yaml: which clauses carry each paragraph of the seed."""

    seed: str
    paragraphs: list[SeedParagraph]
