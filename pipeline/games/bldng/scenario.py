"""BLDNG's vocabulary for worked examples (scenario format 2).

A position names each player's project and cantiere by card code, who holds the card that
raises the limit (``keep: {2: you-can-have-up-to-15-cards}``), the Forme deck from its top
card down, the discards from the bottom up, the project deck from its top down, whose turn
begins (``player``), the direction (1 clockwise, -1 anticlockwise) and whether the top
discard was just discarded by the player before (``previous_discard``). Cards it does not
place stay out of the game. Moves: ``{draw: true}``, ``{take: true}``, ``{discard: code}``,
``{pick: code}``, ``{pass: true}``, ``{steal: code, from: 2}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.engine.core import Chance, Event
from pipeline.engine.scenario import PositionView

from .cards import BldngCards, element_code
from .state import EVENT_FIELDS, BldngState

POSITION_KEYS = {
    "projects",
    "sites",
    "keep",
    "deck",
    "discard",
    "projects_deck",
    "player",
    "direction",
    "previous_discard",
    "turn",
}
EXPECT_KEYS = (
    "sites",
    "site_size",
    "project",
    "limit",
    "deck",
    "discard",
    "direction",
    "current",
    "keep",
)
MOVES = ("draw", "take", "pass", "discard", "pick", "steal")


def setup(
    cards: BldngCards,
    position: Mapping[str, Any],
    players: int = 2,
    options: Mapping[str, Any] | None = None,
) -> BldngState:
    unknown = set(position) - POSITION_KEYS
    if unknown:
        raise ValueError(f"unknown position keys: {', '.join(sorted(unknown))}")
    state = BldngState(cards, players, Chance(0))
    free = {code: list(copies) for code, copies in cards.by_code.items()}

    def take(key: str, code: Any) -> int:
        if str(code) not in free:
            raise ValueError(f"{key}: no card {code!r} in the BLDNG deck")
        if not free[str(code)]:
            raise ValueError(f"{key}: more copies of {code} than the deck has")
        return free[str(code)].pop(0)

    projects = position.get("projects", [])
    if len(projects) != players:
        raise ValueError(f"projects: one per player ({players})")
    state.project = [take("projects", c) for c in projects]
    if any(not cards.is_project[c] for c in state.project):
        raise ValueError("projects: project cards only")
    sites = position.get("sites", [[] for _ in range(players)])
    if len(sites) != players:
        raise ValueError(f"sites: one list per player ({players})")
    state.site = [[take(f"sites[{p}]", c) for c in s] for p, s in enumerate(sites)]
    if any(not cards.is_forma[c] for s in state.site for c in s):
        raise ValueError("sites: Forma cards only")
    for p, code in (position.get("keep") or {}).items():
        state.keep[int(p) - 1] = take("keep", code)
    state.deck = [take("deck", c) for c in position.get("deck", [])][::-1]
    state.discard = [take("discard", c) for c in position.get("discard", [])]
    state.projects = [take("projects_deck", c) for c in position.get("projects_deck", [])][::-1]
    state.out = sorted(c for left in free.values() for c in left)
    state.known = [
        [state.project[q] if q == p else -1 for q in range(players)] for p in range(players)
    ]
    state.direction = int(position.get("direction", 1))
    if state.direction not in (1, -1):
        raise ValueError("direction: 1 (clockwise) or -1")
    player = int(position.get("player", 1))
    if not 1 <= player <= players:
        raise ValueError(f"player: 1..{players}")
    state.player = player - 1
    state.previous = (state.player - state.direction) % players
    state.turn = int(position.get("turn", 1)) - 1
    if position.get("previous_discard"):
        state.discard_by, state.discard_turn = state.previous, state.turn
    state.tasks = [("turn",)]
    state._run()
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
    players = range(state.num_players)
    got: Any
    if key in ("sites", "site_size", "project", "limit", "keep"):
        values = {
            "sites": lambda p: sorted(state.cards.codes[c] for c in state.site[p]),
            "site_size": lambda p: len(state.site[p]),
            "project": lambda p: state.cards.codes[state.project[p]],
            "limit": state.limit,
            "keep": lambda p: state.cards.codes[state.keep[p]] if state.keep[p] >= 0 else None,
        }[key]
        want = {int(p): sorted(v) if key == "sites" else v for p, v in want.items()}
        got = {p + 1: values(p) for p in players if p + 1 in want}
    elif key == "deck":
        got = len(state.deck)
    elif key == "discard":
        got = len(state.discard)
    elif key == "direction":
        got = state.direction
    elif key == "current":
        got = state.player + 1
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
