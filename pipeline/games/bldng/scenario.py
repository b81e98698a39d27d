"""BLDNG's words for worked examples (the shared vocabulary: pipeline/engine/scenario.py).

A position names each seat's ``project`` and ``site`` (its cantiere) by card code, and the
card that raises a seat's limit if it keeps one (``keep: you-can-have-up-to-15-cards``); the
piles: ``draw`` (the Forme deck, from its top card down), ``discard`` (from the bottom up)
and ``projects`` (the project deck, from its top down); whose turn begins (``turn``), the
``direction`` (1 clockwise, -1 anticlockwise) and whether the top discard was just
discarded by the player before (``previous_discard``). Cards it does not place stay out of
the game. Moves: ``{draw: true}``, ``{take: true}``, ``{discard: code}``, ``{pick: code}``,
``{pass: true}``, ``{steal: code, from: 2}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pipeline.engine.core import Chance, Event
from pipeline.engine.scenario import (
    Expect,
    Piles,
    Position,
    PositionView,
    ScenarioError,
    Seat,
    Vocabulary,
    forget_opening_turn,
)

from .cards import BldngCards, element_code
from .state import EVENT_FIELDS, FREE, BldngState


class BldngSeat(Seat):
    project: str  # the project card the seat builds
    site: list[str] = []  # the cantiere
    keep: str | None = None  # the card kept beside the cantiere that raises the limit


class BldngPiles(Piles):
    discard: list[str] = []  # bottom first
    projects: list[str] = []  # the project deck, top first


class BldngPosition(Position[BldngSeat, BldngPiles]):
    """Every seat has its project; the turn of `turn` begins."""

    phase: None = None
    direction: Literal[1, -1] = 1
    previous_discard: bool = False  # the top discard was discarded by the previous player


class BldngExpect(Expect):
    limit: dict[int, int] | None = None  # how many cards each seat may hold
    direction: Literal[1, -1] | None = None


VOCABULARY = Vocabulary(BldngPosition, BldngExpect)
EXPECT_KEYS = tuple(VOCABULARY.game_keys())
MOVES = ("draw", "take", "pass", "discard", "pick", "steal")


def setup(
    cards: BldngCards,
    position: Mapping[str, Any],
    players: int = 2,
    options: Mapping[str, Any] | None = None,
) -> BldngState:
    """The position placed, then the turn begins (what the engine does by itself is logged)."""
    spec = BldngPosition.model_validate(position)
    missing = [p for p in range(1, players + 1) if p not in spec.seats]
    if missing:
        raise ScenarioError(f"seat {missing[0]} needs its project", ["seats"])
    seats = [spec.seats[p + 1] for p in range(players)]
    state = BldngState(cards, players, Chance(0), free=bool((options or {}).get(FREE)))
    free = {code: list(copies) for code, copies in cards.by_code.items()}

    def take(loc: list[str | int], code: str) -> int:
        if code not in free:
            raise ScenarioError(f"no card {code!r} in the BLDNG deck", loc)
        if not free[code]:
            raise ScenarioError(f"more copies of {code} than the deck has", loc)
        return free[code].pop(0)

    state.project = [take(["seats", p + 1, "project"], s.project) for p, s in enumerate(seats)]
    for p, c in enumerate(state.project):
        if not cards.is_project[c]:
            raise ScenarioError("a project card, please", ["seats", p + 1, "project"])
    state.site = [[take(["seats", p + 1, "site"], c) for c in s.site] for p, s in enumerate(seats)]
    for p, site in enumerate(state.site):
        if any(not cards.is_forma[c] for c in site):
            raise ScenarioError("Forma cards only", ["seats", p + 1, "site"])
    for p, s in enumerate(seats):
        if s.keep is not None:
            state.keep[p] = take(["seats", p + 1, "keep"], s.keep)
    state.deck = [take(["piles", "draw"], c) for c in spec.piles.draw or []][::-1]
    state.discard = [take(["piles", "discard"], c) for c in spec.piles.discard]
    state.projects = [take(["piles", "projects"], c) for c in spec.piles.projects][::-1]
    state.out = sorted(c for left in free.values() for c in left)
    state.known = [
        [state.project[q] if q == p else -1 for q in range(players)] for p in range(players)
    ]
    state.direction = spec.direction
    state.player = (spec.turn or 1) - 1
    state.previous = (state.player - state.direction) % players
    state.turn = (spec.turn_number or 1) - 1
    if spec.previous_discard:
        state.discard_by, state.discard_turn = state.previous, state.turn
    state.tasks = [("turn",)]
    state._run()
    forget_opening_turn(state.log)
    return state


def parse_action(state: BldngState, spec: Mapping[str, Any]) -> tuple[Any, ...]:
    spec = {k: v for k, v in spec.items() if k not in ("by", "if_asked")}
    kind = next((k for k in MOVES if k in spec), None)
    if kind is None:
        raise ValueError(f"not a BLDNG move: {dict(spec)}")
    for action in state.legal_actions():
        if describe_action(state, action) == spec or (
            kind == "steal" and "from" not in spec and action[0] == "steal"
            and state.cards.codes[action[1]] == spec["steal"]
        ):  # fmt: skip
            return action
    raise ValueError(f"{dict(spec)} is not legal now ({state.decision_kind()})")


def describe_action(state: BldngState, action: tuple[Any, ...]) -> dict[str, Any]:
    kind = action[0]
    if kind in ("draw", "take", "pass"):
        return {kind: True}
    out: dict[str, Any] = {kind: state.cards.codes[action[1]]}
    if kind == "steal":
        owner = next(q for q in range(state.num_players) if action[1] in state.site[q])
        out["from"] = owner + 1
    return out


def describe_event(cards: BldngCards, event: Event) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": event.kind, "player": event.player + 1}
    if event.kind == "action":
        return {**out, "action": list(event.args)}
    for name, value in zip(EVENT_FIELDS.get(event.kind, []), event.args, strict=False):
        if name in ("card", "old", "new"):
            value = cards.codes[value] if value >= 0 else None
        elif name == "projects":
            value = [cards.codes[c] for c in value]
        elif name in ("owner", "winner"):
            value = value + 1  # 0: nobody
        elif name == "jolly":  # what each Jolly of a completed project stands for
            value = {cards.codes[c]: element_code(k) for c, k in value}
        out[name] = value
    return out


def check(state: BldngState, key: str, want: Any) -> list[str]:
    """Failures of one BLDNG expectation (``limit``, ``direction``), one line each."""
    got: Any
    if key == "limit":
        got = {p: state.limit(p - 1) for p in want}
    elif key == "direction":
        got = state.direction
    else:
        return [f"unknown expectation {key!r} (known: {', '.join(EXPECT_KEYS)})"]
    return [] if got == want else [f"{key}: expected {want!r}, got {got!r}"]


def view(state: BldngState) -> PositionView:
    """The state as a position lists it: whose turn, projects and cantieri, the three decks."""
    codes = state.cards.codes

    def listed(cards: Sequence[int]) -> list[str]:
        return [codes[c] for c in cards]

    seats = [
        {
            "project": codes[state.project[p]],
            "site": listed(state.site[p]),
            "keep": codes[state.keep[p]] if state.keep[p] >= 0 else None,
        }
        for p in range(state.num_players)
    ]
    piles = {
        "draw": listed(state.deck[::-1]),
        "discard": listed(state.discard),
        "projects": listed(state.projects[::-1]),
    }
    return PositionView(state.player + 1, state.turn, seats, piles)
