"""The Samurai Sword words of worked examples (pipeline/engine/scenario.py): positions, moves
and the expectations only this game has. Players are 1..N here, cards are named by code.

A position::

    turn: 1               # whose turn it is, in its play phase (default: the Shogun)
    turn_number: 3
    weapons_played: 0
    seats:                # every player, by seat
      1: {role: shogun, character: benkei, resistance: 5, honour: 5, hand: [bokken],
          front: [armatura]}
    piles:
      draw: [parata]      # the top of the deck, top card first
      discard: [bokken]   # the discard pile, bottom first
    rest: draw            # where the other playing cards go: under the deck, or "discard"

A move: ``card: CARD`` (with ``target: N`` and, for a Geisha, ``property: CARD``),
``end``, ``ability``, ``discard: CARD``, ``parry: CARD``, ``take_hit`` (take the wound),
``honour`` (lose an honour point instead), ``draw: scarti|mazzo``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import ConfigDict, Field

from pipeline.engine.core import Action, Chance, Event
from pipeline.engine.scenario import (
    Expect,
    Piles,
    Position,
    PositionView,
    ScenarioError,
    Seat,
    Strict,
    Vocabulary,
)

from .cards import Cards
from .state import ABILITY, END, HONOUR, TAKE, SamuraiState
from .table import EVENT_FIELDS


class SamuraiSeat(Seat):
    hand: list[str] = []
    role: str  # a role card's code (shogun, ninja-1 ...)
    character: str  # a character card's code
    resistance: int | None = Field(default=None, ge=0)  # default: the character's
    honour: int | None = Field(default=None, ge=0)  # default: what the role starts with
    front: list[str] = []  # the properties in front of the player


class SamuraiPiles(Piles):
    discard: list[str] = []  # bottom first


class SamuraiPosition(Position[SamuraiSeat, SamuraiPiles]):
    """Every player is seated (role and character); playing cards not placed go to `rest`."""

    phase: None = None  # a position starts in the play phase of `turn`
    weapons_played: int = Field(default=0, ge=0)  # by the player whose turn it is
    rest: Literal["draw", "discard"] = "draw"  # under the draw pile, or under the discards


class Between(Strict):
    """A measure from one player to another."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    from_: int = Field(alias="from", ge=1)
    to: int = Field(ge=1)
    value: int


class SamuraiExpect(Expect):
    harmless: list[int] | None = None  # exactly these players are harmless
    distance: list[Between] | None = None
    difficulty: list[Between] | None = None
    scores: dict[str, int] | None = None  # each team's score
    roles_seen: dict[int, list[int]] | None = None  # whose roles each player sees


VOCABULARY = Vocabulary(SamuraiPosition, SamuraiExpect)
EXPECT_KEYS = tuple(VOCABULARY.game_keys())
CARD_FIELDS = {"card"}
PLAYER_FIELDS = {"target", "to", "by", "from", "attacker"}


def _unknown(keys: Any, allowed: set[str], where: str) -> None:
    extra = sorted(set(keys) - allowed)
    if extra:
        raise ValueError(f"{where}: unknown key '{extra[0]}' (known: {', '.join(sorted(allowed))})")


def setup_position(cards: Cards, position: Mapping[str, Any], players: int) -> SamuraiState:
    """A state in the position a scenario describes; ScenarioError naming the wrong key."""
    spec = SamuraiPosition.model_validate(position)
    missing = [p for p in range(1, players + 1) if p not in spec.seats]
    if missing or len(spec.seats) != players:
        raise ScenarioError(f"every seat 1..{players} needs its role and character", ["seats"])
    state = SamuraiState(cards, players, Chance(0))
    pool = Counter(cards.deck)
    unused_roles = Counter(r for rs in cards.roles.values() for r in rs)
    unused_chars = Counter(cards.characters)

    def take(code: str, loc: list[str | int], counter: Counter) -> int:
        try:
            c = cards.card(code)
        except ValueError as exc:
            raise ScenarioError(str(exc), loc) from None
        if counter[c] <= 0:
            raise ScenarioError(f"no copy of '{code}' is left for this position", loc)
        counter[c] -= 1
        return c

    for p in range(players):
        seat = spec.seats[p + 1]
        loc: list[str | int] = ["seats", p + 1]
        state.role.append(take(seat.role, [*loc, "role"], unused_roles))
        state.char.append(take(seat.character, [*loc, "character"], unused_chars))
        state.maxres[p] = cards.resistance[state.char[p]]
        state.res[p] = state.maxres[p] if seat.resistance is None else seat.resistance
        state.honour[p] = state.starting_honour(p) if seat.honour is None else seat.honour
        state.hands[p] = [take(c, [*loc, "hand"], pool) for c in seat.hand]
        state.front[p] = [take(c, [*loc, "front"], pool) for c in seat.front]
    if sum(1 for p in range(players) if state.kind(p) == "shogun") != 1:
        raise ScenarioError("exactly one player must be the Shogun", ["seats"])
    top = [take(c, ["piles", "draw"], pool) for c in spec.piles.draw or []]
    state.discard = [take(c, ["piles", "discard"], pool) for c in spec.piles.discard]
    rest = sorted(pool.elements())
    state.chance.shuffle("resto", rest)
    if spec.rest == "draw":
        state.deck = rest + top[::-1]
    else:
        state.deck = top[::-1]
        state.discard = rest + state.discard
    state.aside = sorted(unused_roles.elements()) + sorted(unused_chars.elements())
    active = (spec.turn or state.shogun() + 1) - 1
    state.turns = spec.turn_number or 1
    state.active = state.who = active
    state.weapons_used = spec.weapons_played
    return state


