"""BLDNG's own agent: a builder that keeps what its project needs.

``builder`` sees only ``state.observation(me)`` (every cantiere is face up, its own project
is its own), the legal actions and the printed cards (``state.rules``, public like the
rulebook). It measures each choice by how many elements of its project its cantiere would
cover, through the same matching the rules use: it takes the discard only when it needs it,
discards what its project can spare (a plain card before a Jolly), and takes or steals the
card that helps it most.
"""

from __future__ import annotations

import random
from typing import Any

from pipeline.engine.core import Action, State


class BuilderAgent:
    """Greedy on the elements covered, one decision at a time."""

    name = "builder"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def act(self, state: State) -> Action:
        actions = state.legal_actions()
        if len(actions) == 1:
            return actions[0]
        me = state.current_player()
        rules: Any = state.rules  # type: ignore[attr-defined]
        obs = state.observation(me)
        project, site = obs["project"], obs["sites"][me]
        base = rules.covered(project, site)

        def gain(card: int) -> int:
            return rules.covered(project, [*site, card]) - base

        def value(action: Action) -> float:
            kind = action[0]
            if kind == "take":
                return 1.0 if gain(obs["discard"][-1]) > 0 else -1.0
            if kind == "draw":
                return 0.0
            if kind == "discard":
                rest = list(site)
                rest.remove(action[1])
                kept = rules.covered(project, rest)
                return kept - 0.1 * len(rules.fits[action[1]]) / 16
            if kind == "pass":
                return 0.5
            return gain(action[1]) + (0.0 if kind == "steal" else 0.25)

        scored = [(value(a), i) for i, a in enumerate(actions)]
        best = max(v for v, _ in scored)
        choices = [actions[i] for v, i in scored if v > best - 1e-9]
        return choices[0] if len(choices) == 1 else self.rng.choice(choices)


AGENTS = {"builder": BuilderAgent}
