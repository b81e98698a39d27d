"""Bless's words for worked examples (the shared vocabulary: pipeline/engine/scenario.py).

Players are seats 1 and 2, cards are named by code. A seat's zones are ``hand``, ``curses``
(its Maledizioni, each Corrotta or in Stasi if said so), ``prayers`` (its Preghiere, a
Legame with its ``host``) and ``altar``; the piles are ``draw`` (the Mazzo, top card first)
and ``discard`` (the Vuoto, bottom first). A position may start at the end of the turn
(``phase: end``), with a Barriera already in force (``barrier``) and with what was already
used this turn (Maledizioni that ``attacked``, Preghiere ``invoked``, Eco that
``responded``). Zone names in expectations: ``hand-1``, ``curses-2``, ``prayers-1``,
``altar-2``, ``draw``, ``discard``.
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
    Strict,
    Vocabulary,
)

from .common import EVENT_FIELDS
from .compiler import ALT, HAND, KAR, LEGAME, LUCE, MAL, MAZZO, OCC, OMBRA, PRE, VUOTO
from .deck import BlessDeck
from .narrate import player_name
from .state import BlessGame

FORMA_NAMES = {1: "Luce", 2: "Ombra", 3: "Duale"}
KEYWORDS = ("Rivalita", "Impatto", "Barriera", "Fato")
SEAT_ZONES = {HAND: "hand", MAL: "curses", PRE: "prayers", ALT: "altar"}
CARD_FIELDS = ("card", "attacker", "defender", "legame", "host", "of")
CARD_LISTS = ("cards", "set_aside", "drawn", "targets")
CHOICE_WORDS = {"yes": 1, "no": 0, "pari": 0, "dispari": 1, "Luce": LUCE, "Ombra": OMBRA}
CLASH_RESULTS = ("attacker", "defender", "tie")


class Curse(Strict):
    """A Maledizione in play."""

    card: str
    corrupted: bool = False
    stasis: bool = False


class Prayer(Strict):
    """A Preghiera in play."""

    card: str
    host: str | None = None  # a Legame's Maledizione


class BlessSeat(Seat):
    hand: list[str] = []
    curses: list[str | Curse] = []
    prayers: list[str | Prayer] = []
    altar: list[str] = []


class BlessPiles(Piles):
    discard: list[str] = []  # the Vuoto, bottom first


class FinalTurns(Strict):
    by: Literal[1, 2]
    how: Literal["altare", "mazzo"] = "altare"
    last_turn: int


class BlessPosition(Position[BlessSeat, BlessPiles]):
    """Cards not placed anywhere go to the Mazzo, under those listed on top of it. The turn
    is seat 1's (``turn``), turn number 3, unless said otherwise."""

    seed: int = 0
    dice: list[int] = []  # die rolls for Fato clashes, in order
    first: Literal[1, 2] = 1
    phase: Literal["main", "end"] = "main"  # end: the turn ends now (its Mulligan is next)
    actions: int = Field(default=3, ge=0)
    scores: list[int] = Field(default=[0, 0], min_length=2, max_length=2)
    attacked: list[str] = []  # Maledizioni that already attacked this turn
    invoked: list[str] = []  # Preghiere already invoked this turn
    responded: list[str] = []  # Eco that already answered this turn
    barrier: list[str] = []  # Maledizioni whose Barriera is in force this turn
    final: FinalTurns | None = None


class CardState(Strict):
    """What a card is now; only the fields given are checked (false checks the negative)."""

    zone: str | None = None
    corrupted: bool | None = None
    stasis: bool | None = None
    barrier: bool | None = None  # its Barriera holds this turn
    eye: int | None = None  # its Occhio now
    karma: int | None = None
    form: Literal["Luce", "Ombra", "Duale"] | None = None
    keywords: list[str] | None = None  # exactly these keywords now
    has: list[str] | None = None  # at least these
    lacks: list[str] | None = None  # none of these
    host: str | None = None
    answered: bool | None = None  # an Eco that already answered this turn


class FinalCheck(Strict):
    by: int | None = None
    how: str | None = None
    last_turn: int | None = None


class BlessExpect(Expect):
    scores: list[int] | None = None
    zones: dict[str, str] | None = None  # card -> its zone (hand-1, curses-2, draw ...)
    cards: dict[str, CardState] | None = None
    top: dict[Literal["draw", "discard"], str | None] | None = None  # a pile's top card
    corrupted: list[str] | None = None  # these Maledizioni are in play and Corrotte
    pure: list[str] | None = None  # these are in play and Pure
    stasis: list[str] | None = None  # these are in play and in Stasi
    eye: dict[str, int] | None = None  # a card's Occhio now
    karma: dict[str, int] | None = None
    host: dict[str, str | None] | None = None  # a Legame's host
    actions: int | None = None  # the Azioni left
    final: FinalCheck | None = None  # the final turns
    illegal: list[Any] | None = None  # these moves are not legal now


