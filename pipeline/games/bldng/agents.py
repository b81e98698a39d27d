"""BLDNG's own agent: a builder that keeps what its project needs.

``builder`` sees only ``state.observation(me)`` (every cantiere is face up, its own project
is its own), the legal actions and the printed cards (``state.cards``, public like the
rulebook). It measures each choice by how many elements of its project its cantiere would
cover, through the same matching the rules use: it takes the discard only when it needs it,
discards what its project can spare (a plain card before a Jolly), and takes or steals the
card that helps it most.
"""

from __future__ import annotations

from pipeline.engine.agents import ChoosingAgent
from pipeline.engine.core import Action

from .state import BldngState


class BuilderAgent(ChoosingAgent[BldngState]):
    """Greedy on the elements covered, one decision at a time."""

    name = "builder"

    def choose(self, state: BldngState, legal: list[Action]) -> Action:
        me = state.current_player()
        cards = state.cards
        obs = state.observation(me)
        project, site = obs["project"], obs["sites"][me]
        base = cards.covered(project, site)

        def gain(card: int) -> int:
            return cards.covered(project, [*site, card]) - base

        def value(action: Action) -> float:
            kind = action[0]
            if kind == "take":
                return 1.0 if gain(obs["discard"][-1]) > 0 else -1.0
            if kind == "draw":
                return 0.0
            if kind == "discard":
                rest = list(site)
                rest.remove(action[1])
                kept = cards.covered(project, rest)
                return kept - 0.1 * len(cards.fits[action[1]]) / 16
            if kind == "pass":
                return 0.5
            return gain(action[1]) + (0.0 if kind == "steal" else 0.25)

        return self.best(legal, value)


AGENTS = {"builder": BuilderAgent}
