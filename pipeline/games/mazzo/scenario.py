"""Mazzo's vocabulary for worked examples (scenario format 2).

A position gives each player's hand and bottino by card code, the reserve from its top
card down, who attacks, and optionally the cards a blind draw will find (``draws``). Cards
it does not place stay out of the game, like the rules card. Moves: ``{attack: code,
ability: forza}``, ``{open: code}``, ``{nonce: code}``, ``{believe: true}``,
``{doubt: true}``, ``{take: [code, code]}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.engine.core import Chance, Event
from pipeline.engine.scenario import PositionView

from .state import ABILITIES, EVENT_FIELDS, HAND, MazzoCards, MazzoState

POSITION_KEYS = {"hands", "bottini", "riserva", "attacker", "turn", "draws"}
CARD_FIELDS = {"card", "other"}
EXPECT_KEYS = ("hands", "bottino", "bottini", "riserva", "attacker", "turn", "known")


def setup(
    cards: MazzoCards,
    position: Mapping[str, Any],
    players: int = 2,
    options: Mapping[str, Any] | None = None,
) -> MazzoState:
    unknown = set(position) - POSITION_KEYS
    if unknown:
        raise ValueError(f"unknown position keys: {', '.join(sorted(unknown))}")
    state = MazzoState(cards, Chance(0))
    used: set[int] = set()

    def placed(key: str, codes: Any) -> list[int]:
        if not isinstance(codes, list):
            raise ValueError(f"{key}: a list of card codes")
        out = [cards.card(str(code)) for code in codes]
        for c in out:
            if c in used:
                raise ValueError(f"{key}: {cards.codes[c]} is placed twice")
            if not cards.in_play[c]:
                raise ValueError(f"{key}: {cards.codes[c]} does not take part in the game")
            used.add(c)
        return out

    for key in ("hands", "bottini"):
        sides = position.get(key, [[], []])
        if not isinstance(sides, list) or len(sides) != 2:
            raise ValueError(f"{key}: two lists, one per player")
        getattr(state, key)[:] = [placed(f"{key}[{p}]", s) for p, s in enumerate(sides)]
    if any(len(h) > HAND for h in state.hands):
        raise ValueError(f"hands: at most {HAND} cards each")
    state.reserve = placed("riserva", position.get("riserva", []))[::-1]
    state.draws = [cards.card(str(c)) for c in position.get("draws", [])]
    state.out = [c for c in range(len(cards.codes)) if c not in used]
    attacker = position.get("attacker", 1)
    if attacker not in (1, 2):
        raise ValueError("attacker: 1 or 2")
    state.attacker = attacker - 1
    state.turn = int(position.get("turn", 1)) - 1
    state._start_turn()
    state._auto()
    return state


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
    def codes(instances: Sequence[int]) -> list[str]:
        return sorted(state.cards.codes[c] for c in instances)

    got: Any
    if key == "hands":
        got = {p + 1: codes(state.hands[p]) for p in (0, 1)}
        want = {int(p): sorted(v) for p, v in want.items()}
        got = {p: got[p] for p in want}
    elif key == "bottino":
        got = {p + 1: codes(state.bottini[p]) for p in (0, 1)}
        want = {int(p): sorted(v) for p, v in want.items()}
        got = {p: got[p] for p in want}
    elif key == "bottini":
        got = [len(b) for b in state.bottini]
    elif key == "riserva":
        got = len(state.reserve)
    elif key == "attacker":
        got = state.attacker + 1
    elif key == "turn":
        got = state.turn
    elif key == "known":
        got = {
            p + 1: codes([c for c in state.hands[1 - p] if state.seen[p] >> c & 1]) for p in (0, 1)
        }
        want = {int(p): sorted(v) for p, v in want.items()}
        got = {p: got[p] for p in want}
    else:
        return [f"unknown expectation {key!r} (known: {', '.join(EXPECT_KEYS)})"]
    return [] if got == want else [f"{key}: expected {want!r}, got {got!r}"]


def view(state: MazzoState) -> PositionView:
    """The state as a position lists it: the attacker's turn, hands and bottini, the reserve."""
    codes = state.cards.codes
    seats = [
        {"hand": [codes[c] for c in state.hands[p]], "loot": [codes[c] for c in state.bottini[p]]}
        for p in (0, 1)
    ]
    draw = [codes[c] for c in reversed(state.reserve)]
    return PositionView(state.attacker + 1, state.turn, seats, {"draw": draw})
