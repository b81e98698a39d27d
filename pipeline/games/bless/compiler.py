"""Bless: the effect vocabulary (vocab.py) compiled into small objects.

Cards are read from the database as data; this module turns each card's abilities into
small objects: filters made of per-card checks, and values, as objects the compiled build
calls in C; conditions as plain Python closures. The game evaluates them at the speed of
ordinary code. Nothing here knows any card by its number: a designer who edits a card's
data changes what the engine does.

Zones are small integers. Per-player zones are ``kind * 2 + player``; the two shared piles
are ``MAZZO`` (0) and ``VUOTO`` (1). Cards are indices 0..61 (card number minus one).
"""

from __future__ import annotations

import copy
import operator
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import vocab

MAZZO, VUOTO = 0, 1
HAND, MAL, PRE, ALT, ASIDE = 2, 3, 4, 5, 6  # per-player zone kinds
ZONE_KINDS = {
    "maledizioni": (MAL,),
    "preghiere": (PRE,),
    "field": (MAL, PRE),
    "hand": (HAND,),
    "altare": (ALT,),
}
PILES = {"mazzo": MAZZO, "vuoto": VUOTO}
LUCE, OMBRA, DUALE = 1, 2, 3
FORMA = {"Luce": LUCE, "Ombra": OMBRA, "Duale": DUALE}
IMPULSO, ECO, LEGAME = 0, 1, 2
PRAYER = {"Impulso": IMPULSO, "Eco": ECO, "Legame": LEGAME}
OCC, KAR = 0, 1
STAT = {"occhio": OCC, "karma": KAR}
FOREVER = 1 << 30
COMPARE = {
    "eq": operator.eq,
    "ne": operator.ne,
    "lt": operator.lt,
    "le": operator.le,
    "gt": operator.gt,
    "ge": operator.ge,
}


class Ctx:
    """Who uses an effect and what its references point to (``it`` is passed apart)."""

    __slots__ = ("chosen", "cost", "host", "target", "this", "user")

    def __init__(
        self,
        user: int,
        this: int,
        host: int = -1,
        target: tuple[int, ...] = (),
        cost: tuple[int, ...] = (),
        chosen: tuple[tuple[int, int], ...] = (),
    ):
        self.user = user
        self.this = this
        self.host = host
        self.target = target
        self.cost = cost
        self.chosen = chosen


def ref_cards(ctx: Ctx, ref: str, it: int = -1) -> tuple[int, ...]:
    if ref == "this":
        return (ctx.this,)
    if ref == "host":
        return (ctx.host,) if ctx.host >= 0 else ()
    if ref == "it":
        return (it,) if it >= 0 else ()
    if ref == "target":
        return ctx.target
    return ctx.cost


class Reader:
    """What a compiled filter reads of a game: a few fields and two values (implemented by
    values.Values). A C class in the compiled build (compiler.pxd), at the root of the
    game's chain of classes (common.GameFields), so that a check reads them as struct
    members and calls `forma` and `stat` without a lookup."""

    __slots__ = ("corrupt", "fight", "info", "piles", "stasi", "zone")  # set by BlessGame

    corrupt: list[int]
    fight: tuple[int, int] | None
    info: list[CardInfo]
    piles: list[list[int]]
    stasi: list[int]
    zone: list[int]

    def forma(self, c: int) -> int:
        raise NotImplementedError

    def stat(self, c: int, stat: int, original: bool = False) -> int:
        raise NotImplementedError


class Compiler:
    """Numbers the selectors that must be chosen while a value is read (e.g. «un'altra tua»)."""

    def __init__(self) -> None:
        self.keys = 0
        self.nested: list[CSelector] = []

    def key(self) -> int:
        self.keys += 1
        return self.keys


