"""The scenario vocabulary every game shares: the shape of a position and of an expectation.

A worked example (``games/<slug>/examples/*.yaml``, read by pipeline/play/examples.py) places
cards and says what must follow. Every game speaks the same words for what every game has:

- a position: ``seats`` by number (1..N), each with its zones (``hand`` where the game
  has one, and the game's other zones) and attributes; shared ``piles`` (``draw`` from
  its top card down, the others from the bottom up); ``turn``, the seat whose turn it
  is; ``turn_number``; ``phase``;
- an expectation: ``events``, ``no_events``, ``legal`` (exactly these options),
  ``decision``, ``player``, ``result``, ``turn``, ``turn_number``, and the same ``seats``
  and ``piles`` maps, where a zone is checked by its size (a number) or its cards (a list:
  any order in a seat's zone, the listed order in a pile).

A game subclasses ``Seat``, ``Piles``, ``Position`` and ``Expect`` with its own zones,
attributes and expectation keys (all typed, unknown keys refused) and declares them in a
``Vocabulary``; ``Vocabulary.expect_model`` adds the typed ``seats``/``piles`` checks, so
the JSON Schema of each game's scenario files lists every key an editor may complete.
Nothing here imports the engine or the database.
"""

from __future__ import annotations

import types
import typing
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, Field, create_model, field_validator
from pydantic.config import JsonDict

Code = str  # a card code
ZoneWant = int | list[Code]  # a zone's size, or its cards
# In the JSON Schema, a map by seat has seat numbers as its keys (JSON spells them as strings).
BY_SEAT: JsonDict = {"propertyNames": {"pattern": "^[1-9][0-9]*$"}}


class Strict(BaseModel):
    """A part of a scenario file: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid")


class ScenarioError(ValueError):
    """A position or a move a game cannot follow; ``loc`` says where inside it (for the line)."""

    def __init__(self, message: str, loc: Sequence[str | int] = ()):
        super().__init__(message)
        self.loc = tuple(loc)


class Seat(Strict):
    """One seat's zones (lists of card codes: ``hand``, and whatever zones the game has)
    and attributes (a role, a project): each game declares its own."""


class Piles(Strict):
    """The shared piles. ``draw`` lists the draw pile from its top card down."""

    draw: list[Code] | None = None  # None: the game's default


SeatT = TypeVar("SeatT", bound=Seat)
PilesT = TypeVar("PilesT", bound=Piles)


class Position(Strict, Generic[SeatT, PilesT]):
    """Where a scenario starts. A game subclasses it with its Seat and Piles models."""

    turn: int | None = Field(default=None, ge=1)  # the seat whose turn it is (default: the game's)
    turn_number: int | None = Field(default=None, ge=1)
    phase: str | None = None
    seats: dict[int, SeatT] = Field(default={}, json_schema_extra=BY_SEAT)
    piles: PilesT = Field(default=None, validate_default=True)

    @field_validator("piles", mode="before")
    @classmethod
    def _default_piles(cls, value: Any) -> Any:
        return {} if value is None else value  # every pile as the game deals it by default


EventSpec = str | dict[str, Any]  # a kind, or a kind with a subset of its fields


class Result(Strict):
    """How the game ended: one of winner, winners, draw or ranking, optionally with how."""

    winner: int | None = Field(default=None, ge=1)
    winners: list[int] | None = None
    draw: bool | None = None
    ranking: list[list[int]] | None = None
    how: str | None = None
    over: bool = True  # false: the game must still be going on


class Expect(Strict):
    """What every game's scenarios may check; a game subclasses it with its own keys."""

    events: list[EventSpec] | None = None  # happened since the last expect, in this order
    no_events: list[EventSpec] | None = None  # did not happen since the last expect
    legal: list[Any] | None = None  # the legal options are exactly these
    decision: str | None = None  # the kind of the pending decision
    player: int | None = Field(default=None, ge=1)  # who decides now (1..N)
    result: Result | None = None
    turn: int | None = Field(default=None, ge=1)  # the seat whose turn it is
    turn_number: int | None = Field(default=None, ge=1)
    # zone -> size or cards, attribute -> value; typed per game by Vocabulary.expect_model
    seats: dict[int, Any] | None = None
    piles: Any = None


@dataclass(frozen=True)
class PositionView:
    """A state as a position lists it, for the shared expectations: seats 1..N as a list of
    {zone: [codes], attribute: value}, the piles as {name: [codes]} in their listed order."""

    turn: int
    turn_number: int | None
    seats: list[dict[str, Any]]
    piles: dict[str, list[Code]] = field(default_factory=dict)


def forget_opening_turn(log: list[Any]) -> None:
    """Forget the event that opens the position's own turn: the position says whose turn it
    is. What the engine then plays by itself stays in the log, to be narrated and checked."""
    if log and log[0].kind == "turn":
        del log[0]


@dataclass(frozen=True)
class Vocabulary:
    """A game's scenario words: its position model and its expectation model."""

    position: type[Position[Any, Any]]
    expect: type[Expect] = Expect

    @property
    def seat(self) -> type[Seat]:
        return _field_model(self.position, "seats", Seat)

    @property
    def piles(self) -> type[Piles]:
        return _field_model(self.position, "piles", Piles)

    @cached_property
    def expect_model(self) -> type[Expect]:
        """The game's Expect with ``seats`` and ``piles`` typed after its position's models:
        a zone may be checked by size or cards, an attribute by its value."""
        name = self.expect.__name__
        seat = _check_model(self.seat, f"{name}Seat")
        piles = _check_model(self.piles, f"{name}Piles")
        # Field types made at run time: typed Any, as pydantic's stubs cannot follow them.
        fields: dict[str, Any] = {
            "seats": (dict[int, seat] | None, Field(default=None, json_schema_extra=BY_SEAT)),  # type: ignore[valid-type]
            "piles": (piles | None, None),
        }
        model: type[Expect] = create_model(
            name, __base__=self.expect, __doc__=self.expect.__doc__, **fields
        )
        return model

    def game_keys(self) -> list[str]:
        """The expectation keys only this game has (they go to the game's ``check``)."""
        return [k for k in self.expect.model_fields if k not in Expect.model_fields]


def _field_model(model: type[BaseModel], name: str, base: type[Strict]) -> type[Any]:
    """The model inside a field's annotation (``dict[int, BlessSeat]`` -> BlessSeat)."""
    annotation = model.model_fields[name].annotation
    for candidate in (annotation, *typing.get_args(annotation)):
        if isinstance(candidate, type) and issubclass(candidate, base):
            return candidate
    raise TypeError(f"{model.__name__}.{name} is not a {base.__name__} model")


def is_zone(annotation: Any) -> bool:
    """A zone is a list of cards (of codes, or of cards with their state)."""
    optional = typing.get_origin(annotation) in (typing.Union, types.UnionType)
    options = typing.get_args(annotation) if optional else (annotation,)
    return any(typing.get_origin(a) is list for a in options)


def _check_model(model: type[Strict], name: str) -> type[Strict]:
    """Every field of a seat or piles model, optional: zones as ZoneWant, the rest as is."""
    fields: dict[str, Any] = {}
    for key, info in model.model_fields.items():
        kind: Any = ZoneWant if is_zone(info.annotation) else info.annotation
        fields[key] = (
            kind | None,
            Field(default=None, alias=info.alias, description=info.description),
        )
    checks: type[Strict] = create_model(name, __base__=Strict, **fields)
    return checks
