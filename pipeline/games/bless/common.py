"""Bless: what the state and its rule classes share: constants, the event fields, the
shape of a pending decision and the small helpers of the clash and the Mulligan."""

from __future__ import annotations

from itertools import combinations
from typing import Any

from pipeline.engine.core import Chance, Event

from .compiler import ALT, ASIDE, HAND, MAL, PRE, Reader
from .deck import BlessDeck

SLUG = "bless"
OPTION_NAMES = ("altar", "max_turns", "first_player")
KINDS = {HAND: "hand", MAL: "maledizioni", PRE: "preghiere", ALT: "altare", ASIDE: "aside"}
INTO = {"maledizione": MAL, "preghiera": PRE}
ATT, DEF, TIE = 0, 1, 2
LIMIT_MAL, LIMIT_ECO = 4, 2
HAND_SIZE = 4
FINAL_TURNS = 5
EVENT_FIELDS = {
    "setup": ["altar_limit", "cards"],
    "chance": ["what", "outcome"],
    "deal": ["cards"],
    "first": [],
    "action": ["action"],
    "turn": ["turn", "actions"],
    "mulligan": ["set_aside", "drawn"],
    "draw": ["cards"],
    "refill": ["cards"],
    "cala": ["card", "into", "cost"],
    "enter": ["card", "zone", "how"],
    "stasi": ["card"],
    "stasi_end": [],
    "attack": ["attacker", "defender"],
    "direct": ["attacker"],
    "fato": ["card", "guess", "roll", "hit"],
    "clash": ["attacker", "defender", "eye_attacker", "eye_defender", "result"],
    "clash_void": ["attacker", "defender"],
    "corrupt": ["card"],
    "barrier": ["card"],
    "purify": ["card"],
    "break": ["card", "to"],
    "offer": ["card", "attacker"],
    "decline_offer": ["card"],
    "bless": ["card", "points", "reason"],
    "score": ["points", "card"],
    "invoke": ["card", "by"],
    "respond": ["card"],
    "effect": ["card", "side", "trigger", "this"],
    "decline": ["card"],
    "lasting": ["card", "kind", "targets", "duration"],
    "bind": ["legame", "host"],
    "no_host": ["legame"],
    "limit": ["card", "kind"],
    "take": ["card", "zone"],
    "discard": ["card"],
    "return": ["card", "to"],
    "control": ["card"],
    "copy": ["card", "of", "side"],
    "actions": ["amount", "card"],
    "end_now": ["card"],
    "end_turn": [],
    "final": ["how", "last_turn", "altar"],
    "end": ["scores", "winner"],
}


# A NamedTuple (Frame, Event) built from all its fields without its Python-level
# __new__: a hot path, compiled or not.
new_tuple = tuple.__new__


def zone_name(zone: int) -> str:
    """A zone's name in scenarios and State.zones(): mazzo, vuoto, hand-1, altare-2 ..."""
    if zone < 2:
        return ("mazzo", "vuoto")[zone]
    return f"{KINDS[zone >> 1]}-{(zone & 1) + 1}"


class Decision:
    """What the game waits for: who decides, what kind of decision (main, mulligan, target,
    host, limit, order, yesno, offer, fato, into, forma), among which options, the task that
    takes the answer (None for the main phase) and the cards it is about. Never changed once
    made (a C class in the compiled build: common.pxd)."""

    __slots__ = ("about", "kind", "options", "player", "resume")

    def __init__(
        self,
        player: int,
        kind: str,
        options: tuple[Any, ...],
        resume: tuple[Any, ...] | None,
        about: tuple[int, ...],
    ):
        self.player, self.kind, self.options = player, kind, options
        self.resume, self.about = resume, about

    def __repr__(self) -> str:
        return f"Decision({self.player}, {self.kind!r}, {self.options!r}, about={self.about!r})"


def clash_eye(mine: tuple, theirs: tuple) -> int:
    """Occhio in a clash from two clash profiles: Rivalità against another Forma."""
    raw, locked, forma, rival = mine[0], mine[1], mine[2], mine[3]
    if not locked and rival and forma != theirs[2] and forma != 3 and theirs[2] != 3:
        raw += 3
    return max(0, raw)


