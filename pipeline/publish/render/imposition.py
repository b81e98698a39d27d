"""Imposition: card faces placed on home-print sheets and print-shop pages.

Faces come from the cache as one-page PDFs (see faces.py); each is imported once as a
Form XObject and drawn as many times as the deck composition says, so a sheet PDF holds
every face's content exactly once. All geometry is in millimetres until the last step.
"""

from __future__ import annotations

import io
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TypeVar

import pikepdf

from .faces import FacePage
from .fonts import unify_fonts
from .layout import Duplex, Mark, Rect, SheetLayout
from .paper import PT_PER_MM, Size

__all__ = ["Duplex", "Imposer", "Rect", "SheetLayout", "chunks", "marks_stream"]

MARK_WIDTH_PT = 0.3


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

    def face(self, digest: str) -> FacePage:
        return self._faces[digest]

    def xobject(self, digest: str) -> pikepdf.Object:
        if digest not in self._xobjects:
            face = self._faces[digest]
            page = self._source(face.pdf).pages[face.index]
            self._xobjects[digest] = self.pdf.copy_foreign(page.as_form_xobject())
        return self._xobjects[digest]

    def page_xobject(self, path: Path, index: int) -> pikepdf.Object:
        """A page of another PDF (e.g. the sheet labels) as a Form XObject."""
        key = f"{path}#{index}"
        if key not in self._xobjects:
            page = self._source(path).pages[index]
            self._xobjects[key] = self.pdf.copy_foreign(page.as_form_xobject())
        return self._xobjects[key]

    def page_count(self, path: Path) -> int:
        return len(self._source(path).pages)

    def append_page(self, path: Path) -> None:
        """Add the first page of another PDF as it is (e.g. the instructions page)."""
        # sources stay open until save: stream data is copied when the output is written
        self.pdf.pages.append(self._source(path).pages[0])

    def add_page(
        self,
        size: Size,
        draws: Sequence[tuple[str, Rect, Rect, float]],
        extra: bytes = b"",
        overlay: pikepdf.Object | None = None,
    ) -> pikepdf.Page:
        """A page with faces drawn: (digest, where the face page goes, clip, rotation).

        `where` is the face's full page (trim + bleed) rectangle in mm from the top left;
        rotation is 0 or 180 degrees. `overlay`, a Form XObject the size of the page, is
        drawn last (the sheet's label).
        """
        page = self.pdf.add_blank_page(page_size=(_pt(size.width), _pt(size.height)))
        names = pikepdf.Dictionary()
        ops = []
        if overlay is not None:
            names["/L0"] = overlay
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
        if overlay is not None:
            content += b"q /L0 Do Q\n"
        page.Contents = self.pdf.make_stream(content)
        return page

    def add_pages_of(self, size: Size, placed: Sequence[tuple[Path, int, float]]) -> None:
        """A page showing pages of other PDFs as they are, each with its left edge `x` mm
        from the page's left and its bottom on the page's bottom (a booklet's side)."""
        page = self.pdf.add_blank_page(page_size=(_pt(size.width), _pt(size.height)))
        names = pikepdf.Dictionary()
        ops = []
        for index, (path, number, x) in enumerate(placed):
            names[f"/P{index}"] = self.page_xobject(path, number)
            ops.append(f"q 1 0 0 1 {_num(_pt(x))} 0 cm /P{index} Do Q")
        page.Resources = pikepdf.Dictionary(XObject=names)
        page.Contents = self.pdf.make_stream(("\n".join(ops) + "\n").encode())

    def save(self, pdfx: bool = False) -> bytes:
        """The PDF's bytes; `pdfx` marks it PDF/X-4 with an sRGB output intent."""
        unify_fonts(self.pdf, self.font_cache)
        info = pikepdf.Dictionary(
            Title=pikepdf.String(self.title),
            Producer=pikepdf.String("Cartiera"),
            CreationDate=pikepdf.String("D:20260101000000Z"),
            ModDate=pikepdf.String("D:20260101000000Z"),
        )
        if pdfx:
            info.GTS_PDFXVersion = pikepdf.String("PDF/X-4")
            info.Trapped = pikepdf.Name("/False")  # not Name.False_: that is "/False_"
            self._output_intent()
        self.pdf.docinfo = self.pdf.make_indirect(info)
        out = io.BytesIO()
        self.pdf.save(
            out,
            deterministic_id=True,
            compress_streams=True,
            object_stream_mode=pikepdf.ObjectStreamMode.generate,
            min_version="1.6" if pdfx else "",
        )
        for source in self._sources.values():
            source.close()
        return out.getvalue()

    def _output_intent(self) -> None:
        """PDF/X-4: an output intent carrying an ICC profile (the sRGB profile pikepdf
        ships), and XMP metadata that names the standard."""
        icc = (Path(pikepdf.__file__).parent / "pdfa" / "data" / "sRGB.icc").read_bytes()
        profile = self.pdf.make_stream(icc, pikepdf.Dictionary(N=3))
        intent = pikepdf.Dictionary(
            Type=pikepdf.Name.OutputIntent,
            S=pikepdf.Name.GTS_PDFX,
            OutputConditionIdentifier=pikepdf.String("sRGB IEC61966-2.1"),
            RegistryName=pikepdf.String("http://www.color.org"),
            Info=pikepdf.String("sRGB IEC61966-2.1"),
            DestOutputProfile=profile,
        )
        self.pdf.Root.OutputIntents = pikepdf.Array([self.pdf.make_indirect(intent)])
        with self.pdf.open_metadata(set_pikepdf_as_editor=False, update_docinfo=False) as meta:
            meta.register_xml_namespace("http://www.npes.org/pdfx/ns/id/", "pdfxid")
            meta["pdfxid:GTS_PDFXVersion"] = "PDF/X-4"
            meta["dc:title"] = self.title
            meta["xmp:CreateDate"] = "2026-01-01T00:00:00Z"
            meta["xmp:ModifyDate"] = "2026-01-01T00:00:00Z"
            meta["xmp:MetadataDate"] = "2026-01-01T00:00:00Z"
            meta["pdf:Producer"] = "Cartiera"
            meta["pdf:Trapped"] = "False"


def marks_stream(
    paper: Size,
    marks: Sequence[tuple[Mark, int]] = (),
    targets: Sequence[tuple[float, float]] = (),
    radius: float = 2.0,
    dashed: Sequence[tuple[float, float, float, float]] = (),
) -> bytes:
    """Crop marks (each with its grey: 0 black, 1 white), duplex targets and dashed
    lines (a fold) as PDF drawing operators; positions in mm from the top left."""
    h = paper.height
    ops = [f"q {MARK_WIDTH_PT} w 0 J"]
    for mark, grey in marks:
        ops.append(
            f"{grey} G {_num(_pt(mark.x1))} {_num(_pt(h - mark.y1))} m "
            f"{_num(_pt(mark.x2))} {_num(_pt(h - mark.y2))} l S"
        )
    if targets:
        ops.append("0 G 0 g")
        for cx, cy in targets:
            ops.append(_target(_pt(cx), _pt(h - cy), _pt(radius)))
    if dashed:
        ops.append("0 G [2 2] 0 d")
        for x1, y1, x2, y2 in dashed:
            ops.append(
                f"{_num(_pt(x1))} {_num(_pt(h - y1))} m {_num(_pt(x2))} {_num(_pt(h - y2))} l S"
            )
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
