"""BLDNG's deck as the rules engine reads it from cards.db: one entry per card instance.

A Forma card (kind ``forma`` or ``jolly``) fits the element kinds it pictures, each kind a
shape in a colour numbered 0..15; a project (``progetto``) needs so many of each kind; a What
happens card (``evento``) runs the effect its data names. Nothing here branches on a card's
code: a designer who changes a card's attributes or data changes the game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import product
from typing import Any

from pipeline.engine.core import CardRecord

from .checks import COLOURS, PROJECT_KIND, SHAPES
from .events import EVENT_KIND
from .matching import completes, cover

FORMA_KINDS = ("forma", "jolly")
MEMO_MAX = 200_000  # entries kept by each memo of the cards (about 40 MB at most)


def remember(memo: dict[Any, Any], key: Any, value: Any) -> None:
    """Keep `value` in a memo of the cards, which starts again once it holds MEMO_MAX."""
    if len(memo) >= MEMO_MAX:
        memo.clear()
    memo[key] = value


def element(shape: str, colour: str) -> int:
    return SHAPES.index(shape) * len(COLOURS) + COLOURS.index(colour)


def element_name(kind: int) -> str:
    """An element kind in words, e.g. "Triangolo giallo"."""
    return f"{SHAPES[kind // len(COLOURS)]} {COLOURS[kind % len(COLOURS)].lower()}"


def element_code(kind: int) -> str:
    """An element kind as the code of its plain Forma, e.g. "triangolo-giallo"."""
    return element_name(kind).lower().replace(" ", "-")


def _values(value: object) -> list[str]:
    if value is None:
        return []
    return [str(v) for v in value] if isinstance(value, list) else [str(value)]


class BldngCards:
    """The 126 cards, expanded by copies, in number order."""

    def __init__(self, cards: Sequence[CardRecord]):
        self.records: list[CardRecord] = []
        for record in sorted(cards, key=lambda c: c.number):
            self.records += [record] * record.copies
        self.codes = [r.code for r in self.records]
        self.names = [r.name for r in self.records]
        self.numbers = [r.number for r in self.records]
        self.kinds = [r.kind for r in self.records]
        self.by_code: dict[str, list[int]] = {}
        for i, code in enumerate(self.codes):
            self.by_code.setdefault(code, []).append(i)
        n = len(self.records)
        self.is_forma = [k in FORMA_KINDS for k in self.kinds]
        self.is_event = [k == EVENT_KIND for k in self.kinds]
        self.is_project = [k == PROJECT_KIND for k in self.kinds]
        # fits[c]: the element kinds Forma card c can stand for (empty for other cards)
        self.fits: list[frozenset[int]] = [frozenset()] * n
        self.shape: list[int] = [-1] * n  # a plain Forma's shape; a Steal card's shape
        self.need: list[Mapping[int, int]] = [{}] * n  # a project's element kinds
        self.size = [0] * n  # a project's elements
        self.tipo = [""] * n
        self.effect = [""] * n
        self.count = [0] * n
        for c, r in enumerate(self.records):
            shapes = _values(r.attributes.get("forma"))
            colours = _values(r.attributes.get("colore"))
            if self.is_forma[c]:
                self.fits[c] = frozenset(element(s, k) for s, k in product(shapes, colours))
                if len(self.fits[c]) == 1:
                    self.shape[c] = SHAPES.index(shapes[0])
            elif self.is_project[c]:
                need: dict[int, int] = {}
                for e in (r.data or {})["elementi"]:
                    kind = element(e["forma"], e["colore"])
                    need[kind] = need.get(kind, 0) + 1
                self.need[c] = need
                self.size[c] = int(r.attributes["elementi"])
                self.tipo[c] = str(r.attributes.get("tipo", ""))
            elif self.is_event[c]:
                data = r.data or {}
                self.effect[c] = data["effetto"]
                self.count[c] = int(data.get("carte") or 0)
                self.shape[c] = SHAPES.index(shapes[0]) if shapes else -1
        self.plain = [self.is_forma[c] and len(self.fits[c]) == 1 for c in range(n)]
        every = range(n)
        self.forma_set = frozenset(c for c in every if self.is_forma[c])
        self.deck_set = frozenset(c for c in every if self.is_forma[c] or self.is_event[c])
        self.project_set = frozenset(c for c in every if self.is_project[c])
        # the element kind of a plain Forma (-1 for a Jolly or another card)
        self.element = [next(iter(self.fits[c])) if self.plain[c] else -1 for c in range(n)]
        # whether a project fits a choice a player made (BldngState.fits), by (project, hint)
        self.judged: dict[tuple[int, Any], bool] = {}
        self._covered: dict[tuple[int, tuple[int, ...]], int] = {}  # covered(), by its input
        # cards that stand for the same element kinds have the same number here
        kinds: dict[frozenset[int], int] = {}
        self.fit_kind = [kinds.setdefault(f, len(kinds)) for f in self.fits]

    def card(self, code: str) -> list[int]:
        """The instances of the card with this code (several for a card with copies)."""
        if code not in self.by_code:
            raise ValueError(f"no card {code!r} in the BLDNG deck")
        return self.by_code[code]

    def covered(self, project: int, site: Sequence[int]) -> int:
        """How many elements of the project the site's cards stand for at once. Kept by
        project and by what the site's cards can stand for (a matching's size depends
        neither on their order nor on which copy is which): a search asks this hundreds of
        thousands of times a decision, about the same sites again and again, and the
        matching of each was three quarters of its time."""
        kinds = self.fit_kind
        key = (project, tuple(sorted([kinds[c] for c in site])))
        found = self._covered.get(key)
        if found is None:
            found = cover(self.need[project], [self.fits[c] for c in site])
            remember(self._covered, key, found)
        return found

    def complete(self, project: int, site: Sequence[int]) -> bool:
        """Whether the site completes the project. Most sites fail a quick count first (too
        few cards, or more elements missing than it has Jolly); the rest go to the matching."""
        if len(site) < self.size[project]:
            return False
        element = self.element
        have: dict[int, int] = {}  # element kind -> cards (-1: Jolly); a dict: a hot path
        for c in site:
            kind = element[c]
            have[kind] = have.get(kind, 0) + 1
        short = 0
        for kind, n in self.need[project].items():
            got = have.get(kind, 0)
            if n > got:
                short += n - got
        if not short:
            return True
        if short > have.get(-1, 0):
            return False
        return completes(self.need[project], [self.fits[c] for c in site])
