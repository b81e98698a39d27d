"""The Samurai Sword table: who sits where with what, what each player may see, the end.

The table is ints and small lists (cards are indices into the rules' cards); ``clone``
copies them explicitly. The turn and the card effects are in ``state.py`` (SamuraiState).
Players are 0..n-1 in seat order (clockwise); "left" is the next seat in turn order.
"""

from __future__ import annotations

import random
from typing import TYPE_CHECKING, Any, Self

from pipeline.engine.core import TERMINAL, Action, Chance, Event, Outcome, seat_zones

from .cards import TEAMS, TIE_RANK, Cards

if TYPE_CHECKING:
    from .data import PersonaggioData

SLUG = "samurai-sword"
HAND_BY_SEAT = (4, 5, 5, 6, 6, 7, 7)  # rule 4.4, clockwise from the Shogun
ROLES_BY_PLAYERS = {  # rule 3.2
    3: {"shogun": 1, "ninja": 2},
    4: {"shogun": 1, "samurai": 1, "ninja": 2},
    5: {"shogun": 1, "samurai": 1, "ninja": 2, "ronin": 1},
    6: {"shogun": 1, "samurai": 1, "ninja": 3, "ronin": 1},
    7: {"shogun": 1, "samurai": 2, "ninja": 3, "ronin": 1},
}

_NEW = tuple.__new__


def event(kind: str, player: int, args: tuple[Any, ...] = ()) -> Event:
    """An Event, made without the NamedTuple constructor (a game logs one at every step,
    and this is three times as fast)."""
    return _NEW(Event, (kind, player, args))


EVENT_FIELDS: dict[str, list[str]] = {
    "chance": ["what", "outcome"],
    "action": ["action"],
    "setup": ["role", "character", "resistance", "honour", "hand"],
    "shogun": [],
    "turn": ["turn"],
    "recover": ["resistance"],
    "bushido_test": ["card", "weapon"],
    "bushido_pass": ["to"],
    "bushido_lost": [],
    "draw": ["count", "source"],
    "deck_out": ["reshuffled"],
    "honour": ["delta", "cause", "to", "left"],
    "attack": ["target", "card", "difficulty"],
    "parry": ["card", "attacker"],
    "wound": ["amount", "left", "by", "card", "dealt"],
    "harmless": [],
    "place": ["card", "to"],
    "play": ["card", "target"],
    "discard": ["card", "why"],
    "take": ["card", "from"],
    "heal": ["resistance"],
    "ability": ["what"],
    "end_turn": [],
    "end": ["how", "team", "roles"],  # roles: each seat's role card, shown at the end
    "score": ["team", "points"],
}


