"""Bless: the game state, its public interface (core.State) and the engine loop that runs
tasks until the next real decision. The rules themselves are in the classes it extends
(GameFields <- Values <- Effects <- Field <- Turns <- BlessGame)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar

from pipeline.engine.core import Action, Chance, Event, IllegalAction, Outcome

from .common import (
    EVENT_FIELDS,
    LIMIT_ECO,
    LIMIT_MAL,
    SLUG,
    Decision,
    GameFields,
    is_subset,
    subsets,
    zone_name,
)
from .compiler import ALT, ASIDE, ECO, HAND, KAR, LEGAME, MAL, MAZZO, OCC, PRE, VUOTO, Reader
from .deck import BlessDeck
from .effects import Frame
from .field import Field
from .turns import Turns

ESTIMATE_SCALE = 20.0  # of value(): two points of score (see estimate)
# State.zones(): every pile by name (zones 2 and 3 hold nothing: per-player kinds start at 2)
ZONE_NAMES = tuple((z, zone_name(z)) for z in range(2 * ASIDE + 2) if z < 2 or z > 3)


class BlessGame(Turns):
    """One game of Bless. State is ints and small lists; `clone` copies them explicitly."""

    slug = SLUG
    EVENT_FIELDS = EVENT_FIELDS

    def __init__(
        self,
        deck: BlessDeck,
        seed: int,
        options: dict[str, Any],
        chance: Chance | None = None,
        deal: bool = True,
    ):
        self.deck = deck
        self.info = deck.cards
        self.num_players = 2
        n = len(self.info)
        self.altar_limit = int(options.get("altar", 5))
        self.max_turns = int(options.get("max_turns", 400))
        self.log: list[Event] = []
        self.chance = chance or Chance(seed)
        self.chance.log = self.log
        self.zone = [MAZZO] * n
        self.piles: list[list[int]] = [[] for _ in range(2 * ASIDE + 2)]
        self.piles[MAZZO] = list(range(n))
        self.corrupt = [0] * n
        self.stasi = [0] * n
        self.attacked = [-1] * n
        self.invoked = [-1] * n
        self.known = [0, 0]
        self.responded = [-1] * n
        self.barrier = [-1] * n
        self.host = [-1] * n
        self.since = [0] * n
        self.lasting: list[Any] = []
        self.scores = [0, 0]
        self.blessed = [0, 0]
        self.bonus = [0, 0]
        self.turn = 0
        self.active = 0
        self.first = 0
        self.actions = 0
        self.end_now = False
        self.final_by = -1
        self.final_how = ""
        self.final_last = -1
        self.over = False
        self.winner = -1
        self.stack: list[tuple[Any, ...]] = []
        self.triggers: list[tuple[Any, ...]] = []
        self.pending: Decision | None = None
        self.fight: tuple[int, int] | None = None
        self.ts = 0
        self.version = 0
        self._fx: dict[str, Any] | None = None
        self._fx_base: dict[str, Any] | None = None  # what was in force, with _fx_more to add
        self._fx_more: list[Any] = []
        self._sources: dict[tuple[int, int, int, int], Any] = {}  # static entries by place
        self._collected: dict[tuple[Any, ...], dict[str, Any]] = {}  # effects in force, by source
        self._vals: dict[int, Any] = {}
        self._busy: set[int] = set()
        if deal:
            self._setup(options)

    # -- the interface ----------------------------------------------------------------------

    def current_player(self) -> int:
        return -1 if self.over or self.pending is None else self.pending.player

    def decision_kind(self) -> str:
        return "" if self.over or self.pending is None else self.pending.kind

    def legal_actions(self) -> list[Action]:
        d = self.pending
        if self.over or d is None:
            return []
        if d.kind == "main":
            return list(d.options)
        if d.kind == "mulligan":
            return [("choose", s) for s in subsets(d.options)]
        return [("choose", o) for o in d.options]

    def apply(self, action: Action) -> None:
        d = self.pending
        if self.over or d is None:
            raise IllegalAction("the game is over")
        if d.kind == "main":
            if action not in d.options:
                raise IllegalAction(f"{action} is not a legal action now")
            choice = action
        elif d.kind == "mulligan":
            if not (len(action) == 2 and action[0] == "choose" and is_subset(action[1], d.options)):
                raise IllegalAction(f"{action} does not set aside cards of the hand, in its order")
            choice = tuple(action[1])
        else:
            if len(action) != 2 or action[0] != "choose" or action[1] not in d.options:
                raise IllegalAction(f"{action} is not one of the options of this {d.kind}")
            choice = action[1]
        self._log("action", d.player, tuple(action))
        self.pending = None
        self._resolve(d, choice)
        self._run()

    def is_terminal(self) -> bool:
        return self.over

    def returns(self) -> list[float]:
        outcome = self.outcome()
        return [0.0, 0.0] if outcome is None else outcome.returns(2)

    def outcome(self) -> Outcome | None:
        if not self.over:
            return None
        if self.winner < 0:  # stopped by the turn cap, a safeguard: no result (13.1)
            return Outcome((), "turni-esauriti", scores=tuple(self.scores), stopped=True)
        ranking = ((self.winner,), (1 - self.winner,))
        return Outcome((self.winner,), self.final_how, ranking, tuple(self.scores))

    def turn_number(self) -> int:
        return self.turn

    def zones(self) -> dict[str, list[int]]:
        piles = self.piles
        return {name: piles[z][:] for z, name in ZONE_NAMES}

    def clone(self) -> BlessGame:
        g = BlessGame.__new__(BlessGame)
        for name in (*Reader.__slots__, *GameFields.__slots__):  # lists copied below
            setattr(g, name, getattr(self, name))
        g.zone = self.zone[:]
        g.piles = [p[:] for p in self.piles]
        g.corrupt = self.corrupt[:]
        g.stasi = self.stasi[:]
        g.attacked = self.attacked[:]
        g.invoked = self.invoked[:]
        g.known = self.known[:]
        g.responded = self.responded[:]
        g.barrier = self.barrier[:]
        g.host = self.host[:]
        g.since = self.since[:]
        g.lasting = self.lasting[:]
        g.scores = self.scores[:]
        g.blessed = self.blessed[:]
        g.bonus = self.bonus[:]
        g.stack = self.stack[:]
        g.triggers = self.triggers[:]
        g.log = self.log[:]
        g.chance = self.chance.copy(g.log)
        g._busy = set()
        return g

    def observation(self, player: int) -> dict[str, Any]:
        """What `player` sees: the opponent's hand and the Mazzo only as counts."""
        code = [c.code for c in self.info]
        piles = self.piles

        def side(p: int) -> dict[str, Any]:
            return {
                "maledizioni": [
                    {
                        "card": code[c],
                        "corrotta": bool(self.corrupt[c]),
                        "stasi": bool(self.stasi[c]),
                        "occhio": self.stat(c, OCC),
                        "karma": self.stat(c, KAR),
                    }
                    for c in piles[2 * MAL + p]
                ],
                "preghiere": [
                    {"card": code[c], "host": code[self.host[c]] if self.host[c] >= 0 else None}
                    for c in piles[2 * PRE + p]
                ],
                "altare": len(piles[2 * ALT + p]),
                "hand": len(piles[2 * HAND + p]) + len(piles[2 * ASIDE + p]),
                "score": self.scores[p],
            }

        d = self.pending
        decision = None
        if d is not None:
            decision = {"player": d.player, "kind": d.kind}
            if d.player == player:
                decision["options"] = self.legal_actions()
        return {
            "player": player,
            "turn": self.turn,
            "active": self.active,
            "actions": self.actions,
            "hand": [code[c] for c in piles[2 * HAND + player]],
            "altare": [code[c] for c in piles[2 * ALT + player]],
            "sides": [side(0), side(1)],
            "mazzo": len(piles[MAZZO]),
            "vuoto": [code[c] for c in piles[VUOTO]],
            "final": {"by": self.final_by, "how": self.final_how, "last_turn": self.final_last},
            "over": self.over,
            "winner": self.winner,
            "decision": decision,
        }

    def determinize(self, player: int, seed: int) -> BlessGame:
        """A copy where what `player` cannot see is drawn again: the Mazzo's order and the
        opponent's hand, but for the cards `player` saw go into that hand (``known``)."""
        g = self.clone()
        g.chance.reseed(seed)
        other = 1 - player
        hand = g.piles[2 * HAND + other]
        known = self.known[player]
        kept = [c for c in hand if known >> c & 1]
        hidden = g.piles[MAZZO] + [c for c in hand if not known >> c & 1]
        g.chance.rng.shuffle(hidden)
        size = len(hand) - len(kept)
        g.piles[2 * HAND + other] = kept + hidden[:size]
        g.piles[MAZZO] = hidden[size:]
        for c in g.piles[2 * HAND + other]:
            g.zone[c] = 2 * HAND + other
        for c in g.piles[MAZZO]:
            g.zone[c] = MAZZO
        g._dirty()
        return g

    def value(self, player: int) -> float:
        """A heuristic worth of the position for `player`, used by the greedy agent: points,
        then what this turn can still score, then the board and the hand."""
        if self.over:
            return 1000.0 * (1 if self.winner == player else -1 if self.winner >= 0 else 0)
        worth = 10.0 * (self.scores[player] - self.scores[1 - player])
        for p, sign in ((player, 1.0), (1 - player, -1.0)):
            for c in self.piles[2 * MAL + p]:
                pure = 1.5 if not self.corrupt[c] else 0.0
                worth += sign * (0.3 * self.stat(c, OCC) + 0.5 * self.stat(c, KAR) + pure)
            worth += sign * 1.0 * len(self.piles[2 * PRE + p])
        if self.active == player and self.actions > 0:
            worth += 7.0 * self._threats(player)
        hand = self.piles[2 * HAND + player]
        return worth + sum(0.05 * (self.info[c].occhio + self.info[c].karma) for c in hand)

    def estimate(self) -> list[float]:
        """The two players' returns guessed from `value`: a lead of ESTIMATE_SCALE (two
        points) counts as 0.46 of a win, twice that as 0.76."""
        if self.over:
            return self.returns()
        ahead = math.tanh((self.value(0) - self.value(1)) / (2 * ESTIMATE_SCALE))
        return [ahead, -ahead]

    def _threats(self, p: int) -> int:
        """Karma that ready Maledizioni could still bless this turn (by eye, roughly)."""
        theirs = self.piles[2 * MAL + 1 - p]
        gains = []
        for a in self.piles[2 * MAL + p]:
            if self.stasi[a] or self.attacked[a] == self.turn:
                continue
            eye = self.stat(a, OCC)
            if not theirs or any(self.corrupt[d] and eye > self.stat(d, OCC) for d in theirs):
                gains.append(self.stat(a, KAR))
        gains.sort(reverse=True)
        return sum(gains[: self.actions])

    def hint(self, player: int) -> Action | None:
        """A choice made without looking ahead, where looking ahead would only see chance:
        at the Mulligan, set aside the cards weaker than an average card."""
        d = self.pending
        if d is None or d.kind != "mulligan":
            return None
        weak = tuple(c for c in d.options if self.info[c].occhio + 1.5 * self.info[c].karma < 7)
        return ("choose", weak)

    def check_invariants(self) -> None:
        problems = self.invariants()
        assert not problems, "; ".join(problems)

    def invariants(self) -> list[str]:
        """Every card in exactly one zone, limits kept, scores made of what was earned."""
        out: list[str] = []
        zone, count, n = self.zone, 0, len(self.zone)
        for z, pile in enumerate(self.piles):
            for c in pile:
                if zone[c] != z:
                    out.append(f"card {c} is listed in zone {z} but marked {zone[c]}")
            count += len(pile)
        if count != len(self.info):
            out.append("a card is missing or in two zones")
        stable = self.pending is None or self.pending.kind == "main"
        hosts = []
        for p in (0, 1):
            if self.scores[p] != self.blessed[p] + self.bonus[p]:
                out.append("score out of step")
            if self.piles[2 * ASIDE + p]:
                out.append("cards set aside outside a Mulligan")
            known = self.known[p]
            if known and any(zone[c] != 2 * HAND + 1 - p for c in range(n) if known >> c & 1):
                out.append("a card known to be in the other hand is not there")
            if stable and len(self.piles[2 * MAL + p]) > LIMIT_MAL:
                out.append("more than 4 Maledizioni")
            if stable and self._ecos(p) > LIMIT_ECO:
                out.append("more than 2 Eco")
            for c in self.piles[2 * PRE + p]:
                prayer, h = self.info[c].prayer, self.host[c]
                if h >= 0:
                    if not (prayer == LEGAME and zone[h] >> 1 == MAL):
                        out.append("a bond off the field")
                    hosts.append(h)
                elif stable and prayer != ECO:
                    out.append("a Legame without host, or an Impulso, stays in play")
        if len(hosts) != len(set(hosts)):
            out.append("two Legami on one Maledizione")
        # States and bonds only on the field: the totals equal those of the field's cards
        # (a quick test first, then the card by card one that names each problem).
        field = self.piles[2 * MAL] + self.piles[2 * MAL + 1]
        corrupt, stasi, host = self.corrupt, self.stasi, self.host
        if (
            sum(corrupt) != sum(corrupt[c] for c in field)
            or sum(stasi) != sum(stasi[c] for c in field)
            or len(host) - host.count(-1) != len(hosts)
        ):
            for c, z in enumerate(zone):
                if z >> 1 != MAL and (corrupt[c] or stasi[c]):
                    out.append("a state off the field")
                if z >> 1 != PRE and host[c] >= 0:
                    out.append("a bond from off the field")
        return out

    # -- the engine loop ------------------------------------------------------------------------

    def _run(self) -> None:
        """Run tasks until a real decision (two options or more) or the end of the game."""
        while not self.over:
            d = self.pending
            if d is not None:
                if d.kind == "mulligan":
                    if d.options:
                        return
                    self.pending = None
                    self._resolve(d, ())
                    continue
                if len(d.options) != 1:
                    return
                self.pending = None
                self._resolve(d, d.options[0])
            elif self.triggers:
                self._flush_triggers()
            elif self.stack:
                task = self.stack.pop()
                self._TASKS[task[0]](self, task)
            elif self.end_now:
                self.end_now = False
                self._push(("end_turn",))
            else:
                self._decide(self.active, "main", self._main_options(), None, ())

    def _resolve(self, d: Decision, choice: Any) -> None:
        if d.kind == "main":
            self._main(choice)
        else:
            assert d.resume is not None
            self._RESUME[d.resume[0]](self, d.resume, choice)

    def _flush_triggers(self) -> None:
        """Effects that fire together: the active player's first, each in its owner's order."""
        entries, self.triggers = self.triggers, []
        mine = tuple(e for e in entries if e[1] == self.active)
        theirs = tuple(e for e in entries if e[1] != self.active)
        if theirs:
            self._push(("order", 1 - self.active, theirs))
        if mine:
            self._push(("order", self.active, mine))

    def _task_order(self, task: tuple[Any, ...]) -> None:
        _, player, entries = task
        options = tuple(dict.fromkeys(e[2] for e in entries))
        self._decide(player, "order", options, task, options)

    def _resume_order(self, task: tuple[Any, ...], card: int) -> None:
        _, player, entries = task
        i = next(i for i, e in enumerate(entries) if e[2] == card)
        rest = entries[:i] + entries[i + 1 :]
        if rest:
            self._push(("order", player, rest))
        ab, user, this, host = entries[i]
        self._push(("ab", Frame(ab, user, this, host)))

    def _task_ab(self, task: tuple[Any, ...]) -> None:
        self._run_ability(task[1])

    def _resume_ab(self, task: tuple[Any, ...], choice: int) -> None:
        self._run_ability(task[1], choice)

    def _task_fire(self, task: tuple[Any, ...]) -> None:
        self.triggers.extend(task[1])

    _TASKS: ClassVar[dict[str, Callable[..., None]]] = {
        "ab": _task_ab,
        "order": _task_order,
        "fire": _task_fire,
        "turn_start": Turns._task_turn_start,
        "end_turn": Turns._task_end_turn,
        "next_turn": Turns._task_next_turn,
        "direct": Turns._task_direct,
        "clash": Turns._task_clash,
        "enter": Field._task_enter,
        "arrived": Field._task_arrived,
        "impulse_done": Field._task_impulse_done,
        "chain": Field._task_chain,
        "respond": Field._task_respond,
        "bind": Field._task_bind,
        "limit": Field._task_limit,
    }
    _RESUME: ClassVar[dict[str, Callable[..., None]]] = {
        "ab": _resume_ab,
        "order": _resume_order,
        "mull": Turns._resume_mull,
        "clash": Turns._resume_clash,
        "offer": Turns._resume_offer,
        "respond": Field._resume_respond,
        "bind": Field._resume_bind,
        "limit": Field._resume_limit,
    }
