"""Mazzo's own agent: it bluffs and doubts by odds read from what it has seen.

``bluffer`` looks only at ``state.observation(me)``, the legal actions and the printed cards
(``state.cards``, public like the rulebook). From the cards it cannot see it counts how likely
the other is to hold a character that beats or matches a value; from the public record of
past turns it learns how often this opponent lies with «non ce l'ho» when it could answer,
and how often it says «dubito». Each choice takes the best expected swing of bottino cards.
"""

from __future__ import annotations

from math import comb
from typing import Any

from pipeline.engine.agents import ChoosingAgent
from pipeline.engine.core import Action

from .state import MazzoCards, MazzoState

WIN = 2.0  # the swing of a turn won: two cards into my bottino rather than the other's
GAME = 12.0  # what losing the whole game at once (the Mazziere drawn blind) is worth
KEEP = 0.02  # a small price per point of the best value of a card that leaves my hand


def at_least_one(pool: int, good: int, drawn: int) -> float:
    """P(at least one of `good` cards among `drawn` taken at random from `pool`)."""
    if drawn <= 0 or good <= 0:
        return 0.0
    if pool - good < drawn:
        return 1.0
    return 1.0 - comb(pool - good, drawn) / comb(pool, drawn)


class BluffAgent(ChoosingAgent[MazzoState]):
    """Expected-swing play with the opponent's lying and doubting rates learned in game."""

    name = "bluffer"

    def choose(self, state: MazzoState, legal: list[Action]) -> Action:
        view = _View(state.cards, state.observation(state.current_player()))
        return self.best(legal, view.value)


class _View:
    """One decision's arithmetic over what the player sees."""

    def __init__(self, rules: MazzoCards, obs: dict[str, Any]):
        self.r = rules
        self.obs = obs
        me = obs["player"]
        self.me = me
        self.hand = obs["hand"]
        self.known = obs["other_known"]
        seen = set(self.hand) | set(self.known) | set(obs["out"])
        for pile in obs["bottini"]:
            seen |= set(pile)
        seen |= {c for c in obs["table"].values() if c is not None and c >= 0}
        self.unseen = [c for c in range(len(rules.codes)) if c not in seen]
        lies = opens = doubts = believes = 0
        for attacker, response, judged, lie in obs["history"]:
            if attacker == me:  # the other defended
                opens += response == "open"
                lies += response == "nonce" and lie == 1
            elif response == "nonce":
                doubts += judged == "doubt"
                believes += judged == "believe"
        self.lie_rate = (lies + 1) / (lies + opens + 2)  # P(«non ce l'ho» | it could answer)
        self.doubt_rate = (doubts + 1) / (doubts + believes + 2)
        # a wrong doubt: the whole hand goes (rule 3.8), or two cards with two_card_doubt
        self.two_cards = bool(obs.get("options", {}).get("two_card_doubt"))

    def count(self, test: Any) -> int:
        return sum(1 for c in self.unseen if test(c))

    def other_holds(self, test: Any, extra: int = 0) -> float:
        """P(the other's hand, plus `extra` unseen cards it put down, holds one that passes)."""
        if any(test(c) for c in self.known):
            return 1.0
        hidden = self.obs["other_cards"] - len(self.known) + extra
        return at_least_one(len(self.unseen), self.count(test), hidden)

    def value(self, action: Action) -> float:
        kind = action[0]
        if kind == "attack":
            return self.attack(action[1], action[2])
        if kind in ("open", "nonce"):
            return self.defend(kind, action[1])
        if kind in ("believe", "doubt"):
            return self.judge(kind)
        r = self.r
        return sum(r.mazziere[c] * 20 + sum(r.values[c]) for c in action[1:])

    def attack(self, card: int, k: int) -> float:
        r = self.r
        if r.mazziere[card]:
            return WIN - 0.1
        v = r.values[card][k]
        beat = self.other_holds(lambda c: r.values[c][k] > v and not r.mazziere[c])
        mazz = self.other_holds(lambda c: r.mazziere[c]) * 0.5
        return -WIN * beat + (1 - beat) * WIN * (1 - 2 * mazz) - KEEP * r.best[card]

    def defend(self, kind: str, card: int) -> float:
        r = self.r
        k = self.obs["ability"]
        fits = [c for c in self.unseen if r.mazziere[c] or r.values[c][k]]
        p_mazz = sum(r.mazziere[c] for c in fits) / len(fits) if fits else 0.0
        values = [r.values[c][k] for c in fits if not r.mazziere[c]]

        def clash(w: int) -> float:
            if r.mazziere[card]:
                return WIN * (1 - 2 * p_mazz)
            if not w or not values:
                return -WIN
            lower = sum(1 for v in values if v < w) / len(values)
            higher = sum(1 for v in values if v > w) / len(values)
            return (1 - p_mazz) * WIN * (lower - higher) - p_mazz * WIN

        cost = KEEP * r.best[card]
        if kind == "open":
            return clash(r.values[card][k]) - cost
        lying = any(r.has[k] >> c & 1 for c in self.hand)
        if lying:
            doubted = -WIN - (0.5 if any(r.mazziere[c] for c in self.hand) else 0.0)
        else:
            held = self.obs["other_cards"]
            mazz_there = self.other_holds(lambda c: r.mazziere[c])
            gain = WIN if self.two_cards else WIN * (1 + held) / 2
            pool = held if self.two_cards else held + 1
            doubted = gain + (GAME * mazz_there / pool if pool else 0.0)
        believed = clash(r.values[card][k])
        return (1 - self.doubt_rate) * believed + self.doubt_rate * doubted - cost

    def judge(self, kind: str) -> float:
        r = self.r
        k = self.obs["ability"]
        mine = self.obs["table"]["mine"]
        if r.mazziere[mine]:
            return WIN if kind == "believe" else -WIN
        v = r.values[mine][k]
        could = self.other_holds(lambda c: bool(r.has[k] >> c & 1), extra=1)
        lie = could * self.lie_rate / (could * self.lie_rate + 1 - could) if could < 1 else 1.0
        if kind == "doubt":
            others = [c for c in self.hand if c != mine]
            if self.two_cards:
                risk = GAME / len(others) if any(r.mazziere[c] for c in others) else 0.0
                return lie * WIN + (1 - lie) * (-WIN - risk)
            risk = GAME / (1 + len(others)) if any(r.mazziere[c] for c in others) else 0.0
            return lie * WIN + (1 - lie) * (-WIN * (1 + len(others)) / 2 - risk)
        holders = [c for c in self.unseen if r.has[k] >> c & 1]
        if holders:
            lower = sum(1 for c in holders if r.values[c][k] < v) / len(holders)
            higher = sum(1 for c in holders if r.values[c][k] > v) / len(holders)
        else:
            lower, higher = 1.0, 0.0
        mazz = self.other_holds(lambda c: r.mazziere[c], extra=1) * 0.5
        truthful = WIN * (1 - 2 * mazz)
        return (1 - lie) * truthful + lie * WIN * (lower - higher)


AGENTS = {"bluffer": BluffAgent}