class Table:
    """The table of a game of Samurai Sword, and the questions the rules ask of it."""

    __slots__ = (
        "_legal",
        "active",
        "aggression",
        "aside",
        "cards",
        "chance",
        "char",
        "ctx",
        "deck",
        "discard",
        "front",
        "hands",
        "honour",
        "known",
        "log",
        "maxres",
        "num_players",
        "over",
        "phase",
        "queue",
        "res",
        "role",
        "turns",
        "weapons_used",
        "who",
    )

    def __init__(self, cards: Cards, players: int, chance: Chance):
        self.cards = cards
        self.num_players = players
        self.log: list[Event] = []
        self.chance = chance
        chance.log = self.log
        self.role: list[int] = []
        self.char: list[int] = []
        self.aside: list[int] = []  # roles and characters left out of the game
        # (observer, holder, card): a card `observer` knows is in `holder`'s hand, because
        # it was taken from the observer's own hand (a Diversivo)
        self.known: list[tuple[int, int, int]] = []
        self.res = [0] * players
        self.maxres = [0] * players
        self.honour = [0] * players
        self.hands: list[list[int]] = [[] for _ in range(players)]
        self.front: list[list[int]] = [[] for _ in range(players)]
        self.deck: list[int] = []  # the top card is the last
        self.discard: list[int] = []  # the top card is the last
        self.aggression = [0] * (players * players)  # weapon attacks a -> b, public
        self.active = 0
        self.who = 0
        self.turns = 0
        self.weapons_used = 0
        self.phase = "main"
        self.ctx: tuple[int, ...] = ()
        self.queue: list[int] = []
        self.over: Outcome | None = None
        self._legal: list[Action] | None = None

    def starting_honour(self, p: int) -> int:
        """Rule 4.3 and, with three players, rule 10.1."""
        n, shogun = self.num_players, self.kind(p) == "shogun"
        if n == 3:
            return 6 if shogun else 3
        if shogun:
            return 5
        return 3 if n in (4, 5) else 4

    # -- what anyone can ask ---------------------------------------------------------------

    def kind(self, p: int) -> str:
        return self.cards.role_data(self.role[p]).ruolo

    def team(self, p: int) -> str:
        return self.cards.team[self.role[p]]

    def ability(self, p: int) -> PersonaggioData:
        return self.cards.character[self.char[p]]

    def shogun(self) -> int:
        return next(p for p in range(self.num_players) if self.kind(p) == "shogun")

    def harmless(self, p: int) -> bool:
        """Rule 8.2: no resistance left, or no card in hand."""
        return self.res[p] == 0 or not self.hands[p]

    def distance(self, a: int, b: int) -> int:
        """Rule 6.2: seats the shorter way round, harmless players not counted."""
        n, steps, i = self.num_players, 0, a
        while i != b:
            i = (i + 1) % n
            if i == b or not self.harmless(i):
                steps += 1
        seats = 2 + sum(1 for q in range(n) if q not in (a, b) and not self.harmless(q))
        return min(steps, seats - steps)

    def difficulty(self, attacker: int, target: int) -> int:
        """Rule 6.3: the distance, +1 for each Armatura in front of the target, + Benkei's."""
        defence = self.cards.defence
        return (
            self.distance(attacker, target)
            + sum(defence[c] for c in self.front[target])
            + self.ability(target).difesa
        )

    def targets(self, a: int) -> list[tuple[int, int]]:
        """Every player `a` may attack (not harmless), with the difficulty of the attack: the
        same as ``difficulty`` in one pass round the table (it is asked at every decision)."""
        n, res, hands = self.num_players, self.res, self.hands
        ring = [q for q in ((a + k) % n for k in range(1, n)) if res[q] and hands[q]]
        seats, defence, chars = len(ring) + 1, self.cards.defence, self.cards.character
        return [
            (q, min(i + 1, seats - i - 1) + sum(defence[c] for c in self.front[q])
             + chars[self.char[q]].difesa)
            for i, q in enumerate(ring)
        ]  # fmt: skip

    def weapon_limit(self, p: int) -> int:
        """Rule 5.5: one weapon a turn, +1 per Concentrazione, Goemon, the 3-player Shogun."""
        extra = self.cards.extra_weapons
        limit = 1 + sum(extra[c] for c in self.front[p]) + self.ability(p).armi_extra
        return limit + (1 if self.num_players == 3 and self.kind(p) == "shogun" else 0)

    def current_player(self) -> int:
        return TERMINAL if self.over else self.who

    def decision_kind(self) -> str:
        return self.phase

    def is_terminal(self) -> bool:
        return self.over is not None

    def outcome(self) -> Outcome | None:
        return self.over

    def returns(self) -> list[float]:
        return self.over.returns(self.num_players) if self.over else [0.0] * self.num_players

    def turn_number(self) -> int:
        return self.turns

    # -- the end (rules 9.3-9.7) -----------------------------------------------------------

    def team_scores(self) -> dict[str, int]:
        """Rule 9.4: honour times the role's multiplier (9.5, 9.6), plus Daimyo in hand."""
        n, cards = self.num_players, self.cards
        ninjas = [p for p in range(n) if self.kind(p) == "ninja"]
        double = max(ninjas, key=lambda p: cards.stars[self.role[p]]) if n == 4 else -1
        scores = {self.team(p): 0 for p in range(n)}
        for p in range(n):
            factor = cards.role_data(self.role[p]).moltiplicatore[n]
            points = self.honour[p] * factor * (2 if p == double else 1)
            if self.kind(p) != "ronin":
                points += sum(cards.end_points[c] for c in self.hands[p])
            scores[self.team(p)] += points
        return scores

    def finish(self, how: str, winner_team: str = "") -> None:
        """End the game now (rule 9.3): by points, or for the last player standing."""
        scores = self.team_scores()
        if not winner_team:  # by points: the scores are told (not for the last one standing)
            winner_team = max(scores, key=lambda t: (scores[t], TIE_RANK[t]))
            for team in TEAMS:
                if team in scores:
                    self.log.append(event("score", -1, (team, scores[team])))
        n = self.num_players
        roles = tuple(self.cards.code[self.role[p]] for p in range(n))
        self.log.append(event("end", -1, (how, winner_team, roles)))
        self.over = Outcome(
            winners=tuple(p for p in range(n) if self.team(p) == winner_team),
            how=how,
            scores=tuple(float(scores[self.team(p)]) for p in range(n)),
            teams=tuple(TEAMS.index(self.team(p)) for p in range(n)),
        )
        self._legal = []

    # -- what a player may see, and a world consistent with it ---------------------------

    def observation(self, player: int) -> dict[str, Any]:
        cards, n = self.cards, self.num_players
        shogun = self.shogun()
        known = range(n) if self.over else sorted({player, shogun})
        return {
            "player": player,
            "roles": {str(p): cards.code[self.role[p]] for p in known},
            "teams": {str(p): self.team(p) for p in known},
            "kinds": {str(p): self.kind(p) for p in known},
            "shogun": shogun,
            "hand": sorted(cards.codes(self.hands[player])),
            "known": {
                str(h): sorted(cards.code[c] for o, h2, c in self.known if o == player and h2 == h)
                for h in sorted({h for o, h, _ in self.known if o == player})
            },
            "players": [
                {
                    "character": cards.code[self.char[p]],
                    "resistance": self.res[p],
                    "max_resistance": self.maxres[p],
                    "honour": self.honour[p],
                    "cards": len(self.hands[p]),
                    "front": cards.codes(self.front[p]),
                    "harmless": self.harmless(p),
                }
                for p in range(n)
            ],
            "deck": len(self.deck),
            "discard": cards.codes(self.discard),
            "turn": self.turns,
            "active": self.active,
            "deciding": self.current_player(),
            "decision": self.phase,
            # the weapon or the action being answered, and who played it
            "answering": {"by": self.ctx[0], "card": cards.code[self.ctx[1]]} if self.ctx else {},
            "weapons_used": self.weapons_used,
            "attacks": [self.aggression[a * n : a * n + n] for a in range(n)],
        }

    def determinize(self, player: int, seed: int) -> Self:
        """Others' hands and secret roles dealt again from what `player` cannot see."""
        other = self.clone()
        if other.over:
            return other
        rng = random.Random(seed)
        n = self.num_players
        hidden = [p for p in range(n) if p != player and self.kind(p) != "shogun"]
        roles = [other.role[p] for p in hidden]
        rng.shuffle(roles)
        for p, r in zip(hidden, roles, strict=True):
            other.role[p] = r
        # Which Ninja cards (their stars) are in play is hidden too, when one is left out.
        ninja = [p for p in hidden if other.kind(p) == "ninja"]
        role_of = other.cards.role
        out = [c for c in other.aside if (d := role_of[c]) is not None and d.ruolo == "ninja"]
        unseen = [other.role[p] for p in ninja] + out
        rng.shuffle(unseen)
        for p, r in zip(ninja, unseen, strict=False):
            other.role[p] = r
        other.aside = [c for c in other.aside if c not in out] + unseen[len(ninja) :]
        others = [p for p in range(n) if p != player]
        kept = {p: [c for o, h, c in self.known if o == player and h == p] for p in others}
        pool = list(other.deck)
        for p in others:
            rest = list(other.hands[p])
            for c in kept[p]:
                rest.remove(c)
            pool += rest
        rng.shuffle(pool)
        for p in others:
            size = len(other.hands[p]) - len(kept[p])
            other.hands[p] = kept[p] + pool[:size]
            del pool[:size]
        other.deck = pool
        other.chance.reseed(rng.getrandbits(32))
        other._legal = None
        return other

    def zones(self) -> dict[str, list[int]]:
        out = {"deck": list(self.deck), "discard": list(self.discard), "out": list(self.aside)}
        seats = seat_zones(self.num_players, "hand", "front", "role", "character")
        for p, (hand, front, role, char) in enumerate(seats):
            out[hand] = list(self.hands[p])
            out[front] = list(self.front[p])
            out[role] = [self.role[p]]
            out[char] = [self.char[p]]
        return out

    def clone(self) -> Self:
        other = type(self).__new__(type(self))
        other.cards = self.cards
        other.num_players = self.num_players
        other.log = list(self.log)
        other.chance = self.chance.copy(other.log)
        other.role = list(self.role)
        other.char = list(self.char)
        other.aside = list(self.aside)
        other.known = list(self.known)
        other.res = list(self.res)
        other.maxres = list(self.maxres)
        other.honour = list(self.honour)
        other.hands = [list(h) for h in self.hands]
        other.front = [list(f) for f in self.front]
        other.deck = list(self.deck)
        other.discard = list(self.discard)
        other.aggression = list(self.aggression)
        other.active = self.active
        other.who = self.who
        other.turns = self.turns
        other.weapons_used = self.weapons_used
        other.phase = self.phase
        other.ctx = self.ctx
        other.queue = list(self.queue)
        other.over = self.over
        other._legal = None
        return other
