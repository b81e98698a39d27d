"""The Samurai Sword rules: built once from the card records, they deal games and give the
platform its hooks (worked examples, figures, invariants). The base game only: Rising Sun
is known in part (ruling rising-sun-parziale), so the engine refuses to play it.
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
from .cards import PLAYING_KINDS, Cards
from .narrate import narrate_events
from .state import SamuraiState
from .table import SLUG


class SamuraiRules:
    """Deals games of Samurai Sword and speaks its vocabulary to the generic stages."""

    matches = None  # no game of matches

    def __init__(self, seats: Seats, cards: Sequence[CardRecord], digest: str):
        self.info = GameInfo.of(SLUG, seats, team_modes=("roles",), option_names=("espansione",))
        self.cards = Cards(cards)
        self.digest = digest

    @property
    def slug(self) -> str:
        return SLUG

    def new_game(
        self,
        seed: int,
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        chance: Chance | None = None,
    ) -> SamuraiState:
        players, options, chance = self.info.start(seed, players, options, chance)
        if options.get("espansione"):
            raise ValueError(
                "the Samurai Sword engine plays the base game only: Rising Sun is known only "
                "in part (ruling rising-sun-parziale)"
            )
        state = SamuraiState(self.cards, players, chance)
        state.deal()
        return state

    def narrate(self, events: Sequence[Event], players: int) -> list[str]:
        return narrate_events(events, self.cards)

    # -- ScenarioHooks -----------------------------------------------------------------------

    def setup(
        self, position: Mapping[str, Any], players: int, options: Mapping[str, Any]
    ) -> SamuraiState:
        if options.get("espansione"):
            raise ValueError("options.espansione: the engine plays the base game only")
        self.info.players(players)
        return scenario.setup_position(self.cards, position, players)

    def parse_action(self, state: SamuraiState, spec: Mapping[str, Any]) -> Action:
        return scenario.parse_action(state, spec)

    def describe_action(self, state: SamuraiState, action: Action) -> dict[str, Any]:
        return scenario.describe_action(state, action)

    def describe_event(self, event: Event) -> dict[str, Any]:
        return scenario.describe_event(self.cards, event)

    def check(self, state: SamuraiState, key: str, want: Any) -> list[str]:
        return scenario.check(state, key, want)

    def position_lines(
        self, position: Mapping[str, Any], players: int, options: Mapping[str, Any]
    ) -> list[str]:
        return []  # the examples say the position in their own words

    def view(self, state: SamuraiState) -> PositionView:
        return scenario.view(state)

    # -- FigureHooks -------------------------------------------------------------------------

    def summarize(self, state: SamuraiState) -> dict[str, Any]:
        return _figures.summarize(state)

    def figures(self, summaries: Sequence[Mapping[str, Any]], players: int) -> list[FigureTable]:
        return _figures.figures(summaries, players)

    # -- InvariantHooks ----------------------------------------------------------------------

    def invariants(self, state: SamuraiState) -> list[str]:
        cards, n, wrong = self.cards, state.num_players, []
        playing = len(state.deck) + len(state.discard)
        playing += sum(len(h) + len(f) for h, f in zip(state.hands, state.front, strict=True))
        if playing != len(cards.deck):
            wrong.append(f"{playing} playing cards on the table, not {len(cards.deck)}")
        for p in range(n):
            if not 0 <= state.res[p] <= state.maxres[p]:
                wrong.append(f"player {p + 1} has {state.res[p]} of {state.maxres[p]} resistance")
            if state.honour[p] < 0 or (state.honour[p] == 0 and not state.over):
                wrong.append(f"player {p + 1} has {state.honour[p]} honour in a game going on")
            if any(cards.kind[c] != "proprieta" for c in state.front[p]):
                wrong.append(f"player {p + 1} has a card that is not a property in front")
            if any(cards.kind[c] not in PLAYING_KINDS for c in state.hands[p]):
                wrong.append(f"player {p + 1} holds a card that is not a playing card")
        for holder in {h for _, h, _ in state.known}:
            known = Counter(c for _, h, c in state.known if h == holder)
            if known - Counter(state.hands[holder]):
                wrong.append(f"a card known to be in player {holder + 1}'s hand is not there")
        if sum(cards.honour_test[c] for f in state.front for c in f) > 1:
            wrong.append("more than one Bushido in play")
        if not state.over:
            if sum(1 for r in state.res if r) < 2:
                wrong.append("fewer than two players with resistance, and the game goes on")
            if not state.legal_actions():
                wrong.append("no legal action before the end")
            if state.phase == "main" and state.who != state.active:
                wrong.append("the play phase belongs to another player than the active one")
        return wrong


def build_rules(seats: Seats, cards: Sequence[CardRecord], digest: str) -> Engine[SamuraiState]:
    """The Samurai Sword rules over the cards of the database (the plugin's engine)."""
    return SamuraiRules(seats, cards, digest)
