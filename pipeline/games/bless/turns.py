"""Bless: the turn structure (setup, Mulligan, turns, Final Turns, end of the game), the
main phase and its legal actions, and the clash (clauses 6, 7, 10-12 of rules.md)."""

from __future__ import annotations

from typing import Any

from pipeline.engine.core import Action

from .common import ATT, DEF, FINAL_TURNS, HAND_SIZE, INTO, TIE, clash_eye
from .compiler import ALT, ASIDE, ECO, HAND, KAR, LEGAME, MAL, MAZZO, OCC, PRE
from .field import Field


class Turns(Field):
    """Rules of BlessGame, one layer of its chain (see common.GameFields): setup, turns, the
    main phase and the clash."""

    __slots__ = ()  # the fields are BlessGame's (GameFields)

    # -- setup, turns and the Mulligan ----------------------------------------------------

    def _setup(self, options: dict[str, Any]) -> None:
        self._log("setup", -1, (self.altar_limit, len(self.info)))
        self._shuffle(MAZZO)
        for p in (0, 1):
            self._draw(p, HAND_SIZE, log="deal")
        first = options.get("first_player")
        if first is None:
            first = self.chance.integer("primo", 0, 1)
        self.first = self.active = int(first)
        self._log("first", self.first)
        self._start_mulligan(self.first, "open0")
        self._run()

    def _start_mulligan(self, p: int, phase: str) -> None:
        """One decision: which cards of the hand to set aside (any number, even none)."""
        self._decide(p, "mulligan", tuple(self.piles[2 * HAND + p]), ("mull", p, phase), ())

    def _resume_mull(self, task: tuple[Any, ...], set_aside: tuple[int, ...]) -> None:
        _, p, phase = task
        for c in set_aside:
            self._move(c, 2 * ASIDE + p)
        missing = HAND_SIZE - len(self.piles[2 * HAND + p])
        drawn = self._draw(p, missing, log="") if missing > 0 else ()
        for c in set_aside:
            self._move(c, MAZZO)
        if set_aside:
            self._shuffle(MAZZO)
        self._log("mulligan", p, (set_aside, drawn))
        if phase == "open0":
            self._start_mulligan(1 - p, "open1")
        elif phase == "open1":
            self.turn, self.actions = 1, 2
            self._push(("turn_start",))
        else:
            self._push(("next_turn",))

    def _task_turn_start(self, task: tuple[Any, ...]) -> None:
        fx = self._fx
        if fx is None or fx["suppressing"] or self.lasting:
            self._dirty()  # lasting effects start and end with turns; suppression may too
        else:
            self._touch()  # the same sources, so the same effects in force
        p = self.active
        self._log("turn", p, (self.turn, self.actions))
        for c in self.piles[2 * MAL + p]:
            if not self.suppressed(c):
                for ab in self.info[c].mal.get("at_turn_start", ()):
                    self._trigger(ab, p, c)

    def _task_end_turn(self, task: tuple[Any, ...]) -> None:
        self._log("end_turn", self.active)
        self.actions = 0  # unspent Actions are lost (7.3)
        # Step 1, effects «alla fine del turno»: the vocabulary has no such trigger yet.
        for p in (0, 1):
            for c in self.piles[2 * MAL + p]:
                self.stasi[c] = 0
        self._touch()
        self._log("stasi_end", -1)
        self._start_mulligan(self.active, "turn")  # in every own Fine Turno, the last too

    def _task_next_turn(self, task: tuple[Any, ...]) -> None:
        t = self.turn
        if t == self.final_last or t >= self.max_turns:
            self._finish()
            return
        if self.lasting:
            self.lasting = [e for e in self.lasting if e.end > t]
            self._dirty()
        self.turn = t + 1
        self.active = 1 - self.active
        self.actions = 3
        self._push(("turn_start",))

    def _final(self, p: int, how: str) -> None:
        """The Final Turns start once: 5 turns, the first by the player who did not start them."""
        if self.final_by >= 0:
            return
        self.final_by, self.final_how = p, how
        self.final_last = self.turn + (FINAL_TURNS if p == self.active else FINAL_TURNS - 1)
        self._log("final", p, (how, self.final_last, len(self.piles[2 * ALT + p])))

    def _finish(self) -> None:
        a, b = self.scores
        if self.turn != self.final_last:
            # the turn cap, a safeguard and no rule of Bless (13.1 ends the game only after the
            # fifth Final Turn), stopped it, Final Turns started or not: no result
            self.winner = -1
        else:
            self.winner = 0 if a > b else 1 if b > a else self.final_by
        self.over = True
        self.pending = None
        self._log("end", -1, ((a, b), self.winner))

    def _run(self) -> None:
        """Run the game to its next decision (BlessGame's; declared here, where it is used)."""
        raise NotImplementedError

    # -- the main phase -----------------------------------------------------------------------

    def _main_options(self) -> tuple[Action, ...]:
        p, turn, piles, info = self.active, self.turn, self.piles, self.info
        acts = self.actions
        table = actions_on(len(info))
        out: list[Action] = [END]
        hosts = None
        for c in piles[2 * HAND + p]:
            if acts > 0 or self.free(c, p, "maledizione"):
                out.append(table[c][CALA_MAL])
            if info[c].prayer == LEGAME:
                hosts = self._hosts(p) if hosts is None else hosts
                if not hosts:
                    continue
            if acts > 0 or self.free(c, p, "preghiera"):
                out.append(table[c][CALA_PRE])
        if acts > 0:
            for c in piles[2 * MAL + p]:
                if self.stasi[c]:
                    out.append(table[c][STASI])
            for e in piles[2 * PRE + p]:
                if info[e].prayer == ECO and self.invoked[e] != turn:
                    out.append(table[e][INVOKE])
            self._attacks(p, table, out)
        return tuple(out)

    def _attacks(self, p: int, table: list[tuple[Any, ...]], out: list[Action]) -> None:
        """Append the legal attacks of `p` to `out` (actions read from `table`)."""
        fx = self._fx or self._standing()
        turn, stasi, attacked = self.turn, self.stasi, self.attacked
        defenders = self.piles[2 * MAL + 1 - p]
        taunters = [d for d in defenders if self.flag("taunt", d)] if "taunt" in fx else None
        targets = taunters or defenders
        stop, shields = "cannot_attack" in fx, "cannot_be_attacked" in fx
        direct = "direct_attack" in fx
        profiles = None
        for a in self.piles[2 * MAL + p]:
            if stasi[a] or attacked[a] == turn or (stop and self.flag("cannot_attack", a)):
                continue
            row = table[a]
            if not defenders or (not taunters and direct and self.flag("direct_attack", a)):
                out.append(row[DIRECT])
            attacks = row[ATTACKS]
            if not self.corrupt[a]:
                for d in targets:
                    if self.barrier[d] != turn and not (shields and self.shielded(d, a)):
                        out.append(attacks[d])
                continue
            if profiles is None:
                profiles = {d: self._profile(d) for d in targets}
            mine = self._profile(a)
            for d in targets:
                if self.barrier[d] == turn or (shields and self.shielded(d, a)):
                    continue
                theirs = profiles[d]
                if not (mine[5] or theirs[5]):  # a Fato clash is not simulated
                    if _plain(fx, a, d) and not (mine[4] or theirs[4]):
                        if clash_eye(mine, theirs) <= clash_eye(theirs, mine):
                            continue
                    elif self._outcome(a, d, ())[0] != ATT:
                        continue
                out.append(attacks[d])

    def _profile(self, c: int) -> tuple[int, bool, int, bool, bool, bool]:
        """What a clash needs of a card, read once per state: Occhio before the clash, whether
        a «sempre» fixes it, Forma, Rivalità, any «Vince»/tie effect on it, Fato.

        Each part is computed only when an effect of its own kind may reach the card (one
        naming it, or a broad one); otherwise the printed value is exact."""
        memo = self._vals.get(-1 - c)
        if memo is not None:
            return memo
        fx = self._fx or self._standing()
        info = self.info[c]
        if not fx["clash_broad"] and c not in fx["touched"] and c not in fx["suppressed"]:
            return info.profile  # nothing in force names the card or reads it from a selector
        if _reaches(fx, "occhio", c) or _reaches(fx, "occhio_original", c):
            raw, locked = self._memo(c, OCC, False)
        else:
            raw, locked = info.occhio, False
        if c in fx["suppressed"] or _reaches(fx, "grant", c):
            rival, fato = self.has(c, "Rivalita"), self.has(c, "Fato")
        else:
            rival, fato = "Rivalita" in info.keywords, "Fato" in info.keywords
        special = (_reaches(fx, "wins", c) or _reaches(fx, "tie_wins", c)) and self._wins_on(c)
        forma = self.forma(c) if "set_forma" in fx else info.forma
        memo = (raw, locked, forma, rival, special, fato)
        self._vals[-1 - c] = memo
        return memo

    def _wins_on(self, c: int) -> bool:
        """A «Vince» or a tie-breaking effect in force applies to `c` (written as loops, which
        a compiled method may hold where it may not hold a generator)."""
        for kind in ("wins", "tie_wins"):
            for part in self._entries(kind, c):
                for e in part:
                    if e.applies(self, c):
                        return True
        return False

    def _main(self, action: Action) -> None:
        p, kind = self.active, action[0]
        if kind == "end":
            self._push(("end_turn",))
        elif kind == "cala":
            _, c, name = action
            cost = 0 if self.actions == 0 or self.free(c, p, name) else 1
            self.actions -= cost
            self._log("cala", p, (c, name, cost))
            self._push(("enter", c, p, INTO[name], "cala", True))
        elif kind == "stasi":
            self.actions -= 1
            self.stasi[action[1]] = 0
            self._touch()
            self._log("stasi", p, (action[1],))
        elif kind == "invoke":
            self.actions -= 1
            self.invoked[action[1]] = self.turn
            self._log("invoke", p, (action[1], -1))
            self._use_eco(action[1])
        else:
            a = action[1]
            self.actions -= 1
            self.attacked[a] = self.turn
            if not self.suppressed(a):
                for ab in self.info[a].mal.get("on_attacking", ()):
                    self._trigger(ab, p, a)
            if kind == "direct":
                self._log("direct", p, (a,))
                self._push(("direct", a))
            else:
                d = action[2]
                self._log("attack", p, (a, d))
                self._push(("clash", a, d, ()))
                self._attacked(d)

    def _attacked(self, d: int) -> None:
        q = self.controller(d)
        if not self.suppressed(d):
            for ab in self.info[d].mal.get("on_attacked", ()):
                self._trigger(ab, q, d)
        for legame in self._legami_on(d):
            for ab in self.info[legame].pre.get("on_host_attacked", ()):
                self._trigger(ab, q, legame, d)

    def _task_direct(self, task: tuple[Any, ...]) -> None:
        a = task[1]
        if self.zone[a] >> 1 == MAL:
            self._bless(a, self.controller(a), self.stat(a, KAR), "diretto")

    # -- the clash (10.1 - 10.8, 11.4, 12.2, 12.3) ----------------------------------------------

    def _task_clash(self, task: tuple[Any, ...]) -> None:
        _, a, d, guesses = task
        p = self.controller(a)
        if self.zone[a] != 2 * MAL + p or self.zone[d] != 2 * MAL + 1 - p:
            self._log("clash_void", p, (a, d))
            return
        guessed = {card for card, _ in guesses}
        for x in (a, d):
            if x not in guessed and self.has(x, "Fato"):
                self._decide(self.controller(x), "fato", (0, 1), task, (x,))
                return
        hits = []
        for x, guess in guesses:
            roll = self.chance.integer("dado", 1, 6)
            hit = roll % 2 == guess
            self._log("fato", self.controller(x), (x, guess, roll, hit))
            if hit:
                hits.append(x)
        result, eye_a, eye_d = self._outcome(a, d, tuple(hits))
        self._log("clash", p, (a, d, eye_a, eye_d, result))
        self._settle(a, d, result)

    def _resume_clash(self, task: tuple[Any, ...], guess: int) -> None:
        _, a, d, guesses = task
        guessed = {card for card, _ in guesses}
        card = next(x for x in (a, d) if x not in guessed and self.has(x, "Fato"))
        self._push(("clash", a, d, (*guesses, (card, guess))))

    def _outcome(self, a: int, d: int, hits: tuple[int, ...]) -> tuple[int, int, int]:
        """Steps 1-3 of the clash: modified Occhio, then «Vince sempre», «Vince», the eyes."""
        fx = self._fx or self._standing()
        plain = not hits and _plain(fx, a, d)
        if plain:  # no effect reads the clash: the profiles give both eyes exactly
            pa, pd = self._profile(a), self._profile(d)
            eye_a, eye_d = clash_eye(pa, pd), clash_eye(pd, pa)
            if not (pa[4] or pd[4]):
                return (ATT if eye_a > eye_d else DEF if eye_d > eye_a else TIE), eye_a, eye_d
        self.fight = (a, d)
        try:
            if not plain:
                eye_a, eye_d = self.stat(a, OCC), self.stat(d, OCC)
            win_a = max(self.wins_level(a, d), 1 if a in hits else 0)
            win_d = max(self.wins_level(d, a), 1 if d in hits else 0)
            top = max(win_a, win_d)
            if top:
                result = TIE if win_a == win_d else ATT if win_a == top else DEF
            else:
                result = ATT if eye_a > eye_d else DEF if eye_d > eye_a else TIE
            if result == TIE:
                tie_a, tie_d = self.flag("tie_wins", a), self.flag("tie_wins", d)
                if tie_a != tie_d:
                    result = ATT if tie_a else DEF
        finally:
            self.fight = None
        return result, eye_a, eye_d

    def _settle(self, a: int, d: int, result: int) -> None:
        """Step 4: every change of state at once, Impatto, then the Offerta."""
        p = self.controller(a)
        a_lost, d_lost = result != ATT, result != DEF
        a_pure, d_pure = not self.corrupt[a], not self.corrupt[d]
        karma_a, karma_d = self.stat(a, KAR), self.stat(d, KAR)
        impact_a, impact_d = self.has(a, "Impatto"), self.has(d, "Impatto")
        if a_lost and a_pure:
            self._corrupt(a)
        if d_pure:
            self._corrupt(d)  # lost, or simply attacked (10.5)
        if d_pure and impact_a:
            self._bless(a, p, karma_a, "impatto")
        if a_lost and a_pure and impact_d:
            self._bless(d, 1 - p, karma_d, "impatto")
        if a_lost and not a_pure:
            self._break(a)
        if d_lost and not d_pure:
            self._decide(p, "offer", (1, 0), ("offer", a, d, karma_a), (d, a))

    def _resume_offer(self, task: tuple[Any, ...], yes: int) -> None:
        _, a, d, karma_a = task
        p = 1 - self.controller(d)
        if not yes:
            self._log("decline_offer", p, (d,))
            self._break(d)
            return
        self._log("offer", p, (d, a))
        self._break(d, 2 * ALT + p)
        self._bless(a, p, karma_a, "offerta")
        if len(self.piles[2 * ALT + p]) >= self.altar_limit:
            self._final(p, "altare")


