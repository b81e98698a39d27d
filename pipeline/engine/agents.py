"""The agent every game gets (uniform random over the legal actions) and the play loop.

A game's own agents (e.g. Bless's greedy one) come with its plugin (``GamePlugin.agents``);
the registry's ``make_agent`` offers both.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from .core import Action, State
from .plugin import Agent


class RandomAgent:
    """Uniform among the legal actions."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def act(self, state: State) -> Action:
        return self.rng.choice(state.legal_actions())


def play(state: State, agents: Sequence[Agent], max_actions: int = 100_000) -> State:
    """Play to the end: each decision goes to the agent of the player who must take it."""
    for _ in range(max_actions):
        if state.is_terminal():
            return state
        state.apply(agents[state.current_player()].act(state))
    raise RuntimeError(f"the game did not end within {max_actions} actions")
