"""The Samurai Sword heuristic agent ("guerriero"): it plays from what its seat can see.

It reads only ``state.observation(me)``, the legal actions and the printed card tables (the
same for everyone). Who is an enemy it guesses from the role table (rule 3.2), the Shogun's
open role and the public record of who attacked whom: attacking the Shogun, or attacking
me, makes a player look like an enemy of my side.
"""

from __future__ import annotations

from typing import Any

from pipeline.engine.agents import ChoosingAgent, RandomAgent, play
from pipeline.engine.core import Action
from pipeline.engine.plugin import Agent, Engine

from .cards import Cards
from .state import ABILITY, END, FROM_DECK, FROM_DISCARD, HONOUR, TAKE, SamuraiState
from .table import ROLES_BY_PLAYERS

SIDE = {"shogun": "Shogun", "samurai": "Shogun", "ninja": "Ninja", "ronin": "Ronin"}


class Warrior(ChoosingAgent[SamuraiState]):
    """Attacks likely enemies, guards its honour, and keeps what defends it."""

    name = "guerriero"

    def choose(self, state: SamuraiState, legal: list[Action]) -> Action:
        me = state.current_player()
        view = state.observation(me)
        cards = state.cards  # the printed card tables, public
        enemy = self._enemies(view, me)
        phase = view["decision"]
        if phase == "main":
            return self._main(view, me, legal, cards, enemy)
        if phase in ("parata", "risposta", "bushido"):
            answers = [a for a in legal if a not in (TAKE, HONOUR)]
            if not answers:
                return legal[-1]
            return min(answers, key=lambda a: self._keep(cards, a[1], view))
        if phase == "scarto":
            return min(legal, key=lambda a: self._keep(cards, a[1], view))
        top = view["discard"][-1] if view["discard"] else ""
        c = cards.index.get(top, -1)
        useful = c >= 0 and (cards.is_parry[c] or cards.damage[c] >= 2)
        return FROM_DISCARD if useful and FROM_DISCARD in legal else FROM_DECK

    # -- who is against me ---------------------------------------------------------------

    def _enemies(self, view: dict[str, Any], me: int) -> list[float]:
        """For each player, how likely they are on another side than mine (0..1)."""
        n = len(view["players"])
        mine = view["teams"][str(me)]
        shogun = view["shogun"]
        counts = dict(ROLES_BY_PLAYERS[n])
        counts["shogun"] -= 1
        my_kind = view["kinds"][str(me)]
        if me != shogun:
            counts[my_kind] -= 1
        hidden = [q for q in range(n) if q not in (me, shogun)]
        friends = sum(v for k, v in counts.items() if SIDE[k] == mine and mine != "Ronin")
        base = 1.0 - friends / len(hidden) if hidden else 1.0
        attacks = view["attacks"]
        out = [0.0] * n
        for q in range(n):
            if q == me:
                continue
            if mine == "Ronin" or (q == shogun and mine != "Shogun"):
                out[q] = 1.0
            elif q == shogun:
                out[q] = 0.0
            else:
                hostile = attacks[q][me] + (attacks[q][shogun] if mine == "Shogun" else 0)
                friendly = attacks[q][shogun] if mine == "Ninja" else 0
                guess = base + 0.3 * hostile - 0.2 * friendly
                out[q] = base if base in (0.0, 1.0) else min(0.95, max(0.05, guess))
        return out

    # -- the play phase ------------------------------------------------------------------

    def _main(
        self, view: dict[str, Any], me: int, legal: list[Action], cards: Cards, enemy: list[float]
    ) -> Action:
        players = view["players"]
        ronin = view["teams"][str(me)] == "Ronin"
        best, best_value = [END], 0.0
        for action in legal:
            if action in (END, ABILITY):
                continue
            _, c, target, extra = action
            kind = cards.kind[c]
            value = 0.0
            if kind == "proprieta":
                value = 4.0 if not cards.honour_test[c] else 3.0 * (enemy[target] - 0.5)
            elif kind == "arma":
                wounds = cards.damage[c]
                res = players[target]["resistance"]
                gain = wounds + (3.0 if wounds >= res else 0.0)
                value = enemy[target] * gain - (1 - enemy[target]) * gain * 1.5
            else:
                value = self._action_value(cards.effect(c), me, target, extra, cards, view, enemy)
                if cards.end_points[c] and not ronin:
                    value = 0.5 if len(view["hand"]) > 6 else -1.0
            if value > best_value + 1e-9:
                best, best_value = [action], value
            elif best_value > 0 and abs(value - best_value) <= 1e-9:
                best.append(action)  # equal worth: e.g. two targets as likely hostile
        if best == [END] and ABILITY in legal and players[me]["resistance"] >= 3:
            return ABILITY
        return best[0] if len(best) == 1 else self.rng.choice(best)

    def _action_value(
        self,
        effect: Any,
        me: int,
        target: int,
        extra: int,
        cards: Cards,
        view: dict[str, Any],
        enemy: list[float],
    ) -> float:
        players = view["players"]
        what = effect.effetto
        if what == "pesca":
            return 2.0
        if what == "cura":
            lost = players[me]["max_resistance"] - players[me]["resistance"]
            return lost - 1.5 + (1 - enemy[target]) * 0.5
        if what == "prendi":
            return 1.0 + 2.0 * (enemy[target] - 0.5) + 0.1 * players[target]["cards"]
        if what == "scarta":
            if extra < 0:
                return 0.5 + 2.0 * (enemy[target] - 0.5)
            if cards.honour_test[extra]:
                return 3.0 * (0.5 - enemy[target])
            return 3.0 * (enemy[target] - 0.5)
        # "richiesta": everyone else must answer; good when most of them are enemies.
        others = [q for q in range(len(players)) if q != me and not players[q]["harmless"]]
        return sum(enemy[q] - 0.6 for q in others)

    def _keep(self, cards: Cards, c: int, view: dict[str, Any]) -> float:
        """How much a card in hand is worth keeping (the lowest is given up first)."""
        if cards.is_parry[c]:
            return 5.0
        if cards.is_weapon[c]:
            return 2.0 + cards.damage[c] + 0.3 * cards.difficulty[c]
        if cards.kind[c] == "proprieta":
            return 6.0
        if cards.end_points[c]:
            return 4.5
        return 3.0


AGENTS = {"guerriero": Warrior}


def side_win_rate(rules: Engine[SamuraiState], games: int, seed: int = 1000) -> float:
    """How often a side played by the guerriero beats sides played by random, over games
    of 3 to 7 players in turn, each side of the table taking its turn as the guerriero's."""
    wins = 0
    for i in range(games):
        players = 3 + i % 5
        state = rules.new_game(seed + i, players)
        sides = sorted({state.team(p) for p in range(players)})
        side = sides[(i // 5) % len(sides)]
        agents: list[Agent] = [
            (Warrior if state.team(p) == side else RandomAgent)(i * 8 + p) for p in range(players)
        ]
        play(state, agents)
        outcome = state.outcome()
        wins += outcome is not None and state.team(outcome.winners[0]) == side
    return wins / games
