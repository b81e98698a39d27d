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

The root is where the budget goes. A whole game decides a rollout's return, so one
rollout says little about the move that started it: the luck of the draws after it
outweighs most differences between moves. So the root's moves are compared on the same
worlds (common random numbers): each determinized copy is tried with every move still in
the running, and the policy and chance after each move start from the same seed, so what
the draws do to all of them cancels out of the comparison. The moves leave by sequential
halving (Karnin, Koren and Somekh, 2013): about log2(moves) rounds share the budget, and
after each the worse half by mean return leaves.

The policy. Random moves make a poor judge of a position, and a tree that lets the
opponents search sees the deciding player's real hand in every copy. So the search can be
given one of the game's own agents as its policy (by default the one its plugin names,
``GamePlugin.rollout``), which does three things: it plays the rollouts; it plays the
other players' moves inside the tree (an opponent model that reads only what its player
sees); and it is the incumbent of the decision. Its move never leaves the running, and
another replaces it only when it does better on the same worlds by more than chance
would explain (its mean paired difference above SIGNIFICANCE standard errors); with a
budget too small to try every move on two worlds, the search plays the policy's move. So
a small budget plays as the policy does, and a larger one departs from it only on evidence
(the worlds of the last round of halving, not those that chose the finalist: see
``decide``). Below the root the deciding player's later moves start as the policy's, and
a node lets in more of them as its visits grow (progressive unpruning). Without a policy
it is the plain ISMCTS with that root, with uniform random moves wherever it does not
search.

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

from .core import Action, Estimating, State, choose
from .plugin import Agent

