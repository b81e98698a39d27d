"""Mazzo's words for worked examples (the shared vocabulary: pipeline/engine/scenario.py).

A position gives each seat's ``hand`` and ``loot`` (its bottino) by card code, the reserve
as the draw pile (``piles.draw``, from its top card down), whose turn it is (``turn``: the
attacker), ``turn_number``, and optionally the cards a blind draw will find (``draws``).
Cards it does not place stay out of the game, like the rules card. Moves: ``{attack: code,
ability: forza}``, ``{open: code}``, ``{nonce: code}``, ``{believe: true}``,
``{doubt: true}``, ``{take: [code, code]}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import Field

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

from .state import ABILITIES, EVENT_FIELDS, HAND, MazzoCards, MazzoState


class MazzoSeat(Seat):
    hand: list[str] = Field(default=[], max_length=HAND)
    loot: list[str] = []  # the bottino


class MazzoPosition(Position[MazzoSeat, Piles]):
    """A duel: seats 1 and 2; the turn is the attacker's."""

    phase: None = None  # a position starts when the attacker chooses the challenge
    draws: list[str] = []  # the cards the blind draws will find, in order


class MazzoExpect(Expect):
    known: dict[int, list[str]] | None = None  # the other's cards each player has seen


VOCABULARY = Vocabulary(MazzoPosition, MazzoExpect)
EXPECT_KEYS = tuple(VOCABULARY.game_keys())
CARD_FIELDS = {"card", "other"}


def setup(
    cards: MazzoCards,
    position: Mapping[str, Any],
    players: int = 2,
    options: Mapping[str, Any] | None = None,
) -> MazzoState:
    """The position placed, then what the engine does by itself (a forced attack)."""
    spec = MazzoPosition.model_validate(position)
    state = MazzoState(cards, Chance(0), options)
    used: set[int] = set()

    def placed(loc: list[str | int], codes: Sequence[str]) -> list[int]:
        out = [_card(cards, code, loc) for code in codes]
        for c in out:
            if c in used:
                raise ScenarioError(f"{cards.codes[c]} is placed twice", loc)
            if not cards.in_play[c]:
                raise ScenarioError(f"{cards.codes[c]} does not take part in the game", loc)
            used.add(c)
        return out

    for p in (0, 1):
        seat = spec.seats.get(p + 1, MazzoSeat())
        state.hands[p] = placed(["seats", p + 1, "hand"], seat.hand)
        state.bottini[p] = placed(["seats", p + 1, "loot"], seat.loot)
    state.reserve = placed(["piles", "draw"], spec.piles.draw or [])[::-1]
    state.draws = [_card(cards, code, ["draws"]) for code in spec.draws]
    state.out = [c for c in range(len(cards.codes)) if c not in used]
    state.attacker = (spec.turn or 1) - 1
    state.turn = (spec.turn_number or 1) - 1
    state._start_turn()
    forget_opening_turn(state.log)
    state._auto()
    return state


def _card(cards: MazzoCards, code: str, loc: Sequence[str | int]) -> int:
    try:
        return cards.card(code)
    except ValueError as exc:
        raise ScenarioError(str(exc), loc) from None


def parse_action(state: MazzoState, spec: Mapping[str, Any]) -> tuple[Any, ...]:
    spec = {k: v for k, v in spec.items() if k not in ("by", "if_asked")}
    if "attack" in spec:
        ability = spec.get("ability")
        if ability not in ABILITIES:
            raise ValueError(f"attack: ability is one of {', '.join(ABILITIES)}")
        action: tuple[Any, ...] = (
            "attack",
            state.cards.card(str(spec["attack"])),
            ABILITIES.index(ability),
        )
    elif set(spec) in ({"open"}, {"nonce"}):
        kind = next(iter(spec))
        action = (kind, state.cards.card(str(spec[kind])))
    elif spec in ({"believe": True}, {"doubt": True}):
        action = (next(iter(spec)),)
    elif set(spec) == {"take"} and isinstance(spec["take"], list):
        picked = sorted(state.cards.card(str(c)) for c in spec["take"])
        action = ("take", *picked)
    else:
        raise ValueError(f"not a Mazzo move: {dict(spec)}")
    if action not in state.legal_actions():
        raise ValueError(f"{dict(spec)} is not legal now ({state.decision_kind()})")
    return action


def describe_action(state: MazzoState, action: tuple[Any, ...]) -> dict[str, Any]:
    kind = action[0]
    if kind == "attack":
        return {"attack": state.cards.codes[action[1]], "ability": ABILITIES[action[2]]}
    if kind in ("open", "nonce"):
        return {kind: state.cards.codes[action[1]]}
    if kind == "take":
        return {"take": [state.cards.codes[c] for c in action[1:]]}
    return {kind: True}


def describe_event(cards: MazzoCards, event: Event) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": event.kind, "player": event.player + 1}
    if event.kind == "action":  # its fields are the action itself
        return {**out, "action": list(event.args)}
    for name, value in zip(EVENT_FIELDS.get(event.kind, []), event.args, strict=False):
        if name in CARD_FIELDS:
            value = cards.codes[value]
        elif name == "cards":
            value = [cards.codes[c] for c in value]
        elif name == "ability":
            value = ABILITIES[value] if value >= 0 else None
        elif name == "winner":
            value = value + 1  # 0: nobody (a tie, a draw)
        elif isinstance(value, tuple):
            value = list(value)
        out[name] = value
    return out


def check(state: MazzoState, key: str, want: Any) -> list[str]:
    """Failures of one Mazzo expectation (``known``), one line each."""
    if key != "known":
        return [f"unknown expectation {key!r} (known: {', '.join(EXPECT_KEYS)})"]
    codes = state.cards.codes
    got = {
        p: sorted(codes[c] for c in state.hands[2 - p] if state.seen[p - 1] >> c & 1) for p in want
    }
    want = {p: sorted(v) for p, v in want.items()}
    return [] if got == want else [f"known: expected {want!r}, got {got!r}"]


def view(state: MazzoState) -> PositionView:
    """The state as a position lists it: the attacker's turn, hands and bottini, the reserve,
    and the card each seat has put on the table in this duel (face down until the clash,
    which takes both away in the same move)."""
    codes = state.cards.codes
    on_table = [-1, -1]
    on_table[state.attacker], on_table[1 - state.attacker] = (
        state.attacker_card,
        state.defender_card,
    )
    seats = [
        {
            "hand": [codes[c] for c in state.hands[p]],
            "played": [codes[on_table[p]]] if on_table[p] >= 0 else [],
            "loot": [codes[c] for c in state.bottini[p]],
        }
        for p in (0, 1)
    ]
    draw = [codes[c] for c in reversed(state.reserve)]
    return PositionView(state.attacker + 1, state.turn, seats, {"draw": draw})