class CFilter:
    """A compiled `Filter`: which zones and controllers, then a list of per-card checks."""

    __slots__ = (
        "anyone",
        "checks",
        "controller",
        "exclude",
        "fighting",
        "kinds",
        "opposite_of",
        "pile",
        "top",
    )

    def __init__(self, f: vocab.Filter, comp: Compiler):
        self.fighting = f.clash is not None  # what it matches depends on the clash under way
        self.pile = PILES.get(f.zone, -1)
        self.kinds = ZONE_KINDS.get(f.zone, ())
        self.controller = f.controller
        self.opposite_of = f.opposite_of
        self.anyone = f.opposite_of is None and f.controller == "any"  # either player's cards
        self.top = f.top
        self.exclude = tuple(f.exclude)
        self.checks = _checks(f, comp)

    def players(self, g: Any, ctx: Ctx) -> tuple[int, ...]:
        if self.opposite_of is not None:
            refs = ref_cards(ctx, self.opposite_of)
            return (1 - g.controller(refs[0]),) if refs else ()
        if self.controller == "self":
            return (ctx.user,)
        if self.controller == "opponent":
            return (1 - ctx.user,)
        return (ctx.user, 1 - ctx.user)

    def _excluded(self, ctx: Ctx) -> tuple[int, ...]:
        out: tuple[int, ...] = ()
        for ref in self.exclude:
            out += ref_cards(ctx, ref)
        return out

    def _pool(self, g: Any, ctx: Ctx) -> list[int]:
        excluded = self._excluded(ctx) if self.exclude else ()
        if self.pile >= 0:
            pool = [c for c in reversed(g.piles[self.pile]) if c not in excluded]
            return pool[: self.top] if self.top else pool
        piles = g.piles
        return [
            c
            for p in self.players(g, ctx)
            for k in self.kinds
            for c in piles[2 * k + p]
            if c not in excluded
        ]

    def cards(self, g: Any, ctx: Ctx) -> list[int]:
        """The matching cards; piles top first."""
        checks = self.checks
        pool = self._pool(g, ctx)
        if not checks:
            return pool
        out = []
        for c in pool:
            for check in checks:
                if not check.test(g, c, ctx):
                    break
            else:
                out.append(c)
        return out

    def matches(self, g: Any, c: int, ctx: Ctx) -> bool:
        z = g.zone[c]
        if self.pile >= 0:
            if z != self.pile or (self.top and c not in self._pool(g, ctx)):
                return False
        elif (z >> 1) not in self.kinds or not (self.anyone or (z & 1) in self.players(g, ctx)):
            return False
        if self.exclude and c in self._excluded(ctx):
            return False
        for check in self.checks:  # noqa: SIM110 - a hot path: a loop beats all() on a generator
            if not check.test(g, c, ctx):
                return False
        return True


class CSelector(CFilter):
    """A compiled `Selector`: a filter plus how the cards are picked and by whom."""

    __slots__ = ("by", "by_original", "chooser", "count", "key", "pick")

    def __init__(self, s: vocab.Selector, comp: Compiler):
        super().__init__(s, comp)
        self.pick = s.pick
        self.count = compile_expr(s.count, comp)
        self.by = STAT[s.by] if s.by else OCC
        self.by_original = s.by_original
        self.chooser = s.chooser
        self.key = comp.key()


class Check:
    """One per-card test of a filter (its Forma, kind of Preghiera, state, a value, its
    part in the clash under way): a small object rather than a closure, so the compiled
    build calls it, and what it reads of the game, without a lookup (compiler.pxd)."""

    __slots__ = ()

    def test(self, g: Reader, c: int, ctx: Ctx) -> bool:
        raise NotImplementedError


class FormaIs(Check):
    """The card's current Forma has one of the bits (a Duale has both), or (`negate`)
    none of them; for Duale itself: it is, or is not, Duale."""

    __slots__ = ("bits", "negate")

    def __init__(self, bits: int, negate: bool):
        self.bits, self.negate = bits, negate

    def test(self, g: Reader, c: int, ctx: Ctx) -> bool:
        forma = g.forma(c)
        if self.bits == DUALE:
            return (forma == DUALE) != self.negate
        return bool(forma & self.bits) != self.negate


class PrayerIn(Check):
    __slots__ = ("kinds",)

    def __init__(self, kinds: frozenset[int]):
        self.kinds = kinds

    def test(self, g: Reader, c: int, ctx: Ctx) -> bool:
        return g.info[c].prayer in self.kinds


class CorruptIs(Check):
    __slots__ = ("want",)

    def __init__(self, want: bool):
        self.want = want

    def test(self, g: Reader, c: int, ctx: Ctx) -> bool:
        return bool(g.corrupt[c]) == self.want


class StasiIs(Check):
    __slots__ = ("want",)

    def __init__(self, want: bool):
        self.want = want

    def test(self, g: Reader, c: int, ctx: Ctx) -> bool:
        return bool(g.stasi[c]) == self.want


class StatIs(Check):
    """The card's Occhio or Karma (current or original) compares as the filter says."""

    __slots__ = ("compare", "original", "stat")

    def __init__(self, stat: int, original: bool, compare: Compare):
        self.stat, self.original, self.compare = stat, original, compare

    def test(self, g: Reader, c: int, ctx: Ctx) -> bool:
        return self.compare.test(g, ctx, c, g.stat(c, self.stat, self.original))