def view(state: SamuraiState) -> PositionView:
    """The state as a position lists it."""
    codes = state.cards.codes
    seats = [
        {
            "role": state.cards.code[state.role[p]],
            "character": state.cards.code[state.char[p]],
            "resistance": state.res[p],
            "honour": state.honour[p],
            "hand": codes(state.hands[p]),
            "front": codes(state.front[p]),
        }
        for p in range(state.num_players)
    ]
    piles = {"draw": codes(state.deck)[::-1], "discard": codes(state.discard)}
    return PositionView(state.active + 1, state.turns, seats, piles)


def _player(state: SamuraiState, value: Any, where: str) -> int:
    p = int(value) - 1
    if not 0 <= p < state.num_players:
        raise ValueError(f"{where}: player {value} is not at the table")
    return p


# A move's key in a scenario -> the engine's verb; ``end``, ``ability``, ``take_hit`` and
# ``honour`` take ``true``.
MOVES = {
    "card": "gioca",
    "discard": "scarta",
    "parry": "para",
    "draw": "pesca",
    "end": END[0],
    "ability": ABILITY[0],
    "take_hit": TAKE[0],
    "honour": HONOUR[0],
}
VERBS = {verb: key for key, verb in MOVES.items()}


def parse_action(state: SamuraiState, spec: Mapping[str, Any]) -> Action:
    """The legal action a scenario step's ``play`` describes."""
    cards = state.cards
    spec = dict(spec)
    action: Action
    if "card" in spec:
        _unknown(spec, {"card", "target", "property"}, "play")
        c = cards.card(spec["card"])
        target = _player(state, spec["target"], "play.target") if "target" in spec else -1
        extra = cards.card(spec["property"]) if "property" in spec else -1
        if target < 0 and cards.kind[c] == "proprieta" and not cards.honour_test[c]:
            target = state.who
        action = ("gioca", c, target, extra)
    elif len(spec) != 1:
        raise ValueError(f"play: one move at a time, not {sorted(spec)}")
    else:
        ((key, value),) = spec.items()
        if key not in MOVES:
            raise ValueError(f"play: unknown move '{key}' (moves: {', '.join(MOVES)})")
        verb = MOVES[key]
        if key in ("discard", "parry"):
            action = (verb, cards.card(value))
        elif key == "draw":
            action = (verb, str(value))
        else:
            action = (verb,)
    if action not in state.legal_actions():
        legal = "; ".join(str(describe_action(state, a)) for a in state.legal_actions())
        raise ValueError(f"play: {spec} is not legal now (legal: {legal})")
    return action


def describe_action(state: SamuraiState, action: Action) -> dict[str, Any]:
    code = state.cards.code
    if action[0] == "gioca":
        _, c, target, extra = action
        out: dict[str, Any] = {"card": code[c]}
        if target >= 0 and not (
            state.cards.kind[c] == "proprieta" and not state.cards.honour_test[c]
        ):
            out["target"] = target + 1
        if extra >= 0:
            out["property"] = code[extra]
        return out
    if action[0] in ("scarta", "para"):
        return {VERBS[action[0]]: code[action[1]]}
    if action[0] == "pesca":
        return {"draw": action[1]}
    return {VERBS[action[0]]: True}


def describe_event(cards: Cards, event: Event) -> dict[str, Any]:
    out: dict[str, Any] = {
        "kind": event.kind,
        "player": event.player + 1 if event.player >= 0 else None,
    }
    for name, value in zip(EVENT_FIELDS.get(event.kind, []), event.args, strict=False):
        if name in CARD_FIELDS and isinstance(value, int):
            value = cards.code[value] if value >= 0 else None
        elif name in PLAYER_FIELDS and isinstance(value, int):
            value = value + 1 if value >= 0 else None
        elif isinstance(value, tuple):
            value = list(value)
        out[name] = value
    return out


def check(state: SamuraiState, key: str, want: Any) -> list[str]:
    """Failures of one Samurai Sword expectation, one line each."""
    fails = []

    def compare(what: str, got: Any, expected: Any) -> None:
        if got != expected:
            fails.append(f"{what}: expected {expected}, got {got}")

    if key == "harmless":
        got = [p + 1 for p in range(state.num_players) if state.harmless(p)]
        compare("harmless players", got, sorted(want))
    elif key in ("distance", "difficulty"):
        measure = state.distance if key == "distance" else state.difficulty
        for item in want:
            a, b = _player(state, item["from"], key), _player(state, item["to"], key)
            compare(f"{key} from {a + 1} to {b + 1}", measure(a, b), item["value"])
    elif key == "scores":
        compare("team scores", state.team_scores(), want)
    elif key == "roles_seen":
        for p, v in want.items():
            q = _player(state, p, key)
            seen = sorted(int(r) + 1 for r in state.observation(q)["roles"])
            compare(f"roles player {q + 1} sees", seen, sorted(v))
    else:
        raise ValueError(f"unknown expectation '{key}' (known: {', '.join(EXPECT_KEYS)})")
    return fails
