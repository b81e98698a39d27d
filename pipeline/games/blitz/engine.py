"""BLITZ: the rules object the platform builds from cards.db, its hooks and the invariants.

Options (``new_game(options=...)``): ``teams`` none|pairs|teams (1.2, 3.3), ``decks`` 1|2
(8.3; the collections needed follow it, 7.1), ``rush`` (Rush BLITZ agreed at the start, 7.5)
and ``blitz_mode`` (the game starts in BLITZ mode, 6.3: for worked examples and experiments).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.engine.core import Action, CardRecord, Chance, Event, GameInfo, Seats
from pipeline.engine.plugin import Engine, FigureTable
from pipeline.engine.scenario import PositionView

from . import figures as _figures
from . import scenario
from .cards import COLLECTION, CardTable, collection_key, plan_keys
from .decisions import MAIN
from .matches import Matches
from .narrate import narrate
from .state import OPTION_NAMES, TEAM_MODES, BlitzState, configure


class BlitzRules:
    """The BLITZ deck compiled from its card records; makes games."""

    slug = "blitz"

    def __init__(self, seats: Seats, cards: Sequence[CardRecord], digest: str):
        self.info = GameInfo.of("blitz", seats, team_modes=TEAM_MODES, option_names=OPTION_NAMES)
        self.table = CardTable(cards)
        self.digest = digest
        self.matches = Matches(seats, cards, digest)

    def new_game(
        self,
        seed: int,
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        chance: Chance | None = None,
    ) -> BlitzState:
        players, options, chance = self.info.start(seed, players, options, chance)
        state = configure(self.table, players, options, chance)
        state.start()
        return state

    def narrate(self, events: Sequence[Event], players: int = 2) -> list[str]:
        return narrate(self.table, events)

    # -- worked examples -----------------------------------------------------------------

    def setup(
        self, position: Mapping[str, Any], players: int, options: Mapping[str, Any]
    ) -> BlitzState:
        self.info.players(players)
        return scenario.setup(self.table, position, players, options)

    def parse_action(self, state: BlitzState, spec: Mapping[str, Any]) -> Action:
        return scenario.parse_action(state, spec)

    def describe_action(self, state: BlitzState, action: Action) -> dict[str, Any]:
        return scenario.describe_action(state, action)

    def describe_event(self, event: Event) -> dict[str, Any]:
        return scenario.describe_event(self.table, event)

    def check(self, state: BlitzState, key: str, want: Any) -> list[str]:
        return scenario.check(state, key, want)

    def position_lines(
        self, position: Mapping[str, Any], players: int, options: Mapping[str, Any]
    ) -> list[str]:
        return scenario.position_lines(self.table, position, players, options)

    def view(self, state: BlitzState) -> PositionView:
        return scenario.view(state)

    # -- balance figures and conformance -------------------------------------------------

    def summarize(self, state: BlitzState) -> dict[str, Any]:
        return _figures.summarize(state)

    def figures(self, summaries: Sequence[Mapping[str, Any]], players: int) -> list[FigureTable]:
        return _figures.figures(summaries, players)

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


def build_rules(seats: Seats, cards: Sequence[CardRecord], digest: str) -> Engine[BlitzState]:
    """The plugin's entry: BLITZ's rules over the cards read from cards.db."""
    return BlitzRules(seats, cards, digest)