class InClash(Check):
    """The card takes part in the clash under way in this role, against a card that
    matches `vs` (if given)."""

    __slots__ = ("role", "vs")

    def __init__(self, clash: vocab.Clash, comp: Compiler):
        self.role = clash.role
        self.vs = CFilter(clash.vs, comp) if clash.vs is not None else None

    def test(self, g: Reader, c: int, ctx: Ctx) -> bool:
        fight = g.fight
        if fight is None:
            return False
        attacker, defender = fight
        if c == attacker and self.role != "attacked":
            other = defender
        elif c == defender and self.role != "attacking":
            other = attacker
        else:
            return False
        return self.vs is None or self.vs.matches(g, other, ctx)


def _checks(f: vocab.Filter, comp: Compiler) -> tuple[Check, ...]:
    checks: list[Check] = []
    if f.forma is not None:
        checks.append(FormaIs(FORMA[f.forma], False))
    if f.forma_not is not None:
        checks.append(FormaIs(FORMA[f.forma_not], True))
    if f.preghiera is not None:
        checks.append(PrayerIn(frozenset(PRAYER[p] for p in f.preghiera)))
    if f.state is not None:
        checks.append(CorruptIs(f.state == "corrotta"))
    if f.stasi is not None:
        checks.append(StasiIs(f.stasi))
    for name, stat, original in (
        ("occhio", OCC, False),
        ("karma", KAR, False),
        ("occhio_original", OCC, True),
        ("karma_original", KAR, True),
    ):
        compare = getattr(f, name)
        if compare is not None:
            checks.append(StatIs(stat, original, Compare(compare, comp)))
    if f.clash is not None:
        checks.append(InClash(f.clash, comp))
    return tuple(checks)


class Value:
    """A compiled number (vocab.Expr): a constant, a count of cards, a card's Occhio or
    Karma, the highest or lowest among cards, a difference. Objects rather than closures,
    as the checks are; `it` is the card the value is read for (-1: none)."""

    __slots__ = ()

    def value(self, g: Reader, ctx: Ctx, it: int) -> int | None:
        raise NotImplementedError


class Const(Value):
    __slots__ = ("n",)

    def __init__(self, n: int):
        self.n = n

    def value(self, g: Reader, ctx: Ctx, it: int) -> int | None:
        return self.n


class CountOf(Value):
    __slots__ = ("flt", "times")

    def __init__(self, flt: CFilter, times: int):
        self.flt, self.times = flt, times

    def value(self, g: Reader, ctx: Ctx, it: int) -> int | None:
        return len(self.flt.cards(g, ctx)) * self.times


class StatOfRef(Value):
    """The value of the card a reference (this, host, it, target, cost) points to."""

    __slots__ = ("of", "original", "stat")

    def __init__(self, stat: int, original: bool, of: str):
        self.stat, self.original, self.of = stat, original, of

    def value(self, g: Reader, ctx: Ctx, it: int) -> int | None:
        cards = ref_cards(ctx, self.of, it)
        return g.stat(cards[0], self.stat, self.original) if cards else None


class StatOfSelected(Value):
    """The value of the card a selector picks (the one chosen, if it is chosen)."""

    __slots__ = ("original", "selector", "stat")

    def __init__(self, stat: int, original: bool, selector: CSelector):
        self.stat, self.original, self.selector = stat, original, selector

    def value(self, g: Reader, ctx: Ctx, it: int) -> int | None:
        key = self.selector.key
        for k, card in ctx.chosen:
            if k == key:
                return g.stat(card, self.stat, self.original) if card >= 0 else None
        cards = self.selector.cards(g, ctx)
        return g.stat(cards[0], self.stat, self.original) if cards else None


class ExtremeOf(Value):
    __slots__ = ("among", "highest", "original", "stat")

    def __init__(self, among: CFilter, highest: bool, stat: int, original: bool):
        self.among, self.highest, self.stat, self.original = among, highest, stat, original

    def value(self, g: Reader, ctx: Ctx, it: int) -> int | None:
        values = [g.stat(c, self.stat, self.original) for c in self.among.cards(g, ctx)]
        if not values:
            return None
        return max(values) if self.highest else min(values)


class Diff(Value):
    """The first value less the second, never below 0 (a missing value counts 0)."""

    __slots__ = ("first", "second")

    def __init__(self, first: Value, second: Value):
        self.first, self.second = first, second

    def value(self, g: Reader, ctx: Ctx, it: int) -> int | None:
        a, b = self.first.value(g, ctx, it), self.second.value(g, ctx, it)
        return max(0, (a or 0) - (b or 0))


