"""BLDNG: the state of one game (turns, draws and discards, What happens, the win).

The clause anchors of games/bldng/rules.md name what each part implements. A turn is a stack
of tasks (the last one runs first): the turn's draw, the What happens it brings, the discards
they ask for. A task that needs a choice waits for an action; one with a single option is
taken by the engine and is not an action. Players sit in clockwise order, player 1 starts and
play goes clockwise until a Reverse (rulings bldng-primo-giocatore, bldng-destra).

A card a player "needs" is one that makes the site cover more elements of the project (the
Jolly matching of matching.py): the discard of 4.3 is a card the site can spare, the take of
4.4 and the picks of 6.3 are cards the site needs, unless the option `scelte-libere` is on.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any

from pipeline.engine.core import TERMINAL, Chance, Event, IllegalAction, Outcome, seat_zones

from .cards import BldngCards, remember
from .matching import match

Hint = tuple[int, tuple[int, ...], bool]  # a card, the site before the choice, needed or spare

SLUG = "bldng"
ROUNDS = 200  # a safeguard, no rule: a game with no builder by then is stopped (bldng-stallo)
FREE = "scelte-libere"  # the option: discard, take and pick any card (ruling bldng-scelte-libere)
OPTION_NAMES = (FREE,)
DECISIONS = ("main", "discard", "pick", "steal")
EVENT_FIELDS: dict[str, list[str]] = {
    "chance": ["what", "outcome"],
    "action": ["action"],
    "project": ["card"],
    "first": [],
    "turn": ["turn"],
    "draw": ["card"],
    "take": ["card"],
    "no_card": [],
    "reshuffle": ["count"],
    "discard": ["card", "reason"],
    "whathappens": ["card", "effect"],
    "whdone": ["card"],
    "keep": ["card"],
    "skip": [],
    "pick": ["card", "owner"],
    "steal": ["card", "owner"],
    "nothing": ["card"],
    "shift": ["projects"],
    "change": ["old", "new"],
    "reverse": ["direction"],
    "end": ["winner", "how", "card", "jolly"],
}


class BldngState:
    """One game of BLDNG in progress (players 0..n-1)."""

    slug = SLUG
    EVENT_FIELDS = EVENT_FIELDS
    __slots__ = (
        "cards",
        "chance",
        "deck",
        "direction",
        "discard",
        "discard_by",
        "discard_turn",
        "dry_turn",
        "extra",
        "fitting",
        "free",
        "hints",
        "keep",
        "known",
        "legal",
        "log",
        "num_players",
        "out",
        "player",
        "previous",
        "project",
        "projects",
        "resolving",
        "result",
        "site",
        "tasks",
        "turn",
    )

    def __init__(self, cards: BldngCards, players: int, chance: Chance, free: bool = False):
        self.cards = cards
        self.free = free  # the option scelte-libere: no "needed" in discards, takes, picks
        self.num_players = players
        self.chance = chance
        self.log: list[Event] = chance.log
        self.deck: list[int] = []  # the Forme deck, top card last
        self.discard: list[int] = []  # top card last
        self.projects: list[int] = []  # the project deck, top card last
        self.project = [-1] * players
        self.site: list[list[int]] = [[] for _ in range(players)]  # the cantieri
        self.keep = [-1] * players  # the You can have up to 15 cards held, or -1
        self.extra = [0] * players  # Forme a Steal lets a player hold over the limit (6.4)
        self.known = [[-1] * players for _ in range(players)]  # known[p][q]: q's project
        # What each player's choices showed everyone of its project (see fits): a take or
        # a pick of a card its site needed, a discard over the limit of one it could spare.
        # Cleared when the player gets another project.
        self.hints: list[list[Hint]] = [[] for _ in range(players)]
        # determinize's reading of the hints, for the state as it is now (see _fitting)
        self.fitting: tuple[tuple[int, int], dict[int, frozenset[int]]] | None = None
        self.out: list[int] = []  # the link card, and cards a scenario leaves out
        self.resolving: list[int] = []  # What happens being applied or set aside
        self.direction = 1
        self.player = 0
        self.previous = -1  # who played the turn before
        self.turn = 0
        self.discard_by = -1  # who discarded the top card, in turn `discard_turn`
        self.discard_turn = -1
        self.dry_turn = -1  # the turn whose draw reshuffled discards without a Forma
        self.tasks: list[tuple[Any, ...]] = []
        self.legal: list[tuple[Any, ...]] = []  # the options of the pending decision
        self.result: Outcome | None = None

    # -- 3: preparation -------------------------------------------------------------------------

    def deal_new(self) -> None:
        r = self.cards
        cards = range(len(r.codes))
        self.out = [c for c in cards if not (r.is_forma[c] or r.is_event[c] or r.is_project[c])]
        self.projects = [c for c in cards if r.is_project[c]]
        self.chance.shuffle("progetti", self.projects)
        for p in range(self.num_players):
            self._set_project(p, self.projects.pop())
            self.log.append(Event("project", p, (self.project[p],)))
        self.deck = [c for c in cards if r.is_forma[c] or r.is_event[c]]
        self.chance.shuffle("forme", self.deck)
        self.log.append(Event("first", 0))
        self.tasks = [("turn",)]
        self._run()

    def _set_project(self, p: int, card: int) -> None:
        self.project[p] = card
        self.hints[p] = []
        for q in range(self.num_players):
            self.known[q][p] = card if q == p else -1

    # -- the interface --------------------------------------------------------------------------

    def current_player(self) -> int:
        return TERMINAL if self.result else self.tasks[-1][1]

    def decision_kind(self) -> str:
        return self.tasks[-1][0] if self.tasks and not self.result else ""

    def legal_actions(self) -> list[tuple[Any, ...]]:
        return list(self.legal)

    def apply(self, action: tuple[Any, ...]) -> None:
        if action not in self.legal:
            raise IllegalAction(f"{action} is not legal now ({self.decision_kind()})")
        self.log.append(Event("action", self.current_player(), tuple(action)))
        self._decide(action)
        self._run()

    def is_terminal(self) -> bool:
        return self.result is not None

    def outcome(self) -> Outcome | None:
        return self.result

    def returns(self) -> list[float]:
        return self.result.returns(self.num_players) if self.result else [0.0] * self.num_players

    def turn_number(self) -> int:
        return self.turn

    def limit(self, p: int) -> int:
        """4.2: the project's elements, or the count of the card that raises the limit."""
        keep = self.keep[p]
        return self.cards.count[keep] if keep >= 0 else self.cards.size[self.project[p]]

    def order(self, start: int) -> list[int]:
        """Every player in the direction of play, from `start`."""
        n = self.num_players
        return [(start + i * self.direction) % n for i in range(n)]

    # -- the task loop --------------------------------------------------------------------------

    def _run(self) -> None:
        self.legal = []
        while self.tasks and not self.result:
            task = self.tasks[-1]
            if task[0] in DECISIONS:
                options = self._options(task)
                if len(options) > 1:
                    self.legal = options
                    return
                if options:
                    self._decide(options[0])
                else:
                    self.tasks.pop()
                continue
            self.tasks.pop()
            STEPS[task[0]](self, *task[1:])

    def _distinct(self, cards: list[int]) -> list[int]:
        """One instance per card number: copies of a card are the same choice."""
        numbers = self.cards.numbers
        return sorted({numbers[c]: c for c in sorted(cards, reverse=True)}.values())

    def _options(self, task: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        kind, p = task[0], task[1]
        r = self.cards
        if kind == "main":
            return [("draw",), ("take",)]
        if kind == "discard":
            spare = self.site[p] if task[3] != "limite" else self.spare(p)
            return [("discard", c) for c in self._distinct(spare)]
        if kind == "pick":
            target = task[2][0]
            if self.free:
                return [("pick", c) for c in self._distinct(self.site[target])] + [("pass",)]
            needed = [c for c in self.site[target] if self.needs(p, c)]
            return [("pick", c) for c in self._distinct(needed)] or [("pass",)]
        shape = task[2]  # steal
        out = []
        for q in self.order(p)[1:]:
            plain = [c for c in self.site[q] if r.plain[c] and r.shape[c] == shape]
            out += [("steal", c) for c in self._distinct(plain)]
        return out

    def needs(self, p: int, card: int) -> bool:
        """Whether p needs the Forma `card`: with it the site covers more of the project."""
        return self._adds(self.project[p], self.site[p], card)

    def _adds(self, project: int, site: Sequence[int], card: int) -> bool:
        """Whether `site` with `card` covers more elements of `project` than without."""
        covered = self.cards.covered
        return covered(project, [*site, card]) > covered(project, site)

    def spare(self, p: int) -> list[int]:
        """4.3: the cards of p's site it does not need (every card when the option
        scelte-libere is on)."""
        if self.free:
            return list(self.site[p])
        return self._spare_of(self.project[p], self.site[p])

    def _spare_of(self, project: int, site: Sequence[int]) -> list[int]:
        """The cards of `site` whose loss leaves as many elements of `project` covered
        (every card when each one is needed, which a discard over the limit never meets)."""
        cards = self.cards
        whole = cards.covered(project, site)
        out = []
        for c in self._distinct(list(site)):
            rest = list(site)
            rest.remove(c)
            if cards.covered(project, rest) == whole:
                out += [x for x in site if cards.numbers[x] == cards.numbers[c]]
        return out or list(site)

    def _decide(self, action: tuple[Any, ...]) -> None:
        task = self.tasks.pop()
        p = task[1]
        kind = action[0]
        if kind == "draw":
            self.tasks.append(("draw", p))
        elif kind == "take":  # 4.4
            card = self.discard.pop()
            self._hint(p, card, True)
            self.site[p].append(card)
            self.log.append(Event("take", p, (card,)))
            self.tasks.append(("excess", p, 1))
            self._check_win([p])
        elif kind == "discard":
            if task[3] == "limite":
                self._hint(p, action[1], False)
            self._discard(p, action[1], task[3])
            if task[2] > 1:
                self.tasks.append(("discard", p, task[2] - 1, task[3]))
        elif kind in ("pick", "pass"):  # 6.3
            targets, taken = task[2], task[3]
            if kind == "pick":
                self._hint(p, action[1], True)
                self._move(action[1], targets[0], p, "pick")
                taken += 1
            if targets[1:]:
                self.tasks.append(("pick", p, targets[1:], taken))
            elif taken:
                self.tasks.append(("discard", p, taken, "una-da-ognuno"))
            if kind == "pick":
                self._check_win([p])
        else:  # steal, 6.4: the card asks for no discard, even over the limit
            owner = next(q for q in range(self.num_players) if action[1] in self.site[q])
            self._move(action[1], owner, p, "steal")
            self.extra[p] = max(self.extra[p], len(self.site[p]) - self.limit(p))
            self._check_win([p])

    def _hint(self, p: int, card: int, needed: bool) -> None:
        """Remember a choice the rules allow only for a card p's site needs (`needed`), or
        only for one it can spare: with the site as it was, everyone saw both."""
        if not self.free:
            self.hints[p].append((card, tuple(self.site[p]), needed))

    def fits(self, project: int, hints: Sequence[Hint]) -> bool:
        """Whether `project` could be the one behind every choice in `hints`: each card
        taken or picked covered one more of its elements, each card discarded over the
        limit covered none that the rest of the site did not (or none could be spared).
        Each choice is judged once per project (cards.judged, shared by every state of the
        game): the worlds of a search ask again at every step about every earlier choice."""
        judged = self.cards.judged
        for hint in hints:
            key = (project, hint)
            fit = judged.get(key)
            if fit is None:
                card, site, needed = hint
                if needed:
                    fit = self._adds(project, site, card)
                else:
                    fit = card in self._spare_of(project, site)
                remember(judged, key, fit)
            if not fit:
                return False
        return True

    def _move(self, card: int, owner: int, p: int, how: str) -> None:
        self.site[owner].remove(card)
        self.site[p].append(card)
        self.log.append(Event(how, p, (card, owner)))

    def _discard(self, p: int, card: int, reason: str) -> None:
        self.site[p].remove(card)
        self.discard.append(card)
        self.discard_by, self.discard_turn = p, self.turn
        self.log.append(Event("discard", p, (card, reason)))

    # -- 4: the turn ----------------------------------------------------------------------------

    def _task_turn(self) -> None:
        if self.turn >= ROUNDS * self.num_players:  # a safeguard of the engine, no rule
            self._finish((), "interrotta", stopped=True)
            return
        p = self.player
        self.turn += 1
        self.log.append(Event("turn", p, (self.turn,)))
        self.tasks.append(("end", p))
        if self._can_take(p):
            self.tasks.append(("main", p))
        else:
            self._task_draw(p)

    def _can_take(self, p: int) -> bool:
        """4.4: a Forma just discarded by the one who played before, once p has a full site,
        if p needs it."""
        r = self.cards
        return bool(
            self.discard
            and r.is_forma[self.discard[-1]]
            and self.discard_by == self.previous != p
            and self.discard_turn == self.turn - 1
            and len(self.site[p]) >= r.size[self.project[p]]
            and (self.free or self.needs(p, self.discard[-1]))
        )

    def _task_end(self, p: int) -> None:
        self.previous = p
        self.player = (p + self.direction) % self.num_players
        self.tasks.append(("turn",))

    def _draw_card(self) -> int:
        """The top card of the Forme deck; 4.6: the discards shuffled in when it runs out.
        Discards of What happens only, shuffled in twice in one turn, would bring the same
        cards back for ever (a scenario can set that up): the second time there is no card."""
        if not self.deck and self.discard:
            if not any(self.cards.is_forma[c] for c in self.discard):
                if self.dry_turn == self.turn:
                    return -1
                self.dry_turn = self.turn
            self.deck, self.discard = self.discard, []
            self.chance.shuffle("rimescola", self.deck)
            self.log.append(Event("reshuffle", -1, (len(self.deck),)))
            self.discard_by = -1
        return self.deck.pop() if self.deck else -1

    def _task_draw(self, p: int) -> None:
        card = self._draw_card()
        if card < 0:
            self.log.append(Event("no_card", p))
        elif self.cards.is_forma[card]:
            self.site[p].append(card)
            self.log.append(Event("draw", p, (card,)))
            self._check_win([p])
            self._task_excess(p, 1)
        else:  # a What happens does not count as the turn's card: draw again after it
            self.resolving.append(card)
            self.tasks += [("draw", p), ("wh", p, card)]

    def _task_excess(self, p: int, most: int = 0) -> None:
        """4.3: after a draw or a take, one card over the limit goes (`most` 1), and a player
        a Steal left over the limit stays as far over; 4.7: after a change of project, every
        card over the new limit (`most` 0)."""
        over = len(self.site[p]) - self.limit(p)
        if most:
            self.extra[p] = max(0, min(self.extra[p], over - most))
            over = min(over, most)
        else:
            self.extra[p] = 0
        if over > 0:
            self.tasks.append(("discard", p, over, "limite"))

    # -- 6: What happens ------------------------------------------------------------------------

    def _task_wh(self, p: int, card: int) -> None:
        effect = self.cards.effect[card]
        self.log.append(Event("whathappens", p, (card, effect)))
        if effect == "limite":  # 6.10: kept, not counted among the Forme
            self.resolving.remove(card)
            self.keep[p] = card
            self.log.append(Event("keep", p, (card,)))
            return
        if effect == "pesca-e-scarta":  # its own discard comes after the cards it asks for
            self._take_cards(p, card)
            return
        self.tasks.append(("whdone", p, card))
        if effect == "salta-turno":  # 6.9: no more draws, no discard
            self.tasks = [t for t in self.tasks if t != ("draw", p)]
            self.log.append(Event("skip", p))
        elif effect == "una-da-ognuno":  # 6.3: a card p needs from each player who has one
            targets = tuple(
                q
                for q in self.order(p)[1:]
                if any(self.free or self.needs(p, c) for c in self.site[q])
            )
            if targets:
                self.tasks.append(("pick", p, targets, 0))
            else:
                self.log.append(Event("nothing", p, (card,)))
        elif effect == "ruba":
            if self._options(("steal", p, self.cards.shape[card])):
                self.tasks.append(("steal", p, self.cards.shape[card]))
            else:
                self.log.append(Event("nothing", p, (card,)))
        elif effect == "sposta-progetti":
            self._shift(p)
        elif effect == "cambia-progetto":  # 6.6
            old = self.project[p]
            self.projects.insert(0, old)
            self._set_project(p, self.projects.pop())
            self.log.append(Event("change", p, (old, self.project[p])))
            self.tasks.append(("excess", p))
            self._check_win([p])
        elif effect == "inverti":  # 6.7
            self.direction = -self.direction
            self.log.append(Event("reverse", p, (self.direction,)))
        elif effect == "restituisci":  # 6.8: all of them when there are not more
            if self.cards.count[card] >= len(self.site[p]):
                for c in sorted(self.site[p]):
                    self._discard(p, c, "restituisci")
            else:
                self.tasks.append(("discard", p, self.cards.count[card], "restituisci"))

    def _take_cards(self, p: int, card: int) -> None:
        """6.2: draw the card's count and discard as many Forme (all of them when the site
        holds fewer), even when What happens came among the cards drawn; those wait until
        this one is done."""
        aside = []
        for _ in range(self.cards.count[card]):
            c = self._draw_card()
            if c < 0:
                break
            if self.cards.is_forma[c]:
                self.site[p].append(c)
                self.log.append(Event("draw", p, (c,)))
            else:
                self.resolving.append(c)
                aside.append(c)
        self.tasks += [("wh", p, c) for c in reversed(aside)]
        self.tasks.append(("whdone", p, card))
        owed = self.cards.count[card]
        if owed >= len(self.site[p]):  # no choice: every card goes
            for c in sorted(self.site[p]):
                self._discard(p, c, "pesca-e-scarta")
        else:
            self.tasks.append(("discard", p, owed, "pesca-e-scarta"))
        self._check_win([p])

    def _shift(self, p: int) -> None:
        """6.5: every project passes to the right neighbour (player q - 1)."""
        n = self.num_players
        self.project = [self.project[(q + 1) % n] for q in range(n)]
        self.known = [[row[(q + 1) % n] for q in range(n)] for row in self.known]
        self.hints = [self.hints[(q + 1) % n] for q in range(n)]
        for q in range(n):
            self.known[q][q] = self.project[q]
        self.log.append(Event("shift", p, (tuple(self.project),)))
        self.tasks += [("excess", q) for q in reversed(self.order(p))]
        self._check_win(range(n))

    def _task_whdone(self, p: int, card: int) -> None:
        self.resolving.remove(card)
        self.discard.append(card)
        self.discard_by = -1
        self.log.append(Event("whdone", p, (card,)))

    # -- 5: the win -----------------------------------------------------------------------------

    def _check_win(self, changed: Any) -> None:
        """5.3: whoever completes the project wins at once; at the same moment, the player
        of the turn, else the first that follows in the direction of play."""
        done = [q for q in changed if self.cards.complete(self.project[q], self.site[q])]
        if done:
            winner = next(q for q in self.order(self.player) if q in done)
            self._finish((winner,), "progetto")

    def _finish(self, winners: tuple[int, ...], how: str, stopped: bool = False) -> None:
        """The end; a builder shows the project and says what each Jolly stands for (5.2).
        A `stopped` game was cut short by the engine's safeguard: no result."""
        self.result = Outcome(winners, how, stopped=stopped)
        card = -1
        jolly: tuple[tuple[int, int], ...] = ()
        if winners:
            card, site = self.project[winners[0]], self.site[winners[0]]
            kinds = match(self.cards.need[card], [self.cards.fits[c] for c in site])
            jolly = tuple(
                (c, k)
                for c, k in zip(site, kinds, strict=True)
                if k is not None and not self.cards.plain[c]
            )
        self.log.append(Event("end", -1, (winners[0] if winners else -1, how, card, jolly)))

    # -- what a player sees; copies -------------------------------------------------------------

    def observation(self, player: int) -> dict[str, Any]:
        """Every cantiere, kept card and discard (all face up), the own project and the
        projects `player` knows others hold, how many cards the hidden piles hold."""
        top = self.tasks[-1] if self.tasks and not self.result else ()
        pending = list(top[2:3]) if top and top[0] in ("pick", "steal") else []
        return {
            "player": player,
            "turn": self.turn,
            "current": self.player,
            "direction": self.direction,
            "decision": self.decision_kind(),
            "pending": [list(x) if isinstance(x, tuple) else x for x in pending],
            "project": self.project[player],
            "known": list(self.known[player]),
            "sites": [sorted(s) for s in self.site],
            "keep": list(self.keep),
            "discard": list(self.discard),
            "deck": len(self.deck),
            "projects": len(self.projects),
            "resolving": list(self.resolving),
        }

    def determinize(self, player: int, seed: int) -> BldngState:
        """Shuffle again what `player` cannot see: the Forme deck, the project deck and the
        projects of the others that `player` does not know, each drawn among those that
        fit what its takes, picks and discards showed (any, when none fits)."""
        rng = random.Random(seed)
        copy = self.clone()
        copy.chance.reseed(rng.getrandbits(32))
        rng.shuffle(copy.deck)
        unknown = [q for q in range(self.num_players) if self.known[player][q] < 0]
        pool = copy.projects + [self.project[q] for q in unknown]
        rng.shuffle(pool)
        fitting = self._fitting(player, unknown, pool)
        drawn = _assign(unknown, pool, fitting)
        pool = [c for c in pool if c not in drawn.values()]
        for q in unknown:
            copy.project[q] = drawn[q] if q in drawn else pool.pop()
            copy.known[q][q] = copy.project[q]
        copy.projects = pool
        return copy

    def _fitting(
        self, player: int, unknown: list[int], pool: list[int]
    ) -> dict[int, frozenset[int]]:
        """The projects of `pool` that fit each unknown player's hints; kept for the next
        world of the same state (a search draws hundreds from one)."""
        key = (player, len(self.log))  # every action logs an event: the state as it is now
        if self.fitting is None or self.fitting[0] != key:
            candidates = set(pool)
            self.fitting = (
                key,
                {
                    q: frozenset(c for c in candidates if self.fits(c, self.hints[q]))
                    for q in unknown
                },
            )
        return self.fitting[1]

    def zones(self) -> dict[str, list[int]]:
        out = {
            "mazzo": list(self.deck),
            "scarti": list(self.discard),
            "progetti": list(self.projects),
            "in-corso": list(self.resolving),
            "fuori": list(self.out),
        }
        seats = seat_zones(self.num_players, "cantiere", "progetto", "tenuta")
        for p, (site, project, kept) in enumerate(seats):
            out[site] = list(self.site[p])
            out[project] = [self.project[p]]
            out[kept] = [self.keep[p]] if self.keep[p] >= 0 else []
        return out

    def clone(self) -> BldngState:
        copy = BldngState.__new__(BldngState)
        log = list(self.log)
        copy.cards = self.cards
        copy.num_players = self.num_players
        copy.chance = self.chance.copy(log)
        copy.log = log
        copy.deck = list(self.deck)
        copy.discard = list(self.discard)
        copy.projects = list(self.projects)
        copy.project = list(self.project)
        copy.site = [list(s) for s in self.site]
        copy.keep = list(self.keep)
        copy.extra = list(self.extra)
        copy.known = [list(k) for k in self.known]
        copy.hints = [list(h) for h in self.hints]
        copy.fitting = None
        copy.out = list(self.out)
        copy.resolving = list(self.resolving)
        copy.tasks = list(self.tasks)
        copy.legal = self.legal
        for name in (
            "direction", "player", "previous", "turn", "discard_by", "discard_turn", "dry_turn",
            "result", "free",
        ):  # fmt: skip
            setattr(copy, name, getattr(self, name))
        return copy


def _assign(
    players: list[int], pool: list[int], fitting: dict[int, frozenset[int]]
) -> dict[int, int]:
    """A different project of `pool` for each of `players`, one that fits it, for as many
    as can have one at once (a largest matching, by augmenting paths); each tries them in
    the order of `pool`, which the caller shuffled."""
    options = {q: [c for c in pool if c in fitting[q]] for q in players}
    owner: dict[int, int] = {}  # project -> player

    def augment(q: int, seen: set[int]) -> bool:
        for c in options[q]:
            if c not in seen:
                seen.add(c)
                if c not in owner or augment(owner[c], seen):
                    owner[c] = q
                    return True
        return False

    for q in players:
        augment(q, set())
    return {q: c for c, q in owner.items()}


STEPS: dict[str, Callable[..., None]] = {
    "turn": BldngState._task_turn,
    "end": BldngState._task_end,
    "draw": BldngState._task_draw,
    "excess": BldngState._task_excess,
    "wh": BldngState._task_wh,
    "whdone": BldngState._task_whdone,
}
