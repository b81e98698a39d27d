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


def match(need: Mapping[T, int], cards: Sequence[Collection[T]]) -> list[T | None]:
    """For each card, the element kind of `need` (kind -> how many) it stands for in a
    largest matching, or None for a card left over."""
    out: list[T | None] = [None] * len(cards)
    left = dict(need)
    jolly: list[int] = []
    for i, fits in enumerate(cards):
        if len(fits) != 1:
            jolly.append(i)
            continue
        kind = next(iter(fits))
        if left.get(kind, 0) > 0:
            left[kind] -= 1
            out[i] = kind
    missing = [kind for kind, n in left.items() for _ in range(n)]
    if missing and jolly:
        owner = [-1] * len(jolly)
        fits_of = [cards[i] for i in jolly]
        placed = 0
        for unit in range(len(missing)):
            if placed == len(jolly):
                break  # every Jolly stands for an element: no path can add one more
            placed += _augment(unit, missing, fits_of, owner, [False] * len(jolly))
        for j, unit in enumerate(owner):
            if unit >= 0:
                out[jolly[j]] = missing[unit]
    return out


def cover(need: Mapping[T, int], cards: Iterable[Collection[T]]) -> int:
    """The most elements of `need` that `cards` can stand for at once, one element each."""
    return sum(kind is not None for kind in match(need, list(cards)))


def completes(need: Mapping[T, int], cards: Iterable[Collection[T]]) -> bool:
    """Whether the cards complete the project: every element covered by a different card."""
    return cover(need, cards) == sum(need.values())