VOCABULARY = Vocabulary(BlessPosition, BlessExpect)
EXPECT_KEYS = tuple(VOCABULARY.game_keys())


def zone_label(zone: int) -> str:
    """A zone as scenarios name it: hand-1, curses-2, prayers-1, altar-2, draw, discard."""
    if zone == MAZZO:
        return "draw"
    if zone == VUOTO:
        return "discard"
    return f"{SEAT_ZONES[zone >> 1]}-{(zone & 1) + 1}"


def place(deck: BlessDeck, spec: BlessPosition, altar: int = 5) -> BlessGame:
    """A game set up in the position: cards not placed anywhere go to the Mazzo, under the
    ones listed on top of it, in number order; ``spec.dice`` scripts the Fato die rolls."""
    chance = Chance(spec.seed, forced={"dado": list(spec.dice)})
    g = BlessGame(deck, spec.seed, {"altar": altar, "max_turns": 400}, chance, deal=False)
    g.piles[MAZZO] = []
    placed: list[int] = []

    def card(code: str, loc: Sequence[str | int]) -> int:
        try:
            return deck.card(code)
        except KeyError as exc:
            raise ScenarioError(exc.args[0], loc) from None

    def put(code: str, zone: int, loc: Sequence[str | int]) -> int:
        c = card(code, loc)
        if c in placed:
            raise ScenarioError(f"{code} is placed twice", loc)
        placed.append(c)
        g.piles[zone].append(c)
        g.zone[c] = zone
        g.since[c] = g._tick()
        return c

    bonds = []
    for p in (0, 1):
        seat, at = spec.seats.get(p + 1, BlessSeat()), ("seats", p + 1)
        for code in seat.hand:
            put(code, 2 * HAND + p, (*at, "hand"))
        for item in seat.curses:
            curse = Curse(card=item) if isinstance(item, str) else item
            c = put(curse.card, 2 * MAL + p, (*at, "curses"))
            g.corrupt[c], g.stasi[c] = int(curse.corrupted), int(curse.stasis)
        for entry in seat.prayers:
            prayer = Prayer(card=entry) if isinstance(entry, str) else entry
            c = put(prayer.card, 2 * PRE + p, (*at, "prayers"))
            if deck.cards[c].prayer == LEGAME:
                if prayer.host is None:
                    raise ScenarioError(f"the Legame {prayer.card} needs a host", (*at, "prayers"))
                bonds.append((c, card(prayer.host, (*at, "prayers"))))
        for code in seat.altar:
            put(code, 2 * ALT + p, (*at, "altar"))
    for code in spec.piles.discard:
        put(code, VUOTO, ("piles", "discard"))
    top = [put(code, MAZZO, ("piles", "draw")) for code in spec.piles.draw or []]
    rest = [c for c in range(len(deck.cards)) if c not in placed]
    for c in rest:
        g.zone[c] = MAZZO
    g.piles[MAZZO] = sorted(rest, reverse=True) + top[::-1]
    for legame, host in bonds:
        g.host[legame] = host
    g.turn = spec.turn_number or 3
    for key, used in (
        ("attacked", g.attacked),
        ("invoked", g.invoked),
        ("responded", g.responded),
        ("barrier", g.barrier),
    ):
        for code in getattr(spec, key):
            used[card(code, (key,))] = g.turn
    g.active = (spec.turn or 1) - 1
    g.first = spec.first - 1
    g.actions = spec.actions
    g.scores = list(spec.scores)
    g.bonus = g.scores[:]
    if spec.final:
        g.final_by, g.final_how = spec.final.by - 1, spec.final.how
        g.final_last = spec.final.last_turn
    g._dirty()
    if spec.phase == "end":
        g._push(("end_turn",))
    g._run()
    return g


def setup(
    deck: BlessDeck, position: Mapping[str, Any], players: int, options: Mapping[str, Any]
) -> BlessGame:
    return place(deck, BlessPosition.model_validate(position), int(options.get("altar", 5)))


