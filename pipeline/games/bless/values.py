"""Bless: the continuous layer. Effects in force are collected once per change of the field
and filed by the card they name; values are memoised per state version."""

from __future__ import annotations

import itertools
from typing import Any

from .common import GameFields
from .compiler import DUALE, FOREVER, FORMA, MAL, OCC, PRE, Condition, CSelector, CStep, Ctx


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
        selector = self.step.selector
        if selector is not None:
            return bool(selector.matches(g, c, self.ctx))
        target = self.step.target
        if target == "this":
            return c == self.ctx.this
        return target == "host" and c == self.ctx.host

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
    "suppressing": False,
    "suppressed": frozenset(),
    "fight": False,
    "fight_on": frozenset(),
    "touched": frozenset(),
    "broad": frozenset(),
    "clash_broad": False,
}
STAT_KINDS = (("occhio", "occhio_original"), ("karma", "karma_original"))
# the kinds of effect a clash profile reads (Turns._profile)
CLASH_KINDS = frozenset(("occhio", "occhio_original", "grant", "wins", "tie_wins", "set_forma"))


class _Sources(list[tuple[Any, Standing]]):
    """The effects in force of one card's static or bond abilities in one place, with
    those among them that suppress cards."""

    def __init__(self, entries: Any):
        super().__init__(entries)
        self.suppressors = [e for ab, e in self if ab.suppresses and e.step.op == "suppress"]


def _file(fx: dict[str, Any], e: Standing, shared: set[str] | None = None) -> None:
    """File an effect under its kind: by the cards it names, or as broad.

    ``touched`` gathers the cards some effect names; ``broad`` the kinds read from selectors:
    a card in neither has its printed values, which the hot paths read without more ado.
    ``shared``: the kinds whose slots `fx` still shares with the effects in force it was
    copied from; a slot is copied before its first change.
    """
    kind = e.step.kind
    slot: tuple[dict[int, list[Standing]], list[Standing]] | None = fx.get(kind)
    if slot is None:
        slot = fx[kind] = ({}, [])
    elif shared is not None and kind in shared:
        shared.discard(kind)
        slot = fx[kind] = (dict(slot[0]), slot[1][:])
    # typed locals in values.pxd: the compiled build calls their methods in C
    by_card: dict[int, list[Standing]] = slot[0]
    touched: set[int] = fx["touched"]
    if e.targets is not None:
        named: tuple[int, ...] = e.targets
    else:
        target = e.step.target
        named = (e.ctx.this,) if target == "this" else (e.ctx.host,) if target == "host" else ()
        if not named:
            broad: list[Standing] = slot[1]
            broad.append(e)
            kinds: set[str] = fx["broad"]
            kinds.add(kind)
    for c in named:
        by_card[c] = [*by_card.get(c, NONE), e]
        touched.add(c)
    if e.step.fight:
        fx["fight"] = True
        reached = fx["fight_on"]  # the cards whose clashes it reads; None: any card's
        if reached is not None:
            fx["fight_on"] = reached | frozenset(named) if named else None


