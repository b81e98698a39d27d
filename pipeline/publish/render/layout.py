"""Sheet geometry in millimetres: where cards, cut marks, duplex targets and labels go.

A layout is a grid of cards on one side of a sheet; cards are butted (the default) or
set apart by a gutter with bleed on every side of every card. Nothing printed comes
nearer the paper's edge than the paper's printable margin (paper.PRINTABLE_MM): a crop
mark that would have to start there is drawn inside the bleed instead, in black or
white to stand out from the card under it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Literal

from .paper import Size

Duplex = Literal["long", "short", "none"]
Axis = Literal["x", "y"]  # the mirror a flip makes: x reverses columns, y reverses rows
MARK_GAP_MM = 0.5  # between the bleed (or the trim, for marks in the bleed) and a mark
MARK_MAX_MM = 8.0
MARK_MIN_MM = 2.0  # shorter than this outside the bleed: the mark goes inside it
REG_RADIUS_MM = 2.0  # duplex targets


@dataclass(frozen=True)
class Rect:
    x: float  # left, mm from the page's left edge
    y: float  # top, mm from the page's top edge
    w: float
    h: float

    @property
    def right(self) -> float:
        return self.x + self.w

    @property
    def bottom(self) -> float:
        return self.y + self.h

    @property
    def center(self) -> tuple[float, float]:
        return self.x + self.w / 2, self.y + self.h / 2


@dataclass(frozen=True)
class Mark:
    """A crop mark: a segment in mm; `over` lists the slots whose bleed it is drawn on
    (empty when it is on the bare paper outside the bleed)."""

    x1: float
    y1: float
    x2: float
    y2: float
    side: str  # top | bottom | left | right: which edge of the block it serves
    over: tuple[int, ...] = ()


@dataclass(frozen=True)
class SheetLayout:
    """A grid of cards centred in `area` (the whole paper unless a fold halves it)."""

    paper: Size
    card: Size  # trim size
    bleed: float
    cols: int
    rows: int
    gap: float = 0.0  # gutter between cards' trims; 0: butted
    printable: float = 5.0
    area: Rect | None = None
    sides: tuple[str, ...] = ("top", "bottom", "left", "right")  # sides that get marks

    @classmethod
    def fit(
        cls,
        paper: Size,
        card: Size,
        bleed: float,
        gap: float = 0.0,
        printable: float = 5.0,
        area: Rect | None = None,
    ) -> SheetLayout:
        """As many cards as fit with their trims inside the printable part of `area`."""
        box = area or Rect(0, 0, paper.width, paper.height)
        inset_x = [printable if box.x <= 0 else 0, printable if box.right >= paper.width else 0]
        inset_y = [printable if box.y <= 0 else 0, printable if box.bottom >= paper.height else 0]
        # a side that is not the paper's edge (a fold) keeps the card's bleed off it
        inset_x = [i if i else bleed + MARK_GAP_MM for i in inset_x]
        inset_y = [i if i else bleed + MARK_GAP_MM for i in inset_y]
        cols = math.floor((box.w - sum(inset_x) + gap) / (card.width + gap))
        rows = math.floor((box.h - sum(inset_y) + gap) / (card.height + gap))
        if cols < 1 or rows < 1:
            raise ValueError(f"a {card.width} × {card.height} mm card does not fit the paper")
        return cls(paper, card, bleed, cols, rows, gap, printable, area)

    @classmethod
    def best_fit(
        cls, paper: Size, card: Size, bleed: float, gap: float = 0.0, printable: float = 5.0
    ) -> SheetLayout:
        """The orientation of the paper that holds more cards (portrait on a tie)."""
        options = []
        for sheet in (paper, Size(paper.height, paper.width)):
            try:
                options.append(cls.fit(sheet, card, bleed, gap, printable))
            except ValueError:
                continue
        if not options:
            raise ValueError(f"a {card.width} × {card.height} mm card does not fit the paper")
        return max(options, key=lambda layout: layout.per_sheet)

    @property
    def landscape(self) -> bool:
        return self.paper.width > self.paper.height

    @property
    def per_sheet(self) -> int:
        return self.cols * self.rows

    @property
    def block(self) -> Rect:
        """The trims of all cards (gutters included)."""
        box = self.area or Rect(0, 0, self.paper.width, self.paper.height)
        w = self.cols * self.card.width + (self.cols - 1) * self.gap
        h = self.rows * self.card.height + (self.rows - 1) * self.gap
        return Rect(box.x + (box.w - w) / 2, box.y + (box.h - h) / 2, w, h)

    def slot(self, index: int) -> Rect:
        """The trim rectangle of slot `index` (row-major from the top left)."""
        row, col = divmod(index, self.cols)
        block = self.block
        return Rect(
            block.x + col * (self.card.width + self.gap),
            block.y + row * (self.card.height + self.gap),
            self.card.width,
            self.card.height,
        )

    def axis(self, duplex: Duplex) -> Axis:
        """The mirror that turning the sheet over makes. Long and short are the paper's
        edges: on a landscape page the long edge is the top one."""
        long_is_vertical = not self.landscape
        if duplex == "long":
            return "x" if long_is_vertical else "y"
        return "y" if long_is_vertical else "x"

    def back_slot(self, index: int, duplex: Duplex | Axis) -> int:
        """Where the back of slot `index` goes on the backs sheet, so it lands behind it."""
        axis = duplex if duplex in ("x", "y") else self.axis(duplex)  # type: ignore[arg-type]
        row, col = divmod(index, self.cols)
        if axis == "x":
            col = self.cols - 1 - col
        else:
            row = self.rows - 1 - row
        return row * self.cols + col

    def flip(self, x: float, y: float, axis: Axis) -> tuple[float, float]:
        """Where a point of the front is on the back (as the back page is drawn)."""
        return (self.paper.width - x, y) if axis == "x" else (x, self.paper.height - y)

    def visible(self, index: int) -> Rect:
        """The part of slot `index`'s face that shows: its trim, plus the bleed on the
        outside of the block and, with a gutter, up to half the gutter on every side."""
        row, col = divmod(index, self.cols)
        r = self.slot(index)
        inner = min(self.bleed, self.gap / 2)
        left = self.bleed if col == 0 else inner
        right = self.bleed if col == self.cols - 1 else inner
        top = self.bleed if row == 0 else inner
        bottom = self.bleed if row == self.rows - 1 else inner
        return Rect(r.x - left, r.y - top, r.w + left + right, r.h + top + bottom)

    def cut_lines(self) -> tuple[list[float], list[float]]:
        """x positions of the vertical cuts and y positions of the horizontal ones (mm)."""
        xs = sorted({x for i in range(self.cols) for x in (self.slot(i).x, self.slot(i).right)})
        ys = sorted(
            {
                y
                for i in range(0, self.per_sheet, self.cols)
                for y in (self.slot(i).y, self.slot(i).bottom)
            }
        )
        return xs, ys

    def _edges(self) -> dict[str, tuple[float, float]]:
        """Per side of the block: (where the bleed ends, where the printable area ends),
        as distances along the axis that leaves the block."""
        b, p = self.block, self.printable
        return {
            "top": (b.y - self.bleed, p),
            "bottom": (b.bottom + self.bleed, self.paper.height - p),
            "left": (b.x - self.bleed, p),
            "right": (b.right + self.bleed, self.paper.width - p),
        }

    def marks(self) -> list[Mark]:
        """Crop marks at both ends of every cut line, inside the printable area. Where
        the margin outside the bleed is too narrow, the mark is drawn in the bleed, from
        the printable edge to just short of the trim."""
        xs, ys = self.cut_lines()
        block = self.block
        out: list[Mark] = []
        for side, (bleed_edge, limit) in self._edges().items():
            if side not in self.sides:
                continue
            sign = -1 if side in ("top", "left") else 1
            trim_edge = {
                "top": block.y,
                "bottom": block.bottom,
                "left": block.x,
                "right": block.right,
            }[side]
            start = bleed_edge + sign * MARK_GAP_MM
            room = (limit - start) * sign
            inside = room < MARK_MIN_MM
            if inside:
                start, end = trim_edge + sign * MARK_GAP_MM, limit  # outward from the trim
                if (end - start) * sign < 1.0:
                    continue  # no room even in the bleed
            else:
                end = start + sign * min(MARK_MAX_MM, room)
            positions = xs if side in ("top", "bottom") else ys
            for pos in positions:
                over = self._slots_at(side, pos) if inside else ()
                if side in ("top", "bottom"):
                    out.append(Mark(pos, start, pos, end, side, over))
                else:
                    out.append(Mark(start, pos, end, pos, side, over))
        return out

    def _slots_at(self, side: str, pos: float) -> tuple[int, ...]:
        """The slots on `side` of the block whose bleed is at `pos` (a cut line)."""
        if side in ("top", "bottom"):
            row = 0 if side == "top" else self.rows - 1
            cells = [row * self.cols + c for c in range(self.cols)]
            near = [i for i in cells if self.slot(i).x - 0.01 <= pos <= self.slot(i).right + 0.01]
        else:
            col = 0 if side == "left" else self.cols - 1
            cells = [r * self.cols + col for r in range(self.rows)]
            near = [i for i in cells if self.slot(i).y - 0.01 <= pos <= self.slot(i).bottom + 0.01]
        return tuple(near)

    def _margin_room(self, side: str) -> tuple[float, float]:
        """(near, far) distances of the free strip between the printable edge and the
        bleed on `side`, ordered outward-in as coordinates."""
        bleed_edge, limit = self._edges()[side]
        return (
            (limit, bleed_edge - MARK_GAP_MM)
            if side in ("top", "left")
            else (
                bleed_edge + MARK_GAP_MM,
                limit,
            )
        )

    def _roomy(self) -> str:
        """'vertical' when the top and bottom margins are the wider ones, else 'sides'."""
        top = min(
            self._edges()["top"][0] - self.printable,
            self._edges()["bottom"][1] - self._edges()["bottom"][0],
        )
        side = min(
            self._edges()["left"][0] - self.printable,
            self._edges()["right"][1] - self._edges()["right"][0],
        )
        return "vertical" if top >= side else "sides"

    def registration(self) -> tuple[list[tuple[float, float]], float]:
        """Centres and radius of the duplex targets on the front: two, both on the left
        (or both at the top), so that no half-turn of the sheet maps them onto
        themselves: a back printed for the wrong flip edge shows them elsewhere."""
        block = self.block
        if self._roomy() == "vertical":
            lo, hi = self._margin_room("top")
            radius = min(REG_RADIUS_MM, (hi - lo) / 2)
            x = self.slot(0).center[0] if self.cols > 1 else block.x + block.w / 4
            top = (lo + hi) / 2
            lo_b, hi_b = self._margin_room("bottom")
            points = [(x, top), (x, (lo_b + hi_b) / 2)]
        else:
            lo, hi = self._margin_room("left")
            radius = min(REG_RADIUS_MM, (hi - lo) / 2)
            y = self.slot(0).center[1] if self.rows > 1 else block.y + block.h / 4
            lo_r, hi_r = self._margin_room("right")
            points = [((lo + hi) / 2, y), ((lo_r + hi_r) / 2, y)]
        return points, radius

    def label_spot(self) -> tuple[float, float, int]:
        """Where the sheet's label goes, outside the bleed and away from the targets:
        its centre (mm) and rotation (0 or 90 degrees)."""
        block = self.block
        fold = next((s for s in ("bottom", "right", "top", "left") if s not in self.sides), None)
        if fold is not None and self.area is not None:
            return self._fold_spot(fold, self.area)
        if self._roomy() == "vertical":
            lo, hi = self._margin_room("bottom")
            last = self.slot(self.per_sheet - 1)
            x = last.center[0] if self.cols > 1 else block.x + 3 * block.w / 4
            return x, (lo + hi) / 2, 0
        lo, hi = self._margin_room("right")
        last = self.slot(self.per_sheet - 1)
        y = last.center[1] if self.rows > 1 else block.y + 3 * block.h / 4
        return (lo + hi) / 2, y, 90

    def _fold_spot(self, side: str, area: Rect) -> tuple[float, float, int]:
        """Half of a fold sheet: the label goes in the strip between the bleed and the
        fold line (the margin on the paper's edges may be all taken by the cards, and the
        margin on the fold's side runs on into the other half's cards)."""
        block, last = self.block, self.slot(self.per_sheet - 1)
        if side in ("top", "bottom"):
            edge = block.bottom + self.bleed if side == "bottom" else block.y - self.bleed
            line = area.bottom if side == "bottom" else area.y
            x = last.center[0] if self.cols > 1 else block.x + 3 * block.w / 4
            return x, (edge + line) / 2, 0
        edge = block.right + self.bleed if side == "right" else block.x - self.bleed
        line = area.right if side == "right" else area.x
        y = last.center[1] if self.rows > 1 else block.y + 3 * block.h / 4
        return (edge + line) / 2, y, 90


def fold_layouts(
    paper: Size, card: Size, bleed: float, gap: float = 0.0, printable: float = 5.0
) -> tuple[SheetLayout, SheetLayout, Axis]:
    """Fronts and backs on one page, either side of a fold line: the front grid, the back
    grid (its mirror image across the fold) and the mirror axis. Of the two orientations
    and two fold directions, the one that holds the most cards."""
    best: tuple[SheetLayout, SheetLayout, Axis] | None = None
    for sheet in (paper, Size(paper.height, paper.width)):
        for axis in ("x", "y"):
            if axis == "x":  # a vertical fold: fronts left, backs right
                half_a = Rect(0, 0, sheet.width / 2, sheet.height)
                half_b = Rect(sheet.width / 2, 0, sheet.width / 2, sheet.height)
                sides_a, sides_b = ("top", "bottom", "left"), ("top", "bottom", "right")
            else:  # a horizontal fold: fronts on top, backs below
                half_a = Rect(0, 0, sheet.width, sheet.height / 2)
                half_b = Rect(0, sheet.height / 2, sheet.width, sheet.height / 2)
                sides_a, sides_b = ("top", "left", "right"), ("bottom", "left", "right")
            try:
                front = SheetLayout.fit(sheet, card, bleed, gap, printable, half_a)
            except ValueError:
                continue
            back = replace(front, area=half_b, sides=sides_b)
            front = replace(front, sides=sides_a)
            if best is None or front.per_sheet > best[0].per_sheet:
                best = (front, back, axis)
    if best is None:
        raise ValueError(f"a {card.width} × {card.height} mm card does not fit half the paper")
    return best
