"""Imposition: card faces placed on home-print sheets and print-shop pages.

Faces come from the cache as one-page PDFs (see faces.py); each is imported once as a
Form XObject and drawn as many times as the deck composition says, so a sheet PDF holds
every face's content exactly once. All geometry is in millimetres until the last step.
"""

from __future__ import annotations

import io
import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, TypeVar

import pikepdf

from .faces import FacePage
from .fonts import unify_fonts
from .paper import PT_PER_MM, Size

Duplex = Literal["long", "short", "none"]
MARK_GAP_MM = 0.5  # between the bleed edge and the start of a crop mark
MARK_MAX_MM = 8.0
MARK_EDGE_MM = 1.0  # marks stop this far from the paper edge
MARK_WIDTH_PT = 0.3
REG_RADIUS_MM = 2.0  # duplex registration targets in the sheet margins


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
class SheetLayout:
    """Cards butted in a grid, centred on the paper, with bleed around the block only."""

    paper: Size
    card: Size  # trim size
    bleed: float
    cols: int
    rows: int

    @classmethod
    def fit(cls, paper: Size, card: Size, bleed: float) -> SheetLayout:
        cols = math.floor((paper.width - 2 * bleed) / card.width)
        rows = math.floor((paper.height - 2 * bleed) / card.height)
        if cols < 1 or rows < 1:
            raise ValueError(f"a {card.width} × {card.height} mm card does not fit the paper")
        return cls(paper, card, bleed, cols, rows)

    @property
    def per_sheet(self) -> int:
        return self.cols * self.rows

    @property
    def block(self) -> Rect:
        w, h = self.cols * self.card.width, self.rows * self.card.height
        return Rect((self.paper.width - w) / 2, (self.paper.height - h) / 2, w, h)

    def slot(self, index: int) -> Rect:
        """The trim rectangle of slot `index` (row-major from the top left)."""
        row, col = divmod(index, self.cols)
        block = self.block
        return Rect(
            block.x + col * self.card.width,
            block.y + row * self.card.height,
            self.card.width,
            self.card.height,
        )

    def back_slot(self, index: int, duplex: Duplex) -> int:
        """Where the back of slot `index` goes on the backs sheet, so it lands behind it.

        Long-edge flip mirrors the sheet left-right: columns reverse. Short-edge flip
        mirrors it top-bottom: rows reverse.
        """
        row, col = divmod(index, self.cols)
        if duplex == "long":
            col = self.cols - 1 - col
        elif duplex == "short":
            row = self.rows - 1 - row
        return row * self.cols + col

    def visible(self, index: int) -> Rect:
        """The part of slot `index`'s face that shows: its trim, plus the bleed on the
        sides that are on the outside of the block (inside, cards are butted)."""
        row, col = divmod(index, self.cols)
        r = self.slot(index)
        left = self.bleed if col == 0 else 0
        right = self.bleed if col == self.cols - 1 else 0
        top = self.bleed if row == 0 else 0
        bottom = self.bleed if row == self.rows - 1 else 0
        return Rect(r.x - left, r.y - top, r.w + left + right, r.h + top + bottom)

    def cut_lines(self) -> tuple[list[float], list[float]]:
        """x positions of the vertical cuts and y positions of the horizontal ones (mm)."""
        block = self.block
        xs = [block.x + i * self.card.width for i in range(self.cols + 1)]
        ys = [block.y + i * self.card.height for i in range(self.rows + 1)]
        return xs, ys

    def marks(self) -> list[tuple[float, float, float, float]]:
        """Crop marks as line segments (x1, y1, x2, y2) in mm, outside the bleed.

        Every cut line gets a mark at both of its ends, as long as the margin allows, so
        cutting away one side of the sheet leaves the marks on the other.
        """
        block = self.block
        xs, ys = self.cut_lines()
        segments = []
        top_room = block.y - self.bleed - MARK_GAP_MM - MARK_EDGE_MM
        side_room = block.x - self.bleed - MARK_GAP_MM - MARK_EDGE_MM
        v_len, h_len = min(MARK_MAX_MM, top_room), min(MARK_MAX_MM, side_room)
        if v_len > 0:
            start = self.bleed + MARK_GAP_MM
            for x in xs:
                segments.append((x, block.y - start, x, block.y - start - v_len))
                segments.append((x, block.bottom + start, x, block.bottom + start + v_len))
        if h_len > 0:
            start = self.bleed + MARK_GAP_MM
            for y in ys:
                segments.append((block.x - start, y, block.x - start - h_len, y))
                segments.append((block.right + start, y, block.right + start + h_len, y))
        return segments

    def registration(self) -> list[tuple[float, float]]:
        """Centres of the registration targets: in the side margins, mid-height, placed
        symmetrically so that front and back targets coincide when the print is right."""
        block = self.block
        x = (block.x - self.bleed) / 2
        return [(x, self.paper.height / 2), (self.paper.width - x, self.paper.height / 2)]


def _pt(mm: float) -> float:
    return mm * PT_PER_MM


def _num(value: float) -> str:
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return "0" if text in ("-0", "") else text


