"""BLITZ: the rules object the platform builds from cards.db, and the game's invariants.

Options (``new_game(options=...)``): ``teams`` none|pairs|teams (1.2, 3.3), ``decks`` 1|2
(8.3; the collections needed follow it, 7.1), ``rush`` (Rush BLITZ agreed at the start, 7.5)
and ``blitz_mode`` (the game starts in BLITZ mode, 6.3: for worked examples and experiments).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.engine.core import CardRecord, Chance, Event, GameInfo

from .cards import (
    COLLECTION,
    COLLECTIONS_NEEDED,
    PLAYERS_PER_DECK,
    CardTable,
    collection_key,
    plan_keys,
)
from .decisions import MAIN
from .figures import FiguresMixin
from .matches import MATCH_MODES, MatchResult, simulate_matches
from .narrate import narrate
from .scenario import ScenarioMixin
from .state import BlitzState

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


class BlitzRules(ScenarioMixin, FiguresMixin):
    """The BLITZ deck compiled from its card records; makes games."""

    slug = "blitz"
    match_modes = MATCH_MODES

    def __init__(self, cards: Sequence[CardRecord], digest: str):
        self.table = CardTable(cards)
        self.digest = digest
        self.info = GameInfo(
            slug="blitz",
            min_players=2,
            max_players=2 * PLAYERS_PER_DECK,
            team_modes=TEAM_MODES,
            hidden_information=True,
            chance=True,
            option_names=OPTION_NAMES,
        )

    def configure(
        self, players: int | None, options: Mapping[str, Any] | None, chance: Chance | None
    ) -> BlitzState:
        """A state with its options checked, before anything is dealt."""
        options = dict(options or {})
        unknown = sorted(set(options) - set(OPTION_NAMES))
        if unknown:
            raise ValueError(f"unknown BLITZ options: {', '.join(unknown)}")
        n = players if players is not None else self.info.min_players
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
            self,
            n,
            seat_teams(n, mode),
            self.table.instances(decks),
            COLLECTIONS_NEEDED[decks],
            bool(options.get("rush", False)),
            chance if chance is not None else Chance(0),
        )
        state.blitz_mode = bool(options.get("blitz_mode", False))
        state._log("setup", -1, (decks, state.needed, mode, state.rush_option))
        return state

    def new_game(
        self,
        seed: int,
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        chance: Chance | None = None,
    ) -> BlitzState:
        state = self.configure(players, options, chance if chance is not None else Chance(seed))
        state.start()
        return state

    def play_matches(
        self,
        mode: str,
        matches: int,
        seed: int,
        players: int,
        options: Mapping[str, Any],
        agents: Sequence[str],
        jobs: int = 1,
    ) -> MatchResult:
        """Whole matches of rounds (8.1, 8.2), for `cartiera simulate blitz --match`."""
        return simulate_matches(self, mode, matches, seed, players, options, agents, jobs)

    def narrate(self, events: Sequence[Event], players: int = 2) -> list[str]:
        return narrate(self.table, events)

    def invariants(self, state: BlitzState) -> list[str]:
        """Cards in one zone each, only whole collections counted complete, only collection
        cards on the tables, the end reached once and when due, the decision well formed."""
        out: list[str] = []
        inst = state.inst
        role, kind = inst.role, inst.type
        every = [c for cards in state.zones().values() for c in cards]
        total = len(inst.card)
        if len(every) != total or len(set(every)) != total or max(every) >= total:
            twice = [c for c, k in Counter(every).items() if k > 1]
            out.append(f"card instances lost or doubled (twice: {twice})")
        complete = [0] * state.num_players
        for p in range(state.num_players):
            complete[p] = len(state.comp[p])
            for key, cards in state.comp[p]:
                if collection_key([kind[c] for c in cards]) != key:
                    out.append(f"player {p + 1} counts {cards} as a complete collection")
            if any(role[c] != COLLECTION for c in state.loose[p]):
                out.append(f"player {p + 1} has a card that is not a collection card exposed")
        if any(role[c] == COLLECTION for c in state.discards):
            out.append("a collection card is among the discards")
        if state.shown and not state.blitz_mode:
            out.append("the BLITZ card was played but BLITZ mode is off")
        if state.result is None:
            p = state.turn_player
            if state.phase == MAIN and plan_keys(tuple(state._type_counts(p))) != sorted(
                k for k, _ in state.comp[p]
            ):
                out.append(f"player {p + 1} is not arranged at their best in their own turn")
            for team, members in state.members.items():
                if sum(complete[q] for q in members) >= state.needed:
                    out.append(f"team {team} has the collections that win, yet the game goes on")
            if not state._options or state.current_player() < 0:
                out.append("no decision before the end")
            if state.exposes_left < 0:
                out.append("more cards exposed than the turn allows")
        elif sum(e.kind == "end" for e in state.log) != 1:
            out.append("the game ended more than once")
        return out


def build_rules(cards: Sequence[CardRecord], digest: str) -> BlitzRules:
    return BlitzRules(cards, digest)