class Compare:
    """A compiled vocab.Compare: each of its tests against a value (all must hold)."""

    __slots__ = ("tests",)

    def __init__(self, c: vocab.Compare, comp: Compiler):
        self.tests = tuple(
            (COMPARE[name], compile_expr(getattr(c, name), comp))
            for name in COMPARE
            if getattr(c, name) is not None
        )

    def test(self, g: Reader, ctx: Ctx, it: int, value: int) -> bool:
        for test, expr in self.tests:
            other = expr.value(g, ctx, it)
            if other is None or not test(value, other):
                return False
        return True


def compile_expr(e: Any, comp: Compiler) -> Value:
    if isinstance(e, int):
        return Const(e)
    if isinstance(e, vocab.Count):
        return CountOf(CFilter(e.count, comp), e.times)
    if isinstance(e, vocab.StatOf):
        stat = STAT[e.stat]
        if isinstance(e.of, str):
            return StatOfRef(stat, e.original, e.of)
        selector = CSelector(e.of, comp)
        if selector.pick == "chosen":
            comp.nested.append(selector)
        return StatOfSelected(stat, e.original, selector)
    if isinstance(e, vocab.Extreme):
        stat = STAT[str(e.max or e.min)]
        return ExtremeOf(CFilter(e.among, comp), bool(e.max), stat, e.original)
    return Diff(compile_expr(e.diff[0], comp), compile_expr(e.diff[1], comp))


Condition = Callable[[Any, Ctx], bool]


def compile_condition(c: Any, comp: Compiler) -> Condition:
    if isinstance(c, vocab.CompareCondition):
        value, compare = compile_expr(c.compare, comp), Compare(c, comp)

        def compared(g: Any, ctx: Ctx) -> bool:
            v = value.value(g, ctx, -1)
            return v is not None and compare.test(g, ctx, -1, v)

        return compared
    if isinstance(c, vocab.Matches):
        ref, flt = c.card, CFilter(c.matches, comp)
        return lambda g, ctx: any(flt.matches(g, x, ctx) for x in ref_cards(ctx, ref))
    if isinstance(c, vocab.NoneMatch):
        flt = CFilter(c.none, comp)
        return lambda g, ctx: not flt.cards(g, ctx)
    if isinstance(c, vocab.Turn):
        mine = c.turn == "self"
        return lambda g, ctx: (g.active == ctx.user) == mine
    parts = [compile_condition(x, comp) for x in c.all]
    return lambda g, ctx: all(part(g, ctx) for part in parts)


class CStep:
    """One compiled step: its op, its target and the parameters the op needs."""

    __slots__ = (
        "add",
        "always",
        "amount",
        "by",
        "duration",
        "fight",
        "forma",
        "into",
        "keyword",
        "kind",
        "nested",
        "op",
        "original",
        "raw",
        "selector",
        "set",
        "shuffle",
        "stasi",
        "target",
        "text",
        "to",
        "vs",
        "when",
    )

    def __init__(self, raw: Any):
        comp = Compiler()
        self.raw = raw
        self.op = op = raw.op
        self.duration = getattr(raw, "duration", "permanent")
        target = getattr(raw, "target", None)
        self.target: str | CSelector | None = (
            target if target is None or isinstance(target, str) else CSelector(target, comp)
        )
        self.kind = op
        # compiled values (Value) and filters (CFilter), as the step's op has them
        self.add: Any = None
        self.set: Any = None
        self.amount: Any = None
        self.always = self.original = False
        self.when: Any = None
        self.vs: Any = None
        self.by: Any = None
        self.keyword: Any = None
        self.forma: Any = None
        self.into: Any = None
        self.to: Any = None
        self.text: Any = None
        self.stasi = self.shuffle = False
        if op == "modify":
            self.kind = raw.stat + ("_original" if raw.original else "")
            self.add = compile_expr(raw.add, comp) if raw.add is not None else None
            self.set = compile_expr(raw.set, comp) if raw.set is not None else None
            self.always, self.original = raw.always, raw.original
            self.when = CFilter(raw.when, comp) if raw.when is not None else None
        elif op in ("grant", "wins", "cannot_be_attacked"):
            self.keyword = getattr(raw, "keyword", None)
            vs = getattr(raw, "vs", None) or getattr(raw, "by", None)
            self.vs = CFilter(vs, comp) if vs is not None else None
            self.always = getattr(raw, "always", False)
        elif op == "discard":
            # A discard is a pick from a hand: by its owner, or at random.
            sel = vocab.Selector(
                zone="hand",
                controller=raw.player,
                pick="random" if raw.random else "chosen",
                count=raw.count,
                chooser="user" if raw.player == "self" else "opponent",
            )
            self.target = CSelector(sel, comp)
        elif op in ("draw", "score", "gain_action"):
            value = raw.count if op == "draw" else raw.amount
            self.amount = compile_expr(value, comp)
        self.forma = getattr(raw, "forma", None)
        self.into = getattr(raw, "into", None)
        self.to = getattr(raw, "to", None)
        self.text = getattr(raw, "text", None)
        self.stasi = getattr(raw, "stasi", True)
        self.shuffle = getattr(raw, "shuffle", False)
        self.nested = tuple(comp.nested)
        # the target when a selector (for the hot paths: typed in compiler.pxd)
        self.selector = self.target if isinstance(self.target, CSelector) else None
        self.fight = any(
            isinstance(x, CFilter) and x.fighting for x in (self.when, self.target, self.vs)
        )