class Values(GameFields):
    """Effects in force and the values they make (Occhio, Karma, Forma, keywords, flags):
    the first layer of rules over the game's fields (see common.GameFields)."""

    __slots__ = ()  # the fields are BlessGame's (GameFields)

    # -- standing effects and the values they make ------------------------------------------

    def controller(self, c: int) -> int:
        return self.zone[c] & 1

    def _dirty(self) -> None:
        """The field changed: the standing effects must be collected again."""
        self._fx = None
        self._fx_base = None
        self._touch()

    def _moved(self, c: int, entered: bool = False) -> None:
        """`c` entered or left the field (`entered`: it came onto the Zona Maledizione from
        off the field). What is in force is collected from the field's static and bond
        abilities and from lasting effects, so it stays the same when `c` has neither kind
        of ability, hosts no Legame and nothing in force suppresses cards (which cards are
        suppressed depends on who is on the field); and a card that comes with static
        abilities only adds its own."""
        fx, info = self._fx or self._fx_base, self.info[c]
        if fx is None or fx["suppressing"]:
            self._dirty()
        elif entered:
            if "static" in info.mal:
                self._gain(c)
            else:
                self._touch()
        elif "static" in info.mal or "bond" in info.pre or c in self.host:
            self._dirty()
        else:
            self._touch()

    def _gain(self, item: int | Standing) -> None:
        """`item` starts to be in force and nothing else in force changes: a card that came
        onto the field with static abilities, or a lasting effect. The next read files it
        into a copy of what was in force instead of collecting everything again."""
        base = self._fx or self._fx_base
        if base is None or base["suppressing"]:
            self._dirty()
            return
        self._fx_more = [item] if self._fx is not None else [*self._fx_more, item]
        self._fx_base, self._fx = base, None
        self._touch()

    def _touch(self) -> None:
        """Something changed: values may change (the effects in force stay the same)."""
        self.version = next(VERSIONS)
        self._vals = {}

    def _standing(self) -> dict[str, Any]:
        fx = self._fx
        if fx is None:
            self._fx = EMPTY_FX  # while collecting, nested reads see the printed values
            base, self._fx_base = self._fx_base, None
            fx = (base is not None and self._extend(base, self._fx_more)) or self._collect()
            self._fx = fx
            self._touch()
        return fx

    def _extend(self, base: dict[str, Any], items: list[Any]) -> dict[str, Any] | None:
        """What is in force: `base` and the effects of `items` (see _gain), filed into a
        copy; None when one of them suppresses cards (then everything is collected)."""
        effects: list[Standing] = []
        for item in items:
            if isinstance(item, Standing):
                if item.start <= self.turn <= item.end:
                    effects.append(item)
            elif self.zone[item] >> 1 == MAL:
                effects.extend(e for _, e in self._static_entries(item, self.zone[item] & 1))
        if any(e.step.op == "suppress" for e in effects):
            return None
        fx = dict(base)
        fx["touched"], fx["broad"] = set(base["touched"]), set(base["broad"])
        shared = {kind for kind, slot in base.items() if isinstance(slot, tuple)}
        for e in effects:
            _file(fx, e, shared)
        fx["clash_broad"] = not CLASH_KINDS.isdisjoint(fx["broad"])
        return fx

    def _static_entries(self, c: int, p: int) -> _Sources:
        """The effects in force of the static abilities of `c`, a Maledizione of `p`."""
        return self._entries_of((c, p, self.since[c], -1), self.info[c].mal["static"])

    def _entries_of(self, key: tuple[int, int, int, int], abilities: Any) -> _Sources:
        """The effects in force of one card's static or bond abilities in one place (`key`:
        card, user, since, host or -1), made once and kept."""
        entries = self._sources.get(key)
        if entries is None:
            ctx = Ctx(key[1], key[0], key[3])
            entries = self._sources[key] = _Sources(
                [
                    (ab, Standing(key[2], st, ctx, None, ab.cond))
                    for ab in abilities
                    for st in ab.effects
                ]
            )
        return entries

    def _collect(self) -> dict[str, Any]:
        """Every effect in force, filed by kind and by the card it affects ("broad": read
        continuously from a selector)."""
        info, piles, zone, host = self.info, self.piles, self.zone, self.host
        sources: list[tuple[int, _Sources]] = []
        keys: list[tuple[int, int, int, int]] = []
        for p in (0, 1):
            for c in piles[2 * MAL + p]:
                ci = info[c]
                if ci.mal.get("static"):
                    sources.append((c, self._static_entries(c, p)))
                    keys.append((c, p, self.since[c], -1))
            for c in piles[2 * PRE + p]:
                h = host[c]
                ci = info[c]
                if h >= 0 and ci.pre.get("bond"):
                    key = (c, zone[h] & 1, self.since[c], h)
                    sources.append((-1, self._entries_of(key, ci.pre["bond"])))
                    keys.append(key)
        turn = self.turn
        lasting = [e for e in self.lasting if e.start <= turn <= e.end]
        suppressed: frozenset[int] = frozenset()
        suppressors = [
            e for _, entries in sources if entries.suppressors for e in entries.suppressors
        ] + [e for e in lasting if e.step.op == "suppress"]
        memo = None
        if not suppressors:  # then what is in force depends only on its sources
            memo = (*keys, *lasting)
            known = self._collected.get(memo)
            if known is not None:
                return known
        else:  # loops, not any() over a generator: a cpdef method (values.pxd) holds no closure
            hit = []
            for p in (0, 1):
                for c in piles[2 * MAL + p]:
                    for e in suppressors:
                        if e.applies(self, c):
                            hit.append(c)
                            break
            suppressed = frozenset(hit)
        fx: dict[str, Any] = {
            "suppressing": bool(suppressors),
            "suppressed": suppressed,
            "fight": False,
            "fight_on": frozenset(),
            "touched": set(),
            "broad": set(),
        }
        for card, entries in sources:
            if card not in suppressed:
                for _, e in entries:
                    _file(fx, e)
        for e in lasting:
            _file(fx, e)
        fx["clash_broad"] = not CLASH_KINDS.isdisjoint(fx["broad"])
        if memo is not None:
            self._collected[memo] = fx
        return fx

    def _entries(self, kind: str, c: int) -> tuple[list[Standing], list[Standing]]:
        """The effects of a kind that name `c`, and the broad ones that may match it."""
        # fx and named are dict-typed locals in values.pxd: the compiled build reads them
        # with the dict's own C calls instead of a method lookup
        fx = self._fx or self._standing()
        slot = fx.get(kind)
        if slot is None:
            return NOTHING
        named = slot[0]
        return named.get(c, NONE), slot[1]

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
            if orig not in broad and (original or current not in broad):
                return info.occhio if stat == OCC else info.karma
        if fight is not None:
            if fx["fight"]:
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
        name, name_original = STAT_KINDS[stat]
        fx = self._fx or self._standing()
        if fight is None and name_original not in fx and (original or name not in fx):
            return printed, False
        key = (c << 2) | (stat << 1) | original
        if key in self._busy:
            return printed, False
        self._busy.add(key)
        try:
            value, locked = self._combine(c, printed, name_original, 0)
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
        for part in (direct, broad):
            for e in part:
                if not e.applies(self, c):
                    continue
                st = e.step
                if st.when is not None and not st.when.matches(self, c, e.ctx):
                    continue
                if st.set is not None:
                    v = st.set.value(self, e.ctx, c)
                    if v is not None:
                        (always if st.always else sets).append((e.ts, v))
                else:
                    add += st.add.value(self, e.ctx, c) or 0
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
        if "set_forma" not in (self._fx or self._standing()):  # the common case, read first
            return printed
        direct, broad = self._entries("set_forma", c)
        if (not direct and not broad) or self.zone[c] >> 1 not in (MAL, PRE):
            return printed
        key = -1 - c
        if key in self._busy:
            return printed
        self._busy.add(key)
        try:
            best = None
            for part in (direct, broad):
                for e in part:
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
        fx = self._fx or self._standing()
        if keyword in self.info[c].keywords and c not in fx["suppressed"]:
            return True
        direct, broad = self._entries("grant", c)
        if not direct and not broad:
            return False
        # loops, not any(): a method compiled as cpdef (values.pxd) may not hold a generator
        for part in (direct, broad):
            for e in part:
                if e.step.keyword == keyword and e.applies(self, c):
                    return True
        return False

    def flag(self, kind: str, c: int) -> bool:
        """tie_wins, cannot_attack, taunt, direct_attack: does one apply to the card now?"""
        if self.zone[c] >> 1 != MAL:
            return False
        direct, broad = self._entries(kind, c)
        for part in (direct, broad):
            for e in part:
                if e.applies(self, c):
                    return True
        return False

    def shielded(self, defender: int, attacker: int) -> bool:
        """An effect says `defender` cannot be attacked (by this attacker)."""
        direct, broad = self._entries("cannot_be_attacked", defender)
        for part in (direct, broad):
            for e in part:
                if e.applies(self, defender) and (
                    e.step.vs is None or e.step.vs.matches(self, attacker, e.ctx)
                ):
                    return True
        return False

    def wins_level(self, c: int, other: int) -> int:
        """2 for a «Vince sempre» that holds against `other`, 1 for a «Vince», else 0."""
        level = 0
        direct, broad = self._entries("wins", c)
        for part in (direct, broad):
            for e in part:
                if e.applies(self, c) and e.step.vs.matches(self, other, e.ctx):
                    level = max(level, 2 if e.step.always else 1)
        return level

    def free(self, c: int, p: int, into: str) -> bool:
        """Calare this card from `p`'s hand in this way costs no Action."""
        if "free_play" in (self._fx or self._standing()):
            direct, broad = self._entries("free_play", c)
            for part in (direct, broad):
                for e in part:
                    if e.step.into == into and e.applies(self, c):
                        return True
        ci = self.info[c]
        for ab in ci.mal.get("in_hand", ()):
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
