"""BLDNG: the shape of a project card's elements, and the checks its data cannot state.

A project lists its elements (one Forma card each) with a place in a small grid so that a
card template can draw it as a picture. Every element fills one square cell whose lower-left
corner is (``x``, ``y``): ``x`` counts cells to the right, ``y`` cells up from the ground, in
half-cell steps so that a stacked piece can sit across the two below it. ``rotazione`` turns
the piece clockwise in degrees, in steps of 45 (0: triangles point up, rectangles lie flat).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Iterator
from itertools import product
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from pipeline.engine.plugin import CardProblem
from pipeline.sources.formats import CardSource, GameSource

from .matching import cover

SHAPES = ("Triangolo", "Cerchio", "Quadrato", "Rettangolo")
COLOURS = ("Giallo", "Verde", "Rosso", "Blu")
PROJECT_KIND = "progetto"
PROJECT_SIZES = (8, 10)
GRID_MAX = 7


class Element(BaseModel):
    """One piece of a project: the Forma card it needs and where the picture puts it."""

    model_config = ConfigDict(extra="forbid")

    forma: Literal["Triangolo", "Cerchio", "Quadrato", "Rettangolo"]
    colore: Literal["Giallo", "Verde", "Rosso", "Blu"]
    x: float = Field(ge=0, le=GRID_MAX, multiple_of=0.5)
    y: float = Field(ge=0, le=GRID_MAX, multiple_of=0.5)
    rotazione: int = Field(default=0, ge=0, lt=360, multiple_of=45)


class Project(BaseModel):
    """The ``data`` of a project card."""

    model_config = ConfigDict(extra="forbid")

    elementi: list[Element] = Field(min_length=min(PROJECT_SIZES), max_length=max(PROJECT_SIZES))

    @field_validator("elementi")
    @classmethod
    def _size(cls, elementi: list[Element]) -> list[Element]:
        if len(elementi) not in PROJECT_SIZES:
            raise ValueError(f"un progetto ha 8 o 10 elementi, non {len(elementi)}")
        return elementi


DATA_MODELS = {PROJECT_KIND: Project}


def _values(value: Any) -> list[Any]:
    if value is None:
        return []
    return list(value) if isinstance(value, list) else [value]


def _enum(game: GameSource, key: str, default: tuple[str, ...]) -> tuple[str, ...]:
    attribute = game.attributes.get(key)
    return tuple(attribute.values) if attribute and attribute.values else default


def _supply(
    cards: Iterable[CardSource],
) -> tuple[Counter[tuple[str, str]], list[set[tuple[str, str]]]]:
    """Copies of each plain Forma (one shape, one colour), and one set per Jolly copy."""
    plain: Counter[tuple[str, str]] = Counter()
    jolly: list[set[tuple[str, str]]] = []
    for card in cards:
        if card.kind == PROJECT_KIND:
            continue
        shapes = _values(card.attributes.get("forma"))
        colours = _values(card.attributes.get("colore"))
        if not shapes or not colours:
            continue  # e.g. "Steal one Circle" names a shape but is no Forma
        if len(shapes) == 1 and len(colours) == 1:
            plain[(shapes[0], colours[0])] += card.copies
        else:
            jolly.extend(set(product(shapes, colours)) for _ in range(card.copies))
    return plain, jolly


def _jolly_needed(
    need: Counter[tuple[str, str]],
    plain: Counter[tuple[str, str]],
    jolly: list[set[tuple[str, str]]],
) -> tuple[int, int]:
    """(elements missing from the plain Forme, how many elements the whole deck cannot
    cover): the same matching the rules engine uses to see a project completed."""
    short = sum(max(0, n - plain[pair]) for pair, n in need.items())
    deck = [{pair} for pair, n in plain.items() for _ in range(n)] + jolly
    return short, sum(need.values()) - cover(need, deck)


def _problem(card: CardSource, field: str, message: str, warning: bool = False) -> CardProblem:
    return CardProblem(card.id, field, message, warning)


def _check_positions(card: CardSource, elements: list[dict[str, Any]]) -> Iterator[CardProblem]:
    """Every element has a cell of its own; an "ordinato" project keeps to rows and columns."""
    cells: list[tuple[float, float] | None] = []
    for i, element in enumerate(elements):
        x, y = element.get("x"), element.get("y")
        if isinstance(x, int | float) and isinstance(y, int | float):
            cells.append((float(x), float(y)))
        else:
            cells.append(None)
            yield _problem(
                card, f"data.elementi[{i}]", "posizione mancante: servono x e y numerici"
            )
    placed = [(i, cell) for i, cell in enumerate(cells) if cell is not None]
    for n, (i, (xi, yi)) in enumerate(placed):
        for j, (xj, yj) in placed[n + 1 :]:
            if abs(xi - xj) < 1 and abs(yi - yj) < 1:
                yield _problem(
                    card,
                    f"data.elementi[{j}]",
                    f"si sovrappone all'elemento {i} (x {xi:g}, y {yi:g} contro "
                    f"x {xj:g}, y {yj:g}): ogni elemento occupa una casella",
                )
    if card.attributes.get("tipo") != "ordinato":
        return
    for i, (element, cell) in enumerate(zip(elements, cells, strict=True)):
        rotation = element.get("rotazione", 0)
        if (cell and any(v % 1 for v in cell)) or (isinstance(rotation, int) and rotation % 90):
            yield _problem(
                card,
                f"data.elementi[{i}]",
                "un progetto ordinato tiene i pezzi in righe e colonne: "
                "x e y interi, rotazione multipla di 90",
                warning=True,
            )


def _check_completion(
    card: CardSource,
    need: Counter[tuple[str, str]],
    game_values: tuple[tuple[str, ...], tuple[str, ...]],
    plain: Counter[tuple[str, str]],
    jolly: list[set[tuple[str, str]]],
) -> Iterator[CardProblem]:
    """All four shapes and colours appear, and the deck's Forme (then its Jolly) suffice."""
    shapes, colours = game_values
    for label, used, allowed in (
        ("tutte le forme", {f for f, _ in need}, shapes),
        ("tutti i colori", {c for _, c in need}, colours),
    ):
        if missing := [v for v in allowed if v not in used]:
            yield _problem(
                card,
                "data.elementi",
                f"un progetto usa {label} almeno una volta; "
                f"{'ne manca 1' if len(missing) == 1 else f'ne mancano {len(missing)}'}: "
                f"{', '.join(missing)} (chiarimento progetto-quattro-forme-quattro-colori)",
            )
    short, uncovered = _jolly_needed(need, plain, jolly)
    excess = ", ".join(
        f"{shape} {colour} ×{n} (nel mazzo {plain[(shape, colour)]})"
        for (shape, colour), n in sorted(need.items())
        if n > plain[(shape, colour)]
    )
    if uncovered:
        yield _problem(
            card,
            "data.elementi",
            f"progetto impossibile: chiede {excess} e i Jolly non bastano "
            f"(elementi scoperti: {uncovered})",
        )
    elif short:
        yield _problem(
            card, "data.elementi", f"completabile solo con {short} Jolly: chiede {excess}", True
        )