END = ("end",)
CALA_MAL, CALA_PRE, STASI, INVOKE, DIRECT, ATTACKS = range(6)
_TABLES: dict[int, list[tuple[Any, ...]]] = {}


def actions_on(n: int) -> list[tuple[Any, ...]]:
    """The main phase's actions on each of `n` cards, made once: per card, calare it as a
    Maledizione and as a Preghiera, end its Stasi, invoke it, attack directly with it, and
    its attacks on every card. A decision's options are read from here rather than built
    anew each time (a random game takes some 130 main-phase decisions)."""
    table = _TABLES.get(n)
    if table is None:
        table = _TABLES[n] = []
        for c in range(n):
            attacks = tuple([("attack", c, d) for d in range(n)])
            cala = (("cala", c, "maledizione"), ("cala", c, "preghiera"))
            table.append((*cala, ("stasi", c), ("invoke", c), ("direct", c), attacks))
    return table


def _reaches(fx: dict[str, Any], kind: str, c: int) -> bool:
    """Some effect of this kind in force names `c`, or reads its cards from a selector."""
    slot = fx.get(kind)
    return slot is not None and (c in slot[0] or bool(slot[1]))


def _plain(fx: dict[str, Any], a: int, d: int) -> bool:
    """No effect in force reads a clash of `a` against `d`: their profiles give the eyes. An
    effect that reads the clash changes only the cards it reaches (``fight_on``)."""
    if not fx["fight"]:
        return True
    reached = fx["fight_on"]
    return reached is not None and a not in reached and d not in reached
