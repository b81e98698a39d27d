"""A game's declared attributes, texts and kinds, as types: checks, SQL columns, JSON Schema.

Games are declared as data (game.yaml); this module is what turns those declarations into
behaviour, so that a new game needs no Python.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

from .formats import Attribute, CardSource, CardsSource, GameSource

FIXED_COLUMNS = ("number", "code", "name", "kind", "copies", "deck", "status")
MULTI_SEPARATOR = ", "


@dataclass(frozen=True)
class Finding:
    """A problem found at `loc` inside one source file (game.yaml or cards.yaml)."""

    loc: tuple[str | int, ...]
    message: str
    hint: str | None = None
    severity: str = "error"


def view_name(slug: str) -> str:
    return f"{slug.replace('-', '_')}_cards"


def text_column(key: str) -> str:
    return f"text_{key}"


def check_declarations(game: GameSource, folder: str) -> Iterator[Finding]:
    """game.yaml must be self-consistent before any card can be checked against it."""
    if game.slug != folder:
        yield Finding(
            ("slug",),
            f"slug '{game.slug}' differs from its folder '{folder}'",
            f"set slug: {folder}",
        )
    if game.players.min > game.players.max:
        yield Finding(("players",), "players.min is greater than players.max")
    if game.status != "official" and not game.status_note:
        yield Finding(
            ("status_note",),
            f"a game with status {game.status} needs a status_note",
            "say in Italian which data is ours",
        )
    reserved = set(FIXED_COLUMNS) | {"data", "note"}
    for key, attr in game.attributes.items():
        loc = ("attributes", key)
        if not key.isidentifier() or not key.isascii() or key.lower() != key:
            yield Finding(loc, f"attribute key '{key}' is not a lowercase ASCII identifier")
        if key in reserved:
            yield Finding(
                loc, f"attribute key '{key}' is reserved for a fixed column", "rename the attribute"
            )
        if attr.type == "enum" and not attr.values:
            yield Finding(loc, f"enum attribute '{key}' declares no values", "add values: […]")
        if attr.type != "enum" and (attr.values or attr.multiple):
            yield Finding(
                loc, f"only enum attributes take values or multiple ('{key}' is {attr.type})"
            )
        if attr.type != "int" and (attr.min is not None or attr.max is not None):
            yield Finding(loc, f"only int attributes take min/max ('{key}' is {attr.type})")
        for value in attr.values or []:
            if "," in value:
                yield Finding(loc, f"enum value '{value}' contains a comma")
    for key in game.texts:
        if not key.isidentifier() or not key.isascii() or key.lower() != key:
            yield Finding(("texts", key), f"text key '{key}' is not a lowercase ASCII identifier")
    for kind_key, kind in game.kinds.items():
        for field in ("attributes", "optional"):
            for attr_key in getattr(kind, field):
                if attr_key not in game.attributes:
                    yield Finding(
                        ("kinds", kind_key, field),
                        f"kind '{kind_key}' names undeclared attribute '{attr_key}'",
                        "declare it under attributes",
                    )
        for text_key in kind.texts:
            if text_key not in game.texts:
                yield Finding(
                    ("kinds", kind_key, "texts"),
                    f"kind '{kind_key}' names undeclared text '{text_key}'",
                    "declare it under texts",
                )
    if not game.decks:
        yield Finding(("decks",), "the game declares no deck")
    for deck_key, deck in game.decks.items():
        for kind_key in deck.kinds:
            if kind_key not in game.kinds:
                yield Finding(
                    ("decks", deck_key, "kinds", kind_key),
                    f"deck '{deck_key}' expects unknown kind '{kind_key}'",
                )
        if deck.total is not None and deck.kinds and sum(deck.kinds.values()) != deck.total:
            yield Finding(
                ("decks", deck_key, "kinds"),
                f"deck '{deck_key}': the kinds add up to "
                f"{sum(deck.kinds.values())}, not to its total {deck.total}",
            )


def check_value(key: str, attr: Attribute, value: Any) -> str | None:
    """Why `value` is not a valid value of `attr`, or None when it is."""
    if attr.type == "int":
        if isinstance(value, bool) or not isinstance(value, int):
            return f"{key} must be a whole number, not {value!r}"
        if attr.min is not None and value < attr.min:
            return f"{key} {value} is below the minimum {attr.min}"
        if attr.max is not None and value > attr.max:
            return f"{key} {value} is above the maximum {attr.max}"
    elif attr.type == "bool":
        if not isinstance(value, bool):
            return f"{key} must be true or false, not {value!r}"
    elif attr.type == "str":
        if not isinstance(value, str) or not value.strip():
            return f"{key} must be a non-empty text, not {value!r}"
    elif attr.type == "enum":
        values = value if attr.multiple and isinstance(value, list) else [value]
        if attr.multiple and not values:
            return f"{key} lists no value"
        for item in values:
            if item not in (attr.values or []):
                allowed = ", ".join(attr.values or [])
                return f"{key} '{item}' is not one of: {allowed}"
        if len(set(values)) != len(values):
            return f"{key} lists a value twice"
    return None


def check_card(game: GameSource, card: CardSource, incomplete: bool) -> Iterator[Finding]:
    """Kind, attributes and texts of one card against the game's declarations.

    Gaps in a card of an incomplete deck (an expansion known only in part) are warnings.
    """
    kind = game.kinds.get(card.kind)
    if kind is None:
        yield Finding(
            ("kind",), f"unknown kind '{card.kind}'", f"use one of: {', '.join(game.kinds)}"
        )
        return
    gap = "warning" if incomplete else "error"
    allowed = set(kind.attributes) | set(kind.optional)
    for key in kind.attributes:
        if key not in card.attributes:
            yield Finding(
                ("attributes",),
                f"missing attribute '{key}' ({card.kind})",
                f"add {key}: …",
                severity=gap,
            )
    for key, value in card.attributes.items():
        attr = game.attributes.get(key)
        if attr is None:
            yield Finding(
                ("attributes", key),
                f"unknown attribute '{key}'",
                "declare it in game.yaml or remove it",
            )
        elif key not in allowed:
            yield Finding(
                ("attributes", key),
                f"attribute '{key}' does not apply to kind '{card.kind}'",
                f"add it to kinds.{card.kind} or remove it",
            )
        elif (why := check_value(key, attr, value)) is not None:
            yield Finding(("attributes", key), why, _value_hint(attr))
    for key in kind.texts:
        if key not in card.text:
            yield Finding(("text",), f"missing text '{key}'", f"add text.{key}", severity=gap)
    for key, value in card.text.items():
        if key not in game.texts:
            yield Finding(
                ("text", key),
                f"unknown text field '{key}'",
                f"use one of: {', '.join(game.texts) or '(none declared)'}",
            )
        elif not value.strip():
            yield Finding(("text", key), f"text '{key}' is empty", "write it or remove the key")
    for loc, value in (("name",), card.name), *((("text", k), v) for k, v in card.text.items()):
        if (mixed := look_alike(value)) is not None:
            yield Finding(loc, look_alike_message(*mixed), LOOK_ALIKE_HINT, severity="warning")


WORD = re.compile(r"\w+")
# Letters of other scripts drawn like Latin ones: Cyrillic, Greek and Armenian look-alikes
LOOK_ALIKES = frozenset(
    "аеорсухіјѕһԁԛԝӏАВЕКМНОРСТХІЈЅҮ"  # Cyrillic
    "αικνορυΑΒΕΖΗΙΚΜΝΟΡΤΥΧ"  # Greek
    "օսցհո"  # Armenian
)
ANY_LOOK_ALIKE = re.compile(f"[{''.join(sorted(LOOK_ALIKES))}]")


def look_alike(text: str) -> tuple[str, str] | None:
    """The first word that mixes Latin letters with a letter of another script drawn like
    a Latin one, and that letter: pasted or planted, "cartа" with a Cyrillic "а" reads as
    "carta" on the card and in every output, yet no search or link for "carta" finds it.
    A word with no Latin letter (a Greek name) is left alone."""
    if text.isascii() or not ANY_LOOK_ALIKE.search(text):  # nearly all text: quick, in C
        return None
    for word in WORD.findall(text):
        if word.isascii():
            continue
        odd = [ch for ch in word if ch in LOOK_ALIKES]
        if odd and any(ch.isalpha() and ch not in LOOK_ALIKES and _latin(ch) for ch in word):
            return word, odd[0]
    return None


LOOK_ALIKE_HINT = "type the word again in Latin letters"


def look_alike_message(word: str, letter: str) -> str:
    return (
        f"'{word}' mixes Latin letters with {unicodedata.name(letter).lower()} "
        f"(U+{ord(letter):04X}), drawn like a Latin one: a search for the word misses it"
    )


def _latin(letter: str) -> bool:
    return letter.isascii() or unicodedata.name(letter, "").startswith("LATIN ")


def _value_hint(attr: Attribute) -> str:
    if attr.type == "enum":
        return f"use one of: {', '.join(attr.values or [])}"
    if attr.type == "int":
        lo = "" if attr.min is None else str(attr.min)
        hi = "" if attr.max is None else str(attr.max)
        return f"use a whole number in {lo}..{hi}"
    return f"use a {attr.type}"


# -- values as SQL and spreadsheet cells -------------------------------------------------


def to_cell(attr: Attribute, value: Any) -> int | str | None:
    """How an attribute value is stored in SQL and shown in a spreadsheet."""
    if value is None:
        return None
    if attr.type == "bool":
        return int(bool(value))
    if attr.type == "enum" and attr.multiple:
        return MULTI_SEPARATOR.join(value)
    return value


def from_cell(attr: Attribute, cell: str) -> Any:
    """The inverse of to_cell for a spreadsheet cell (always a string); None when empty."""
    cell = cell.strip()
    if cell == "":
        return None
    if attr.type == "int":
        try:
            return int(cell)
        except ValueError:
            return cell  # kept as text so validation reports it in context
    if attr.type == "bool":
        return {"1": True, "0": False, "true": True, "false": False}.get(cell.lower(), cell)
    if attr.type == "enum" and attr.multiple:
        return [part.strip() for part in cell.split(",") if part.strip()]
    return cell


# -- JSON Schema ----------------------------------------------------------------------


def attribute_schema(attr: Attribute) -> dict[str, Any]:
    schema: dict[str, Any] = {"title": attr.label}
    if attr.description:
        schema["description"] = attr.description
    if attr.type == "int":
        schema["type"] = "integer"
        if attr.min is not None:
            schema["minimum"] = attr.min
        if attr.max is not None:
            schema["maximum"] = attr.max
    elif attr.type == "bool":
        schema["type"] = "boolean"
    elif attr.type == "str":
        schema.update(type="string", minLength=1)
    elif attr.multiple:
        schema.update(type="array", items={"enum": attr.values}, minItems=1, uniqueItems=True)
    else:
        schema["enum"] = attr.values
    return schema


def cards_schema(game: GameSource, data_models: dict[str, type[BaseModel]]) -> dict[str, Any]:
    """JSON Schema of games/<slug>/cards.yaml, specific to this game's declarations."""
    base = CardsSource.model_json_schema()
    card = base["$defs"]["CardSource"]
    props = card["properties"]
    props["kind"] = {"title": "Kind", "enum": list(game.kinds)}
    props["deck"] = {"title": "Deck", "enum": list(game.decks)}
    props["attributes"] = {
        "title": "Attributes",
        "type": "object",
        "additionalProperties": False,
        "properties": {k: attribute_schema(a) for k, a in game.attributes.items()},
    }
    props["text"] = {
        "title": "Text",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            k: {"title": t.label, "type": "string", "minLength": 1} for k, t in game.texts.items()
        },
    }
    defs = base["$defs"]
    incomplete = [key for key, deck in game.decks.items() if deck.status == "incomplete"]
    rules: list[dict[str, Any]] = []
    for kind_key, kind in game.kinds.items():
        is_kind: dict[str, Any] = {
            "properties": {"kind": {"const": kind_key}},
            "required": ["kind"],
        }
        allowed = {"propertyNames": {"enum": [*kind.attributes, *kind.optional]}}
        complete = dict(is_kind)
        if incomplete:  # gaps in an incomplete deck's cards are warnings, not schema errors
            complete["not"] = {"properties": {"deck": {"enum": incomplete}}, "required": ["deck"]}
        rules.append({"if": is_kind, "then": {"properties": {"attributes": allowed}}})
        rules.append(
            {
                "if": complete,
                "then": {
                    "properties": {
                        "attributes": {"required": list(kind.attributes)},
                        "text": {"required": list(kind.texts)},
                    }
                },
            }
        )
        model = data_models.get(kind_key)
        if model is not None:
            model_schema = model.model_json_schema(ref_template="#/$defs/{model}")
            defs.update(model_schema.pop("$defs", {}))
            defs[model.__name__] = model_schema
            rules.append(
                {
                    "if": is_kind,
                    "then": {"properties": {"data": {"$ref": f"#/$defs/{model.__name__}"}}},
                }
            )
    card["allOf"] = rules
    base["title"] = f"{game.name}: cards.yaml"
    base["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return base
