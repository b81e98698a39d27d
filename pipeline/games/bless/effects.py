"""Bless: the effect vocabulary of pipeline/games/bless.py compiled into fast closures.

Cards are read from the database as data; this module turns each card's abilities into
small objects whose filters, values and conditions are plain Python closures, so the game
evaluates them at the speed of ordinary code. Nothing here knows any card by its number: a
designer who edits a card's data changes what the engine does.

Zones are small integers. Per-player zones are ``kind * 2 + player``; the two shared piles
are ``MAZZO`` (0) and ``VUOTO`` (1). Cards are indices 0..61 (card number minus one).
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Callable, Sequence
from typing import Any, ClassVar, NamedTuple

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

Expr = Callable[[Any, "Ctx", int], "int | None"]
Check = Callable[[Any, int, "Ctx"], bool]


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
        if not checks:
            return self._pool(g, ctx)
        return [c for c in self._pool(g, ctx) if all(check(g, c, ctx) for check in checks)]

    def matches(self, g: Any, c: int, ctx: Ctx) -> bool:
        z = g.zone[c]
        if self.pile >= 0:
            if z != self.pile or (self.top and c not in self._pool(g, ctx)):
                return False
        elif (z >> 1) not in self.kinds or (z & 1) not in self.players(g, ctx):
            return False
        if self.exclude and c in self._excluded(ctx):
            return False
        return all(check(g, c, ctx) for check in self.checks)


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


def _forma_check(bits: int, negate: bool) -> Check:
    if bits == DUALE:
        return (
            (lambda g, c, ctx: g.forma(c) != DUALE)
            if negate
            else (lambda g, c, ctx: g.forma(c) == DUALE)
        )
    if negate:
        return lambda g, c, ctx: not g.forma(c) & bits
    return lambda g, c, ctx: bool(g.forma(c) & bits)


def _stat_check(stat: int, original: bool, compare: CompareFn) -> Check:
    return lambda g, c, ctx: compare(g, ctx, c, g.stat(c, stat, original))


def _checks(f: vocab.Filter, comp: Compiler) -> tuple[Check, ...]:
    checks: list[Check] = []
    if f.forma is not None:
        checks.append(_forma_check(FORMA[f.forma], False))
    if f.forma_not is not None:
        checks.append(_forma_check(FORMA[f.forma_not], True))
    if f.preghiera is not None:
        kinds = frozenset(PRAYER[p] for p in f.preghiera)
        checks.append(lambda g, c, ctx: g.info[c].prayer in kinds)
    if f.state is not None:
        want = f.state == "corrotta"
        checks.append(lambda g, c, ctx: bool(g.corrupt[c]) == want)
    if f.stasi is not None:
        stasi = f.stasi
        checks.append(lambda g, c, ctx: bool(g.stasi[c]) == stasi)
    for name, stat, original in (
        ("occhio", OCC, False),
        ("karma", KAR, False),
        ("occhio_original", OCC, True),
        ("karma_original", KAR, True),
    ):
        compare = getattr(f, name)
        if compare is not None:
            checks.append(_stat_check(stat, original, compile_compare(compare, comp)))
    if f.clash is not None:
        checks.append(_clash_check(f.clash, comp))
    return tuple(checks)


def _clash_check(clash: vocab.Clash, comp: Compiler) -> Check:
    role = clash.role
    vs = CFilter(clash.vs, comp) if clash.vs is not None else None

    def check(g: Any, c: int, ctx: Ctx) -> bool:
        fight = g.fight
        if fight is None:
            return False
        attacker, defender = fight
        if c == attacker and role != "attacked":
            other = defender
        elif c == defender and role != "attacking":
            other = attacker
        else:
            return False
        return vs is None or vs.matches(g, other, ctx)

    return check


CompareFn = Callable[[Any, Ctx, int, int], bool]


def compile_compare(c: vocab.Compare, comp: Compiler) -> CompareFn:
    tests = [
        (COMPARE[name], compile_expr(getattr(c, name), comp))
        for name in COMPARE
        if getattr(c, name) is not None
    ]

    def compare(g: Any, ctx: Ctx, it: int, value: int) -> bool:
        for test, expr in tests:
            other = expr(g, ctx, it)
            if other is None or not test(value, other):
                return False
        return True

    return compare


def compile_expr(e: Any, comp: Compiler) -> Expr:
    if isinstance(e, int):
        return lambda g, ctx, it: e
    if isinstance(e, vocab.Count):
        flt, times = CFilter(e.count, comp), e.times
        return lambda g, ctx, it: len(flt.cards(g, ctx)) * times
    if isinstance(e, vocab.StatOf):
        return _compile_stat_of(e, comp)
    if isinstance(e, vocab.Extreme):
        among, pick = CFilter(e.among, comp), (max if e.max else min)
        stat, original = STAT[e.max or e.min], e.original

        def extreme(g: Any, ctx: Ctx, it: int) -> int | None:
            values = [g.stat(c, stat, original) for c in among.cards(g, ctx)]
            return pick(values) if values else None

        return extreme
    first, second = (compile_expr(x, comp) for x in e.diff)
    return lambda g, ctx, it: max(0, (first(g, ctx, it) or 0) - (second(g, ctx, it) or 0))


def _compile_stat_of(e: vocab.StatOf, comp: Compiler) -> Expr:
    stat, original, of = STAT[e.stat], e.original, e.of
    if isinstance(of, str):

        def stat_of_ref(g: Any, ctx: Ctx, it: int) -> int | None:
            cards = ref_cards(ctx, of, it)
            return g.stat(cards[0], stat, original) if cards else None

        return stat_of_ref
    selector = CSelector(of, comp)
    if selector.pick == "chosen":
        comp.nested.append(selector)
    key = selector.key

    def stat_of_selected(g: Any, ctx: Ctx, it: int) -> int | None:
        for k, card in ctx.chosen:
            if k == key:
                return g.stat(card, stat, original) if card >= 0 else None
        cards = selector.cards(g, ctx)
        return g.stat(cards[0], stat, original) if cards else None

    return stat_of_selected


Condition = Callable[[Any, Ctx], bool]


def compile_condition(c: Any, comp: Compiler) -> Condition:
    if isinstance(c, vocab.CompareCondition):
        value, compare = compile_expr(c.compare, comp), compile_compare(c, comp)

        def compared(g: Any, ctx: Ctx) -> bool:
            v = value(g, ctx, -1)
            return v is not None and compare(g, ctx, -1, v)

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
        self.add = self.set = self.amount = None
        self.always = self.original = False
        self.when = self.vs = self.by = None
        self.keyword = self.forma = self.into = self.to = self.text = None
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
    )

    def __init__(self, index: int, number: int, code: str, name: str, attrs: dict, data: dict):
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
        rest = tuple(ab for ab in statics if ab not in bare)
        if rest:
            self.mal["static"] = rest
        else:
            self.mal.pop("static", None)

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


class Standing:
    """An effect in force: from a static or bond ability, or lasting after a resolution.

    `targets` is None when the step's own target says which cards (``this``, ``host``, or a
    ``pick: all`` selector read continuously); otherwise the cards chosen when it resolved.
    """

    __slots__ = ("cond", "ctx", "end", "extra", "ok", "okv", "start", "step", "targets", "ts")

    def __init__(
        self,
        ts: int,
        step: CStep,
        ctx: Ctx,
        targets: tuple[int, ...] | None = None,
        cond: Condition | None = None,
        start: int = 0,
        end: int = FOREVER,
        extra: int = 0,
    ):
        self.ts, self.step, self.ctx, self.targets = ts, step, ctx, targets
        self.cond, self.ok, self.okv = cond, False, -1
        self.start, self.end, self.extra = start, end, extra

    def applies(self, g: Any, c: int) -> bool:
        if self.cond is not None:
            if self.okv != g.version:  # the condition is read once per state of the game
                self.okv = g.version
                self.ok = False  # re-entry while evaluating reads "not (yet) in force"
                self.ok = bool(self.cond(g, self.ctx))
            if not self.ok:
                return False
        if self.targets is not None:
            return c in self.targets
        target = self.step.target
        if target == "this":
            return c == self.ctx.this
        if target == "host":
            return c == self.ctx.host
        return target is not None and target.matches(g, c, self.ctx)  # type: ignore[union-attr]

    def without(self, card: int) -> Standing | None:
        """This lasting effect once `card` left the field (None: nothing left to affect)."""
        if self.targets is None or card not in self.targets:
            return self
        rest = tuple(c for c in self.targets if c != card)
        if not rest:
            return None
        return Standing(self.ts, self.step, self.ctx, rest, None, self.start, self.end, self.extra)


VERSIONS = itertools.count(1)  # one stamp per state of any game: copies never share one
NONE: list[Standing] = []
NOTHING: tuple[list[Standing], list[Standing]] = (NONE, NONE)
EMPTY_FX: dict[str, Any] = {
    "suppressed": frozenset(),
    "fight": False,
    "touched": frozenset(),
    "broad": frozenset(),
}
STAT_KINDS = (("occhio", "occhio_original"), ("karma", "karma_original"))


def _file(fx: dict[str, Any], e: Standing) -> None:
    """File an effect under its kind: by the cards it names, or as broad.

    ``touched`` gathers the cards some effect names; ``broad`` the kinds read from selectors:
    a card in neither has its printed values, which the hot paths read without more ado.
    """
    kind = e.step.kind
    slot = fx.get(kind)
    if slot is None:
        slot = fx[kind] = ({}, [])
    if e.targets is not None:
        named: tuple[int, ...] = e.targets
    else:
        target = e.step.target
        named = (e.ctx.this,) if target == "this" else (e.ctx.host,) if target == "host" else ()
        if not named:
            slot[1].append(e)
            fx["broad"].add(kind)
    for c in named:
        slot[0].setdefault(c, []).append(e)
        fx["touched"].add(c)
    if e.step.fight:
        fx["fight"] = True


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


DONE, SUSPEND, DEFER, FAIL = 0, 1, 2, 3
SPANS = {
    "this_turn": (0, 0),
    "until_end_of_next_turn": (0, 1),
    "next_turn": (1, 1),
    "permanent": (0, FOREVER),
}


class Effects:
    """The continuous values and the interpreter of steps, mixed into the Bless game.

    The game provides the state (zone, piles, corrupt, stasi, host, since, lasting, turn,
    active, fight ...) and the primitives that change it (_move, _break, _corrupt ...).
    """

    # -- standing effects and the values they make ------------------------------------------

    def controller(self, c: int) -> int:
        return self.zone[c] & 1

    def _dirty(self) -> None:
        """The field changed: the standing effects must be collected again."""
        self._fx = None
        self._touch()

    def _touch(self) -> None:
        """Something changed: values may change (the effects in force stay the same)."""
        self.version = next(VERSIONS)
        self._vals = {}

    def _standing(self) -> dict[str, Any]:
        fx = self._fx
        if fx is None:
            self._fx = EMPTY_FX  # while collecting, nested reads see the printed values
            fx = self._collect()
            self._fx = fx
            self._touch()
        return fx

    def _collect(self) -> dict[str, Any]:
        """Every effect in force, filed by kind and by the card it affects ("broad": read
        continuously from a selector)."""
        info, piles, zone, host = self.info, self.piles, self.zone, self.host
        cache, sources = self._sources, []
        for p in (0, 1):
            for c in piles[2 * MAL + p]:
                if info[c].mal.get("static"):
                    key = (c, p, self.since[c], -1)
                    entries = cache.get(key)
                    if entries is None:
                        ctx = Ctx(p, c)
                        entries = cache[key] = [
                            (ab, Standing(self.since[c], st, ctx, None, ab.cond))
                            for ab in info[c].mal["static"]
                            for st in ab.effects
                        ]
                    sources.append((c, entries))
            for c in piles[2 * PRE + p]:
                h = host[c]
                if h >= 0 and info[c].pre.get("bond"):
                    key = (c, zone[h] & 1, self.since[c], h)
                    entries = cache.get(key)
                    if entries is None:
                        ctx = Ctx(zone[h] & 1, c, h)
                        entries = cache[key] = [
                            (ab, Standing(self.since[c], st, ctx, None, ab.cond))
                            for ab in info[c].pre["bond"]
                            for st in ab.effects
                        ]
                    sources.append((-1, entries))
        turn = self.turn
        lasting = [e for e in self.lasting if e.start <= turn <= e.end]
        suppressed: frozenset[int] = frozenset()
        suppressors = [
            e
            for _, entries in sources
            for ab, e in entries
            if ab.suppresses and e.step.op == "suppress"
        ] + [e for e in lasting if e.step.op == "suppress"]
        if suppressors:
            suppressed = frozenset(
                c
                for p in (0, 1)
                for c in piles[2 * MAL + p]
                if any(e.applies(self, c) for e in suppressors)
            )
        fx: dict[str, Any] = {
            "suppressed": suppressed,
            "fight": False,
            "touched": set(),
            "broad": set(),
        }
        for card, entries in sources:
            if card not in suppressed:
                for _, e in entries:
                    _file(fx, e)
        for e in lasting:
            _file(fx, e)
        return fx

    def _entries(self, kind: str, c: int) -> tuple[list[Standing], list[Standing]]:
        """The effects of a kind that name `c`, and the broad ones that may match it."""
        slot = (self._fx or self._standing()).get(kind)
        if slot is None:
            return NOTHING
        return slot[0].get(c, NONE), slot[1]

    def suppressed(self, c: int) -> bool:
        return c in (self._fx or self._standing())["suppressed"]

    def stat(self, c: int, stat: int, original: bool = False) -> int:
        """Occhio or Karma of a card now: printed off the field, every effect on it."""
        info = self.info[c]
        if self.zone[c] >> 1 != MAL:
            return info.occhio if stat == OCC else info.karma
        fx = self._fx or self._standing()
        fight = self.fight
        if fight is None and c not in fx["touched"]:
            current, orig = STAT_KINDS[stat]
            broad = fx["broad"]
            if current not in broad and orig not in broad:
                return info.occhio if stat == OCC else info.karma
        if fight is not None:
            if (self._fx or self._standing())["fight"]:
                return max(0, self._compute(c, stat, original, fight)[0])
            if stat == OCC and not original and c in fight:
                raw, locked = self._memo(c, OCC, False)
                return max(0, raw if locked else raw + self._rivalry(c, fight))
        return max(0, self._memo(c, stat, original)[0])

    def _memo(self, c: int, stat: int, original: bool) -> tuple[int, bool]:
        key = (c << 2) | (stat << 1) | original
        value = self._vals.get(key)
        if value is None:
            value = self._vals[key] = self._compute(c, stat, original, None)
        return value

    def _compute(
        self, c: int, stat: int, original: bool, fight: tuple[int, int] | None
    ) -> tuple[int, bool]:
        info = self.info[c]
        printed = info.occhio if stat == OCC else info.karma
        name = "occhio" if stat == OCC else "karma"
        fx = self._fx or self._standing()
        if fight is None and name not in fx and name + "_original" not in fx:
            return printed, False
        key = (c << 2) | (stat << 1) | original
        if key in self._busy:
            return printed, False
        self._busy.add(key)
        try:
            value, locked = self._combine(c, printed, name + "_original", 0)
            if not original:
                extra = self._rivalry(c, fight) if stat == OCC and fight is not None else 0
                value, locked = self._combine(c, max(0, value), name, extra)
        finally:
            self._busy.discard(key)
        return value, locked

    def _combine(self, c: int, base: int, kind: str, add: int) -> tuple[int, bool]:
        """«Imposta» then «somma»; the last setting wins; one «sempre» setting beats all.

        Returns the value (not yet kept at 0 or more) and whether a «sempre» fixed it.
        """
        direct, broad = self._entries(kind, c)
        if not direct and not broad:
            return base + add, False
        sets: list[tuple[int, int]] = []
        always: list[tuple[int, int]] = []
        for e in (*direct, *broad):
            if not e.applies(self, c):
                continue
            st = e.step
            if st.when is not None and not st.when.matches(self, c, e.ctx):
                continue
            if st.set is not None:
                v = st.set(self, e.ctx, c)
                if v is not None:
                    (always if st.always else sets).append((e.ts, v))
            else:
                add += st.add(self, e.ctx, c) or 0
        if len(always) == 1:
            return always[0][1], True
        sets += always
        return (max(sets)[1] if sets else base) + add, False

    def _rivalry(self, c: int, fight: tuple[int, int]) -> int:
        attacker, defender = fight
        if c != attacker and c != defender:
            return 0
        mine, theirs = self.forma(c), self.forma(defender if c == attacker else attacker)
        if DUALE in (mine, theirs) or mine == theirs:
            return 0
        return 3 if self.has(c, "Rivalita") else 0

    def forma(self, c: int) -> int:
        printed = self.info[c].forma
        slot = (self._fx or self._standing()).get("set_forma")
        if slot is None or self.zone[c] >> 1 not in (MAL, PRE):
            return printed
        key = -1 - c
        if key in self._busy:
            return printed
        self._busy.add(key)
        try:
            best = None
            for e in (*slot[0].get(c, NONE), *slot[1]):
                if (best is None or e.ts > best.ts) and e.applies(self, c):
                    best = e
        finally:
            self._busy.discard(key)
        if best is None:
            return printed
        mode = best.step.forma
        if mode == "opposite":
            return printed if printed == DUALE else 3 - printed
        return best.extra if mode == "chosen" else FORMA[mode]

    def has(self, c: int, keyword: str) -> bool:
        if self.zone[c] >> 1 != MAL:
            return False
        if keyword in self.info[c].keywords and not self.suppressed(c):
            return True
        direct, broad = self._entries("grant", c)
        if not direct and not broad:
            return False
        return any(e.step.keyword == keyword and e.applies(self, c) for e in (*direct, *broad))

    def flag(self, kind: str, c: int) -> bool:
        """tie_wins, cannot_attack, taunt, direct_attack: does one apply to the card now?"""
        if self.zone[c] >> 1 != MAL:
            return False
        direct, broad = self._entries(kind, c)
        return any(e.applies(self, c) for e in direct) or any(e.applies(self, c) for e in broad)

    def shielded(self, defender: int, attacker: int) -> bool:
        """An effect says `defender` cannot be attacked (by this attacker)."""
        direct, broad = self._entries("cannot_be_attacked", defender)
        for e in (*direct, *broad):
            if e.applies(self, defender) and (
                e.step.vs is None or e.step.vs.matches(self, attacker, e.ctx)
            ):
                return True
        return False

    def wins_level(self, c: int, other: int) -> int:
        """2 for a «Vince sempre» that holds against `other`, 1 for a «Vince», else 0."""
        level = 0
        direct, broad = self._entries("wins", c)
        for e in (*direct, *broad):
            if e.applies(self, c) and e.step.vs.matches(self, other, e.ctx):
                level = max(level, 2 if e.step.always else 1)
        return level

    def free(self, c: int, p: int, into: str) -> bool:
        """Calare this card from `p`'s hand in this way costs no Action."""
        direct, broad = self._entries("free_play", c)
        for e in (*direct, *broad):
            if e.step.into == into and e.applies(self, c):
                return True
        for ab in self.info[c].mal.get("in_hand", ()):
            ctx = Ctx(p, c)
            if ab.cond is None or ab.cond(self, ctx):
                for st in ab.effects:
                    if st.op == "free_play" and st.into == into:
                        target = st.target
                        if target == "this" or (
                            isinstance(target, CSelector) and target.matches(self, c, ctx)
                        ):
                            return True
        return False

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
            f = f._replace(stage=1)
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
            f = f._replace(stage=2 if ab.cost else 3, idx=0)
        while True:
            steps = ab.cost if f.stage == 2 else ab.effects
            if f.idx >= len(steps):
                if f.stage == 3:
                    return
                f = f._replace(stage=3, idx=0)
                continue
            status, f = self._step(f, steps[f.idx], choice)
            choice = None
            if status != DONE:
                return
            f = self._next(f)

    @staticmethod
    def _next(f: Frame) -> Frame:
        cost = f.cost + f.picks if f.stage == 2 else f.cost
        return f._replace(
            idx=f.idx + 1, picks=(), need=-1, done=False, cost=cost, chosen=(), extra=()
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
            f = f._replace(picks=ref_cards(self._ctx(f), target), done=True)
        if f.stage == 2 and target is not None and not f.picks:
            return FAIL, f
        ctx = self._ctx(f)
        for sel in st.nested:
            if any(k == sel.key for k, _ in f.chosen):
                continue
            if choice is None:
                options = sel.cards(self, ctx)
                if len(options) > 1:
                    chooser = f.user if sel.chooser == "user" else 1 - f.user
                    self._decide(chooser, "target", tuple(options), ("ab", f), (f.ab.card, st.op))
                    return SUSPEND, f
                choice = options[0] if options else -1
            f = f._replace(chosen=(*f.chosen, (sel.key, choice)))
            ctx, choice = self._ctx(f), None
        wanted = 0
        if st.op == "play" and st.into == "any":
            wanted = len(f.picks)
        elif st.op == "set_forma" and st.forma == "chosen" and f.picks:
            wanted = 1
        if len(f.extra) < wanted:
            if choice is None:
                kind = "into" if st.op == "play" else "forma"
                options = (MAL, PRE) if kind == "into" else (LUCE, OMBRA)
                about = (f.ab.card, f.picks[len(f.extra)] if kind == "into" else f.picks[0])
                self._decide(f.user, kind, options, ("ab", f), about)
                return SUSPEND, f
            f = f._replace(extra=(*f.extra, choice))
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
            f = f._replace(need=max(0, sel.count(self, ctx, -1) or 0))
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
                    waiting = f._replace(picks=picks)
                    self._decide(
                        chooser, "target", tuple(pool), ("ab", waiting), (f.ab.card, st.op)
                    )
                    return waiting, True
                picks += tuple(pool)
                need -= len(pool)
                cands = [c for c in cands if c not in pool]
        return f._replace(picks=picks, done=True), False

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
        self._dirty()
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
        self._draw(f.user, st.amount(self, ctx, -1) or 0)
        return DONE

    def _op_discard(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        for c in f.picks:
            self._discard(c)
        return DONE

    def _op_take(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        for c in f.picks:
            self._log("take", f.user, (c, self.zone[c]))
            self._move(c, 2 * HAND + f.user)
        if st.shuffle:
            self._shuffle(MAZZO)
        return DONE

    def _op_score(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        self._score(f.user, st.amount(self, ctx, -1) or 0, f.ab.card)
        return DONE

    def _op_gain_action(self, f: Frame, st: CStep, ctx: Ctx) -> int:
        if f.user == self.active:
            amount = st.amount(self, ctx, -1) or 0
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
            self._move(c, 2 * HAND + owner if st.to == "hand" else MAZZO)
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
