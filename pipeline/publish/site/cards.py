"""The site's card pages: one page per card (its face, attributes, texts with rules and
glossary terms linked, the rulings and worked examples that name it), the gallery's images
and the cells of the card table.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jinja2 import Template

from pipeline.common.project import Project
from pipeline.database.catalog import AttributeInfo, CardInfo, GameInfo
from pipeline.publish.render.images import ImageOptions, build_images
from pipeline.publish.rulebook import format_value

IMAGE_DPI = 150


@dataclass(frozen=True)
class CardContext:
    """What every card page of a game shares."""

    game: GameInfo
    rulings: Sequence[Mapping[str, Any]]
    examples: Sequence[Mapping[str, Any]]
    image_size: tuple
    # card text (plain, from the database) to Markdown with rules and terms linked
    text: Callable[[Any], str]


def card_pages(
    template: Template,
    common: Mapping[str, Any],
    shared: CardContext,
    cards: Sequence[CardInfo],
) -> Iterator[tuple[str, str]]:
    """Each card's page as (file name, Markdown), for a folder below the game's own pages."""
    game = shared.game
    deck_names = {d.code: d.name for d in game.decks}
    for card in cards:
        context = {
            "card": card,
            "deck_name": deck_names[card.deck] if len(game.decks) > 1 else None,
            "attributes": [a for a in game.attributes if a.key in card.attributes],
            "format_value": format_value,
            "text_labels": game.texts,
            "texts": {k: shared.text(v) for k, v in card.texts.items()},
            "rulings": [r for r in shared.rulings if card in r["cards"]],
            "examples": [e for e in shared.examples if card.name in e["source"]],
            "image_size": shared.image_size,
            "one_kind": len(game.kinds) == 1,
            "depth": "../",
        }
        yield f"{card.code}.md", template.render(**common, **context)


def with_image(card: CardInfo, images: dict[str, str]) -> CardInfo:
    card.image = images.get(card.code)  # type: ignore[attr-defined]
    return card


def cell(card: CardInfo, attr: AttributeInfo) -> str:
    """A card's value in the card table, as the table's filters read it."""
    value = card.attributes.get(attr.key)
    if value is None:
        return ""
    if isinstance(value, list):
        return "|".join(value)
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def card_images(project: Project, game: GameInfo, folder: Path) -> tuple[dict[str, str], tuple]:
    """Each card's front as a web-sized PNG (cropped to the card's edge)."""
    result = build_images(project, game.slug, ImageOptions(dpi=IMAGE_DPI, bleed=False), folder)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    return {card["code"]: card["front"] for card in manifest["cards"]}, result.size
