"""Mazzo, regolamento Classico: the state of one game (deal, attack, defence, doubt, clash,
end of turn and of the game).

The clause anchors of games/mazzo/rules.md name what each part implements. A decision with a
single option is taken by the engine and is not an action. Card sets are also kept as bit
masks (card instance i is bit i), which makes what each player has seen of the other's hand
a pair of ints.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from pipeline.engine.core import TERMINAL, CardRecord, Chance, Event, IllegalAction, Outcome

SLUG = "mazzo"
ABILITIES = ("forza", "astuzia", "velocita", "magia", "coraggio")
HAND = 3
# Departures from the rulebook's letter, each off by default (rules.md 3.8 and 5.3 name them):
# two_card_doubt: a wrong doubt costs the played card and one drawn blind from the others
# (ruling mazzo-dubito-sbagliato); mazziere_tiebreak: equal bottini go to the Mazziere's
# holder (ruling mazzo-bottino-piu-grande).
OPTION_NAMES = ("two_card_doubt", "mazziere_tiebreak")
# phases of a turn: what the pending decision is about
ATTACK, DEFEND, JUDGE, TAKE, OVER = "attack", "defend", "judge", "take", "over"
EVENT_FIELDS: dict[str, list[str]] = {
    "chance": ["what", "outcome"],
    "action": ["action"],
    "remove": ["card"],
    "deal": ["cards"],
    "first": [],
    "turn": ["turn"],
    "attack": ["card", "ability"],
    "last_card": ["card", "other"],
    "open": ["card"],
    "nonce": ["card", "lie"],  # lie: the defender held a character with the ability
    "believe": [],
    "doubt": ["card"],
    "show": ["cards"],
    "doubt_right": ["ability"],
    "doubt_wrong": ["ability"],
    "clash": ["card", "other", "ability", "value", "other_value", "winner"],
    "bottino": ["cards", "reason"],
    "blind_draw": ["card"],
    "end": ["bottini", "winner", "how", "left"],  # left: cards still in each hand
}


class MazzoCards:
    """The deck as the engine reads it: one entry per card instance, in number order."""

    def __init__(self, cards: Sequence[CardRecord]):
        self.records: list[CardRecord] = []
        for record in sorted(cards, key=lambda c: c.number):
            self.records += [record] * record.copies
        n = len(self.records)
        self.codes = [r.code for r in self.records]
        self.names = [r.name for r in self.records]
        self.by_code = {code: i for i, code in reversed(list(enumerate(self.codes)))}
        self.mazziere = [r.kind == "mazziere" for r in self.records]
        self.in_play = [r.kind != "regole" for r in self.records]
        # values[c][k]: card c's value in ability k, 0 when it lacks it
        self.values = [
            tuple(int(r.attributes.get(a) or 0) for a in ABILITIES) for r in self.records
        ]
        self.best = [max(v) for v in self.values]
        # has[k]: mask of the characters that have ability k (never the Mazziere)
        self.has = [
            sum(1 << c for c in range(n) if self.values[c][k] and not self.mazziere[c])
            for k in range(len(ABILITIES))
        ]
        self.mazziere_mask = sum(1 << c for c in range(n) if self.mazziere[c])
        self.characters = [c for c in range(n) if self.in_play[c] and not self.mazziere[c]]

    def card(self, code: str) -> int:
        if code not in self.by_code:
            raise ValueError(f"no card {code!r} in the Mazzo deck")
        return self.by_code[code]


def _bits(cards: Iterable[int]) -> int:
    mask = 0
    for c in cards:
        mask |= 1 << c
    return mask


def read_options(options: Mapping[str, Any] | None) -> tuple[bool, bool]:
    """The two options as flags; ValueError, one sentence, for a value that is not true/false."""
    chosen = dict(options or {})
    flags = []
    for name in OPTION_NAMES:
        value = chosen.get(name, False)
        if not isinstance(value, bool):
            raise ValueError(f"mazzo option {name} is true or false, not {value!r}")
        flags.append(value)
    return flags[0], flags[1]


class MazzoState:
    """One game of Mazzo in progress (players 0 and 1)."""

    slug = SLUG
    num_players = 2
    EVENT_FIELDS = EVENT_FIELDS
    __slots__ = (
        "ability",
        "attacker",
        "attacker_card",
        "bottini",
        "cards",
        "chance",
        "defender_card",
        "draws",
        "hands",
        "history",
        "log",
        "out",
        "phase",
        "reserve",
        "result",
        "seen",
        "tiebreak",
        "turn",
        "two_card_doubt",
    )

    def __init__(self, cards: MazzoCards, chance: Chance, options: Mapping[str, Any] | None = None):
        self.cards = cards
        self.chance = chance
        self.log: list[Event] = chance.log
        self.hands: list[list[int]] = [[], []]
        self.bottini: list[list[int]] = [[], []]
        self.reserve: list[int] = []  # the top card is the last one
        self.out: list[int] = []  # the rules card, and cards a scenario leaves out
        self.attacker = 0
        self.phase = ATTACK
        self.turn = 0
        self.ability = -1
        self.attacker_card = -1
        self.defender_card = -1
        self.seen = [0, 0]  # seen[p]: cards of the other's hand that p has been shown
        self.history: tuple[tuple[int, str, str, int], ...] = ()  # public record of turns
        self.draws: list[int] = []  # scripted blind draws (scenarios)
        self.result: Outcome | None = None
        self.two_card_doubt, self.tiebreak = read_options(options)

    # -- 2.1, 2.2: the deal and who attacks first ---------------------------------------------

    def deal_new(self) -> None:
        r = self.cards
        self.out = [c for c in range(len(r.codes)) if not r.in_play[c]]
        for c in self.out:
            self.log.append(Event("remove", -1, (c,)))
        pile = [c for c in range(len(r.codes)) if r.in_play[c]]
        self.chance.shuffle("mescola", pile)
        self.reserve = pile
        for p in (0, 1):
            cards = [self.reserve.pop() for _ in range(HAND)]
            self.hands[p] = cards
            self.log.append(Event("deal", p, (tuple(cards),)))
        self.attacker = self.chance.integer("primo", 0, 1)
        self.log.append(Event("first", self.attacker))
        self._start_turn()

    # -- the interface --------------------------------------------------------------------------

    def current_player(self) -> int:
        if self.phase == OVER:
            return TERMINAL
        return self.attacker if self.phase != DEFEND else 1 - self.attacker

    def decision_kind(self) -> str:
        return "main" if self.phase == ATTACK else self.phase

    def legal_actions(self) -> list[tuple[Any, ...]]:
        r = self.cards
        if self.phase == ATTACK:
            out: list[tuple[Any, ...]] = []
            for c in sorted(self.hands[self.attacker]):
                for k in range(len(ABILITIES)):
                    if r.mazziere[c] or r.values[c][k]:
                        out.append(("attack", c, k))
            return out
        if self.phase == DEFEND:
            hand = sorted(self.hands[1 - self.attacker])
            has = r.has[self.ability]
            return [("open", c) for c in hand if has >> c & 1] + [("nonce", c) for c in hand]
        if self.phase == JUDGE:
            return [("believe",), ("doubt",)]
        if self.phase == TAKE:
            hand = sorted(self.hands[1 - self.attacker])
            return [("take", a, b) for i, a in enumerate(hand) for b in hand[i + 1 :]]
        return []

    def apply(self, action: tuple[Any, ...]) -> None:
        if action not in self.legal_actions():
            raise IllegalAction(f"{action} is not legal now ({self.phase})")
        self.log.append(Event("action", self.current_player(), tuple(action)))
        self._do(action)

    def is_terminal(self) -> bool:
        return self.phase == OVER

    def outcome(self) -> Outcome | None:
        return self.result

    def returns(self) -> list[float]:
        return self.result.returns(2) if self.result else [0.0, 0.0]

    def turn_number(self) -> int:
        return self.turn

    # -- 3: the turn ----------------------------------------------------------------------------

    def _do(self, action: tuple[Any, ...]) -> None:
        a, d = self.attacker, 1 - self.attacker
        kind = action[0]
        if kind == "attack":
            _, card, ability = action
            self.hands[a].remove(card)
            self.attacker_card, self.ability = card, ability
            self.log.append(Event("attack", a, (card, ability)))
            self.phase = DEFEND
        elif kind == "open":
            self.hands[d].remove(action[1])
            self.defender_card = action[1]
            self.log.append(Event("open", d, (action[1],)))
            self._record("open", "", 0)
            self._clash()
        elif kind == "nonce":
            has = self.cards.has[self.ability]
            lied = any(has >> c & 1 for c in self.hands[d])
            self.hands[d].remove(action[1])
            self.defender_card = action[1]
            self.log.append(Event("nonce", d, (action[1], lied)))
            self.phase = JUDGE
        elif kind == "believe":
            self.log.append(Event("believe", a))
            lie = self.cards.has[self.ability] >> self.defender_card & 1
            self._record("nonce", "believe", 1 if lie else -1)
            self._clash()
        elif kind == "doubt":
            self._doubt()
        else:  # take, after a right doubt
            self._bottino(a, list(action[1:]), "dubbio", self.hands[d])
            self._end_turn()
        if self.phase != OVER:
            self._auto()

    def _auto(self) -> None:
        """Take every decision that has a single option (it is not an action)."""
        while self.phase != OVER:
            options = self.legal_actions()
            if len(options) != 1:
                return
            self._do(options[0])

    def _record(self, response: str, judged: str, lie: int) -> None:
        """What both players saw of this turn's defence: the agents learn from it."""
        self.history += ((self.attacker, response, judged, lie),)

    def _bottino(self, p: int, cards: list[int], reason: str, source: list[int] | None) -> None:
        for c in cards:
            if source is not None:
                source.remove(c)
        self.bottini[p] += cards
        self.log.append(Event("bottino", p, (tuple(cards), reason)))

    def _doubt(self) -> None:
        """3.6: the attacker's card is shown and taken back; the defender shows the hand."""
        r = self.cards
        a, d = self.attacker, 1 - self.attacker
        card, k = self.attacker_card, self.ability
        self.log.append(Event("doubt", a, (card,)))
        self.hands[a].append(card)
        self.hands[d].append(self.defender_card)
        self.attacker_card = self.defender_card = -1
        self.seen[d] |= 1 << card
        self.seen[a] |= _bits(self.hands[d])
        self.log.append(Event("show", d, (tuple(sorted(self.hands[d])),)))
        right = any(r.has[k] >> c & 1 for c in self.hands[d])
        self._record("nonce", "doubt", 1 if right else 0)
        if right:  # 3.7
            self.log.append(Event("doubt_right", a, (k,)))
            if len(self.hands[d]) <= 2:
                self._bottino(a, sorted(self.hands[d]), "dubbio", self.hands[d])
                self._end_turn()
            else:
                self.phase = TAKE
            return
        # 3.8: all the attacker's cards go to the defender, one of them drawn blind first;
        # with two_card_doubt only the shown card and one drawn blind from the others
        self.log.append(Event("doubt_wrong", a, (k,)))
        hand = self.hands[a]
        if self.two_card_doubt:
            self._bottino(d, [card], "dubbio", hand)
        drawn = -1
        if hand:
            if self.draws:
                self.chance.forced.setdefault("pesca", []).append(hand.index(self.draws.pop(0)))
            drawn = hand[self.chance.integer("pesca", 0, len(hand) - 1)]
            self.log.append(Event("blind_draw", d, (drawn,)))
            self._bottino(d, [drawn], "pescata", hand)
        if hand and not self.two_card_doubt:
            self._bottino(d, sorted(hand), "dubbio", hand)
        if drawn >= 0 and r.mazziere[drawn]:  # 5.4
            self._finish((d,), "mazziere")
            return
        self._end_turn()

    # -- 4: the clash ---------------------------------------------------------------------------

    def _clash(self) -> None:
        r = self.cards
        a, d = self.attacker, 1 - self.attacker
        mine, theirs, k = self.attacker_card, self.defender_card, self.ability
        va, vd = r.values[mine][k], r.values[theirs][k]
        if r.mazziere[mine]:
            winner = a
        elif r.mazziere[theirs] or vd > va:
            winner = d
        else:
            winner = a if va > vd else -1  # a card without the ability has value 0
        self._settle(mine, theirs, k, va, vd, winner)

    def _settle(self, mine: int, theirs: int, k: int, va: int, vd: int, winner: int) -> None:
        a, d = self.attacker, 1 - self.attacker
        self.log.append(Event("clash", a, (mine, theirs, k, va, vd, winner)))
        self.attacker_card = self.defender_card = -1
        if winner < 0:  # 4.2
            self._bottino(a, [mine], "pareggio", None)
            self._bottino(d, [theirs], "pareggio", None)
        else:
            self._bottino(winner, [mine, theirs], "scontro", None)
        self._end_turn()

    def _last_card(self) -> None:
        """4.3: both show their only card, worth its best value; no declaration, no bluff."""
        r = self.cards
        a, d = self.attacker, 1 - self.attacker
        mine, theirs = self.hands[a].pop(), self.hands[d].pop()
        self.log.append(Event("last_card", a, (mine, theirs)))
        va, vd = r.best[mine], r.best[theirs]
        if r.mazziere[mine] or r.mazziere[theirs]:
            winner = a if r.mazziere[mine] else d
        else:
            winner = a if va > vd else d if vd > va else -1
        self._record("last", "", -1)
        self._settle(mine, theirs, -1, va, vd, winner)

    # -- 5: end of the turn and of the game -----------------------------------------------------

    def _start_turn(self) -> None:
        hands = self.hands
        if not self.reserve and (not hands[0] or not hands[1]):  # 5.2
            self._finish_by_count()
            return
        self.turn += 1
        self.log.append(Event("turn", self.attacker, (self.turn,)))
        self.ability = -1
        if len(hands[0]) == 1 and len(hands[1]) == 1:
            self._last_card()
        else:
            self.phase = ATTACK

    def _end_turn(self) -> None:
        """5.1: deal one at a time, from the one with fewer (tie: the next defender)."""
        a = self.attacker
        mask = _bits(self.hands[1 - a])
        self.seen[a] &= mask
        self.seen[1 - a] &= _bits(self.hands[a])
        given: list[list[int]] = [[], []]
        hands = self.hands
        nxt = a if len(hands[a]) <= len(hands[1 - a]) else 1 - a
        while self.reserve and (len(hands[0]) < HAND or len(hands[1]) < HAND):
            if len(hands[nxt]) < HAND:
                card = self.reserve.pop()
                hands[nxt].append(card)
                given[nxt].append(card)
            nxt = 1 - nxt
        for p in (a, 1 - a):
            if given[p]:
                self.log.append(Event("deal", p, (tuple(given[p]),)))
        self.attacker = 1 - a
        self._start_turn()

    def _finish_by_count(self) -> None:
        """5.3: the bigger bottino; a tie is a draw (mazziere_tiebreak: the Mazziere's
        holder wins it)."""
        sizes = [len(b) for b in self.bottini]
        if sizes[0] != sizes[1]:
            self._finish((0 if sizes[0] > sizes[1] else 1,), "bottino")
            return
        if not self.tiebreak:
            self._finish((), "pari")
            return
        mazz = self.cards.mazziere_mask
        holders = tuple(p for p in (0, 1) if _bits(self.bottini[p]) & mazz)
        self._finish(holders, "spareggio" if holders else "pari")

    def _finish(self, winners: tuple[int, ...], how: str) -> None:
        self.phase = OVER
        sizes = tuple(len(b) for b in self.bottini)
        self.result = Outcome(winners, how, scores=tuple(float(s) for s in sizes))
        left = tuple(len(h) for h in self.hands)
        self.log.append(Event("end", -1, (sizes, winners[0] if winners else -1, how, left)))

    # -- what a player sees; copies -------------------------------------------------------------

    def _face_down(self, player: int) -> int:
        """The other's card that lies face down on the table for `player` (-1: none)."""
        if player != self.attacker:
            return self.attacker_card if self.phase == DEFEND else -1
        return self.defender_card if self.phase == JUDGE else -1

    def observation(self, player: int) -> dict[str, Any]:
        """Own hand, how many cards the other holds and which of them (or of its face-down
        card) `player` was shown, the bottini (public: their cards were all shown), and the
        table as `player` sees it (None: no card, -1: a face-down card)."""
        other = 1 - player
        hidden = self._face_down(player)
        group = self.hands[other] + ([hidden] if hidden >= 0 else [])
        table = [self.attacker_card, self.defender_card]
        if player != self.attacker:
            table.reverse()
        mine, theirs = (c if c >= 0 else None for c in table)
        if hidden >= 0:
            theirs = -1
        return {
            "player": player,
            "turn": self.turn,
            "attacker": self.attacker,
            "phase": self.phase,
            "ability": self.ability,
            "hand": sorted(self.hands[player]),
            "other_cards": len(self.hands[other]),
            "other_known": sorted(c for c in group if self.seen[player] >> c & 1),
            "reserve": len(self.reserve),
            "bottini": [sorted(b) for b in self.bottini],
            "out": sorted(self.out),
            "table": {"mine": mine, "theirs": theirs},
            "history": [list(h) for h in self.history],
            "options": {"two_card_doubt": self.two_card_doubt, "mazziere_tiebreak": self.tiebreak},
        }

    def determinize(self, player: int, seed: int) -> MazzoState:
        """Deal again all that `player` cannot see: the reserve, the unseen cards of the
        other's hand and its face-down card. The cards `player` was shown stay with the other,
        in hand or face down; a face-down attack still fits the declared ability (3.2)."""
        rng = random.Random(seed)
        r = self.cards
        copy = self.clone()
        copy.draws = []
        copy.chance.reseed(rng.getrandbits(32))
        other = 1 - player
        hidden = self._face_down(player)
        known = [c for c in self.hands[other] if self.seen[player] >> c & 1]
        if hidden >= 0 and self.seen[player] >> hidden & 1:
            known.append(hidden)
        pool = list(self.reserve) + [c for c in self.hands[other] if c not in known]
        if hidden >= 0 and hidden not in known:
            pool.append(hidden)
        rng.shuffle(pool)
        if hidden >= 0:  # one of the other's cards lies face down: a known one, or not
            fits = ~0 if player == self.attacker else r.has[self.ability] | r.mazziere_mask
            unknown = len(self.hands[other]) + 1 - len(known)
            fitting = [c for c in pool if fits >> c & 1]
            options = [c for c in known if fits >> c & 1] + [-1] * (unknown if fitting else 0)
            card = rng.choice(options)
            if card < 0:
                card = rng.choice(fitting)
                pool.remove(card)
            else:
                known.remove(card)
            if player == self.attacker:
                copy.defender_card = card
            else:
                copy.attacker_card = card
        copy.hands[other] = known + [pool.pop() for _ in range(len(self.hands[other]) - len(known))]
        copy.reserve = pool
        return copy

    def zones(self) -> dict[str, list[int]]:
        table = [c for c in (self.attacker_card, self.defender_card) if c >= 0]
        return {
            "riserva": list(self.reserve),
            "hand-1": list(self.hands[0]),
            "hand-2": list(self.hands[1]),
            "tavolo": table,
            "bottino-1": list(self.bottini[0]),
            "bottino-2": list(self.bottini[1]),
            "fuori": list(self.out),
        }

    def clone(self) -> MazzoState:
        copy = MazzoState.__new__(MazzoState)
        log = list(self.log)
        copy.cards = self.cards
        copy.chance = self.chance.copy(log)
        copy.log = log
        copy.hands = [list(self.hands[0]), list(self.hands[1])]
        copy.bottini = [list(self.bottini[0]), list(self.bottini[1])]
        copy.reserve = list(self.reserve)
        copy.out = list(self.out)
        copy.seen = list(self.seen)
        copy.draws = list(self.draws)
        for name in (
            "attacker", "phase", "turn", "ability", "attacker_card", "defender_card",
            "history", "result", "two_card_doubt", "tiebreak",
        ):  # fmt: skip
            setattr(copy, name, getattr(self, name))
        return copy
