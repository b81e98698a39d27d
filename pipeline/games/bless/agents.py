"""Bless's own agent, greedy: it plays through the legal actions and looks one decision ahead
on a copy in which everything hidden from it (the Mazzo order, the opponent's hand, the
future chance outcomes) has been drawn again, so it never peeks.
"""

from __future__ import annotations

from pipeline.engine.agents import ChoosingAgent
from pipeline.engine.core import Action

from .state import BlessGame


class GreedyAgent(ChoosingAgent[BlessGame]):
    """Takes the action whose result it values most, one decision ahead.

    The value is the game's own heuristic (``game.value(player)``): score difference first,
    then board and hand. Where looking ahead would only see chance (the Bless Mulligan), the
    game's ``hint(player)`` decides. Ties go to a random one of the best.
    """

    name = "greedy"

    def choose(self, state: BlessGame, legal: list[Action]) -> Action:
        me = state.current_player()
        suggested = state.hint(me)
        if suggested is not None:
            return suggested
        base = state.determinize(me, self.rng.getrandbits(32))
        best: list[Action] = []
        best_value = float("-inf")
        for action in legal:
            trial = base.clone()
            trial.apply(action)
            value = self._worth(trial, me, FOLLOW_UP)
            if value > best_value + 1e-9:
                best, best_value = [action], value
            elif value > best_value - 1e-9:
                best.append(action)
        return best[0] if len(best) == 1 else self.rng.choice(best)

    def _worth(self, game: BlessGame, me: int, depth: int) -> float:
        """The value after an action, looking through the follow-up choices it asks of the
        same player (its targets, the Offerta ...), which belong to the same move."""
        if (
            depth > 0
            and not game.is_terminal()
            and game.current_player() == me
            and game.decision_kind() not in ("main", "mulligan")
        ):
            values = []
            for action in game.legal_actions():
                trial = game.clone()
                trial.apply(action)
                values.append(self._worth(trial, me, depth - 1))
            return max(values)
        return game.value(me)


FOLLOW_UP = 3
AGENTS = {"greedy": GreedyAgent}
