"""Bless: resolving abilities, step by step; a step that needs a choice suspends the
resolution as an immutable Frame, so a game copies cheaply."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, NamedTuple

from .common import new_tuple
from .compiler import (
    FOREVER,
    HAND,
    LUCE,
    MAL,
    MAZZO,
    OMBRA,
    PRE,
    VUOTO,
    CAbility,
    CSelector,
    CStep,
    Ctx,
    ref_cards,
)
from .values import Standing, Values


class Frame(NamedTuple):
    """Where the resolution of one ability stands; immutable, so a game copies cheaply."""

    ab: CAbility
    user: int
    this: int
    host: int = -1
    stage: int = 0  # 0 condition, 1 optional, 2 cost, 3 effects
    idx: int = 0
    picks: tuple[int, ...] = ()
    need: int = -1  # how many the step's selector picks (-1: not read yet)
    done: bool = False  # the step's selection is complete
    cost: tuple[int, ...] = ()
    chosen: tuple[tuple[int, int], ...] = ()
    extra: tuple[int, ...] = ()


# where Frame's fields are, for the builders below
AT_STAGE, AT_PICKS, AT_DONE, AT_CHOSEN, AT_EXTRA, AT_NEED = (
    Frame._fields.index(n) for n in ("stage", "picks", "done", "chosen", "extra", "need")
)


def _with(f: Frame, field: int, value: Any) -> Frame:
    """`f` with the field at this position changed (a `_replace` without its keywords)."""
    return new_tuple(Frame, (*f[:field], value, *f[field + 1 :]))


def _staged(f: Frame, stage: int, idx: int) -> Frame:
    """`f` moved to another stage and step (stage and idx are neighbours)."""
    return new_tuple(Frame, (*f[:AT_STAGE], stage, idx, *f[AT_STAGE + 2 :]))


def _picked(f: Frame, picks: tuple[int, ...]) -> Frame:
    """`f` with the step's selection complete (picks, need and done are neighbours)."""
    return new_tuple(Frame, (*f[:AT_PICKS], picks, f.need, True, *f[AT_DONE + 1 :]))


DONE, SUSPEND, DEFER, FAIL = 0, 1, 2, 3
SPANS = {
    "this_turn": (0, 0),
    "until_end_of_next_turn": (0, 1),
    "next_turn": (1, 1),
    "permanent": (0, FOREVER),
}


