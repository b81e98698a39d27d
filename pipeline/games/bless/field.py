"""Bless: cards entering and leaving the field, Eco chains, Legami and limits, and the
primitives every change of state goes through."""

from __future__ import annotations

from typing import Any

from .common import LIMIT_ECO, LIMIT_MAL
from .compiler import ECO, HAND, IMPULSO, LEGAME, MAL, MAZZO, PRE, VUOTO, Ctx
from .effects import Effects, Frame


class Field(Effects):
    """Rules of BlessGame, one layer of its chain (see common.GameFields): zones, bonds,
    limits and the primitives."""

    __slots__ = ()  # the fields are BlessGame's (GameFields)

    # -- cards entering and leaving the field ----------------------------------------------

    def _task_enter(self, task: tuple[Any, ...]) -> None:
        _, c, p, into, how, stasi = task
        if self.zone[c] >> 1 in (MAL, PRE):
            self._leave(c, "convert")
        self._move(c, 2 * into + p)
        self.since[c] = self._tick()
        if into == MAL:
            self.corrupt[c] = 0
            self.stasi[c] = 1 if stasi else 0
        self._log("enter", p, (c, into, how))
        self._push(("arrived", c, p, into, how))
        if into == MAL and len(self.piles[2 * MAL + p]) > LIMIT_MAL:
            self._push(("limit", p, MAL, c))
        elif into == PRE and self.info[c].prayer == ECO and self._ecos(p) > LIMIT_ECO:
            self._push(("limit", p, ECO, c))

    def _task_arrived(self, task: tuple[Any, ...]) -> None:
        _, c, p, into, how = task
        if self.zone[c] != 2 * into + p:
            return  # sent to the Vuoto by the limit before its effects (14.8)
        watchers = [  # a list comprehension: compiled, a generator would cost a coroutine
            (ab, p, m, -1)
            for m in self.piles[2 * MAL + p]
            if m != c and not self.suppressed(m)
            for ab in self.info[m].mal.get("on_you_play", ())
            if ab.watch.matches(self, c, Ctx(p, m))
        ]
        if watchers:
            self._push(("fire", tuple(watchers)))
        info = self.info[c]
        if into == MAL:
            if how == "cala":
                for ab in info.mal.get("on_play", ()):
                    self._trigger(ab, p, c)
        elif info.prayer == IMPULSO:
            self._push(("impulse_done", c))
            self._push_resolve(c, p, c)
        elif info.prayer == ECO:
            self._use_eco(c)
        else:
            self._push(("bind", c, p))

    def _push_resolve(self, card: int, user: int, this: int) -> None:
        for ab in reversed(self.info[card].pre.get("resolve", ())):
            self._push(("ab", Frame(ab, user, this)))

    def _task_impulse_done(self, task: tuple[Any, ...]) -> None:
        if self.zone[task[1]] >> 1 == PRE:
            self._break(task[1])

    def _use_eco(self, e: int) -> None:
        """The Eco uses its effect; then the user's other Eco answer, once per turn each."""
        p = self.controller(e)
        self._push(("chain", p, e))
        self._push_resolve(e, p, e)

    def _task_chain(self, task: tuple[Any, ...]) -> None:
        _, p, source = task
        answer = tuple(
            e
            for e in self.piles[2 * PRE + p]
            if e != source and self.info[e].prayer == ECO and self.responded[e] != self.turn
        )
        if answer:
            self._push(("respond", p, answer))

    def _task_respond(self, task: tuple[Any, ...]) -> None:
        _, p, answer = task
        answer = tuple(e for e in answer if self.zone[e] == 2 * PRE + p)
        if len(answer) > 1:
            self._decide(p, "order", answer, task, answer)
        elif answer:
            self._resume_respond(task, answer[0])

    def _resume_respond(self, task: tuple[Any, ...], e: int) -> None:
        _, p, answer = task
        rest = tuple(x for x in answer if x != e)
        if rest:
            self._push(("respond", p, rest))
        self.responded[e] = self.turn
        self._log("respond", p, (e,))
        self._push_resolve(e, p, e)

    def _hosts(self, p: int) -> list[int]:
        """Maledizioni a Legame of `p` may bind to: not one with the opponent's Legame."""
        host = self.host
        taken = {host[x] for x in self.piles[2 * PRE + 1 - p] if host[x] >= 0}
        return [m for q in (p, 1 - p) for m in self.piles[2 * MAL + q] if m not in taken]

    def _legami_on(self, m: int) -> list[int]:
        host = self.host
        return [x for q in (0, 1) for x in self.piles[2 * PRE + q] if host[x] == m]

    def _foreign_bond(self, m: int, p: int) -> bool:
        return any(self.controller(x) != p for x in self._legami_on(m))

    def _task_bind(self, task: tuple[Any, ...]) -> None:
        _, legame, p = task
        if self.zone[legame] != 2 * PRE + p:
            return
        hosts = tuple(self._hosts(p))
        if not hosts:
            self._log("no_host", p, (legame,))
            self._break(legame)
            return
        self._decide(p, "host", hosts, task, (legame,))

    def _resume_bind(self, task: tuple[Any, ...], host: int) -> None:
        self._bind(task[1], host)

    def _bind(self, legame: int, host: int) -> None:
        p = self.controller(legame)
        for old in self._legami_on(host):  # 1 Legame per Maledizione: the old one goes
            self._log("limit", p, (old, LEGAME))
            self._break(old)
        self.host[legame] = host
        self.since[legame] = self._tick()
        self._dirty()
        self._log("bind", p, (legame, host))

    def _ecos(self, p: int) -> int:
        return sum(1 for e in self.piles[2 * PRE + p] if self.info[e].prayer == ECO)

    def _task_limit(self, task: tuple[Any, ...]) -> None:
        """Over a limit: the player sends own cards to the Vuoto, never the newcomer (14.8)."""
        _, p, kind, new = task
        if kind == MAL:
            over = len(self.piles[2 * MAL + p]) > LIMIT_MAL
            options = tuple(m for m in self.piles[2 * MAL + p] if m != new and not self.corrupt[m])
        else:
            over = self._ecos(p) > LIMIT_ECO
            options = tuple(
                e for e in self.piles[2 * PRE + p] if e != new and self.info[e].prayer == ECO
            )
        if not over:
            return
        if not options:
            self._log("limit", p, (new, kind))
            self._break(new)
            return
        self._decide(p, "limit", options, task, (new,))

    def _resume_limit(self, task: tuple[Any, ...], card: int) -> None:
        self._log("limit", task[1], (card, task[2]))
        self._break(card)
        self._push(task)

    def _take_control(self, c: int, p: int) -> None:
        kind = self.zone[c] >> 1
        if kind not in (MAL, PRE) or self.controller(c) == p:
            return
        self._log("control", p, (c,))
        self._move(c, 2 * kind + p)
        if kind == MAL and len(self.piles[2 * MAL + p]) > LIMIT_MAL:
            self._push(("limit", p, MAL, c))
        elif kind == PRE and self.info[c].prayer == ECO and self._ecos(p) > LIMIT_ECO:
            self._push(("limit", p, ECO, c))

    # -- primitives: every change of state goes through these ----------------------------

    def _move(self, c: int, dest: int) -> None:
        source = self.zone[c]
        pile = self.piles[source]
        if pile[-1] == c:  # the top card, as every draw takes: no scan of the pile
            pile.pop()
        else:
            pile.remove(c)
        self.piles[dest].append(c)
        self.zone[c] = dest
        if source >> 1 == HAND and (self.known[0] or self.known[1]):
            self._forget(c)
        if MAL <= source >> 1 <= PRE:
            self._moved(c)
        elif MAL <= dest >> 1 <= PRE:
            self._moved(c, entered=dest >> 1 == MAL)
        else:
            self._touch()

    def _forget(self, c: int) -> None:
        """Card c left the hand it was in: what anyone knew of it there no longer holds.
        (A Python method, so that the bit mask is a Python int in the compiled build too.)"""
        mask = ~(1 << c)
        self.known = [k & mask for k in self.known]

    def _leave(self, c: int, why: str) -> None:
        """A card leaves its zone of the field: it keeps nothing (4.4); its Legami go (5.6)."""
        kind = self.zone[c] >> 1
        bonds = False
        if kind == MAL:
            self.corrupt[c] = self.stasi[c] = 0
            owner = self.controller(c)
            for legame in self._legami_on(c):
                bonds = True
                self.host[legame] = -1
                after = self.info[legame].pre.get("on_host_break", ()) if why == "break" else ()
                for ab in after:
                    self._trigger(ab, owner, legame, c)
                if not any(ab.rebinds for ab in after):
                    self._break(legame)
        self.host[c] = -1
        self.attacked[c] = self.invoked[c] = self.responded[c] = self.barrier[c] = -1
        if any(e.targets is not None and c in e.targets for e in self.lasting):
            self.lasting = [x for e in self.lasting if (x := e.without(c)) is not None]
            bonds = True  # a lasting effect lost a target: what is in force changed
        if bonds:
            self._dirty()
        else:
            self._touch()  # what the card itself holds in force goes with its _move

    def _break(self, c: int, dest: int = VUOTO) -> None:
        kind = self.zone[c] >> 1
        if kind not in (MAL, PRE):
            return
        p = self.controller(c)
        if kind == MAL and not self.suppressed(c):
            for ab in self.info[c].mal.get("on_break", ()):
                self._trigger(ab, p, c)
        self._log("break", p, (c, dest))
        self._leave(c, "break")
        self._move(c, dest)

    def _corrupt(self, c: int) -> None:
        if self.corrupt[c] or self.zone[c] >> 1 != MAL:
            return
        p = self.controller(c)
        self.corrupt[c] = 1
        self._touch()
        self._log("corrupt", p, (c,))
        if self.has(c, "Barriera"):
            self.barrier[c] = self.turn
            self._log("barrier", p, (c,))
        if not self.suppressed(c):
            for ab in self.info[c].mal.get("on_corrupted", ()):
                self._trigger(ab, p, c)

    def _purify(self, c: int) -> None:
        if self.corrupt[c] and self.zone[c] >> 1 == MAL:
            self.corrupt[c] = 0
            self._touch()
            self._log("purify", self.controller(c), (c,))

    def _discard(self, c: int) -> None:
        self._log("discard", self.zone[c] & 1, (c,))
        self._move(c, VUOTO)

    def _draw(self, p: int, n: int, log: str = "draw") -> tuple[int, ...]:
        """Draw from the Mazzo; an empty Mazzo becomes the shuffled Vuoto (6.4, 13.1)."""
        drawn = []
        mazzo = self.piles[MAZZO]
        for _ in range(n):
            if not mazzo:
                if not self.piles[VUOTO]:
                    break
                refill = tuple(self.piles[VUOTO])
                for c in refill:
                    self._move(c, MAZZO)
                self._log("refill", p, (refill,))
                self._shuffle(MAZZO)
                self._final(p, "mazzo")
            c = mazzo[-1]
            self._move(c, 2 * HAND + p)
            drawn.append(c)
        if log:
            self._log(log, p, (tuple(drawn),))
        return tuple(drawn)

    def _shuffle(self, pile: int) -> None:
        self.chance.shuffle("mazzo" if pile == MAZZO else "pila", self.piles[pile])
        self._touch()

    def _score(self, p: int, points: int, card: int) -> None:
        self.scores[p] += points
        self.bonus[p] += points
        self._log("score", p, (points, card))

    def _final(self, p: int, how: str) -> None:
        """The Final Turns start (the next layer's, Turns; declared here, where it is used)."""
        raise NotImplementedError

    def _bless(self, c: int, p: int, karma: int, reason: str) -> None:
        """The card Blessa: its controller scores its Karma (never below 0)."""
        points = max(0, karma)
        self.scores[p] += points
        self.blessed[p] += points
        self._log("bless", p, (c, points, reason))
        on_field = self.zone[c] >> 1 == MAL
        if not (on_field and self.suppressed(c)):
            for ab in self.info[c].mal.get("on_bless", ()):
                self._trigger(ab, p, c)
        if on_field:
            for legame in self._legami_on(c):
                for ab in self.info[legame].pre.get("on_host_bless", ()):
                    self._trigger(ab, p, legame, c)
