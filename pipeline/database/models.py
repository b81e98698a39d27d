"""The SQLModel tables of cards.db: games, decks, cards, and the rules around them.

Game-specific attributes live in `cardattribute` (one row per card and attribute, typed
by the game's declaration); one SQL view per game (`<slug>_cards`) turns them back into
real columns for plain SQL users.
"""

from __future__ import annotations

from sqlmodel import Field, SQLModel


class Game(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(unique=True, index=True)
    name: str
    subtitle: str | None = None
    players_min: int
    players_max: int
    age: str | None = None
    duration: str | None = None
    publisher: str | None = None
    designers: str = "[]"  # JSON list
    card_size: str
    language: str = "it"
    status: str  # official | reconstructed | incomplete
    status_note: str | None = None
    description: str
    position: int


class AttributeDef(SQLModel, table=True):
    """One attribute a game's cards may carry, as declared in game.yaml."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    key: str
    label: str
    type: str  # int | enum | str | bool
    enum_values: str | None = None  # JSON list
    min: int | None = None
    max: int | None = None
    multiple: bool = False
    description: str | None = None
    position: int


class TextDef(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    key: str
    label: str
    description: str | None = None
    position: int


class CardKind(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    key: str
    label: str
    attributes: str = "[]"  # JSON list of required attribute keys
    optional: str = "[]"
    texts: str = "[]"
    description: str | None = None
    position: int


class Deck(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    code: str
    name: str
    status: str
    expected_total: int | None = None
    expected_kinds: str = "{}"  # JSON object kind -> cards
    note: str | None = None
    position: int


class Component(SQLModel, table=True):
    """Something in the box that is not a card: tokens, dice, sheets."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    code: str
    name: str
    quantity: int | None = None
    note: str | None = None
    position: int


class Card(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    number: int
    code: str
    name: str
    kind: str
    status: str  # the card's own status, else its deck's
    data: str | None = None  # JSON: structured, game-specific (effects, project elements)
    note: str | None = None


class DeckCard(SQLModel, table=True):
    """Deck composition: how many copies of a card a deck holds."""

    deck_id: int = Field(foreign_key="deck.id", primary_key=True)
    card_id: int = Field(foreign_key="card.id", primary_key=True)
    copies: int


class CardAttribute(SQLModel, table=True):
    card_id: int = Field(foreign_key="card.id", primary_key=True)
    key: str = Field(primary_key=True)
    value_int: int | None = None  # int and bool attributes
    value_text: str | None = None  # enum (multiple: joined by ", ") and str attributes


class CardText(SQLModel, table=True):
    card_id: int = Field(foreign_key="card.id", primary_key=True)
    key: str = Field(primary_key=True)
    text: str


class RuleSection(SQLModel, table=True):
    """A numbered section or clause of a game's rules, in reading order."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    parent_id: int | None = Field(default=None, foreign_key="rulesection.id")
    number: str  # "3", "3.2"
    anchor: str  # stable across edits elsewhere
    title: str | None = None
    level: int
    body_md: str = ""
    position: int


class GlossaryTerm(SQLModel, table=True):
    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    term: str
    anchor: str
    kind: str  # Icona, Zona, Stato, Azione, Termine, Abilità, Preghiera …
    definition_md: str
    forms: str = "[]"  # JSON list: the words that name the term in running text
    clause: str | None = None  # anchor of the clause that defines it in full
    position: int


class GlossaryUse(SQLModel, table=True):
    term_id: int = Field(foreign_key="glossaryterm.id", primary_key=True)
    section_id: int = Field(foreign_key="rulesection.id", primary_key=True)


class Ruling(SQLModel, table=True):
    """A chiarimento: where we decided what the sources leave open."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    code: str
    question: str
    answer: str
    source: str  # seed | publisher | interpretation
    position: int


class RulingCard(SQLModel, table=True):
    ruling_id: int = Field(foreign_key="ruling.id", primary_key=True)
    card_id: int = Field(foreign_key="card.id", primary_key=True)


class RulingClause(SQLModel, table=True):
    ruling_id: int = Field(foreign_key="ruling.id", primary_key=True)
    anchor: str = Field(primary_key=True)


class Example(SQLModel, table=True):
    """A worked example played by the engine, narrated in Italian."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    code: str
    title: str
    clauses: str = "[]"  # JSON list of anchors it illustrates
    narration_md: str
    scenario: str  # JSON
    position: int


class SourceFile(SQLModel, table=True):
    """A file of a game's sources, by the digest of its content when the database was
    built: commands that read the database say which source changed since (content, not
    file times, which every fresh clone resets)."""

    id: int | None = Field(default=None, primary_key=True)
    game_id: int = Field(foreign_key="game.id", index=True)
    path: str  # relative to games/<slug>/
    sha256: str
