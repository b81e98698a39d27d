"""Bless: the reference rules engine (state, turn, actions, clash, limits, end of the game).

The clause anchors of games/bless/rules.md name what each part implements. Card effects are
data read from cards.db and run by bless_effects; this module only holds the rules that
every card shares. Every decision is an action: the main-phase actions, and ``("choose", x)``
for targets, hosts, the Mulligan, the Offerta, the Fato guess, the order of effects.
A decision with a single option is taken by the engine and is not an action.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar, NamedTuple

from pipeline.engine.core import (
    Action,
    CardRecord,
    Chance,
    Event,
    GameInfo,
    IllegalAction,
    Outcome,
)

from .effects import (
    ALT,
    ASIDE,
    ECO,
    HAND,
    IMPULSO,
    KAR,
    LEGAME,
    MAL,
    MAZZO,
    OCC,
    PRE,
    VUOTO,
    CardInfo,
    Ctx,
    Effects,
    Frame,
)
from .figures import BlessFigures
from .narrate import narrate_bless
from .scenario import BlessScenarios, zone_name

SLUG = "bless"
INFO = GameInfo(
    SLUG,
    2,
    2,
    hidden_information=True,
    chance=True,
    option_names=("altar", "max_turns", "first_player"),
)
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


class Decision(NamedTuple):
    player: int
    kind: str  # main, mulligan, target, host, limit, order, yesno, offer, fato, into, forma
    options: tuple[Any, ...]
    resume: tuple[Any, ...] | None
    about: tuple[int, ...]


def _clash_eye(mine: tuple, theirs: tuple) -> int:
    """Occhio in a clash from two clash profiles: Rivalità against another Forma."""
    raw, locked, forma, rival = mine[0], mine[1], mine[2], mine[3]
    if not locked and rival and forma != theirs[2] and forma != 3 and theirs[2] != 3:
        raw += 3
    return max(0, raw)


def _subsets(cards: tuple[int, ...]) -> list[tuple[int, ...]]:
    """Every subset of the hand, each in hand order (the Mulligan's options)."""
    out: list[tuple[int, ...]] = [()]
    for c in cards:
        out += [(*s, c) for s in out]
    return sorted(out, key=lambda s: (len(s), [cards.index(c) for c in s]))


def _is_subset(chosen: Any, cards: tuple[int, ...]) -> bool:
    if not isinstance(chosen, tuple) or not set(chosen) <= set(cards):
        return False
    positions = [cards.index(c) for c in chosen]
    return positions == sorted(set(positions))


class BlessRules(BlessScenarios, BlessFigures):
    """The 62 cards of a Bless deck compiled from cards.db; makes games."""

    slug = SLUG
    info = INFO
    event_fields = EVENT_FIELDS

    def __init__(
        self,
        cards: Sequence[CardInfo],
        digest: str,
        texts: Mapping[int, Mapping[str, str]] | None = None,
    ):
        self.cards = list(cards)
        self.digest = digest
        self.texts = dict(texts or {})
        self.by_code = {c.code: c.index for c in self.cards}

    @classmethod
    def from_records(cls, records: Sequence[CardRecord], digest: str) -> BlessRules:
        """One CardInfo per copy of each card (attributes and structured effects)."""
        cards, texts = [], {}
        for card in sorted(records, key=lambda c: c.number):
            for _ in range(card.copies):
                index = len(cards)
                texts[index] = dict(card.texts)
                cards.append(
                    CardInfo(
                        index, card.number, card.code, card.name, dict(card.attributes), card.data
                    )
                )
        return cls(cards, digest, texts)

    def new_game(
        self,
        seed: int,
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        chance: Chance | None = None,
    ) -> BlessGame:
        if players not in (None, 2):
            raise ValueError(f"Bless is played by 2, not {players}")
        options = dict(options or {})
        unknown = sorted(set(options) - set(INFO.option_names))
        if unknown:
            known = ", ".join(INFO.option_names)
            raise ValueError(f"Bless has no option '{unknown[0]}' (options: {known})")
        if str(options.get("altar", 5)) not in ("3", "5", "7"):
            raise ValueError(f"altar must be 3, 5 or 7, not {options['altar']!r}")
        if str(options.get("first_player", 0)) not in ("0", "1"):
            raise ValueError(f"first_player must be 0 or 1, not {options['first_player']!r}")
        if not str(options.get("max_turns", 400)).isdigit():
            raise ValueError(f"max_turns must be a whole number, not {options['max_turns']!r}")
        return BlessGame(self, seed, options, chance)

    def invariants(self, state: BlessGame) -> list[str]:
        return state.invariants()

    def edited(
        self, code: str, attributes: Mapping[str, Any] | None = None, data: Any = None
    ) -> BlessRules:
        """The same rules with one card changed, as a designer would change its source."""
        i = self.card(code)
        old = self.cards[i]
        attrs = {
            "forma": {1: "Luce", 2: "Ombra", 3: "Duale"}[old.forma],
            "occhio": old.occhio,
            "karma": old.karma,
            "preghiera": ("Impulso", "Eco", "Legame")[old.prayer],
            **(attributes or {}),
        }
        cards = list(self.cards)
        cards[i] = CardInfo(i, old.number, old.code, old.name, attrs, data or old.data)
        return BlessRules(cards, f"{self.digest}+{code}", self.texts)

    def card(self, code: str) -> int:
        if code not in self.by_code:
            raise KeyError(f"no card {code!r} in the Bless deck")
        return self.by_code[code]

    def position(
        self, spec: Mapping[str, Any], seed: int = 0, dice: Sequence[int] = ()
    ) -> BlessGame:
        """A game set up in a given position (players numbered 1 and 2, cards by code).

        Cards not placed anywhere go to the Mazzo, under the ones listed on top of it, in
        number order. ``dice`` scripts the die rolls of Fato clashes.
        """
        options = {"altar": spec.get("altar", 5), "max_turns": spec.get("max_turns", 400)}
        chance = Chance(seed, forced={"dado": list(dice)})
        g = BlessGame(self, seed, options, chance, deal=False)
        g.piles[MAZZO] = []
        placed: list[int] = []

        def put(code: str, zone: int) -> int:
            c = self.card(code)
            if c in placed:
                raise ValueError(f"{code} is placed twice")
            placed.append(c)
            g.piles[zone].append(c)
            g.zone[c] = zone
            g.since[c] = g._tick()
            return c

        bonds = []
        for p, side in enumerate(spec.get("players", [])):
            for code in side.get("hand", []):
                put(code, 2 * HAND + p)
            for item in side.get("maledizioni", []):
                item = {"card": item} if isinstance(item, str) else item
                c = put(item["card"], 2 * MAL + p)
                g.corrupt[c] = int(bool(item.get("corrotta", False)))
                g.stasi[c] = int(bool(item.get("stasi", False)))
            for item in side.get("preghiere", []):
                item = {"card": item} if isinstance(item, str) else item
                c = put(item["card"], 2 * PRE + p)
                if self.cards[c].prayer == LEGAME:
                    if "host" not in item:
                        raise ValueError(f"the Legame {item['card']} needs a host")
                    bonds.append((c, item["host"]))
            for code in side.get("altare", []):
                put(code, 2 * ALT + p)
        for code in spec.get("vuoto", []):
            put(code, VUOTO)
        top = [put(code, MAZZO) for code in spec.get("mazzo", [])]
        rest = [c for c in range(len(self.cards)) if c not in placed]
        for c in rest:
            g.zone[c] = MAZZO
        g.piles[MAZZO] = sorted(rest, reverse=True) + top[::-1]
        for legame, code in bonds:
            g.host[legame] = self.card(code)
        for code in spec.get("attacked", []):
            g.attacked[self.card(code)] = int(spec.get("turn", 3))
        for code in spec.get("invoked", []):
            g.invoked[self.card(code)] = int(spec.get("turn", 3))
        for code in spec.get("responded", []):
            g.responded[self.card(code)] = int(spec.get("turn", 3))
        for code in spec.get("barriera", []):
            g.barrier[self.card(code)] = int(spec.get("turn", 3))
        g.turn = int(spec.get("turn", 3))
        g.active = int(spec.get("active", 1)) - 1
        g.first = int(spec.get("first", 1)) - 1
        g.actions = int(spec.get("actions", 3))
        g.scores = [int(x) for x in spec.get("scores", [0, 0])]
        g.bonus = g.scores[:]
        final = spec.get("final")
        if final:
            g.final_by, g.final_how = int(final["by"]) - 1, final.get("how", "altare")
            g.final_last = int(final["last_turn"])
        g._dirty()
        if spec.get("phase") == "end":
            g._push(("end_turn",))
        g._run()
        return g

    def narrate(self, events: Sequence[Event], players: int = 2) -> list[str]:
        return narrate_bless(events, self.cards, self.texts)


def build_rules(cards: Sequence[CardRecord], digest: str) -> BlessRules:
    """The Bless rules over these card records (read from cards.db by pipeline.play)."""
    return BlessRules.from_records(cards, digest)


class BlessGame(Effects):
    """One game of Bless. State is ints and small lists; `clone` copies them explicitly."""

    slug = SLUG
    EVENT_FIELDS = EVENT_FIELDS

    def __init__(
        self,
        rules: BlessRules,
        seed: int,
        options: dict[str, Any],
        chance: Chance | None = None,
        deal: bool = True,
    ):
        self.rules = rules
        self.info = rules.cards
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
        self._sources: dict[tuple[int, int, int, int], list[Any]] = {}  # static entries by place
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
            return [("choose", s) for s in _subsets(d.options)]
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
            if not (
                len(action) == 2 and action[0] == "choose" and _is_subset(action[1], d.options)
            ):
                raise IllegalAction(f"{action} does not set aside cards of the hand, in its order")
            choice = tuple(action[1])
        else:
            if len(action) != 2 or action[0] != "choose" or action[1] not in d.options:
                raise IllegalAction(f"{action} is not one of the options of this {d.kind}")
            choice = action[1]
        self.log.append(Event("action", d.player, tuple(action)))
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
        if self.winner < 0:  # stopped by the turn cap: no result
            return Outcome((), "turni-esauriti", scores=tuple(self.scores))
        ranking = ((self.winner,), (1 - self.winner,))
        return Outcome((self.winner,), self.final_how, ranking, tuple(self.scores))

    def turn_number(self) -> int:
        return self.turn

    def zones(self) -> dict[str, list[int]]:
        return {zone_name(z): list(pile) for z, pile in enumerate(self.piles) if z < 2 or z > 3}

    def clone(self) -> BlessGame:
        g = object.__new__(BlessGame)
        g.__dict__.update(self.__dict__)
        g.zone = self.zone[:]
        g.piles = [p[:] for p in self.piles]
        g.corrupt = self.corrupt[:]
        g.stasi = self.stasi[:]
        g.attacked = self.attacked[:]
        g.invoked = self.invoked[:]
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
        """A copy where what `player` cannot see is drawn again: Mazzo order, opponent's hand."""
        g = self.clone()
        g.chance.reseed(seed)
        other = 1 - player
        hidden = g.piles[MAZZO] + g.piles[2 * HAND + other]
        g.chance.rng.shuffle(hidden)
        size = len(g.piles[2 * HAND + other])
        g.piles[2 * HAND + other] = hidden[:size]
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
        zone, count = self.zone, 0
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
        for c, z in enumerate(zone):
            if z >> 1 != MAL and (self.corrupt[c] or self.stasi[c]):
                out.append("a state off the field")
            if z >> 1 != PRE and self.host[c] >= 0:
                out.append("a bond from off the field")
        return out

    # -- the engine loop ------------------------------------------------------------------------

    def _log(self, kind: str, player: int, args: tuple[Any, ...] = ()) -> None:
        self.log.append(Event(kind, player, args))

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
        self._dirty()
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
        if self.final_by < 0:
            self.winner = -1  # stopped by the turn cap: no result
        else:
            self.winner = 0 if a > b else 1 if b > a else self.final_by
        self.over = True
        self.pending = None
        self._log("end", -1, ((a, b), self.winner))

    # -- the main phase -----------------------------------------------------------------------

    def _main_options(self) -> tuple[Action, ...]:
        p, turn, piles, info = self.active, self.turn, self.piles, self.info
        acts = self.actions
        out: list[Action] = [("end",)]
        hosts = None
        for c in piles[2 * HAND + p]:
            for name in ("maledizione", "preghiera"):
                if name == "preghiera" and info[c].prayer == LEGAME:
                    hosts = self._hosts(p) if hosts is None else hosts
                    if not hosts:
                        continue
                if acts > 0 or self.free(c, p, name):
                    out.append(("cala", c, name))
        if acts > 0:
            for c in piles[2 * MAL + p]:
                if self.stasi[c]:
                    out.append(("stasi", c))
            for e in piles[2 * PRE + p]:
                if info[e].prayer == ECO and self.invoked[e] != turn:
                    out.append(("invoke", e))
            out.extend(self._attacks(p))
        return tuple(out)

    def _attacks(self, p: int) -> list[Action]:
        out: list[Action] = []
        fx = self._fx or self._standing()
        flag, turn, stasi, attacked = self.flag, self.turn, self.stasi, self.attacked
        defenders = self.piles[2 * MAL + 1 - p]
        taunters = [d for d in defenders if flag("taunt", d)] if "taunt" in fx else None
        targets = taunters or defenders
        stop, shields = "cannot_attack" in fx, "cannot_be_attacked" in fx
        plain = not fx["fight"]
        profiles = None
        for a in self.piles[2 * MAL + p]:
            if stasi[a] or attacked[a] == turn or (stop and flag("cannot_attack", a)):
                continue
            if not defenders or (not taunters and flag("direct_attack", a)):
                out.append(("direct", a))
            if not self.corrupt[a]:
                for d in targets:
                    if self.barrier[d] != turn and not (shields and self.shielded(d, a)):
                        out.append(("attack", a, d))
                continue
            if profiles is None:
                profiles = {d: self._profile(d) for d in targets}
            mine = self._profile(a)
            for d in targets:
                if self.barrier[d] == turn or (shields and self.shielded(d, a)):
                    continue
                theirs = profiles[d]
                if not (mine[5] or theirs[5]):  # a Fato clash is not simulated
                    if plain and not (mine[4] or theirs[4]):
                        if _clash_eye(mine, theirs) <= _clash_eye(theirs, mine):
                            continue
                    elif self._outcome(a, d, ())[0] != ATT:
                        continue
                out.append(("attack", a, d))
        return out

    def _profile(self, c: int) -> tuple[int, bool, int, bool, bool, bool]:
        """What a clash needs of a card, read once per state: Occhio before the clash, whether
        a «sempre» fixes it, Forma, Rivalità, any «Vince»/tie effect on it, Fato."""
        memo = self._vals.get(-1 - c)
        if memo is not None:
            return memo  # type: ignore[return-value]
        fx = self._fx or self._standing()
        info, broad = self.info[c], fx["broad"]
        named = c in fx["touched"] or c in fx["suppressed"]
        if named or "occhio" in broad or "occhio_original" in broad:
            raw, locked = self._memo(c, OCC, False)
        else:
            raw, locked = info.occhio, False
        if named or "grant" in broad:
            rival, fato = self.has(c, "Rivalita"), self.has(c, "Fato")
        else:
            rival, fato = "Rivalita" in info.keywords, "Fato" in info.keywords
        special = (named or "wins" in broad or "tie_wins" in broad) and any(
            e.applies(self, c)
            for kind in ("wins", "tie_wins")
            for part in self._entries(kind, c)
            for e in part
        )
        forma = self.forma(c) if "set_forma" in fx else info.forma
        memo = (raw, locked, forma, rival, special, fato)
        self._vals[-1 - c] = memo  # type: ignore[assignment]
        return memo

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
        if not (fx["fight"] or hits):
            pa, pd = self._profile(a), self._profile(d)
            if not (pa[4] or pd[4]):
                eye_a, eye_d = _clash_eye(pa, pd), _clash_eye(pd, pa)
                return (ATT if eye_a > eye_d else DEF if eye_d > eye_a else TIE), eye_a, eye_d
        self.fight = (a, d)
        try:
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
        watchers = tuple(
            (ab, p, m, -1)
            for m in self.piles[2 * MAL + p]
            if m != c and not self.suppressed(m)
            for ab in self.info[m].mal.get("on_you_play", ())
            if ab.watch.matches(self, c, Ctx(p, m))
        )
        if watchers:
            self._push(("fire", watchers))
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
        return [
            m for q in (p, 1 - p) for m in self.piles[2 * MAL + q] if not self._foreign_bond(m, p)
        ]

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
        self.piles[source].remove(c)
        self.piles[dest].append(c)
        self.zone[c] = dest
        if MAL <= source >> 1 <= PRE or MAL <= dest >> 1 <= PRE:
            self._dirty()
        else:
            self._touch()

    def _leave(self, c: int, why: str) -> None:
        """A card leaves its zone of the field: it keeps nothing (4.4); its Legami go (5.6)."""
        kind = self.zone[c] >> 1
        if kind == MAL:
            self.corrupt[c] = self.stasi[c] = 0
            owner = self.controller(c)
            for legame in self._legami_on(c):
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
        self._dirty()

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

    _TASKS: ClassVar[dict[str, Callable[..., None]]] = {
        "ab": _task_ab,
        "order": _task_order,
        "fire": _task_fire,
        "turn_start": _task_turn_start,
        "end_turn": _task_end_turn,
        "next_turn": _task_next_turn,
        "direct": _task_direct,
        "clash": _task_clash,
        "enter": _task_enter,
        "arrived": _task_arrived,
        "impulse_done": _task_impulse_done,
        "chain": _task_chain,
        "respond": _task_respond,
        "bind": _task_bind,
        "limit": _task_limit,
    }
    _RESUME: ClassVar[dict[str, Callable[..., None]]] = {
        "ab": _resume_ab,
        "order": _resume_order,
        "mull": _resume_mull,
        "clash": _resume_clash,
        "offer": _resume_offer,
        "respond": _resume_respond,
        "bind": _resume_bind,
        "limit": _resume_limit,
    }
