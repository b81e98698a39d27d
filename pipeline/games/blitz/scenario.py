"""BLITZ's words for worked examples (the shared vocabulary: pipeline/engine/scenario.py).

A position names, by card code and with seats 1..N: each seat's ``hand`` and ``table`` (the
exposed cards, grouped at their owner's best); the piles ``draw`` (top card first; when
given, the cards the position does not place stay out of the game, else they are shuffled
into the draw pile) and ``discard``; ``turn`` (whose turn), ``phase`` (``start``: the turn
begins, the default; ``main``: the card is drawn), ``exposed`` and ``action_used`` (in
``main``), ``skip``, ``blitz_played``. Moves: ``{draw: mazzo}``, ``{draw: 2}``,
``{expose: fuoco}`` (``to: 3`` for a partner), ``{card: ruba-x1, target: 2,
collection: fuoco|diverse}``, ``{card: scambia-x1, target: 2, mode: mano}``,
``{card: scambia-x1, target: 2, mode: tavolo, give: aria, take: fuoco,
from: sciolte|fuoco|diverse}``, ``{card: blitz, targets: [2, 3]}``, ``{card: pesca-x2}``,
``{end: true}``, ``{block: true|false}``, ``{take: aria, give: fuoco}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from pydantic import Field

from pipeline.engine.core import Action, Chance, Event
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

from .cards import BLITZ, COLLECTIONS_NEEDED, RAINBOW, CardTable
from .decisions import MAIN
from .state import EVENT_FIELDS, BlitzState, configure


class BlitzSeat(Seat):
    hand: list[str] = []
    table: list[str] = []  # the exposed cards, grouped at their owner's best


class BlitzPiles(Piles):
    discard: list[str] = []  # bottom first


class BlitzPosition(Position[BlitzSeat, BlitzPiles]):
    phase: Literal["start", "main"] = "start"  # main: the turn's card is drawn
    exposed: int = Field(default=0, ge=0)  # in main: cards already exposed this turn
    action_used: bool = False  # in main: the turn's action card is played
    skip: list[int] = []  # the seats that skip their next turn
    blitz_played: bool = False  # the BLITZ card is on the table: BLITZ mode


class BlitzExpect(Expect):
    collections: dict[int, list[str]] | None = None  # each seat's collections, by kind
    loose: dict[int, list[str]] | None = None  # exposed cards in no collection
    points: dict[int, int] | None = None
    skip: list[int] | None = None  # exactly these seats skip their next turn
    blitz_mode: bool | None = None
    rush: bool | None = None
    exposes_left: int | None = None
    possible: list[dict[str, Any]] | None = None  # moves with these fields are legal
    illegal: list[dict[str, Any]] | None = None  # and these are not


VOCABULARY = Vocabulary(BlitzPosition, BlitzExpect)
EXPECT_KEYS = tuple(VOCABULARY.game_keys())
CARD_FIELDS = {"card", "took", "gave"}
CARDS_FIELDS = {"cards"}
PLAYER_FIELDS = {"owner", "target", "against"}
PLAYERS_FIELDS = {"targets", "skips", "winners"}
RAINBOW_NAME = "diverse"


def key_name(table: CardTable, key: int) -> str:
    return RAINBOW_NAME if key == RAINBOW else table.codes[table.type_card[key]]


def setup(
    table: CardTable,
    position: Mapping[str, Any],
    players: int = 2,
    options: Mapping[str, Any] | None = None,
) -> BlitzState:
    spec = BlitzPosition.model_validate(position)
    state = configure(table, players, options or {}, Chance(0))
    inst = state.inst
    free: dict[int, list[int]] = {d: [] for d in range(len(table.codes))}
    for c in range(len(inst.card)):
        if c not in inst.aside:
            free[inst.card[c]].append(c)

    def take(loc: list[str | int], codes: Sequence[str]) -> list[int]:
        out = []
        for code in codes:
            if code not in table.by_code:
                raise ScenarioError(f"no card '{code}'", loc)
            spare = free[table.by_code[code]]
            if not spare:
                raise ScenarioError(f"no copy of '{code}' is left", loc)
            out.append(spare.pop(0))
        return out

    for p, seat in spec.seats.items():
        state.hands[p - 1] = take(["seats", p, "hand"], seat.hand)
    for p, seat in spec.seats.items():
        if seat.table:
            state.loose[p - 1] = take(["seats", p, "table"], seat.table)
            state._arrange(p - 1)
    state.discards = take(["piles", "discard"], spec.piles.discard)
    if spec.blitz_played:
        state.shown = take(["blitz_played"], [table.codes[table.role_card(BLITZ)]])
        state.blitz_mode = True
    rest = sorted(c for cs in free.values() for c in cs)
    if spec.piles.draw is not None:
        state.deck = take(["piles", "draw"], spec.piles.draw)[::-1]
        state.aside += sorted(set(rest) - set(state.deck))
    else:
        state.deck = rest
        state.chance.shuffle("mazzo", state.deck)
    state.log.clear()
    state.empty = [not hand for hand in state.hands]  # as if each ended a turn so
    for p in spec.skip:
        if not 1 <= p <= players:
            raise ScenarioError(f"seat {p} is not one of 1..{players}", ["skip"])
        state.skip[p - 1] = True
    state.turn_player = (spec.turn or 1) - 1
    if spec.phase == MAIN:
        state.phase = MAIN
        state.turn = 1
        state.exposed = spec.exposed
        state.exposes_left = max(0, 1 - state.exposed)
        state.action_used = spec.action_used
    state._settle()
    forget_opening_turn(state.log)
    return state


def describe_action(state: BlitzState, action: Action) -> dict[str, Any]:
    table = state.table
    code = table.codes
    verb = action[0]
    if verb == "pesca":
        return {"draw": "mazzo" if action[1] < 0 else action[1] + 1}
    if verb == "esponi":
        out: dict[str, Any] = {"expose": code[action[1]]}
        if action[2] != state.turn_player:
            out["to"] = action[2] + 1
        return out
    if verb == "fine":
        return {"end": True}
    if verb in ("blocca", "lascia"):
        return {"block": verb == "blocca"}
    if verb == "scambia":
        return {"take": code[action[1]], "give": code[action[2]]}
    out = {"card": code[action[1]]}
    if len(action) == 3:  # the BLITZ card and its targets
        out["targets"] = [q + 1 for q in action[2]]
    elif len(action) >= 4:
        out["target"] = action[2] + 1
        if isinstance(action[3], int):
            out["collection"] = key_name(table, action[3])
        else:
            out["mode"] = action[3]
        if action[3] == "tavolo":
            mine, src, theirs = action[4:]
            out["give"] = code[table.type_card[mine]]
            out["take"] = code[table.type_card[theirs]]
            out["from"] = "sciolte" if src < 0 else key_name(table, src)
    return out


def parse_action(state: BlitzState, spec: Mapping[str, Any]) -> Action:
    """The legal action the spec describes: the one it equals, else the only one whose
    description contains it."""
    spec = dict(spec)
    found = []
    for action in state.legal_actions():
        described = describe_action(state, action)
        if described == spec:
            return action
        if all(described.get(k) == v for k, v in spec.items()):
            found.append(action)
    if len(found) == 1:
        return found[0]
    if not found:
        raise ValueError(f"no legal move is {spec} (decision: {state.decision_kind()})")
    options = "; ".join(str(describe_action(state, a)) for a in found)
    raise ValueError(f"{spec} is ambiguous, say which: {options}")


def describe_event(table: CardTable, event: Event) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": event.kind}
    if event.player >= 0:
        out["player"] = event.player + 1
    fields = EVENT_FIELDS.get(event.kind, [])
    card = table.instances(max(COLLECTIONS_NEEDED)).card  # ids of deck 1 come first
    for name, value in zip(fields, event.args, strict=False):
        if name in CARD_FIELDS and isinstance(value, int):
            value = table.codes[card[value]]
        elif name in CARDS_FIELDS and isinstance(value, tuple):
            value = [table.codes[card[c]] for c in value]
        elif name in PLAYER_FIELDS and isinstance(value, int):
            value = value + 1
        elif name in PLAYERS_FIELDS:
            value = [q + 1 for q in value]
        elif name == "source":
            value = "mazzo" if value < 0 else value + 1
        elif name == "key":
            value = key_name(table, value)
        out[name] = value
    return out


def check(state: BlitzState, key: str, want: Any) -> list[str]:
    """Failures of one BLITZ expectation, one line each."""
    table = state.table
    code = table.codes
    card = state.inst.card

    def codes(cards: Sequence[int]) -> list[str]:
        return sorted(code[card[c]] for c in cards)

    def per_player(got: Any) -> list[str]:
        out = []
        for p, value in want.items():
            have = got(p - 1)
            if isinstance(value, list):
                value = sorted(value)
            if have != value:
                out.append(f"{key} of player {p}: expected {value!r}, got {have!r}")
        return out

    if key == "collections":
        return per_player(lambda p: sorted(key_name(table, k) for k, _ in state.comp[p]))
    if key == "loose":
        return per_player(lambda p: codes(state.loose[p]))
    if key == "points":
        return per_player(state.points)
    if key in ("possible", "illegal"):
        described = [describe_action(state, a) for a in state.legal_actions()]
        out = []
        for spec in want:
            hit = any(all(d.get(k) == v for k, v in spec.items()) for d in described)
            if hit != (key == "possible"):
                out.append(f"{spec} should {'' if key == 'possible' else 'not '}be legal")
        return out
    got: Any
    if key == "skip":
        got = [p + 1 for p in range(state.num_players) if state.skip[p]]
    elif key == "blitz_mode":
        got = state.blitz_mode
    elif key == "rush":
        got = state.rush_on
    elif key == "exposes_left":
        got = state.exposes_left
    else:
        return [f"unknown expectation '{key}' (known: {', '.join(EXPECT_KEYS)})"]
    return [] if got == want else [f"{key}: expected {want!r}, got {got!r}"]


def position_lines(
    table: CardTable, position: Mapping[str, Any], players: int, options: Mapping[str, Any]
) -> list[str]:
    """The position in Italian, for the rulebook and the site."""
    spec = BlitzPosition.model_validate(position)
    names = {code: r.name for code, r in zip(table.codes, table.records, strict=True)}

    def cards(codes: Sequence[str]) -> str:
        return ", ".join(names.get(c, c) for c in codes) or "niente"

    mode = {"pairs": "a coppie", "teams": "a squadre"}.get(str(options.get("teams")), "")
    head = f"{players} giocatori" + (f" {mode}" if mode else "")
    if options.get("rush"):
        head += ", con il Rush BLITZ concordato"
    if spec.blitz_played or options.get("blitz_mode"):
        head += ", in modalità BLITZ"
    when = "ha già pescato" if spec.phase == MAIN else "inizia il turno"
    out = [f"- {head}; tocca al Giocatore {spec.turn or 1}, che {when}."]
    for p in range(1, players + 1):
        seat = spec.seats.get(p, BlitzSeat())
        parts = [f"in mano {cards(seat.hand)}"]
        if seat.table:
            parts.append(f"sul tavolo {cards(seat.table)}")
        out.append(f"- Giocatore {p}: " + "; ".join(parts) + ".")
    deck = spec.piles.draw
    if deck is not None:
        out.append(
            f"- Mazzo di pesca: {len(deck)} carte"
            + (f", in cima {cards(deck[:3])}." if deck else ".")
        )
    if spec.piles.discard:
        out.append(f"- Negli scarti: {cards(spec.piles.discard)}.")
    return out


def view(state: BlitzState) -> PositionView:
    """The state as a position lists it: whose turn, hands and tables, the deck and discards."""
    code, card = state.table.codes, state.inst.card

    def listed(cards: Sequence[int]) -> list[str]:
        return [code[card[c]] for c in cards]

    seats = [
        {
            "hand": listed(state.hands[p]),
            "table": listed([c for _, cs in state.comp[p] for c in cs] + state.loose[p]),
        }
        for p in range(state.num_players)
    ]
    piles = {"draw": listed(state.deck[::-1]), "discard": listed(state.discards)}
    return PositionView(state.turn_player + 1, None, seats, piles)
