"""BLITZ's vocabulary for worked examples (scenario format 2).

A position names, by card code and with players 1..N: ``hands``, ``tables`` (the exposed
cards, grouped at their owner's best), ``deck`` (top card first; when given, the cards the
position does not place stay out of the game, else they are shuffled into the deck),
``discards``, ``turn`` (whose turn), ``phase`` (``start``: the turn begins, the default;
``main``: the card is drawn), ``exposed`` and ``action_used`` (in ``main``), ``skip``,
``blitz_played``. Moves: ``{draw: mazzo}``, ``{draw: 2}``, ``{expose: fuoco}`` (``to: 3``
for a partner), ``{card: ruba-x1, target: 2, collection: fuoco|diverse}``,
``{card: scambia-x1, target: 2, mode: mano}``, ``{card: scambia-x1, target: 2, mode: tavolo,
give: aria, take: fuoco, from: sciolte|fuoco|diverse}``, ``{card: blitz, targets: [2, 3]}``,
``{card: pesca-x2}``, ``{end: true}``, ``{block: true|false}``, ``{take: aria, give: fuoco}``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.engine.core import Action, Chance, Event
from pipeline.engine.scenario import PositionView

from .cards import BLITZ, COLLECTIONS_NEEDED, RAINBOW, CardTable
from .decisions import MAIN
from .state import EVENT_FIELDS, BlitzState, configure

POSITION_KEYS = {
    "hands",
    "tables",
    "deck",
    "discards",
    "turn",
    "phase",
    "exposed",
    "action_used",
    "skip",
    "blitz_played",
}
CARD_FIELDS = {"card", "took", "gave"}
CARDS_FIELDS = {"cards"}
PLAYER_FIELDS = {"owner", "target", "against"}
PLAYERS_FIELDS = {"targets", "skips", "winners"}
EXPECT_KEYS = (
    "hands",
    "hand_sizes",
    "collections",
    "loose",
    "points",
    "deck",
    "discards",
    "skip",
    "blitz_mode",
    "rush",
    "turn_player",
    "exposes_left",
    "possible",
    "illegal",
)
RAINBOW_NAME = "diverse"


def key_name(table: CardTable, key: int) -> str:
    return RAINBOW_NAME if key == RAINBOW else table.codes[table.type_card[key]]


def setup(
    table: CardTable,
    position: Mapping[str, Any],
    players: int = 2,
    options: Mapping[str, Any] | None = None,
) -> BlitzState:
    unknown = set(position) - POSITION_KEYS
    if unknown:
        raise ValueError(f"unknown position keys: {', '.join(sorted(unknown))}")
    state = configure(table, players, options or {}, Chance(0))
    inst = state.inst
    free: dict[int, list[int]] = {d: [] for d in range(len(table.codes))}
    for c in range(len(inst.card)):
        if c not in inst.aside:
            free[inst.card[c]].append(c)

    def take(where: str, codes: Any) -> list[int]:
        out = []
        for code in codes or []:
            if code not in table.by_code:
                raise ValueError(f"{where}: no card '{code}'")
            spare = free[table.by_code[code]]
            if not spare:
                raise ValueError(f"{where}: no copy of '{code}' is left")
            out.append(spare.pop(0))
        return out

    def seat(where: str, p: Any) -> int:
        p = int(p) if str(p).isdigit() else p
        if not isinstance(p, int) or not 1 <= p <= players:
            raise ValueError(f"{where}: player {p!r} is not one of 1..{players}")
        return p - 1

    for p, codes in (position.get("hands") or {}).items():
        state.hands[seat("hands", p)] = take(f"hands.{p}", codes)
    for p, codes in (position.get("tables") or {}).items():
        q = seat("tables", p)
        state.loose[q] = take(f"tables.{p}", codes)
        state._arrange(q)
    state.discards = take("discards", position.get("discards"))
    if position.get("blitz_played"):
        state.shown = take("blitz_played", [table.codes[table.role_card(BLITZ)]])
        state.blitz_mode = True
    rest = sorted(c for cs in free.values() for c in cs)
    if "deck" in position:
        state.deck = take("deck", position["deck"])[::-1]
        state.aside += sorted(set(rest) - set(state.deck))
    else:
        state.deck = rest
        state.chance.shuffle("mazzo", state.deck)
    state.log.clear()
    state.empty = [not hand for hand in state.hands]  # as if each ended a turn so
    for p in position.get("skip") or []:
        state.skip[seat("skip", p)] = True
    state.turn_player = seat("turn", position.get("turn", 1))
    phase = position.get("phase", "start")
    if phase == MAIN:
        state.phase = MAIN
        state.turn = 1
        state.exposed = int(position.get("exposed", 0))
        state.exposes_left = max(0, 1 - state.exposed)
        state.action_used = bool(position.get("action_used", False))
    elif phase != "start":
        raise ValueError(f"phase: '{phase}' is not start or main")
    state._settle()
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
    table = state.table
    code = table.codes
    card = state.inst.card

    def codes(cards: Sequence[int]) -> list[str]:
        return sorted(code[card[c]] for c in cards)

    def per_player(got: Any) -> list[str]:
        out = []
        for p, value in dict(want).items():
            have = got(int(p) - 1)
            if isinstance(value, list):
                value = sorted(value)
            if have != value:
                out.append(f"{key} of player {p}: expected {value!r}, got {have!r}")
        return out

    if key == "hands":
        return per_player(lambda p: codes(state.hands[p]))
    if key == "hand_sizes":
        return per_player(lambda p: len(state.hands[p]))
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
    if key == "deck":
        got = len(state.deck)
    elif key == "discards":
        got = [code[card[c]] for c in state.discards]
    elif key == "skip":
        got = [p + 1 for p in range(state.num_players) if state.skip[p]]
    elif key == "blitz_mode":
        got = state.blitz_mode
    elif key == "rush":
        got = state.rush_on
    elif key == "turn_player":
        got = state.turn_player + 1
    elif key == "exposes_left":
        got = state.exposes_left
    else:
        return [f"unknown expectation '{key}' (known: {', '.join(EXPECT_KEYS)})"]
    return [] if got == want else [f"{key}: expected {want!r}, got {got!r}"]


def position_lines(
    table: CardTable, position: Mapping[str, Any], players: int, options: Mapping[str, Any]
) -> list[str]:
    """The position in Italian, for the rulebook and the site."""
    names = {code: r.name for code, r in zip(table.codes, table.records, strict=True)}

    def cards(codes: Sequence[str]) -> str:
        return ", ".join(names.get(c, c) for c in codes) or "niente"

    mode = {"pairs": "a coppie", "teams": "a squadre"}.get(str(options.get("teams")), "")
    head = f"{players} giocatori" + (f" {mode}" if mode else "")
    if options.get("rush"):
        head += ", con il Rush BLITZ concordato"
    if position.get("blitz_played") or options.get("blitz_mode"):
        head += ", in modalità BLITZ"
    turn = position.get("turn", 1)
    when = "ha già pescato" if position.get("phase") == MAIN else "inizia il turno"
    out = [f"- {head}; tocca al Giocatore {turn}, che {when}."]
    hands = {int(k): v for k, v in (position.get("hands") or {}).items()}
    tables = {int(k): v for k, v in (position.get("tables") or {}).items()}
    for p in range(1, players + 1):
        parts = [f"in mano {cards(hands.get(p, []))}"]
        if tables.get(p):
            parts.append(f"sul tavolo {cards(tables[p])}")
        out.append(f"- Giocatore {p}: " + "; ".join(parts) + ".")
    if "deck" in position:
        deck = position["deck"]
        out.append(
            f"- Mazzo di pesca: {len(deck)} carte"
            + (f", in cima {cards(deck[:3])}." if deck else ".")
        )
    if position.get("discards"):
        out.append(f"- Negli scarti: {cards(position['discards'])}.")
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
