"""The agent every game gets (uniform random over the legal actions), the play loop, and the
setting for playing many games in a row.

A game's own agents (e.g. Bless's greedy one) come with its plugin (``GamePlugin.agents``),
built on ``ChoosingAgent``; the registry's ``make_agent`` offers both.
"""

from __future__ import annotations

import gc
import random
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import Generic, cast

from .core import Action, State, choose
from .plugin import Agent, S


class RandomAgent:
    """Uniform among the legal actions."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def act(self, state: State) -> Action:
        return choose(self.rng, state.legal_actions())  # as self.rng.choice(...), quicker


class ChoosingAgent(ABC, Generic[S]):
    """What a game's own agents share: a seeded RNG for their ties, a decision with one
    option taken at once, and the best-valued options with a tie broken at random.

    A game's agent says how it chooses among two or more legal actions (``choose``), given
    its own State class: the registry hands an agent only the states of its game.
    """

    name: str

    def __init__(self, seed: int = 0):
        self.rng = random.Random(seed)

    def act(self, state: State) -> Action:
        legal = state.legal_actions()
        if len(legal) == 1:
            return legal[0]
        return self.choose(cast(S, state), legal)

    @abstractmethod
    def choose(self, state: S, legal: list[Action]) -> Action:
        """One of `legal` (two or more) for the player who decides in `state`."""

    def best(self, legal: Sequence[Action], value: Callable[[Action], float]) -> Action:
        """The action of highest value; one at random among those within 1e-9 of it."""
        scored = [value(a) for a in legal]
        top = max(scored)
        choices = [a for a, v in zip(legal, scored, strict=True) if v > top - 1e-9]
        return choices[0] if len(choices) == 1 else self.rng.choice(choices)


def play(state: State, agents: Sequence[Agent], max_actions: int = 100_000) -> State:
    """Play to the end: each decision goes to the agent of the player who must take it."""
    for _ in range(max_actions):
        if state.is_terminal():
            return state
        state.apply(agents[state.current_player()].act(state))
    raise RuntimeError(f"the game did not end within {max_actions} actions")


_batches = 0  # how many many_games() blocks are open (they nest)


@contextmanager
def many_games(young: int = 20_000) -> Iterator[None]:
    """Play a batch of games with Python's cyclic garbage collector out of the way.

    A game allocates a great many short-lived tuples and lists and makes almost no reference
    cycles, so reference counting frees nearly everything; the collector's passes (one per
    700 new containers, and now and then one over every object loaded before: the libraries
    and the card data) cost about 15% of a compiled Bless game. Inside the block, what was
    loaded before is frozen out of the collector's reach and a pass comes once per `young`
    new containers; the settings are restored when the outermost block ends.
    """
    global _batches
    threshold = gc.get_threshold()
    if _batches == 0:
        gc.freeze()
        gc.set_threshold(max(young, threshold[0]), *threshold[1:])
    _batches += 1
    try:
        yield
    finally:
        _batches -= 1
        if _batches == 0:
            gc.set_threshold(*threshold)
            gc.unfreeze()
