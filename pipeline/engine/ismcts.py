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

The policy. Random moves make a poor judge of a position, and a tree that lets the
opponents search sees the deciding player's real hand in every copy. So the search can be
given one of the game's own agents as its policy (by default the one its plugin names,
``GamePlugin.rollout``), which does three things: it plays the rollouts; it plays the
other players' moves inside the tree (an opponent model that reads only what its player
sees); and it is a prior on the deciding player's own moves there, tried first and favoured
by a bonus that fades with visits (progressive bias), so a small budget plays about as the
agent does and a larger one improves on it. Without a policy it is the plain ISMCTS, with
uniform random moves wherever it does not search.

Nothing here knows a game: only the State protocol of ``core`` and the Agent protocol.
Deterministic for a seed when the budget is in iterations; a budget in seconds stops on the
clock instead.
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
PRIOR = 1.0  # the policy's bonus in UCB1 before its first visit: a return's full range
DEFAULT_ITERATIONS = 200

RolloutFactory = Callable[[int], Agent]  # seed -> the search's policy (see above)


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
    ``search:200:bluffer`` (that agent of the game is the policy), ``search:200:random``
    (no policy: the plain ISMCTS). Without a ROLLOUT, `rollout` is None: the game's own
    choice (``GamePlugin.rollout``)."""

    budget: Budget = Budget()
    rollout: str | None = None


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
    return SearchSpec(budget, parts[1] if len(parts) > 1 else None)


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
    """ISMCTS over the engine's own rules. `rollout` makes the policy (one of the game's own
    agents) the search plays with where it does not search: it ends each simulated game,
    plays the other players' moves inside the tree, and is the prior of the deciding
    player's own moves there. None: uniform random everywhere, the plain ISMCTS."""

    name = "search"

    def __init__(
        self,
        seed: int = 0,
        budget: Budget | None = None,
        rollout: RolloutFactory | None = None,
    ):
        self.rng = random.Random(seed)
        self.budget = budget or Budget()
        self.policy = rollout(self.rng.getrandbits(32)) if rollout is not None else None
        self.iterations = 0  # summed over the agent's decisions, for the cost per decision
        self.searches = 0

    def act(self, state: State) -> Action:
        actions = state.legal_actions()
        if len(actions) == 1:
            return actions[0]  # a forced move costs no search
        me = state.current_player()
        # what the policy would play here: when the budget is no larger than the number of
        # actions, every tried action has one visit, and then the policy's choice stands
        hint = self.policy.act(state) if self.policy is not None else None
        children = self.search(state).children
        tried = [a for a in actions if a in children]
        if not tried:
            return choose(self.rng, actions)
        # the most visited; among equals (a small budget), the policy's, then the best mean
        return max(tried, key=lambda a: (children[a].visits, a == hint, children[a].rewards[me]))

    def search(self, state: State) -> Node:
        """The tree grown from `state` for its player within the budget."""
        me = state.current_player()
        root = Node(state.num_players)
        stop = time.perf_counter() + self.budget.seconds if self.budget.seconds else None
        done = 0
        while done < self.budget.iterations if stop is None else time.perf_counter() < stop:
            self._iterate(root, state.determinize(me, self.rng.getrandbits(32)), me)
            done += 1
        self.iterations += done
        self.searches += 1
        return root

    def _iterate(self, root: Node, world: State, me: int) -> None:
        """One iteration on one determinized copy: select, expand one node, play out, back up.

        With a policy, another player's move in the tree is the policy's, not UCB1's: in a
        single-observer tree an opponent who searched would choose knowing the deciding
        player's real hand (it is the same in every copy), so it would always call a bluff
        and the search would learn never to bluff. The policy reads only what its player
        sees, so it keeps the opponents honest."""
        path = [root]
        node = root
        policy = self.policy
        while not world.is_terminal():
            actions = world.legal_actions()
            player = world.current_player()
            children = node.children
            for a in actions:
                child = children.get(a)
                if child is not None:
                    child.available += 1
            hint = None
            if policy is not None:
                hint = actions[0] if len(actions) == 1 else policy.act(world)
            fresh = [a for a in actions if a not in children]
            if hint is not None and player != me:
                action = hint
            elif fresh:  # the policy's choice is tried first, then the others at random
                action = hint if hint in fresh else choose(self.rng, fresh)
            else:
                action = self._select(children, actions, player, hint)
            child = children.get(action)
            expanded = child is None
            if child is None:
                child = children[action] = Node(world.num_players)
                child.available = 1
            node = child
            world.apply(action)
            path.append(node)
            if expanded:
                break
        self._play_out(world)
        returns = world.returns()
        for visited in path:
            visited.visits += 1
            sums = visited.rewards
            for p, value in enumerate(returns):
                sums[p] += value

    def _select(
        self, children: dict[Action, Node], actions: list[Action], player: int, hint: Action | None
    ) -> Action:
        """UCB1 over the available children, by the moving player's own returns: a return
        r in [-1, 1] counts as (r + 1) / 2, so the constant keeps its usual meaning. The
        policy's choice (`hint`) gets a bonus that fades with its visits (progressive bias),
        so a few iterations play about as the policy does and many can overrule it."""
        best, best_score = actions[0], -math.inf
        for a in actions:
            child = children[a]
            mean = (child.rewards[player] / child.visits + 1.0) / 2.0
            score = mean + EXPLORATION * math.sqrt(math.log(child.available) / child.visits)
            if a == hint:
                score += PRIOR / (child.visits + 1)
            if score > best_score:
                best, best_score = a, score
        return best

    def _play_out(self, world: State) -> None:
        rng, policy = self.rng, self.policy
        while not world.is_terminal():
            if policy is None:
                world.apply(choose(rng, world.legal_actions()))
            else:
                world.apply(policy.act(world))

    def cost(self) -> float:
        """Iterations per searched decision so far (forced moves are not searched)."""
        return self.iterations / self.searches if self.searches else 0.0