def subsets(cards: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every subset of the hand, each in hand order (the Mulligan's options)."""
    return [s for size in range(len(cards) + 1) for s in combinations(cards, size)]


def is_subset(chosen: Any, cards: tuple[int, ...]) -> bool:
    """`chosen` is a tuple of cards of `cards`, each at most once, in the order of `cards`:
    each is found after the one before it."""
    if not isinstance(chosen, tuple):
        return False
    start = 0
    for c in chosen:
        try:
            start = cards.index(c, start) + 1
        except ValueError:
            return False
    return True


class GameFields(Reader):
    """The fields of a Bless game (set in BlessGame.__init__) and the bookkeeping every rule
    does (log, task stack, pending decision), at the root of one chain of classes:
    GameFields <- Values <- Effects <- Field <- Turns <- BlessGame, a module each (on
    compiler.Reader: the few fields and values a compiled filter reads).

    One chain rather than mixins, so that the compiled build can make each of them a C
    class (common.pxd and its siblings): fields read as struct members and the hot methods
    called without a lookup, as plain compiled classes are not (benchmarks/engine.py
    measures the difference). In Python the fields are slots (the other classes add none).
    """

    __slots__ = (
        "_busy",
        "_collected",
        "_fx",
        "_fx_base",
        "_fx_more",
        "_sources",
        "_vals",
        "actions",
        "active",
        "altar_limit",
        "attacked",
        "barrier",
        "blessed",
        "bonus",
        "chance",
        "deck",
        "end_now",
        "final_by",
        "final_how",
        "final_last",
        "first",
        "host",
        "invoked",
        "known",
        "lasting",
        "log",
        "max_turns",
        "num_players",
        "over",
        "pending",
        "responded",
        "scores",
        "since",
        "stack",
        "triggers",
        "ts",
        "turn",
        "version",
        "winner",
    )

    deck: BlessDeck  # the cards of the game (and their texts)
    log: list[Event]
    chance: Chance
    num_players: int
    altar_limit: int
    max_turns: int
    attacked: list[int]
    invoked: list[int]
    # known[p]: bit c set while player p knows that card c is in the other hand, having
    # seen it go there from a public zone; a card that leaves a hand is forgotten
    known: list[int]
    responded: list[int]
    barrier: list[int]
    host: list[int]
    since: list[int]
    lasting: list[Any]
    scores: list[int]
    blessed: list[int]
    bonus: list[int]
    turn: int
    active: int
    first: int
    actions: int
    end_now: bool
    final_by: int
    final_how: str
    final_last: int
    over: bool
    winner: int
    stack: list[tuple[Any, ...]]
    triggers: list[tuple[Any, ...]]
    pending: Decision | None
    ts: int
    version: int
    _fx: dict[str, Any] | None
    _fx_base: dict[str, Any] | None
    _fx_more: list[Any]
    _sources: dict[tuple[int, int, int, int], Any]  # values._Sources by place
    _collected: dict[tuple[Any, ...], dict[str, Any]]
    _vals: dict[int, Any]
    _busy: set[int]

    # -- the bookkeeping every rule does -----------------------------------------------------

    def _log(self, kind: str, player: int, args: tuple[Any, ...] = ()) -> None:
        self.log.append(new_tuple(Event, (kind, player, args)))

    def _push(self, task: tuple[Any, ...]) -> None:
        self.stack.append(task)

    def _tick(self) -> int:
        self.ts += 1
        return self.ts

    def _decide(
        self,
        player: int,
        kind: str,
        options: tuple[Any, ...],
        resume: tuple[Any, ...] | None,
        about: tuple[int, ...],
    ) -> None:
        self.pending = Decision(player, kind, options, resume, about)

    def _trigger(self, ab: Any, user: int, this: int, host: int = -1) -> None:
        self.triggers.append((ab, user, this, host))