class CAbility:
    """One compiled ability of one side of a card."""

    __slots__ = (
        "card",
        "cond",
        "cost",
        "effects",
        "optional",
        "rebinds",
        "side",
        "suppresses",
        "trigger",
        "watch",
    )

    def __init__(self, raw: vocab.Ability, card: int, side: str):
        comp = Compiler()
        self.card = card
        self.side = side
        self.trigger = raw.trigger
        self.watch = CFilter(raw.watch, comp) if raw.watch is not None else None
        self.cond = compile_condition(raw.condition, comp) if raw.condition is not None else None
        self.cost = tuple(CStep(s) for s in raw.cost)
        self.optional = raw.optional
        self.effects = tuple(CStep(s) for s in raw.effects)
        self.rebinds = any(s.op == "rebind" for s in self.effects)
        self.suppresses = any(s.op == "suppress" for s in self.effects)


class CardInfo:
    """A card's printed values and its compiled abilities, grouped by trigger."""

    __slots__ = (
        "code",
        "data",
        "forma",
        "index",
        "karma",
        "keywords",
        "mal",
        "name",
        "number",
        "occhio",
        "prayer",
        "pre",
        "profile",
    )

    def __init__(
        self,
        index: int,
        number: int,
        code: str,
        name: str,
        attrs: dict,
        data: Mapping[str, Any] | None,
    ):
        self.index, self.number, self.code, self.name = index, number, code, name
        self.data = data
        self.forma = FORMA[attrs["forma"]]
        self.occhio = int(attrs["occhio"])
        self.karma = int(attrs["karma"])
        self.prayer = PRAYER[attrs["preghiera"]]
        effects = vocab.BlessEffects.model_validate(data)
        self.mal = _by_trigger(effects.maledizione, index, "maledizione")
        self.pre = _by_trigger(effects.preghiera, index, "preghiera")
        # Abilities printed as a bare keyword (e.g. «Rivalità.») are read without collecting
        # them as effects: the card has the keyword while it is a Maledizione not suppressed.
        statics = self.mal.get("static", ())
        bare = [
            ab
            for ab in statics
            if ab.cond is None
            and all(st.op == "grant" and st.target == "this" for st in ab.effects)
        ]
        self.keywords = frozenset(st.keyword for ab in bare for st in ab.effects)
        self.profile = self._printed_profile()
        rest = tuple(ab for ab in statics if ab not in bare)
        if rest:
            self.mal["static"] = rest
        else:
            self.mal.pop("static", None)

    def blanked(self, side: str) -> CardInfo:
        """This card with one side («maledizione» or «preghiera») left without effect."""
        info = copy.copy(self)
        if side == "maledizione":
            info.mal, info.keywords = {}, frozenset()
            info.profile = info._printed_profile()
        else:
            info.pre = {}
        return info

    def _printed_profile(self) -> tuple[int, bool, int, bool, bool, bool]:
        """The clash profile of the card as printed (Turns._profile): what it is when no
        effect in force reaches it."""
        keywords = self.keywords
        return (self.occhio, False, self.forma, "Rivalita" in keywords, False, "Fato" in keywords)

    def abilities(self, side: str, trigger: str) -> tuple[CAbility, ...]:
        return (self.mal if side == "maledizione" else self.pre).get(trigger, ())

    def copies(self, side: str) -> bool:
        """This side of the card uses another card's effect."""
        table = self.mal if side == "maledizione" else self.pre
        return any(st.op == "copy" for abs_ in table.values() for ab in abs_ for st in ab.effects)


def _by_trigger(abilities: Sequence[vocab.Ability], card: int, side: str) -> dict:
    out: dict[str, tuple[CAbility, ...]] = {}
    for raw in abilities:
        out[raw.trigger] = (*out.get(raw.trigger, ()), CAbility(raw, card, side))
    return out
