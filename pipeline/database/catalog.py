"""Reading one game back from the database, as plain objects every publisher shares.

Rulebooks, the site and the print stage read games through this module, never the YAML:
a designer who edits the database (or points Cartiera at another one) gets consistent
outputs.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import Engine, Table, select
from sqlmodel import SQLModel, col

from pipeline.common.problems import Problem, SourceError

from . import models


@dataclass(frozen=True)
class AttributeInfo:
    key: str
    label: str
    type: str
    values: list[str]
    min: int | None
    max: int | None
    multiple: bool


@dataclass
class CardInfo:
    number: int
    code: str
    name: str
    kind: str
    kind_label: str
    copies: int
    deck: str
    status: str
    attributes: dict[str, Any]  # typed: int, bool, str, or list[str] for multiple enums
    texts: dict[str, str]
    data: Any
    note: str | None

    def attr(self, key: str, default: Any = None) -> Any:
        return self.attributes.get(key, default)


@dataclass
class DeckInfo:
    code: str
    name: str
    status: str
    expected_total: int | None
    expected_kinds: dict[str, int]
    note: str | None
    cards: list[CardInfo] = field(default_factory=list)

    @property
    def total(self) -> int:
        return sum(c.copies for c in self.cards)


@dataclass
class SectionInfo:
    number: str
    anchor: str
    title: str
    level: int
    body_md: str
    terms: list[str] = field(default_factory=list)  # glossary terms the text uses


@dataclass
class TermInfo:
    term: str
    anchor: str
    kind: str
    definition_md: str
    clause: str | None
    forms: list[str] = field(default_factory=list)
    used_in: list[str] = field(default_factory=list)  # anchors of the clauses using it


@dataclass
class RulingInfo:
    code: str
    question: str
    answer: str
    source: str
    clauses: list[str]
    cards: list[str]  # card codes


@dataclass
class ExampleInfo:
    code: str
    title: str
    clauses: list[str]  # anchors of the rule clauses it illustrates, the main one first
    narration_md: str


@dataclass
class ComponentInfo:
    code: str
    name: str
    quantity: int | None
    note: str | None


@dataclass
class GameInfo:
    slug: str
    name: str
    subtitle: str | None
    players_min: int
    players_max: int
    age: str | None
    duration: str | None
    publisher: str | None
    designers: list[str]
    card_size: str
    status: str
    status_note: str | None
    description: str
    attributes: list[AttributeInfo]
    texts: dict[str, str]  # key -> label
    kinds: dict[str, str]  # key -> label
    decks: list[DeckInfo]
    components: list[ComponentInfo]
    sections: list[SectionInfo]
    terms: list[TermInfo]
    rulings: list[RulingInfo]
    examples: list[ExampleInfo] = field(default_factory=list)

    @property
    def players(self) -> str:
        if self.players_min == self.players_max:
            return str(self.players_min)
        return f"{self.players_min}-{self.players_max}"

    @property
    def cards(self) -> list[CardInfo]:
        return [card for deck in self.decks for card in deck.cards]


def _table(model: type[SQLModel]) -> Table:
    """The model's table: rows read through it are plain tuples, three to five times
    quicker to fetch than the ORM objects, and nothing here changes a row."""
    table = getattr(model, "__table__", None)
    assert isinstance(table, Table)
    return table


def game_slugs(engine: Engine) -> list[str]:
    with engine.connect() as conn:
        games = conn.execute(select(_table(models.Game)).order_by(col(models.Game.position))).all()
        return [g.slug for g in games]


def game_name(engine: Engine, slug: str) -> str:
    """The game's name alone (a report's title), without reading its cards and rules; its
    slug for a game the database does not hold."""
    with engine.connect() as conn:
        name = conn.execute(
            select(col(models.Game.name)).where(col(models.Game.slug) == slug)
        ).scalar()
        return str(name) if name is not None else slug


def read_game(engine: Engine, slug: str) -> GameInfo:
    with engine.connect() as conn:
        game = conn.execute(
            select(_table(models.Game)).where(col(models.Game.slug) == slug)
        ).first()
        if game is None:
            raise SourceError(
                Problem(
                    "error", f"game '{slug}' is not in the database", hint="run `cartiera db build`"
                )
            )
        gid = game.id
        attrs = [
            AttributeInfo(
                a.key, a.label, a.type, json.loads(a.enum_values or "[]"), a.min, a.max, a.multiple
            )
            for a in conn.execute(
                select(_table(models.AttributeDef))
                .where(col(models.AttributeDef.game_id) == gid)
                .order_by(col(models.AttributeDef.position))
            )
        ]
        by_key = {a.key: a for a in attrs}
        texts = {
            t.key: t.label
            for t in conn.execute(
                select(_table(models.TextDef))
                .where(col(models.TextDef.game_id) == gid)
                .order_by(col(models.TextDef.position))
            )
        }
        kinds = {
            k.key: k.label
            for k in conn.execute(
                select(_table(models.CardKind))
                .where(col(models.CardKind.game_id) == gid)
                .order_by(col(models.CardKind.position))
            )
        }
        decks = {
            d.id: DeckInfo(
                d.code, d.name, d.status, d.expected_total, json.loads(d.expected_kinds), d.note
            )
            for d in conn.execute(
                select(_table(models.Deck))
                .where(col(models.Deck.game_id) == gid)
                .order_by(col(models.Deck.position))
            )
        }
        attr_rows: dict[int, dict[str, Any]] = {}
        for row in conn.execute(
            select(_table(models.CardAttribute))
            .join(_table(models.Card))
            .where(col(models.Card.game_id) == gid)
        ):
            info = by_key[row.key]
            value: Any = row.value_int if info.type in ("int", "bool") else row.value_text
            if info.type == "bool":
                value = bool(value)
            elif info.multiple and isinstance(value, str):
                value = value.split(", ")
            attr_rows.setdefault(row.card_id, {})[row.key] = value
        text_rows: dict[int, dict[str, str]] = {}
        for text_row in conn.execute(
            select(_table(models.CardText))
            .join(_table(models.Card))
            .where(col(models.Card.game_id) == gid)
        ):
            text_rows.setdefault(text_row.card_id, {})[text_row.key] = text_row.text
        codes: dict[int, str] = {}
        query = (
            select(_table(models.Card), col(models.DeckCard.deck_id), col(models.DeckCard.copies))
            .join(_table(models.DeckCard))
            .where(col(models.Card.game_id) == gid)
            .order_by(col(models.Card.number))
        )
        for card in conn.execute(query):
            assert card.id is not None  # a row read back from the database has its key
            codes[card.id] = card.code
            decks[card.deck_id].cards.append(
                CardInfo(
                    number=card.number,
                    code=card.code,
                    name=card.name,
                    kind=card.kind,
                    kind_label=kinds.get(card.kind, card.kind),
                    copies=card.copies,
                    deck=decks[card.deck_id].code,
                    status=card.status,
                    attributes={
                        k: attr_rows.get(card.id, {})[k]
                        for k in by_key
                        if k in attr_rows.get(card.id, {})
                    },
                    texts={
                        k: text_rows.get(card.id, {})[k]
                        for k in texts
                        if k in text_rows.get(card.id, {})
                    },
                    data=json.loads(card.data) if card.data else None,
                    note=card.note,
                )
            )
        sections = {
            s.id: SectionInfo(s.number, s.anchor, s.title or "", s.level, s.body_md)
            for s in conn.execute(
                select(_table(models.RuleSection))
                .where(col(models.RuleSection.game_id) == gid)
                .order_by(col(models.RuleSection.position))
            )
        }
        terms = {
            t.id: TermInfo(t.term, t.anchor, t.kind, t.definition_md, t.clause, json.loads(t.forms))
            for t in conn.execute(
                select(_table(models.GlossaryTerm))
                .where(col(models.GlossaryTerm.game_id) == gid)
                .order_by(col(models.GlossaryTerm.position))
            )
        }
        for use in conn.execute(
            select(_table(models.GlossaryUse)).where(
                col(models.GlossaryUse.term_id).in_(list(terms))
            )
        ):
            terms[use.term_id].used_in.append(sections[use.section_id].anchor)
            sections[use.section_id].terms.append(terms[use.term_id].term)
        order = {s.anchor: i for i, s in enumerate(sections.values())}
        for term in terms.values():
            term.used_in.sort(key=order.__getitem__)
        # the clauses and cards of all the game's rulings in one query each, not two a ruling
        ruling_clauses: dict[int, list[str]] = {}
        for clause in conn.execute(
            select(_table(models.RulingClause))
            .join(_table(models.Ruling))
            .where(col(models.Ruling.game_id) == gid)
            .order_by(col(models.RulingClause.anchor))  # the tie order of sorted() below
        ):
            ruling_clauses.setdefault(clause.ruling_id, []).append(clause.anchor)
        ruling_cards: dict[int, list[str]] = {}
        for card_row in conn.execute(
            select(_table(models.RulingCard))
            .join(_table(models.Ruling))
            .where(col(models.Ruling.game_id) == gid)
        ):
            ruling_cards.setdefault(card_row.ruling_id, []).append(codes[card_row.card_id])
        rulings = [
            RulingInfo(
                r.code,
                r.question,
                r.answer,
                r.source,
                sorted(ruling_clauses.get(r.id or 0, []), key=lambda a: order.get(a, 0)),
                sorted(ruling_cards.get(r.id or 0, [])),
            )
            for r in conn.execute(
                select(_table(models.Ruling))
                .where(col(models.Ruling.game_id) == gid)
                .order_by(col(models.Ruling.position))
            )
        ]
        components = [
            ComponentInfo(c.code, c.name, c.quantity, c.note)
            for c in conn.execute(
                select(_table(models.Component))
                .where(col(models.Component.game_id) == gid)
                .order_by(col(models.Component.position))
            )
        ]
        examples = [
            ExampleInfo(e.code, e.title, json.loads(e.clauses), e.narration_md)
            for e in conn.execute(
                select(_table(models.Example))
                .where(col(models.Example.game_id) == gid)
                .order_by(col(models.Example.position))
            )
        ]
        return GameInfo(
            slug=game.slug,
            name=game.name,
            subtitle=game.subtitle,
            players_min=game.players_min,
            players_max=game.players_max,
            age=game.age,
            duration=game.duration,
            publisher=game.publisher,
            designers=json.loads(game.designers),
            card_size=game.card_size,
            status=game.status,
            status_note=game.status_note,
            description=game.description,
            attributes=attrs,
            texts=texts,
            kinds=kinds,
            decks=list(decks.values()),
            components=components,
            sections=list(sections.values()),
            terms=list(terms.values()),
            rulings=rulings,
            examples=examples,
        )