class Imposer:
    """Builds one output PDF from cached faces, importing each face once.

    Every face brings its own font subsets; on saving they become one subset per font
    (fonts.py), so the output is the same whatever was in the cache before."""

    def __init__(
        self, title: str, faces: dict[str, FacePage], font_cache: Path | None = None
    ) -> None:
        self.pdf = pikepdf.new()
        self.title = title
        self.font_cache = font_cache
        self._faces = faces
        self._xobjects: dict[str, pikepdf.Object] = {}
        self._sources: dict[Path, pikepdf.Pdf] = {}

    def _source(self, path: Path) -> pikepdf.Pdf:
        if path not in self._sources:
            self._sources[path] = pikepdf.open(path)
        return self._sources[path]

    def xobject(self, digest: str) -> pikepdf.Object:
        if digest not in self._xobjects:
            face = self._faces[digest]
            page = self._source(face.pdf).pages[face.index]
            self._xobjects[digest] = self.pdf.copy_foreign(page.as_form_xobject())
        return self._xobjects[digest]

    def append_page(self, path: Path) -> None:
        """Add the first page of another PDF as it is (e.g. the instructions page)."""
        # sources stay open until save: stream data is copied when the output is written
        self.pdf.pages.append(self._source(path).pages[0])

    def add_page(
        self, size: Size, draws: Sequence[tuple[str, Rect, Rect, float]], extra: bytes = b""
    ) -> pikepdf.Page:
        """A page with faces drawn: (digest, where the face page goes, clip, rotation).

        `where` is the face's full page (trim + bleed) rectangle in mm from the top left;
        rotation is 0 or 180 degrees.
        """
        page = self.pdf.add_blank_page(page_size=(_pt(size.width), _pt(size.height)))
        names = pikepdf.Dictionary()
        ops = []
        for index, (digest, where, clip, rotation) in enumerate(draws):
            name = f"/F{index}"
            names[name] = self.xobject(digest)
            clip_y = size.height - clip.bottom
            ops.append(
                f"q {_num(_pt(clip.x))} {_num(_pt(clip_y))} {_num(_pt(clip.w))} "
                f"{_num(_pt(clip.h))} re W n"
            )
            y = size.height - where.bottom  # PDF origin is bottom left
            if rotation == 180:
                ops.append(f"-1 0 0 -1 {_num(_pt(where.right))} {_num(_pt(y + where.h))} cm")
            else:
                ops.append(f"1 0 0 1 {_num(_pt(where.x))} {_num(_pt(y))} cm")
            ops.append(f"{name} Do Q")
        page.Resources = pikepdf.Dictionary(XObject=names)
        content = ("\n".join(ops) + "\n").encode() + extra
        page.Contents = self.pdf.make_stream(content)
        return page

    def save(self) -> bytes:
        unify_fonts(self.pdf, self.font_cache)
        self.pdf.docinfo = self.pdf.make_indirect(
            pikepdf.Dictionary(
                Title=pikepdf.String(self.title),
                Producer=pikepdf.String("Cartiera"),
                CreationDate=pikepdf.String("D:20260101000000Z"),
                ModDate=pikepdf.String("D:20260101000000Z"),
            )
        )
        out = io.BytesIO()
        self.pdf.save(
            out,
            deterministic_id=True,
            compress_streams=True,
            object_stream_mode=pikepdf.ObjectStreamMode.generate,
        )
        for source in self._sources.values():
            source.close()
        return out.getvalue()


def marks_stream(layout: SheetLayout, with_marks: bool, registration: bool) -> bytes:
    """Crop marks and registration targets as PDF drawing operators."""
    h = layout.paper.height
    ops = [f"q 0 G {MARK_WIDTH_PT} w 0 J"]
    if with_marks:
        for x1, y1, x2, y2 in layout.marks():
            ops.append(
                f"{_num(_pt(x1))} {_num(_pt(h - y1))} m {_num(_pt(x2))} {_num(_pt(h - y2))} l S"
            )
    if registration:
        for cx, cy in layout.registration():
            ops.append(_target(_pt(cx), _pt(h - cy), _pt(REG_RADIUS_MM)))
    ops.append("Q")
    return ("\n".join(ops) + "\n").encode()


def _target(x: float, y: float, r: float) -> str:
    """A bullseye centred on (x, y) in points: two rings and a dot, and no straight line
    that could be taken for a crop mark."""

    def circle(radius: float) -> str:
        k = 0.5523 * radius  # control distance of a Bézier quarter circle
        quarters = [
            (x + radius, y + k, x + k, y + radius, x, y + radius),
            (x - k, y + radius, x - radius, y + k, x - radius, y),
            (x - radius, y - k, x - k, y - radius, x, y - radius),
            (x + k, y - radius, x + radius, y - k, x + radius, y),
        ]
        arcs = " ".join(" ".join(map(_num, q)) + " c" for q in quarters)
        return f"{_num(x + radius)} {_num(y)} m {arcs}"

    return f"{circle(r)} S {circle(r / 2)} S {circle(r / 6)} f"


T = TypeVar("T")


def chunks(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