def parse_action(state: BlessGame, spec: Any) -> Action:
    """``end``, ``{cast: x, as: preghiera}`` (Calare; as a Maledizione by default),
    ``{attack: x, target: y}``, ``{attack: x, direct: true}``, ``{invoke: x}``,
    ``{remove_stasi: x}``, ``{choose: value}``."""
    deck = state.deck
    if spec in ("end", {"end": True}):
        return ("end",)
    if not isinstance(spec, Mapping) or not 1 <= len(spec) <= 2:
        raise ScenarioError(f"not a Bless move: {spec!r}")
    if "cast" in spec:
        return ("cala", deck.card(spec["cast"]), spec.get("as", "maledizione"))
    if "remove_stasi" in spec:
        return ("stasi", deck.card(spec["remove_stasi"]))
    if "invoke" in spec:
        return ("invoke", deck.card(spec["invoke"]))
    if "attack" in spec:
        if spec.get("direct"):
            return ("direct", deck.card(spec["attack"]))
        return ("attack", deck.card(spec["attack"]), deck.card(spec["target"]))
    if "choose" in spec:
        choice = _choice(deck, spec["choose"])
        if isinstance(choice, tuple) and state.pending is not None:
            order = state.pending.options
            choice = tuple(sorted(choice, key=lambda c: order.index(c) if c in order else -1))
        return ("choose", choice)
    raise ScenarioError(f"not a Bless move: {spec!r}")


def _choice(deck: BlessDeck, value: Any) -> Any:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, list):
        return tuple(deck.card(v) for v in value)
    if value in CHOICE_WORDS:
        return CHOICE_WORDS[value]
    if value in ("maledizione", "preghiera"):
        return MAL if value == "maledizione" else PRE
    return deck.card(value)


def describe_action(state: BlessGame, action: Action) -> dict[str, Any]:
    deck = state.deck
    kind = action[0]
    if kind == "end":
        return {"end": True}
    if kind == "cala":
        return {"cast": deck.code(action[1]), "as": action[2]}
    if kind == "stasi":
        return {"remove_stasi": deck.code(action[1])}
    if kind == "invoke":
        return {"invoke": deck.code(action[1])}
    if kind == "direct":
        return {"attack": deck.code(action[1]), "direct": True}
    if kind == "attack":
        return {"attack": deck.code(action[1]), "target": deck.code(action[2])}
    choice = action[1]
    d = state.pending
    if isinstance(choice, tuple):
        return {"choose": [deck.code(c) for c in choice]}
    if d is not None and d.kind in ("offer", "yesno"):
        return {"choose": "yes" if choice else "no"}
    if d is not None and d.kind == "fato":
        return {"choose": "dispari" if choice else "pari"}
    if d is not None and d.kind == "into":
        return {"choose": "maledizione" if choice == MAL else "preghiera"}
    if d is not None and d.kind == "forma":
        return {"choose": FORMA_NAMES[choice]}
    return {"choose": deck.code(choice)}


def describe_event(deck: BlessDeck, event: Event) -> dict[str, Any]:
    out: dict[str, Any] = {"kind": event.kind}
    if event.player >= 0:
        out["player"] = event.player + 1
    for name, value in zip(EVENT_FIELDS.get(event.kind, ()), event.args, strict=False):
        if name in CARD_FIELDS and isinstance(value, int):
            value = deck.code(value) if value >= 0 else None
        elif name in CARD_LISTS and isinstance(value, tuple):
            value = [deck.code(c) for c in value]
        elif name == "zone" and isinstance(value, int):
            value = SEAT_ZONES[value] if value >= HAND else zone_label(value)
        elif name == "result" and event.kind == "clash":
            value = CLASH_RESULTS[value]
        out[name] = value
    return out


# -- expectations ----------------------------------------------------------------------


def check(state: BlessGame, key: str, want: Any) -> list[str]:
    """Failures of one Bless expectation, one line each."""
    deck, g = state.deck, state
    out: list[str] = []

    def same(label: str, got: Any, value: Any) -> None:
        if got != value:
            out.append(f"{label}: expected {value!r}, got {got!r}")

    try:
        if key == "scores":
            same("scores", list(g.scores), want)
        elif key == "zones":
            for code, zone in want.items():
                same(f"zone of {code}", zone_label(g.zone[deck.card(code)]), zone)
        elif key == "cards":
            for code, fields in want.items():
                out += _card_state(deck, g, code, CardState.model_validate(fields))
        elif key == "top":
            for name, code in want.items():
                pile = g.piles[MAZZO if name == "draw" else VUOTO]
                same(f"top of {name}", deck.code(pile[-1]) if pile else None, code)
        elif key in ("corrupted", "pure", "stasis"):
            flags, value = (g.stasi, 1) if key == "stasis" else (g.corrupt, int(key != "pure"))
            for code in want:
                c = deck.card(code)
                if flags[c] != value or g.zone[c] >> 1 != MAL:
                    out.append(f"{code} is not {key}")
        elif key in ("eye", "karma"):
            stat = OCC if key == "eye" else KAR
            for code, value in want.items():
                same(f"{key} of {code}", g.stat(deck.card(code), stat), value)
        elif key == "host":
            for code, host in want.items():
                got = g.host[deck.card(code)]
                same(f"host of {code}", deck.code(got) if got >= 0 else None, host)
        elif key == "actions":
            same("actions", g.actions, want)
        elif key == "illegal":
            legal = g.legal_actions()
            for spec in want:
                if parse_action(g, spec) in legal:
                    out.append(f"{spec} should not be legal")
        elif key == "final":
            final = {"by": g.final_by + 1, "how": g.final_how, "last_turn": g.final_last}
            same("final turns", {k: final.get(k) for k in want}, want)
        else:
            out.append(f"unknown expectation '{key}' (known: {', '.join(EXPECT_KEYS)})")
    except (KeyError, ValueError) as exc:
        out.append(f"{key}: cannot check {want!r} ({exc})")
    return out


