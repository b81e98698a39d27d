"""Which elements of a project a set of Forma cards can stand for: one bipartite matching.

Each card stands for one element; a plain Forma fits one kind of element (a shape in a
colour), a Jolly fits every kind it pictures. The most elements covered at once is a maximum
bipartite matching between the elements and the cards. A plain card can only ever cover its
own kind, so plain cards are counted first and only the elements they leave uncovered are
matched against the Jolly, by augmenting paths (Kuhn's algorithm; both sides are small: at
most 10 elements and 10 Jolly). The rules engine uses it to see whether a player completed
the project and which cards it needs; `cartiera validate` uses it to prove that every project
can be built with the deck.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Collection, Hashable, Iterable, Mapping, Sequence
from typing import TypeVar

T = TypeVar("T", bound=Hashable)


def _augment(
    unit: int,
    missing: Sequence[T],
    jolly: Sequence[Collection[T]],
    owner: list[int],
    seen: list[bool],
) -> bool:
    for j, fits in enumerate(jolly):
        if not seen[j] and missing[unit] in fits:
            seen[j] = True
            if owner[j] < 0 or _augment(owner[j], missing, jolly, owner, seen):
                owner[j] = unit
                return True
    return False


def cover(need: Mapping[T, int], cards: Iterable[Collection[T]]) -> int:
    """The most elements of `need` (kind -> how many) that `cards` can stand for at once,
    each card standing for one element of a kind it fits."""
    plain: Counter[T] = Counter()
    jolly: list[Collection[T]] = []
    for fits in cards:
        if len(fits) == 1:
            plain[next(iter(fits))] += 1
        else:
            jolly.append(fits)
    covered = sum(min(n, plain[kind]) for kind, n in need.items())
    missing = [kind for kind, n in need.items() for _ in range(n - plain[kind]) if n > plain[kind]]
    if not missing or not jolly:
        return covered
    owner = [-1] * len(jolly)
    for unit in range(len(missing)):
        if _augment(unit, missing, jolly, owner, [False] * len(jolly)):
            covered += 1
    return covered


def completes(need: Mapping[T, int], cards: Iterable[Collection[T]]) -> bool:
    """Whether the cards complete the project: every element covered by a different card."""
    return cover(need, cards) == sum(need.values())
