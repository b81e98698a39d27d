"""The search agent every game gets: Information Set Monte Carlo Tree Search.

Single-observer ISMCTS (Cowling, Powley and Whitehouse, 2012): every iteration draws the
hidden things again for the deciding player (``State.determinize``), walks one tree of
action sequences through that copy with the engine's own ``apply`` (chance is resolved
inside it, from the copy's reseeded Chance), plays the rest of the game with the rollout
policy and adds each player's return to the nodes it passed. The tree is shared by all the
copies, so an action is rated over the many worlds the player cannot tell apart; a node's
UCB1 counts the iterations in which its action was legal (its availability), not its
parent's visits, because an action is not legal in every world. Any number of players: a
node keeps every player's reward sum, and the player to move picks by their own.

Nothing here knows a game: only the State protocol of ``core``. Deterministic for a seed
when the budget is in iterations; a budget in seconds stops on the clock instead.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable
from dataclasses import dataclass

from .core import Action, State, choose
from .plugin import Agent

EXPLORATION = 0.7  # UCB1's constant on returns scaled to [0, 1], as Cowling et al. use
DEFAULT_ITERATIONS = 200

RolloutFactory = Callable[[int], Agent]  # seed -> the policy that ends a simulated game


class SearchSpecError(ValueError):
    """A search agent written wrongly, e.g. ``search:fast``: the message says the form."""


@dataclass(frozen=True)
class Budget:
    """How long one decision may search: `iterations`, or `seconds` when set."""

    iterations: int = DEFAULT_ITERATIONS
    seconds: float | None = None

    def __str__(self) -> str:
        return f"{self.seconds:g}s" if self.seconds is not None else str(self.iterations)


@dataclass(frozen=True)
class SearchSpec:
    """An agent name ``search[:BUDGET][:ROLLOUT]`` read: ``search:400``, ``search:0.5s``,
    ``search:200:bluffer`` (the game's agent plays the rollouts instead of random)."""

    budget: Budget = Budget()
    rollout: str = "random"


def parse_spec(name: str) -> SearchSpec:
    """The budget and rollout policy of a search agent's name; SearchSpecError if malformed."""
    base, *parts = name.split(":")
    form = "search, search:ITERATIONS, search:SECONDSs or search:BUDGET:ROLLOUT_AGENT"
    if base != "search" or len(parts) > 2 or any(not p for p in parts):
        raise SearchSpecError(f"'{name}' is not a search agent (write {form})")
    budget = Budget()
    if parts:
        text = parts[0]
        try:
            if text.endswith("s"):
                budget = Budget(seconds=float(text[:-1]))
            else:
                budget = Budget(iterations=int(text))
        except ValueError:
            raise SearchSpecError(f"'{name}': the budget '{text}' is not a number") from None
        if (budget.seconds is not None and not 0 < budget.seconds <= 3600) or not (
            1 <= budget.iterations <= 1_000_000
        ):
            raise SearchSpecError(f"'{name}': give 1 to 1000000 iterations or 0 to 3600 seconds")
    return SearchSpec(budget, parts[1] if len(parts) > 1 else "random")


class Node:
    """What the tree knows of one action sequence from the root: how often it was visited,
    how often its last action was legal when its parent was reached, each player's summed
    return, and its children by action."""

    __slots__ = ("available", "children", "rewards", "visits")

    def __init__(self, players: int):
        self.visits = 0
        self.available = 0
        self.rewards = [0.0] * players
        self.children: dict[Action, Node] = {}


class SearchAgent:
    """ISMCTS over the engine's own rules; `rollout` makes the policy that ends each
    simulated game (None: uniform random, the cheapest)."""

    name = "search"

    def __init__(
        self,
        seed: int = 0,
        budget: Budget | None = None,
        rollout: RolloutFactory | None = None,
    ):
        self.rng = random.Random(seed)
        self.budget = budget or Budget()
        self.rollout = rollout(self.rng.getrandbits(32)) if rollout is not None else None
        self.iterations = 0  # summed over the agent's decisions, for the cost per decision
        self.searches = 0

    def act(self, state: State) -> Action:
        actions = state.legal_actions()
        if len(actions) == 1:
            return actions[0]  # a forced move costs no search
        me = state.current_player()
        children = self.search(state).children
        tried = [a for a in actions if a in children]
        if not tried:
            return choose(self.rng, actions)
        # the most visited; among equals (a small budget), the best mean return
        return max(tried, key=lambda a: (children[a].visits, children[a].rewards[me]))

    def search(self, state: State) -> Node:
        """The tree grown from `state` for its player within the budget."""
        me = state.current_player()
        root = Node(state.num_players)
        stop = time.perf_counter() + self.budget.seconds if self.budget.seconds else None
        done = 0
        while done < self.budget.iterations if stop is None else time.perf_counter() < stop:
            self._iterate(root, state.determinize(me, self.rng.getrandbits(32)))
            done += 1
        self.iterations += done
        self.searches += 1
        return root

    def _iterate(self, root: Node, world: State) -> None:
        """One iteration on one determinized copy: select, expand one node, play out, back up."""
        path = [root]
        node = root
        while not world.is_terminal():
            actions = world.legal_actions()
            player = world.current_player()
            children = node.children
            fresh = [a for a in actions if a not in children]
            for a in actions:
                child = children.get(a)
                if child is not None:
                    child.available += 1
            if fresh:
                action = choose(self.rng, fresh)
                node = children[action] = Node(world.num_players)
                node.available = 1
                world.apply(action)
                path.append(node)
                break
            action = self._select(children, actions, player)
            node = children[action]
            world.apply(action)
            path.append(node)
        self._play_out(world)
        returns = world.returns()
        for visited in path:
            visited.visits += 1
            sums = visited.rewards
            for p, value in enumerate(returns):
                sums[p] += value

    def _select(self, children: dict[Action, Node], actions: list[Action], player: int) -> Action:
        """UCB1 over the available children, by the moving player's own returns: a return
        r in [-1, 1] counts as (r + 1) / 2, so the constant keeps its usual meaning."""
        best, best_score = actions[0], -math.inf
        for a in actions:
            child = children[a]
            mean = (child.rewards[player] / child.visits + 1.0) / 2.0
            score = mean + EXPLORATION * math.sqrt(math.log(child.available) / child.visits)
            if score > best_score:
                best, best_score = a, score
        return best

    def _play_out(self, world: State) -> None:
        rng, policy = self.rng, self.rollout
        while not world.is_terminal():
            if policy is None:
                world.apply(choose(rng, world.legal_actions()))
            else:
                world.apply(policy.act(world))

    def cost(self) -> float:
        """Iterations per searched decision so far (forced moves are not searched)."""
        return self.iterations / self.searches if self.searches else 0.0