def _check_project(
    card: CardSource,
    game_values: tuple[tuple[str, ...], tuple[str, ...]],
    plain: Counter[tuple[str, str]],
    jolly: list[set[tuple[str, str]]],
) -> Iterator[CardProblem]:
    data = card.data
    elements = data.get("elementi") if isinstance(data, dict) else None
    if not isinstance(elements, list) or not all(isinstance(e, dict) for e in elements):
        yield _problem(
            card, "data.elementi", "servono gli elementi: una lista di mappe forma, colore, x, y"
        )
        return
    declared = card.attributes.get("elementi")
    if declared != len(elements):
        yield _problem(
            card,
            "data.elementi",
            f"{len(elements)} elementi, ma l'attributo elementi dice {declared}",
        )
    known = True
    for i, element in enumerate(elements):
        for key, allowed, unknown in (
            ("forma", game_values[0], "forma sconosciuta"),
            ("colore", game_values[1], "colore sconosciuto"),
        ):
            if element.get(key) not in allowed:
                known = False
                yield _problem(
                    card,
                    f"data.elementi[{i}].{key}",
                    f"{unknown} {element.get(key)!r}; ammessi: {', '.join(allowed)}",
                )
    yield from _check_positions(card, elements)
    if known:
        need = Counter((e["forma"], e["colore"]) for e in elements)
        yield from _check_completion(card, need, game_values, plain, jolly)


def check(game: GameSource, cards: list[CardSource]) -> Iterator[CardProblem]:
    """Every project is well formed and can be completed with the Forme in the deck."""
    game_values = (_enum(game, "forma", SHAPES), _enum(game, "colore", COLOURS))
    plain, jolly = _supply(cards)
    for card in cards:
        if card.kind == PROJECT_KIND:
            yield from _check_project(card, game_values, plain, jolly)