def _card_state(deck: BlessDeck, g: BlessGame, code: str, want: CardState) -> list[str]:
    c = deck.card(code)
    on_field = g.zone[c] >> 1 == MAL
    got: dict[str, Any] = {
        "zone": zone_label(g.zone[c]),
        "corrupted": on_field and bool(g.corrupt[c]),
        "stasis": on_field and bool(g.stasi[c]),
        "barrier": g.barrier[c] == g.turn,
        "eye": g.stat(c, OCC),
        "karma": g.stat(c, KAR),
        "form": FORMA_NAMES[g.forma(c)],
        "keywords": [k for k in KEYWORDS if g.has(c, k)],
        "host": deck.code(g.host[c]) if g.host[c] >= 0 else None,
        "answered": g.responded[c] == g.turn,
    }
    out = []
    for name, value in want.model_dump(exclude_none=True).items():
        if name == "has":
            missing = [k for k in value if k not in got["keywords"]]
            if missing:
                out.append(f"{code} lacks {missing} (has {got['keywords']})")
        elif name == "lacks":
            extra = [k for k in value if k in got["keywords"]]
            if extra:
                out.append(f"{code} has {extra}")
        elif got[name] != value:
            out.append(f"{name} of {code}: expected {value!r}, got {got[name]!r}")
    return out


# -- narration of a position -----------------------------------------------------------


def position_lines(
    deck: BlessDeck, position: Mapping[str, Any], players: int, options: Mapping[str, Any]
) -> list[str]:
    spec = BlessPosition.model_validate(position)

    def name(code: str) -> str:
        return str(deck.cards[deck.card(code)].name)

    out = [
        f"- Turno {spec.turn_number or 3} di {player_name((spec.turn or 1) - 1)}, con "
        f"{spec.actions} Azioni; punti {spec.scores[0]} a {spec.scores[1]}."
    ]
    for p in (1, 2):
        seat = spec.seats.get(p, BlessSeat())
        parts = []
        if seat.hand:
            parts.append("in mano " + ", ".join(name(c) for c in seat.hand))
        for item in seat.curses:
            curse = Curse(card=item) if isinstance(item, str) else item
            state = "Corrotta" if curse.corrupted else "Pura"
            stasis = ", in Stasi" if curse.stasis else ""
            parts.append(f"Maledizione {name(curse.card)} ({state}{stasis})")
        for entry in seat.prayers:
            prayer = Prayer(card=entry) if isinstance(entry, str) else entry
            bond = f", legata a {name(prayer.host)}" if prayer.host else ""
            parts.append(f"Preghiera {name(prayer.card)}{bond}")
        if seat.altar:
            parts.append(f"{len(seat.altar)} carte nell'Altare")
        text = "; ".join(parts) if parts else "niente in campo"
        out.append(f"- {player_name(p - 1)}: {text}.")
    if spec.piles.discard:
        out.append("- Nel Vuoto: " + ", ".join(name(c) for c in spec.piles.discard) + ".")
    if spec.responded:
        answered = ", ".join(name(c) for c in spec.responded)
        out.append(f"- Hanno già risposto in questo turno: {answered}.")
    if spec.barrier:
        out.append("- Barriera in corso: " + ", ".join(name(c) for c in spec.barrier) + ".")
    if spec.phase == "end":
        out.append("- Il turno sta finendo.")
    return out


def view(state: BlessGame) -> PositionView:
    """The state as a position lists it: the active player's turn, each seat's hand, curses,
    prayers and altar, the Mazzo from its top and the Vuoto."""
    code = state.deck.code
    seats = [
        {
            **{
                zone: [code(c) for c in state.piles[2 * kind + p]]
                for zone, kind in (
                    ("hand", HAND),
                    ("curses", MAL),
                    ("prayers", PRE),
                    ("altar", ALT),
                )
            },
            "score": state.scores[p],  # the Punti Vittoria, for the step-through board
        }
        for p in (0, 1)
    ]
    piles = {
        "draw": [code(c) for c in reversed(state.piles[MAZZO])],
        "discard": [code(c) for c in state.piles[VUOTO]],
    }
    return PositionView(state.active + 1, state.turn, seats, piles)