class Effects(Values):
    """The interpreter of ability steps: conditions, costs, targets, and each op; the
    primitives (_move, _break, _corrupt ...) are the next layer's (Field), called through
    the game."""

    __slots__ = ()  # the fields are BlessGame's (GameFields)

    # -- resolving abilities -------------------------------------------------------------

    @staticmethod
    def _ctx(f: Frame, picks: tuple[int, ...] | None = None) -> Ctx:
        return Ctx(f.user, f.this, f.host, f.picks if picks is None else picks, f.cost, f.chosen)

    def _payable(self, f: Frame) -> bool:
        ctx = self._ctx(f)
        for st in f.ab.cost:
            if isinstance(st.target, CSelector) and not self._candidates(st, st.target, ctx):
                return False
        return True

    def _run_ability(self, f: Frame, choice: int | None = None) -> None:
        ab = f.ab
        if f.stage == 0:
            if ab.cond is not None and not ab.cond(self, self._ctx(f)):
                return
            self._log("effect", f.user, (ab.card, ab.side, ab.trigger, f.this))
            f = _staged(f, 1, f.idx)
        if f.stage == 1:
            if ab.optional:
                if choice is None:
                    if self._payable(f):
                        self._decide(f.user, "yesno", (1, 0), ("ab", f), (ab.card,))
                    return
                if not choice:
                    self._log("decline", f.user, (ab.card,))
                    return
                choice = None
            f = _staged(f, 2 if ab.cost else 3, 0)
        while True:
            steps = ab.cost if f.stage == 2 else ab.effects
            if f.idx >= len(steps):
                if f.stage == 3:
                    return
                f = _staged(f, 3, 0)
                continue
            status, f = self._step(f, steps[f.idx], choice)
            choice = None
            if status != DONE:
                return
            f = self._next(f)

    @staticmethod
    def _next(f: Frame) -> Frame:
        cost = f.cost + f.picks if f.stage == 2 else f.cost
        return new_tuple(
            Frame, (f.ab, f.user, f.this, f.host, f.stage, f.idx + 1, (), -1, False, cost, (), ())
        )

    def _step(self, f: Frame, st: CStep, choice: int | None) -> tuple[int, Frame]:
        target = st.target
        if isinstance(target, CSelector):
            if not f.done:
                f, waiting = self._select(f, st, target, choice)
                if waiting:
                    return SUSPEND, f
                choice = None
        elif target is not None and not f.done:
            f = _picked(f, ref_cards(self._ctx(f), target))
        if f.stage == 2 and target is not None and not f.picks:
            return FAIL, f
        ctx = self._ctx(f)
        for sel in st.nested:
            if sel.key in [k for k, _ in f.chosen]:
                continue
            if choice is None:
                options = sel.cards(self, ctx)
                if len(options) > 1:
                    chooser = f.user if sel.chooser == "user" else 1 - f.user
                    self._decide(chooser, "target", tuple(options), ("ab", f), (f.ab.card, st.op))
                    return SUSPEND, f
                choice = options[0] if options else -1
            f = _with(f, AT_CHOSEN, (*f.chosen, (sel.key, choice)))
            ctx, choice = self._ctx(f), None
        wanted = 0
        if st.op == "play" and st.into == "any":
            wanted = len(f.picks)
        elif st.op == "set_forma" and st.forma == "chosen" and f.picks:
            wanted = 1
        if len(f.extra) < wanted:
            if choice is None:
                kind = "into" if st.op == "play" else "forma"
                pair = (MAL, PRE) if kind == "into" else (LUCE, OMBRA)
                about = (f.ab.card, f.picks[len(f.extra)] if kind == "into" else f.picks[0])
                self._decide(f.user, kind, pair, ("ab", f), about)
                return SUSPEND, f
            f = _with(f, AT_EXTRA, (*f.extra, choice))
            if len(f.extra) < wanted:
                return self._step(f, st, None)
        handler = self._OPS.get(st.op)
        if handler is None:
            return self._lasting(f, st, ctx), f
        return handler(self, f, st, ctx), f

    def _select(
        self, f: Frame, st: CStep, sel: CSelector, choice: int | None
    ) -> tuple[Frame, bool]:
        ctx = self._ctx(f)
        if f.need < 0:
            f = _with(f, AT_NEED, max(0, sel.count.value(self, ctx, -1) or 0))
        picks = f.picks if choice is None else (*f.picks, choice)
        cands = [c for c in self._candidates(st, sel, ctx) if c not in picks]
        pick, need = sel.pick, f.need - len(picks)
        if pick == "all":
            picks = tuple(cands)
        elif pick == "top":
            picks = tuple(cands[: f.need])
        elif pick == "random":
            picks = tuple(self.chance.sample(st.op, cands, f.need)) if cands and f.need else ()
        else:
            while need > 0 and cands:
                pool = cands
                if pick != "chosen":
                    values = [self.stat(c, sel.by, sel.by_original) for c in cands]
                    best = max(values) if pick == "highest" else min(values)
                    pool = [c for c, v in zip(cands, values, strict=True) if v == best]
                if len(pool) > need:
                    chooser = f.user if sel.chooser == "user" else 1 - f.user
                    waiting = _with(f, AT_PICKS, picks)
                    self._decide(
                        chooser, "target", tuple(pool), ("ab", waiting), (f.ab.card, st.op)
                    )
                    return waiting, True
                picks += tuple(pool)
                need -= len(pool)
                cands = [c for c in cands if c not in pool]
        return _picked(f, picks), False

    def _candidates(self, st: CStep, sel: CSelector, ctx: Ctx) -> list[int]:
        cards = sel.cards(self, ctx)
        if st.op == "invoke":
            return [c for c in cards if self.invoked[c] != self.turn]
        if st.op == "rebind":
            mine = self.controller(ctx.this)
            return [c for c in cards if not self._foreign_bond(c, mine)]
        if st.op == "copy":  # a copy of a copy would never end
            return [c for c in cards if not self.info[c].copies(st.text or "preghiera")]
        return cards

    def _lasting(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        target = st.target
        every = isinstance(target, CSelector) and target.pick == "all"
        if not every and not f.picks:
            return DONE
        first, last = SPANS[st.duration]
        end = FOREVER if last == FOREVER else self.turn + last
        extra = f.extra[0] if f.extra else 0
        effect = Standing(
            self._tick(), st, ctx, None if every else f.picks, None, self.turn + first, end, extra
        )
        self.lasting.append(effect)
        self._gain(effect)
        self._log("lasting", f.user, (f.ab.card, st.kind, f.picks, st.duration))
        return DONE

    def _op_break(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        for c in f.picks:
            self._break(c)
        return DONE

    def _op_corrupt(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        for c in f.picks:
            self._corrupt(c)
        return DONE

    def _op_purify(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        for c in f.picks:
            self._purify(c)
        return DONE

    def _op_draw(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        self._draw(f.user, st.amount.value(self, ctx, -1) or 0)
        return DONE

    def _op_discard(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        for c in f.picks:
            self._discard(c)
        return DONE

    def _op_take(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        for c in f.picks:
            source = self.zone[c]
            self._log("take", f.user, (c, source))
            self._move(c, 2 * HAND + f.user)
            # taken from where both can see, or from the other's own hand: the other knows
            if source != MAZZO and source != 2 * HAND + f.user:
                self.known[1 - f.user] |= 1 << c
        if st.shuffle:
            self._shuffle(MAZZO)
        return DONE

    def _op_score(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        self._score(f.user, st.amount.value(self, ctx, -1) or 0, f.ab.card)
        return DONE

    def _op_gain_action(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        if f.user == self.active:
            amount = st.amount.value(self, ctx, -1) or 0
            self.actions += amount
            self._log("actions", f.user, (amount, f.ab.card))
        return DONE

    def _op_end_turn(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        if f.user == self.active:
            self.end_now = True
            self._log("end_now", f.user, (f.ab.card,))
        return DONE

    def _op_return(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        for c in f.picks:
            owner = self.controller(c) if self.zone[c] >> 1 in (MAL, PRE) else f.user
            self._log("return", owner, (c, st.to))
            self._leave(c, "return")
            public = self.zone[c] != MAZZO
            self._move(c, 2 * HAND + owner if st.to == "hand" else MAZZO)
            if st.to == "hand" and public:
                self.known[1 - owner] |= 1 << c
        if st.to == "mazzo" and st.shuffle and f.picks:
            self._shuffle(MAZZO)
        return DONE

    def _op_control(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        self._push(("ab", self._next(f)))
        for c in f.picks:
            self._take_control(c, f.user)
        return DEFER

    def _op_play(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        self._push(("ab", self._next(f)))
        fixed = MAL if st.into == "maledizione" else PRE
        for i in range(len(f.picks) - 1, -1, -1):
            c = f.picks[i]
            how = "cala" if self.zone[c] >> 1 == HAND else "play"
            self._push(("enter", c, f.user, f.extra[i] if st.into == "any" else fixed, how, True))
        return DEFER

    def _op_convert(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        self._push(("ab", self._next(f)))
        into = MAL if st.into == "maledizione" else PRE
        for c in reversed(f.picks):
            self._push(("enter", c, self.controller(c), into, "convert", st.stasi))
        return DEFER

    def _op_invoke(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        self._push(("ab", self._next(f)))
        for e in reversed(f.picks):
            self.invoked[e] = self.turn
            self._log("invoke", self.controller(e), (e, f.ab.card))
            self._use_eco(e)
        return DEFER

    def _op_copy(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        self._push(("ab", self._next(f)))
        for c in reversed(f.picks):
            side, trigger = (
                ("preghiera", "resolve") if st.text == "preghiera" else (st.text, "on_play")
            )
            self._log("copy", f.user, (f.ab.card, c, side))
            for ab in reversed(self.info[c].abilities(side, trigger)):
                self._push(("ab", Frame(ab, f.user, f.this)))
        return DEFER

    def _op_rebind(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        legame = f.this
        if self.zone[legame] >> 1 == PRE and self.host[legame] < 0:
            if f.picks:
                self._bind(legame, f.picks[0])
            else:
                self._break(legame)
        return DONE

    # -- the primitives the ops use: the next layer's (Field), declared here --------------
    # (The compiled build calls the ones Field compiles through the C class, effects.pxd.
    # A catch-all __getattr__ would have done for mypy, but Cython compiles one into a
    # getattr slot, and then every method of the game called from Python costs a bound
    # method.)

    def _move(self, c: int, dest: int) -> None:
        raise NotImplementedError

    def _break(self, c: int, dest: int = VUOTO) -> None:
        raise NotImplementedError

    def _corrupt(self, c: int) -> None:
        raise NotImplementedError

    def _purify(self, c: int) -> None:
        raise NotImplementedError

    def _discard(self, c: int) -> None:
        raise NotImplementedError

    def _draw(self, p: int, n: int, log: str = "draw") -> tuple[int, ...]:
        raise NotImplementedError

    def _shuffle(self, pile: int) -> None:
        raise NotImplementedError

    def _score(self, p: int, points: int, card: int) -> None:
        raise NotImplementedError

    def _bind(self, legame: int, host: int) -> None:
        raise NotImplementedError

    def _foreign_bond(self, m: int, p: int) -> bool:
        raise NotImplementedError

    def _leave(self, c: int, why: str) -> None:
        raise NotImplementedError

    def _take_control(self, c: int, p: int) -> None:
        raise NotImplementedError

    def _use_eco(self, e: int) -> None:
        raise NotImplementedError

    _OPS: ClassVar[dict[str, Callable[..., int]]] = {
        "break": _op_break,
        "corrupt": _op_corrupt,
        "purify": _op_purify,
        "draw": _op_draw,
        "discard": _op_discard,
        "take": _op_take,
        "score": _op_score,
        "gain_action": _op_gain_action,
        "end_turn": _op_end_turn,
        "return": _op_return,
        "control": _op_control,
        "play": _op_play,
        "convert": _op_convert,
        "invoke": _op_invoke,
        "copy": _op_copy,
        "rebind": _op_rebind,
    }