EXPLORATION = 0.7  # UCB1's constant on returns scaled to [0, 1], as Cowling et al. use
PRIOR = 1.0  # the policy's bonus in UCB1 before its first visit: a return's full range
SIGNIFICANCE = 1.0  # z a move needs over the policy's on the same worlds to replace it
WIDEN = 16  # visits below the root before a node lets in a second move besides the policy's
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
    return, its children by action, and (for the root's children) the deciding player's
    return on each world, in order, for the paired comparison with the policy's move, and
    (for the root) the number of worlds before the last round of halving began."""

    __slots__ = ("available", "children", "returns", "rewards", "since", "visits")

    def __init__(self, players: int):
        self.visits = 0
        self.available = 0
        self.rewards = [0.0] * players
        self.children: dict[Action, Node] = {}
        self.returns: list[float] = []
        self.since = 0


class SearchAgent:
    """ISMCTS over the engine's own rules, with the root decided by sequential halving on
    paired worlds. `rollout` makes the policy (one of the game's own agents) the search
    plays with where it does not search: it ends each simulated game, plays the other
    players' moves inside the tree, and is the incumbent of the deciding player's choice
    and the first move tried below the root. None: uniform random moves everywhere."""

    name = "search"

    def __init__(
        self,
        seed: int = 0,
        budget: Budget | None = None,
        rollout: RolloutFactory | None = None,
        horizon: int | None = None,
    ):
        self.rng = random.Random(seed)
        self.horizon = horizon
        self.budget = budget or Budget()
        self.make_policy = rollout
        self.policy = rollout(self.rng.getrandbits(32)) if rollout is not None else None
        self.iterations = 0  # summed over the agent's decisions, for the cost per decision
        self.searches = 0

    def act(self, state: State) -> Action:
        actions = state.legal_actions()
        if len(actions) == 1:
            return actions[0]  # a forced move costs no search
        hint = self.policy.act(state) if self.policy is not None else None
        root = self.search(state, hint)
        return self.decide(root, state.current_player(), hint, actions)

    def decide(self, root: Node, me: int, hint: Action | None, actions: list[Action]) -> Action:
        """The finalist of best mean return; the policy's move unless one beats it on the
        same worlds by more than chance would (a z of SIGNIFICANCE on the paired
        differences), so noise alone seldom replaces the policy's move.

        The test reads only the worlds of the last round (from `root.since`). The finalist
        got there by leading on the earlier ones, so on those its lead is partly the luck
        that picked it (the winner's curse): among a few moves about as good as the
        policy's, one nearly always seems ahead by a standard error on the worlds that
        chose it."""
        finalists = [a for a, child in root.children.items() if child.visits == root.visits]
        if not finalists:  # nothing searched: the budget was too small for this decision
            return hint if hint is not None else choose(self.rng, actions)
        best = max(finalists, key=lambda a: root.children[a].rewards[me])
        if hint is None or best == hint or hint not in root.children:
            return best
        ours, theirs = root.children[best].returns, root.children[hint].returns
        fresh = slice(root.since, None)  # the last round's worlds: see the docstring
        differences = [b - h for b, h in zip(ours[fresh], theirs[fresh], strict=True)]
        if len(differences) < 3:
            return hint
        mean = sum(differences) / len(differences)
        spread = sum((d - mean) ** 2 for d in differences) / max(len(differences) - 1, 1)
        return best if mean > SIGNIFICANCE * math.sqrt(spread / len(differences)) else hint

    def search(self, state: State, hint: Action | None = None) -> Node:
        """The tree grown from `state` for its player within the budget: its root's moves
        compared on the same worlds and halved round by round (see the module's notes);
        `hint`, the policy's move, stays in the running to the end."""
        me = state.current_player()
        root = Node(state.num_players)
        actions = state.legal_actions()
        running = [a for a in actions if a != hint]
        self.rng.shuffle(running)
        iterations = self.budget.iterations
        if hint is not None:
            running.insert(0, hint)
            if self.budget.seconds is None and iterations < 2 * len(actions):
                return root  # too few to compare every move on two worlds: the policy's
        elif self.budget.seconds is None:
            running = running[: max(1, iterations)]
        rounds = max(1, math.ceil(math.log2(len(running))))
        clock = time.perf_counter
        deadline = clock() + self.budget.seconds if self.budget.seconds else None
        used = 0
        for left in range(rounds, 0, -1):
            if left < rounds:  # the worse half leaves, if the budget can try the rest again
                ranked = sorted(running, key=lambda a: -root.children[a].rewards[me])
                kept = ranked[: math.ceil(len(running) / 2)]
                if hint is not None and hint not in kept:
                    kept.append(hint)
                if deadline is None and iterations - used < len(kept):
                    break
                running = kept
            root.since = root.visits
            if deadline is None:
                worlds = max(1, (iterations - used) // (left * len(running)))
                round_ends = None
            else:
                worlds, round_ends = 1_000_000, clock() + (deadline - clock()) / left
            for _ in range(worlds):
                seed = self.rng.getrandbits(32)
                world = self.world(state, me, seed)
                for action in running:
                    self._iterate(root, world.clone(), me, action, seed)
                root.visits += 1
                used += len(running)
                if round_ends is not None and clock() >= round_ends:
                    break
        self.iterations += used
        self.searches += 1
        return root

    def world(self, state: State, me: int, seed: int) -> State:
        """One of the worlds `me` cannot tell from the real one: a copy of `state` with the
        hidden things drawn again (benchmarks/search_agent.py's clairvoyant search, which
        sees the real one, is the measure of what hidden things cost)."""
        return state.determinize(me, seed)

    def _iterate(self, root: Node, world: State, me: int, first: Action, seed: int) -> None:
        """One iteration on one determinized copy: `first` at the root, then select, expand
        one node, play out, back up. The policy (or, without one, the random moves of the
        play-out) starts afresh from `seed`, so the moves compared on one world meet the
        same luck after them.

        With a policy, another player's move in the tree is the policy's, not UCB1's: in a
        single-observer tree an opponent who searched would choose knowing the deciding
        player's real hand (it is the same in every copy), so it would always call a bluff
        and the search would learn never to bluff. The policy reads only what its player
        sees, so it keeps the opponents honest."""
        policy = self.make_policy(seed) if self.make_policy is not None else None
        node = root.children.get(first)
        if node is None:
            node = root.children[first] = Node(world.num_players)
        node.available += 1
        world.apply(first)
        path = [node]
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
            if hint is not None and player != me:
                action = hint
            else:
                action = self._pick(node, actions, player, hint)
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
        returns = self._play_out(world, policy, seed)
        path[0].returns.append(returns[me])
        for visited in path:
            visited.visits += 1
            sums = visited.rewards
            for p, value in enumerate(returns):
                sums[p] += value

    def _pick(self, node: Node, actions: list[Action], player: int, hint: Action | None) -> Action:
        """A move below the root. With a policy, the node widens slowly (progressive
        unpruning): its first child is the policy's move, and one more is let in as the
        node's visits reach WIDEN, 4 * WIDEN, 9 * WIDEN ...; without one, every move is
        tried once first. Then UCB1 among those let in."""
        children = node.children
        present = [a for a in actions if a in children]
        room = 1 + math.isqrt(node.visits // WIDEN) if hint is not None else len(actions)
        if len(present) < room:
            if hint is not None and hint not in children:
                return hint
            fresh = [a for a in actions if a not in children]
            if fresh:
                return choose(self.rng, fresh)
        return self._select(children, present, player, hint)

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

    def _play_out(self, world: State, policy: Agent | None, seed: int) -> list[float]:
        """Each player's return from `world`: the game played to its end by the policy (or
        at random), or, with a horizon and a game that can estimate its returns, played
        that many decisions further and then estimated."""
        rng = random.Random(seed)
        left = -1
        if self.horizon is not None and isinstance(world, Estimating):
            left = self.horizon
        while not world.is_terminal():
            if left == 0:
                assert isinstance(world, Estimating)
                return world.estimate()
            left -= 1
            if policy is not None:
                world.apply(policy.act(world))
            else:
                world.apply(choose(rng, world.legal_actions()))
        return world.returns()

    def cost(self) -> float:
        """Iterations per searched decision so far (forced moves are not searched)."""
        return self.iterations / self.searches if self.searches else 0.0
