"""BLITZ agents besides "random": a greedy player that sees only what its seat may see.

It reads ``state.observation(me)``, the legal actions and the public card list, never
another hand or the deck order: it exposes the card that groups best, plays the action that
gains most (a steal, the BLITZ card on the fullest tables, a swap that completes or breaks
a collection, Pesca x2 with exposures left), keeps its Blocca for a steal or a swap that
breaks a collection, and draws blind from the fullest opponent's hand rather than the deck
(what a hand holds was kept for a reason: that draw is worth more than the deck's top).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.engine.agents import ChoosingAgent
from pipeline.engine.core import Action
from pipeline.engine.plugin import AgentFactory

from .cards import BLITZ, BLOCCA, COLLECTION, PESCA, RAINBOW, RUBA, SCAMBIA, CardTable, plan_keys
from .decisions import BLOCK, END_TURN
from .state import BlitzState

ROLE_WORTH = {PESCA: 2.0, SCAMBIA: 2.0, RUBA: 3.0, BLOCCA: 2.5, BLITZ: 5.0}


def _value(counts: Sequence[int]) -> float:
    """Complete collections first (they win), then points, then the largest group that a
    collection could grow from (a same-type run or a set of different types)."""
    keys = plan_keys(tuple(counts))
    left = list(counts)
    for k in keys:
        for t in range(4) if k == RAINBOW else (k, k, k, k):
            left[t] -= 1
    points = sum(left) + sum(8 if k == RAINBOW else 10 for k in keys)
    progress = max(max(left), sum(1 for c in left if c))
    return 20.0 * len(keys) + points + 2.0 * progress


class GreedyAgent(ChoosingAgent[BlitzState]):
    name = "greedy"

    def choose(self, state: BlitzState, legal: list[Action]) -> Action:
        me = state.current_player()
        seen = state.observation(me)
        table = state.table
        kind = state.decision_kind()
        if kind == "respond":
            return BLOCK if self._worth_blocking(table, seen, me) else legal[1]
        if kind == "draw":
            # a blind draw from the fullest hand beats the deck: it takes what they kept
            return max(legal, key=lambda a: seen["hand_sizes"][a[1]] if a[1] >= 0 else 0)
        counts = [self._counts(table, t) for t in seen["tables"]]
        if kind == "swap":
            return max(
                legal,
                key=lambda a: (
                    self._worth(table, counts[me], a[1]) - self._worth(table, counts[me], a[2])
                ),
            )
        best, gain = END_TURN, 0.0
        for action in legal:
            value = self._gain(table, seen, counts, me, action)
            if value > gain:
                best, gain = action, value
        return best

    @staticmethod
    def _worth_blocking(table: CardTable, seen: Mapping[str, Any], me: int) -> bool:
        """Save the Blocca for what hurts: a steal, or a swap that breaks a collection."""
        attack = seen["attack"]
        if table.role[attack[1]] == RUBA:
            return True
        return attack[3] == "tavolo" and attack[5] >= 0

    @staticmethod
    def _counts(table: CardTable, area: Mapping[str, Any]) -> list[int]:
        out = [0, 0, 0, 0]
        for code in [c for group in area["complete"] for c in group] + area["loose"]:
            out[table.kind[table.by_code[code]]] += 1
        return out

    @staticmethod
    def _worth(table: CardTable, mine: Sequence[int], d: int) -> float:
        if table.role[d] == COLLECTION:
            t = table.kind[d]
            after = list(mine)
            after[t] += 1
            return _value(after) - _value(mine) + 1.0
        return ROLE_WORTH.get(table.role[d], 0.0)

    def _gain(
        self,
        table: CardTable,
        seen: Mapping[str, Any],
        counts: list[list[int]],
        me: int,
        action: Action,
    ) -> float:
        verb = action[0]
        if verb == "esponi":
            d, owner = action[1], action[2]
            after = list(counts[owner])
            after[table.kind[d]] += 1
            return 3.0 + _value(after) - _value(counts[owner])  # exposing also opens actions
        if verb != "gioca":
            return 0.0
        role = table.role[action[1]]
        if role == PESCA:
            return 4.0 if seen["exposes_left"] + 2 > 0 else 0.5
        if role == BLITZ:
            return 2.0 + sum(len(seen["tables"][q]["loose"]) for q in action[2])
        if role == RUBA:
            return 25.0 + (10 if action[3] != RAINBOW else 8)
        if role == SCAMBIA and action[3] == "tavolo":
            mine, src, theirs = action[4:]
            after = list(counts[me])
            after[mine] -= 1
            after[theirs] += 1
            # a card taken from a complete collection always breaks it (same types never swap)
            return _value(after) - _value(counts[me]) + (20.0 if src >= 0 else 0.0) - 1.0
        return 0.5 if role == SCAMBIA else 0.0


AGENTS: dict[str, AgentFactory] = {"greedy": GreedyAgent}
