"""One game of BLITZ in progress: turn structure, draws, exposing, the action cards and the
BLITZ card (what they do, the Blocca window and chain), the end.

The anchors of games/blitz/rules.md name what each part implements. Decisions (kind):
"draw" (where to draw from, 4.3-4.4), "main" (expose, play an action or BLITZ, end the turn:
4.6-4.8), "respond" (the Blocca window, 5.5-5.6), "swap" (which cards a hand-for-hand Scambia
exchanges, 5.3). A decision with one option is taken by the engine. Each area is kept as its
complete collections and its loose cards; its owner regroups it at their best whenever it
changes during their own turn (4.9, ruling blitz-motore-riordino).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from itertools import combinations
from typing import Any

from pipeline.engine.core import TERMINAL, Action, Chance, Event, IllegalAction, Outcome, seat_zones

from .cards import (
    BLITZ,
    BLOCCA,
    COLLECTION,
    COLLECTIONS_NEEDED,
    PESCA,
    PLAYERS_PER_DECK,
    RAINBOW,
    RUBA,
    SCAMBIA,
    CardTable,
    Instances,
    collection_key,
    plan_keys,
)
from .decisions import BLOCK, DRAW, END_TURN, LET, MAIN, OVER, RESPOND, START, SWAP

HAND_SIZE = 4
FROM_HAND = 3  # an opponent must hold at least this many cards to be drawn from (4.4)
TURN_CAP = 60  # own turns per player: a safeguard, no rule (ruling blitz-partita-interrotta)

EVENT_FIELDS: dict[str, list[str]] = {
    "setup": ["decks", "needed", "teams", "rush"],
    "chance": ["what", "outcome"],
    "deal": ["cards"],
    "action": ["action"],
    "turn": ["turn"],
    "skip": [],
    "draw": ["source", "cards"],
    "no_draw": [],
    "expose": ["card", "owner"],
    "complete": ["key", "cards"],
    "play": ["card", "target", "mode"],
    "block": ["card", "against"],
    "let": [],
    "resolve": ["effective", "skips"],
    "reveal": ["target", "cards"],
    "swap_hand": ["target", "took", "gave"],
    "swap_table": ["target", "gave", "took", "broke"],
    "steal": ["target", "key", "cards"],
    "blitz": ["targets", "cards"],
    "fizzle": ["card"],
    "pass": [],
    "rush": ["cards"],
    "end": ["how", "winners", "scores"],
}


TEAM_MODES = ("none", "pairs", "teams")
OPTION_NAMES = ("teams", "decks", "rush", "blitz_mode")


def seat_teams(players: int, mode: str) -> tuple[int, ...]:
    """The team of each seat: pairs sit opposite (3.3), teams alternate around the table."""
    if mode == "none":
        return tuple(range(players))
    if mode not in TEAM_MODES:
        raise ValueError(f"teams must be one of {', '.join(TEAM_MODES)}, not '{mode}'")
    if players < 4 or players % 2:
        raise ValueError(f"playing in {mode} needs an even number of players, 4 or more")
    groups = players // 2 if mode == "pairs" else 2
    return tuple(p % groups for p in range(players))


def configure(
    table: CardTable, players: int, options: Mapping[str, Any], chance: Chance
) -> BlitzState:
    """A state with its options' values checked, before anything is dealt (the platform
    checked the player count and the option names: GameInfo.start)."""
    n = players
    decks = int(options.get("decks") or (1 if n <= PLAYERS_PER_DECK else 2))
    if decks not in COLLECTIONS_NEEDED:
        raise ValueError(f"BLITZ is played with 1 or 2 decks, not {decks}")
    low = 2 if decks == 1 else PLAYERS_PER_DECK + 1
    if not low <= n <= PLAYERS_PER_DECK * decks:
        raise ValueError(
            f"with {decks} deck(s) BLITZ takes {low} to {PLAYERS_PER_DECK * decks} players"
        )
    mode = str(options.get("teams") or "none")
    state = BlitzState(
        table,
        n,
        seat_teams(n, mode),
        table.instances(decks),
        COLLECTIONS_NEEDED[decks],
        bool(options.get("rush", False)),
        chance,
    )
    state.blitz_mode = bool(options.get("blitz_mode", False))
    state._log("setup", -1, (decks, state.needed, mode, state.rush_option))
    return state


class BlitzState:
    """A BLITZ game: ints and small lists, cloned explicitly."""

    slug = "blitz"
    EVENT_FIELDS = EVENT_FIELDS

    def __init__(
        self,
        table: CardTable,
        players: int,
        teams: tuple[int, ...],
        inst: Instances,
        needed: int,
        rush: bool,
        chance: Chance,
        log: list[Event] | None = None,
    ):
        self.table = table
        self.num_players = players
        self.team = teams
        self.inst = inst
        self.needed = needed
        self.rush_option = rush
        self.log: list[Event] = log if log is not None else []
        self.chance = chance
        chance.log = self.log
        n = players
        self.deck: list[int] = []
        self.hands: list[list[int]] = [[] for _ in range(n)]
        self.comp: list[list[tuple[int, tuple[int, ...]]]] = [[] for _ in range(n)]
        self.loose: list[list[int]] = [[] for _ in range(n)]
        self.discards: list[int] = []
        self.shown: list[int] = []
        self.aside: list[int] = list(inst.aside)
        self.blitz_mode = False
        self.rush_on = False
        self.rush_used = False
        self.skip = [False] * n
        self.empty = [False] * n  # ended their last turn with no cards in hand (4.5)
        self.turn_player = 0
        self.turn = 0
        self.own_turns = [0] * n
        self.phase = START
        self.exposes_left = 0
        self.exposed = 0
        self.action_used = False
        self.chain: list[tuple[int, int]] = []
        self.chain_action: Action = ()
        self.responders: list[int] = []
        self.swap_target = -1
        # known[x]: bit c set when player x knows that card c is in another player's hand,
        # having seen it go there (a blind draw from x's hand, a swap of hands)
        self.known = [0] * n
        self.result: Outcome | None = None
        self._player = 0
        self._options: list[Action] = []
        # fixed for the game, shared by clones
        self.mates = tuple(
            tuple(q for q in range(n) if q != p and teams[q] == teams[p]) for p in range(n)
        )
        self.rivals = tuple(tuple(q for q in range(n) if teams[q] != teams[p]) for p in range(n))
        self.members = {t: tuple(q for q in range(n) if teams[q] == t) for t in set(teams)}
        self.drole = table.role

    # -- the interface -------------------------------------------------------------------

    def current_player(self) -> int:
        return TERMINAL if self.result is not None else self._player

    def legal_actions(self) -> list[Action]:
        return [] if self.result is not None else list(self._options)

    def decision_kind(self) -> str:
        return OVER if self.result is not None else self.phase

    def apply(self, action: Action) -> None:
        if self.result is not None or action not in self._options:
            raise IllegalAction(f"{action} is not legal now ({self.decision_kind()})")
        self.log.append(Event("action", self._player, tuple(action)))
        self._do(action)
        self._settle()

    def is_terminal(self) -> bool:
        return self.result is not None

    def outcome(self) -> Outcome | None:
        return self.result

    def returns(self) -> list[float]:
        if self.result is None:
            return [0.0] * self.num_players
        return self.result.returns(self.num_players)

    def turn_number(self) -> int:
        return self.turn

    def clone(self) -> BlitzState:
        other = BlitzState.__new__(BlitzState)
        other.__dict__.update(self.__dict__)
        other.log = list(self.log)
        other.chance = self.chance.copy(other.log)
        other.deck = self.deck[:]
        other.hands = [h[:] for h in self.hands]
        other.comp = [c[:] for c in self.comp]
        other.loose = [lo[:] for lo in self.loose]
        other.discards = self.discards[:]
        other.shown = self.shown[:]
        other.aside = self.aside[:]
        other.skip = self.skip[:]
        other.empty = self.empty[:]
        other.own_turns = self.own_turns[:]
        other.chain = self.chain[:]
        other.responders = self.responders[:]
        other.known = self.known[:]
        other._options = self._options[:]
        return other

    def zones(self) -> dict[str, list[int]]:
        out = {"deck": self.deck[:], "discards": self.discards[:], "blitz": self.shown[:]}
        out["aside"] = self.aside[:]
        for p, (hand, table) in enumerate(seat_zones(self.num_players, "hand", "table")):
            out[hand] = self.hands[p][:]
            out[table] = [c for _, cs in self.comp[p] for c in cs] + self.loose[p]
        return out

    def observation(self, player: int) -> dict[str, Any]:
        code = self.table.codes
        card = self.inst.card

        def codes(cards: Sequence[int]) -> list[str]:
            return sorted(code[card[c]] for c in cards)

        revealed = self.hands[self.swap_target] if self.phase == SWAP else []
        return {
            "player": player,
            "turn": self.turn,
            "turn_player": self.turn_player,
            "current": self.current_player(),
            "decision": self.decision_kind(),
            "hand": codes(self.hands[player]),
            "hand_sizes": [len(h) for h in self.hands],
            "tables": [
                {
                    "complete": [codes(cs) for _, cs in self.comp[p]],
                    "loose": codes(self.loose[p]),
                }
                for p in range(self.num_players)
            ],
            "deck": len(self.deck),
            "discards": [code[card[c]] for c in self.discards],
            "blitz_mode": self.blitz_mode,
            "rush": self.rush_on,
            "skip": list(self.skip),
            "chain": [(p, code[card[c]]) for p, c in self.chain],
            "attack": list(self.chain_action) if self.chain else [],  # announced to all
            "revealed": codes(revealed),
            "exposes_left": self.exposes_left,
            "exposed": self.exposed,
            "action_used": self.action_used,
        }

    def determinize(self, player: int, seed: int) -> BlitzState:
        """Other hands and the deck drawn again from the cards `player` cannot see; a hand
        shown by a Scambia stays, and so does one Blocca of each player still to answer,
        and every card `player` saw go into another's hand (``known``) and that is still
        there."""
        other = self.clone()
        kept: dict[int, list[int]] = {}
        if self.phase == SWAP and self.swap_target != player:
            kept[self.swap_target] = self.hands[self.swap_target][:]
        if self.phase == RESPOND:
            role = self.inst.role
            for q in self.responders:
                if q != player and q not in kept:
                    kept[q] = [next(c for c in self.hands[q] if role[c] == BLOCCA)]
        known = self.known[player]
        if known:
            for q in range(self.num_players):
                if q != player:
                    held = kept.setdefault(q, [])
                    held += [c for c in self.hands[q] if known >> c & 1 and c not in held]
        pool = self.deck[:]
        sizes = {}
        for q in range(self.num_players):
            if q == player:
                continue
            hold = kept.get(q, [])
            pool += [c for c in self.hands[q] if c not in hold]
            sizes[q] = len(self.hands[q]) - len(hold)
        rng = random.Random(seed)
        rng.shuffle(pool)
        for q, size in sizes.items():
            other.hands[q] = kept.get(q, []) + [pool.pop() for _ in range(size)]
        other.deck = pool
        other.chance.reseed(seed)
        if other.result is None:
            other._options = other._choices()
        return other

    # -- scores ----------------------------------------------------------------------------

    def points(self, p: int) -> int:
        """Rule 7.3: 1 per loose exposed card, 8 per four different, 10 per four equal."""
        return len(self.loose[p]) + sum(8 if k == RAINBOW else 10 for k, _ in self.comp[p])

    def team_points(self, team: int) -> int:
        return sum(self.points(p) for p in self.members[team])

    def team_collections(self, team: int) -> int:
        return sum(len(self.comp[p]) for p in self.members[team])

    # -- running the game --------------------------------------------------------------------

    def start(self) -> None:
        """Shuffle, deal 4 each one at a time from the dealer's left (3.1), and play on."""
        n = self.num_players
        self.deck = [i for i in range(len(self.inst.card)) if i not in set(self.inst.aside)]
        self.chance.shuffle("mazzo", self.deck)
        for _ in range(HAND_SIZE):
            for p in range(n):
                if self.deck:
                    self.hands[p].append(self.deck.pop())
        for p in range(n):
            self._log("deal", p, (tuple(self.hands[p]),))
        self._settle()

    def _log(self, kind: str, player: int, args: tuple[Any, ...] = ()) -> None:
        self.log.append(Event(kind, player, args))

    def _settle(self) -> None:
        """Run on to the next decision with more than one option (or the end)."""
        while self.result is None:
            if self.phase == START:
                self._start_turn()
                continue
            options = self._choices()
            if len(options) > 1:
                self._options = options
                return
            self._do(options[0])
        self._options = []

    def _choices(self) -> list[Action]:
        self._player = self.turn_player
        if self.phase == DRAW:
            return self._draw_options(self.turn_player)
        if self.phase == MAIN:
            return self._main_options(self.turn_player)
        if self.phase == RESPOND:
            self._player = self.responders[0]
            return [BLOCK, LET]
        return self._swap_options()

    def _do(self, action: Action) -> None:
        if self.phase == DRAW:
            self._draw(self.turn_player, action[1])
            self.phase = MAIN
        elif self.phase == MAIN:
            self._main(self.turn_player, action)
        elif self.phase == RESPOND:
            self._respond(action)
        else:
            self._swap_hands(action)

    def _start_turn(self) -> None:
        p = self.turn_player
        self.turn += 1
        self.own_turns[p] += 1
        self._player = p
        self._log("turn", p, (self.turn,))
        if self.skip[p]:
            self.skip[p] = False
            self._log("skip", p)
            self._end_turn()
            return
        self.exposes_left, self.exposed, self.action_used = 1, 0, False
        self._arrange(p)
        if self.result is not None:
            return
        if self.empty[p]:  # 4.5: two from the deck, never from an opponent
            self._take(p, min(2, len(self.deck)))
            self.phase = MAIN
        elif self._draw_options(p):
            self.phase = DRAW
        else:
            self._log("no_draw", p)
            self.phase = MAIN

    def _end_turn(self) -> None:
        p = self.turn_player
        self.empty[p] = not self.hands[p]
        if not self.deck and all(len(h) < FROM_HAND for h in self.hands):
            self._exhausted()  # 7.2: the only end besides the collections (7.1)
        if self.result is None and min(self.own_turns) >= TURN_CAP:
            self._stop()
        if self.result is not None:
            return
        self.turn_player = (p + 1) % self.num_players
        self.phase = START

    def _exhausted(self) -> None:
        """7.2, or 7.5 when Rush BLITZ was agreed: the discarded actions form a new deck."""
        if self.rush_option and not self.rush_used and self.discards:
            self.rush_used = self.rush_on = True
            self.deck, self.discards = self.discards, []
            self.chance.shuffle("mazzo del Rush", self.deck)
            self._log("rush", -1, (len(self.deck),))
            return
        self._finish_on_points("rush-esaurito" if self.rush_used else "mazzo-esaurito")

    def _finish_on_points(self, how: str) -> None:
        """7.4: most points, then most complete collections; a tie is a shared win."""
        teams = sorted(set(self.team))
        best = max((self.team_points(t), self.team_collections(t)) for t in teams)
        won = {t for t in teams if (self.team_points(t), self.team_collections(t)) == best}
        self._end(how, tuple(p for p in range(self.num_players) if self.team[p] in won))

    def _stop(self) -> None:
        """The safeguard: no rule ends the game (cards nobody can play go round the hands
        for ever), so it is cut short, with no result (ruling blitz-partita-interrotta)."""
        scores = tuple(self.points(p) for p in range(self.num_players))
        self._log("end", -1, ("interrotta", (), scores))
        self.result = Outcome((), "interrotta", scores=scores, teams=self.team, stopped=True)
        self.phase = OVER

    def _check_win(self, p: int) -> None:
        won = self.members[self.team[p]]
        if self.result is None and sum(len(self.comp[q]) for q in won) >= self.needed:
            self._end("rush" if self.rush_on else "collezioni", won)

    def _end(self, how: str, winners: tuple[int, ...]) -> None:
        scores = tuple(self.points(p) for p in range(self.num_players))
        self._log("end", -1, (how, winners, scores))
        self.result = Outcome(winners, how, scores=scores, teams=self.team)
        self.phase = OVER

    # -- drawing (4.3-4.5) -------------------------------------------------------------------

    def _draw_options(self, p: int) -> list[Action]:
        options: list[Action] = [("pesca", -1)] if self.deck else []
        hands = self.hands
        options += [("pesca", q) for q in self.rivals[p] if len(hands[q]) >= FROM_HAND]
        return options

    def _draw(self, p: int, source: int) -> None:
        if source < 0:
            self._take(p, 1)
            return
        hand = self.hands[source]
        i = self.chance.integer("carta dalla mano", 0, len(hand) - 1)
        card = hand.pop(i)
        self.hands[p].append(card)
        self._forget(card)
        self.known[source] |= 1 << card  # the player drawn from sees which card went
        self._log("draw", p, (source, (card,)))

    def _take(self, p: int, count: int) -> None:
        cards = tuple(self.deck.pop() for _ in range(count))
        self.hands[p] += cards
        self._log("draw", p, (-1, cards) if cards else (-1, ()))

    # -- the main decision (4.6-4.8, 5, 6) ----------------------------------------------------

    def _main_options(self, p: int) -> list[Action]:
        card = self.inst.card
        cards = sorted({card[c] for c in self.hands[p]})
        role = self.drole
        options: list[Action] = []
        if self.exposes_left > 0:
            for d in cards:
                if role[d] == COLLECTION:
                    options.append(("esponi", d, p))
                    options += [("esponi", d, q) for q in self.mates[p]]  # 3.3
        if not self.action_used and (self.exposed > 0 or self.blitz_mode or self.rush_on):
            for d in cards:
                if role[d] != COLLECTION:
                    options += self._plays(p, d, role[d])
        options.append(END_TURN)
        return options

    def _type_counts(self, p: int) -> list[int]:
        counts = [0, 0, 0, 0]
        kind = self.inst.type
        for c in self.loose[p]:
            counts[kind[c]] += 1
        for key, _ in self.comp[p]:
            if key == RAINBOW:
                counts[0] += 1
                counts[1] += 1
                counts[2] += 1
                counts[3] += 1
            else:
                counts[key] += 4
        return counts

    def _completing(self, q: int, c: int) -> list[int]:
        """The three loose cards of `q` that card `c` completes a collection with, four
        equal before four different (2.3); none when it completes nothing."""
        kind = self.inst.type
        t, loose = kind[c], self.loose[q]
        same = [x for x in loose if kind[x] == t]
        if len(same) >= 3:
            return same[:3]
        others = [next((x for x in loose if kind[x] == u), -1) for u in range(4) if u != t]
        return others if -1 not in others else []

    def _from_hand(self, p: int, d: int) -> int:
        card = self.inst.card
        c = min(c for c in self.hands[p] if card[c] == d)
        self.hands[p].remove(c)
        self._forget(c)
        return c

    def _forget(self, c: int) -> None:
        """Card c left the hand it was in: what anyone knew of it there no longer holds."""
        mask = ~(1 << c)
        self.known = [k & mask for k in self.known]

    def _main(self, p: int, action: Action) -> None:
        verb = action[0]
        if verb == "fine":
            self._log("pass", p)
            self._end_turn()
            return
        c = self._from_hand(p, action[1])
        if verb == "esponi":
            self._expose(p, c, action[2])
            return
        self.action_used = True
        role = self.inst.role[c]
        if role == BLITZ:
            self._blitz(p, c, action[2])
            return
        self.discards.append(c)
        if role == PESCA:
            self._log("play", p, (c, -1, ""))
            self._take(p, min(self.inst.value[c], len(self.deck)))
            self.exposes_left += self.inst.value[c]
            return
        target, mode = action[2], action[3]
        self._log("play", p, (c, target, mode))
        self.chain = [(p, c)]
        self.chain_action = action
        self._open_window(target)

    def _expose(self, p: int, c: int, owner: int) -> None:
        self.exposes_left -= 1
        self.exposed += 1
        self._log("expose", p, (c, owner))
        if owner == p:
            self.loose[p].append(c)
            self._arrange(p)
        else:  # 3.3: it starts or extends a collection in a partner's area, and stays there
            rest = self._completing(owner, c)
            for x in rest:
                self.loose[owner].remove(x)
            if rest:
                self._add_complete(owner, tuple(sorted([*rest, c])))
            else:
                self.loose[owner].append(c)
        self._check_win(p)

    def _add_complete(self, p: int, cards: tuple[int, ...]) -> None:
        key = collection_key([self.inst.type[c] for c in cards])
        self.comp[p].append((key, cards))
        self._log("complete", p, (key, cards))

    def _arrange(self, p: int) -> None:
        """4.9: the owner regroups their area for the most complete collections, then the
        most points. A collection whose kind the best grouping keeps stays as it is (each
        kind uses fixed types, so the rest can always be grouped from what is left)."""
        want = plan_keys(tuple(self._type_counts(p)))
        if len(want) == len(self.comp[p]) and want == sorted(k for k, _ in self.comp[p]):
            return
        missing = list(want)
        kept, pool = [], list(self.loose[p])
        for key, cards in self.comp[p]:
            if key in missing:
                missing.remove(key)
                kept.append((key, cards))
            else:
                pool += cards
        kind = self.inst.type
        buckets: list[list[int]] = [sorted(c for c in pool if kind[c] == t) for t in range(4)]
        self.comp[p] = kept
        new = []
        for key in missing:
            if key == RAINBOW:
                new.append(tuple(sorted(b.pop(0) for b in buckets)))
            else:
                new.append(tuple(buckets[key].pop(0) for _ in range(4)))
        self.loose[p] = sorted(c for b in buckets for c in b)
        for cards in new:
            self._add_complete(p, cards)
        self._check_win(p)

    # -- action cards and the BLITZ card (rules 5.1-5.6 and 6) ---------------------------

    def _plays(self, p: int, d: int, role: int) -> list[Action]:
        """The legal ways to play card `d`: only with an effect that applies (5.1)."""
        if role == PESCA:
            return [("gioca", d)] if self.deck else []
        opponents = self.rivals[p]
        if role == RUBA:
            return [
                ("gioca", d, q, k) for q in opponents for k in sorted({k for k, _ in self.comp[q]})
            ]
        if role == SCAMBIA:
            out: list[Action] = []
            for q in opponents:
                if len(self.hands[p]) > 1 and self.hands[q]:
                    out.append(("gioca", d, q, "mano"))
                out += [("gioca", d, q, "tavolo", *swap) for swap in self._table_swaps(p, q)]
            return out
        if role == BLITZ and self.comp[p]:  # 6.2: one opponent or two, as the player likes
            with_loose = [q for q in opponents if self.loose[q]]
            if not with_loose:
                return [("gioca", d, ())]
            return [("gioca", d, (q,)) for q in with_loose] + [
                ("gioca", d, pair) for pair in combinations(with_loose, 2)
            ]
        return []

    def _table_swaps(self, p: int, q: int) -> list[tuple[int, int, int]]:
        """(my type, their source, their type): source -1 is a loose card, else the key of a
        complete collection; two cards of one type change nothing and are no swap."""
        mine = self._type_counts(p)
        theirs: list[tuple[int, int]] = sorted({(-1, self.inst.type[c]) for c in self.loose[q]})
        for key in sorted({k for k, _ in self.comp[q]}):
            theirs += [(key, t) for t in (range(4) if key == RAINBOW else (key,))]
        keep = self.blitz_mode and bool(self.comp[p])  # 6.3: keep one complete collection
        out = []
        for mt in range(4):
            if not mine[mt]:
                continue
            for src, tt in theirs:
                if tt == mt:
                    continue
                if keep:
                    after = mine[:]
                    after[mt] -= 1
                    after[tt] += 1
                    if not plan_keys(tuple(after)):
                        continue
                out.append((mt, src, tt))
        return out

    # -- actions against an opponent and the Blocca window (5.3-5.6) -------------------------

    def _open_window(self, against: int) -> None:
        """Offer a Blocca, in seat order after the card on top, to every player of the side
        attacked who holds one (rulings blitz-blocca-due-secondi, blitz-finestra-del-blocca)."""
        top = self.chain[-1][0]
        team = self.team[against]
        role = self.inst.role
        n = self.num_players
        self.responders = [
            q
            for q in ((top + i) % n for i in range(1, n + 1))
            if self.team[q] == team and any(role[c] == BLOCCA for c in self.hands[q])
        ]
        if self.responders:
            self.phase = RESPOND
        else:
            self._resolve()

    def _respond(self, action: Action) -> None:
        q = self.responders[0]
        if action == LET:
            self._log("let", q)
            self.responders.pop(0)
            if not self.responders:
                self._resolve()
            return
        role = self.inst.role
        c = min(c for c in self.hands[q] if role[c] == BLOCCA)
        self.hands[q].remove(c)
        self._forget(c)
        self.discards.append(c)
        against = self.chain[-1][0]
        self.chain.append((q, c))
        self._log("block", q, (c, against))
        self._open_window(against)

    def _resolve(self) -> None:
        """5.6: from the top, every card cancels the one below unless it is cancelled itself;
        each player with a cancelled card skips their next turn, once."""
        blocks = len(self.chain) - 1
        losers = sorted({q for i, (q, _) in enumerate(self.chain) if (blocks - i) % 2 == 1})
        for q in losers:
            self.skip[q] = True
        effective = blocks % 2 == 0
        self._log("resolve", self.chain[0][0], (effective, tuple(losers)))
        self.chain, self.responders = [], []
        self.phase = MAIN
        self._player = self.turn_player
        if effective:
            self._effect(self.turn_player, self.chain_action)

    def _effect(self, p: int, action: Action) -> None:
        c_role = self.drole[action[1]]
        q = action[2]
        if c_role == RUBA:
            i = next(i for i, (k, _) in enumerate(self.comp[q]) if k == action[3])
            key, cards = self.comp[q].pop(i)
            self.comp[p].append((key, cards))
            self._log("steal", p, (q, key, cards))
            self._arrange(p)
            self._check_win(p)
        elif action[3] == "mano":
            if self.hands[p] and self.hands[q]:
                self._log("reveal", q, (q, tuple(sorted(self.hands[q]))))
                self.swap_target = q
                self.phase = SWAP
            else:  # a Blocca answered by the attacker left a hand empty
                self._log("fizzle", p, (action[1],))
        else:
            self._swap_tables(p, q, *action[4:])

    def _swap_tables(self, p: int, q: int, mine: int, src: int, theirs: int) -> None:
        kind = self.inst.type
        mine_card = next((c for c in self.loose[p] if kind[c] == mine), -1)
        if mine_card >= 0:
            self.loose[p].remove(mine_card)
        else:  # from a complete collection: the rest is regrouped below
            i = next(
                i for i, (_, cs) in enumerate(self.comp[p]) if any(kind[c] == mine for c in cs)
            )
            _, cards = self.comp[p].pop(i)
            mine_card = next(c for c in cards if kind[c] == mine)
            self.loose[p] += [c for c in cards if c != mine_card]
        broke = False
        if src < 0:
            took = next(c for c in self.loose[q] if kind[c] == theirs)
            self.loose[q].remove(took)
            self.loose[q].append(mine_card)
        else:  # the card takes the other's place in that collection (5.3)
            i = next(i for i, (k, _) in enumerate(self.comp[q]) if k == src)
            _, cards = self.comp[q].pop(i)
            took = next(c for c in cards if kind[c] == theirs)
            group = tuple(sorted([c for c in cards if c != took] + [mine_card]))
            key = collection_key([kind[c] for c in group])
            if key >= 0:
                self.comp[q].append((key, group))
            else:
                self.loose[q] += group
                broke = True
        self.loose[p].append(took)
        self._log("swap_table", p, (q, mine_card, took, broke))
        self._arrange(p)

    def _swap_options(self) -> list[Action]:
        card = self.inst.card
        p, q = self.turn_player, self.swap_target
        takes = sorted({card[c] for c in self.hands[q]})
        gives = sorted({card[c] for c in self.hands[p]})
        return [("scambia", t, g) for t in takes for g in gives]

    def _swap_hands(self, action: Action) -> None:
        p, q = self.turn_player, self.swap_target
        took = self._from_hand(q, action[1])
        gave = self._from_hand(p, action[2])
        self.hands[p].append(took)
        self.hands[q].append(gave)
        # p saw q's hand and gave it `gave`; q sees which of its cards p took
        for c in self.hands[q]:
            self.known[p] |= 1 << c
        self.known[q] |= 1 << took
        self._log("swap_hand", p, (q, took, gave))
        self.swap_target = -1
        self.phase = MAIN

    # -- the BLITZ card (6) --------------------------------------------------------------------

    def _blitz(self, p: int, c: int, targets: tuple[int, ...]) -> None:
        taken: list[int] = []
        for q in targets:
            taken += self.loose[q]
            self.loose[q] = []
        self.shown.append(c)
        self.loose[p] += taken
        self.blitz_mode = True
        self._log("blitz", p, (targets, tuple(taken)))
        self._arrange(p)
