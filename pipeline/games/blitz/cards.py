"""BLITZ cards as the engine reads them: each card's role from its kind and attributes.

Nothing here branches on a card's code: a card is a collection card by its kind and its
``tipologia``, an action by its ``azione`` (with ``valore`` as its multiplier), the BLITZ card
and the QR card by their kinds. A designer who renames or recounts cards in cards.yaml gets
the engine that follows.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from pipeline.engine.core import CardRecord

# What a card does in play (one code per role; effects are the ``azione`` values).
COLLECTION, PESCA, SCAMBIA, RUBA, BLOCCA, BLITZ, ASIDE = range(7)
EFFECTS = {"Pesca": PESCA, "Scambia": SCAMBIA, "Ruba": RUBA, "Blocca": BLOCCA}
RAINBOW = 4  # the key of a collection of four different types; 0..3 are four equal cards
COLLECTIONS_NEEDED = {1: 3, 2: 5}  # decks -> complete collections that win (rule 7.1)
PLAYERS_PER_DECK = 5


@dataclass(frozen=True)
class Instances:
    """Every card instance of a game with `decks` decks: per instance its distinct card, its
    role, its type (collection cards; -1 otherwise) and its multiplier."""

    decks: int
    card: tuple[int, ...]
    role: tuple[int, ...]
    type: tuple[int, ...]
    value: tuple[int, ...]
    aside: tuple[int, ...]  # never shuffled in: the QR cards and every BLITZ card but one


class CardTable:
    """The distinct cards of the deck, compiled once from the database's records."""

    def __init__(self, records: Sequence[CardRecord]):
        self.records = sorted(records, key=lambda r: r.number)
        self.codes = [r.code for r in self.records]
        self.by_code = {code: d for d, code in enumerate(self.codes)}
        types: list[str] = []
        roles, kinds, values = [], [], []
        for r in self.records:
            if r.kind == "collezione":
                name = str(r.attributes["tipologia"])
                if name not in types:
                    types.append(name)
                roles.append(COLLECTION)
                kinds.append(types.index(name))
            elif r.kind == "azione":
                effect = str(r.attributes["azione"])
                if effect not in EFFECTS:
                    raise ValueError(f"blitz/{r.code}: unknown azione '{effect}'")
                roles.append(EFFECTS[effect])
                kinds.append(-1)
            elif r.kind == "blitz":
                roles.append(BLITZ)
                kinds.append(-1)
            else:  # the QR rules card, and anything else that is not played
                roles.append(ASIDE)
                kinds.append(-1)
            values.append(int(r.attributes.get("valore", 1) or 1))
        if len(types) != 4:
            raise ValueError(f"blitz: a collection needs four types, the cards have {types}")
        self.types = types
        self.role = tuple(roles)
        self.kind = tuple(kinds)
        self.value = tuple(values)
        self.type_card = tuple(self.kind.index(t) for t in range(4))  # type -> distinct card
        self._instances: dict[int, Instances] = {}

    def instances(self, decks: int) -> Instances:
        if decks not in self._instances:
            card: list[int] = []
            for _ in range(decks):
                for d, r in enumerate(self.records):
                    card += [d] * r.copies
            blitz = [i for i, d in enumerate(card) if self.role[d] == BLITZ]
            aside = [i for i, d in enumerate(card) if self.role[d] == ASIDE] + blitz[1:]
            self._instances[decks] = Instances(
                decks,
                tuple(card),
                tuple(self.role[d] for d in card),
                tuple(self.kind[d] for d in card),
                tuple(self.value[d] for d in card),
                tuple(sorted(aside)),
            )
        return self._instances[decks]

    def role_card(self, role: int) -> int:
        """The distinct card that plays this role (the first, in number order)."""
        return self.role.index(role)


_PLANS: dict[tuple[int, ...], tuple[tuple[int, ...], int]] = {}


def best_plan(counts: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    """How to group exposed cards of these type counts: (equal collections per type, number
    of collections of four different types). Most complete collections first (they win the
    game, rule 7.1), then most points (rule 7.3), which means most equal collections."""
    plan = _PLANS.get(counts)
    if plan is None:
        best: tuple[int, int] = (-1, -1)
        for k in range(min(counts) + 1):
            equal = tuple((c - k) // 4 for c in counts)
            score = (sum(equal) + k, sum(equal))
            if score > best:
                best, plan = score, (equal, k)
        _PLANS[counts] = plan  # type: ignore[assignment]
    return plan  # type: ignore[return-value]


_KEYS: dict[tuple[int, ...], list[int]] = {}


def plan_keys(counts: tuple[int, ...]) -> list[int]:
    """The keys of the complete collections of the best grouping, in order (do not change)."""
    keys = _KEYS.get(counts)
    if keys is None:
        equal, rainbow = best_plan(counts)
        keys = _KEYS[counts] = [t for t in range(4) for _ in range(equal[t])] + [RAINBOW] * rainbow
    return keys


def collection_key(types: Sequence[int]) -> int:
    """The key of four cards that form a complete collection; -1 when they do not."""
    if len(types) != 4:
        return -1
    if types[0] == types[1] == types[2] == types[3]:
        return types[0]
    if len(set(types)) == 4:
        return RAINBOW
    return -1
