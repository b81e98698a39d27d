"""`cartiera deck`: a game's deck as home-print sheets or as print-shop pages.

Faces are rendered once (faces.py) and imposed (sheets.py): copies come from the deck
composition, so a face drawn nine times is still rendered and stored once.
"""

from __future__ import annotations

import contextlib
import math
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import pikepdf
from PIL import ImageStat

from pipeline.common.output import atomic_write
from pipeline.common.problems import Problem, SourceError
from pipeline.common.project import Project
from pipeline.common.settings import site_url
from pipeline.common.words import decimal
from pipeline.database.catalog import GameInfo, read_game
from pipeline.database.connection import open_project_db
from pipeline.database.store import source_files
from pipeline.publish.rulebook import STATUS_LABELS
from pipeline.publish.templating import environment

from .cache import cached_pdf, render_cache
from .faces import DeckFaces, FacePage, Ink, deck_faces, render_faces
from .imposition import Imposer, chunks, marks_stream
from .layout import Axis, Duplex, Mark, Rect, SheetLayout, fold_layouts
from .paper import BLEED_MM, PAPERS, PRINTABLE_MM, PT_PER_MM, SAFE_MM, Size

Layout = Literal["sheets", "cards", "fold"]
DUPLEX_LABELS = {
    "long": "fronte-retro, girando sul lato lungo",
    "short": "fronte-retro, girando sul lato corto",
    "none": "solo fronti",
}
PAPER_LABELS = {
    "a4": "A4 (210 × 297 mm)",
    "letter": "US Letter (8,5 × 11 in)",
    "a3": "A3 (297 × 420 mm)",
    "legal": "US Legal (8,5 × 14 in)",
}
# The instructions page's type sizes, tried in turn until it fits on one page.
INSTRUCTIONS_PT = (9.5, 9.0, 8.5, 8.0)


@dataclass(frozen=True)
class DeckOptions:
    paper: str = "a4"
    duplex: Duplex = "long"
    bleed: float = BLEED_MM
    layout: Layout = "sheets"
    backs_offset: tuple[float, float] = (0.0, 0.0)  # mm, as seen on the backs sheet
    interleave: bool = False  # print-shop order: back 1, front 1, back 2, front 2 …
    deck: str | None = None  # deck code; default: the game's first deck
    gutter: float = 0.0  # mm between cards on sheets; 0: butted
    size: str | None = None  # card size (paper.CARD_SIZES); default: the game's
    ink: Ink = "full"
    report_ink: bool = False  # measure each sheet's ink coverage (rasterises the sheets)


@dataclass
class DeckResult:
    path: Path
    per_sheet: int = 0
    sheets: int = 0
    landscape: bool = False
    coverage: list[float] = field(default_factory=list)  # ink per sheet, %
    notes: list[str] = field(default_factory=list)  # warnings for the user, one line each


def face_cache(project: Project) -> Path:
    return render_cache(project) / "faces"


def load_faces(
    project: Project, slug: str, bleed: float, size: str | None = None, ink: Ink = "full"
) -> DeckFaces:
    with open_project_db(project) as engine:
        game = read_game(engine, slug)
    return deck_faces(game, project.templates_dir, site_url(project), bleed, size, ink)


def print_run(faces: DeckFaces, deck_code: str | None) -> list[tuple[str, str, str]]:
    """Every physical card of the deck in order: (card code, front digest, back digest)."""
    game = faces.game
    deck = (
        next((d for d in game.decks if d.code == deck_code), None) if deck_code else game.decks[0]
    )
    if deck is None:
        raise SourceError(
            Problem(
                "error",
                f"{game.slug} has no deck '{deck_code}'",
                hint=f"use one of: {', '.join(d.code for d in game.decks)}",
            )
        )
    return [
        (card.code, faces.fronts[card.code], faces.backs[card.code])
        for card in deck.cards
        for _ in range(card.copies)
    ]


def build_deck(
    project: Project,
    slug: str,
    options: DeckOptions,
    out: Path | None = None,
    faces: DeckFaces | None = None,
) -> DeckResult:
    """The deck's PDF (`faces`, when given, saves reading the game again)."""
    if (
        faces is None
        or faces.bleed != options.bleed
        or (options.size or faces.size) != faces.size
        or faces.ink != options.ink
    ):
        faces = load_faces(project, slug, options.bleed, options.size, options.ink)
    run = print_run(faces, options.deck)
    paths = render_faces(
        faces, face_cache(project), [d for _, front, back in run for d in (front, back)]
    )
    notes = _size_check(faces, paths) if faces.design is not None else []
    title = f"{faces.game.name} — mazzo da stampare"
    imposer = Imposer(title, paths, render_cache(project) / "fonts")
    result = DeckResult(Path(), notes=notes)
    if options.layout in ("sheets", "fold"):
        plan = plan_sheets(faces.trim, options)
        result.per_sheet, result.sheets = plan.front.per_sheet, plan.count(len(run))
        result.landscape = plan.front.landscape
        _sheets(project, imposer, faces, run, options, plan)
    else:
        _cards(imposer, faces, run, options)
    target = out or project.build_dir / "decks" / deck_file_name(slug, options)
    data = imposer.save(pdfx=options.layout == "cards")
    atomic_write(target, data)
    result.path = target
    if options.layout in ("sheets", "fold") and options.report_ink:
        result.coverage = ink_coverage(data, plan, options)
    return result


def _size_check(faces: DeckFaces, paths: dict[str, FacePage]) -> list[str]:
    """At another card size: every text box must still fit (an error), and text that
    the scaling takes below 6 pt is a warning."""
    for digest, page in sorted(paths.items()):
        for item in page.fits:
            code, side = next(faces.sides(digest))
            raise SourceError(
                Problem(
                    "error",
                    f"{faces.game.slug}/{code}: text '{item['field']}' does not fit its box "
                    f"on the {side} at {faces.size} size ({item['how']})",
                    hint="shorten the text or print at the game's own size",
                )
            )
    smallest = min((p.smallest_pt for p in paths.values() if p.smallest_pt), default=0.0)
    printed = smallest * faces.scale
    if printed and printed < 5.95:
        return [
            f"warning: at {faces.size} size the faces are scaled to {faces.scale:.0%}: "
            f"the smallest text prints at {printed:.1f} pt, below 6 pt"
        ]
    return []


def deck_file_name(slug: str, options: DeckOptions) -> str:
    if options.layout == "cards":
        return f"{slug}-carte.pdf"
    parts = [slug, options.layout, options.paper]
    if options.layout == "sheets":
        parts.append(options.duplex)
    if options.gutter:
        parts.append(f"gutter{options.gutter:g}")
    if options.size:
        parts.append(options.size)
    if options.ink != "full":
        parts.append(options.ink)
    return "-".join(parts) + ".pdf"


@dataclass(frozen=True)
class SheetPlan:
    """The front grid, and where the backs go: on the next page (duplex) or beside the
    fronts across a fold."""

    front: SheetLayout
    back: SheetLayout
    axis: Axis
    fold: bool

    def count(self, cards: int) -> int:
        return math.ceil(cards / self.front.per_sheet)


def plan_sheets(card: Size, options: DeckOptions) -> SheetPlan:
    if options.paper not in PAPERS:
        raise SourceError(
            Problem(
                "error", f"unknown paper '{options.paper}'", hint=f"use one of: {', '.join(PAPERS)}"
            )
        )
    paper, printable = PAPERS[options.paper], PRINTABLE_MM[options.paper]
    try:
        if options.layout == "fold":
            front, back, axis = fold_layouts(paper, card, options.bleed, options.gutter, printable)
            return SheetPlan(front, back, axis, fold=True)
        front = SheetLayout.best_fit(paper, card, options.bleed, options.gutter, printable)
    except ValueError as exc:
        raise SourceError(
            Problem(
                "error",
                f"{exc} ({options.paper}, gutter {options.gutter:g} mm)",
                hint="use a larger paper, a smaller gutter or a smaller --size",
            )
        ) from None
    duplex = options.duplex if options.duplex != "none" else "long"
    return SheetPlan(front, front, front.axis(duplex), fold=False)


def _sheets(
    project: Project,
    imposer: Imposer,
    faces: DeckFaces,
    run: list[tuple[str, str, str]],
    options: DeckOptions,
    plan: SheetPlan,
) -> None:
    front_layout, back_layout, axis = plan.front, plan.back, plan.axis
    paper = front_layout.paper
    sheets = plan.count(len(run))
    duplex = "none" if plan.fold else options.duplex
    blank = duplex != "none"  # the instructions' back: every front then starts on a recto
    pages = 1 + int(blank) + sheets * (2 if duplex != "none" else 1)
    _instructions(
        project,
        imposer,
        faces.game,
        plan,
        options,
        len(run),
        len({code for code, _, _ in run}),
        sheets,
        pages,
        first_sheet_page=2 + int(blank),
    )
    if blank:
        imposer.append_page(_blank_page(project, paper))
    dx, dy = options.backs_offset
    targets, radius = front_layout.registration()
    with_targets = duplex != "none" and radius >= 1.0
    back_targets = [back_layout.flip(x, y, axis) for x, y in targets]
    fold_line = _fold_line(front_layout, axis) if plan.fold else []
    label_pages = _labels(project, plan, sheets, duplex)

    def labels(number: int, side: str) -> pikepdf.Object:
        return imposer.page_xobject(*label_pages(number, side))

    lumas = EdgeLuma(imposer)
    for number, group in enumerate(chunks(run, front_layout.per_sheet)):
        draws = [
            (front, _face_rect(front_layout.slot(i), faces.bleed), front_layout.visible(i), 0)
            for i, (_, front, _) in enumerate(group)
        ]
        back_draws = []
        for i, (_, _, back) in enumerate(group):
            slot = back_layout.back_slot(i, axis)
            shift = (0.0, 0.0) if plan.fold else (dx, dy)
            where = _shift(_face_rect(back_layout.slot(slot), faces.bleed), *shift)
            clip = _shift(back_layout.visible(slot), *shift)
            back_draws.append((back, where, clip, 180 if axis == "y" else 0))
        marks = [(mark, lumas.grey(mark, group, front_layout)) for mark in front_layout.marks()]
        if plan.fold:
            back_marks = [
                (mark, lumas.grey(mark, group, back_layout, axis)) for mark in back_layout.marks()
            ]
            ops = marks_stream(paper, marks + back_marks, dashed=fold_line)
            imposer.add_page(paper, draws + back_draws, ops, labels(number, "front"))
            continue
        ops = marks_stream(paper, marks, targets if with_targets else (), radius)
        imposer.add_page(paper, draws, ops, labels(number, "front"))
        if duplex == "none":
            continue
        back_ops = _offset_ops(marks_stream(paper, (), back_targets, radius), dx, dy)
        imposer.add_page(paper, back_draws, back_ops, labels(number, "back"))


def _fold_line(layout: SheetLayout, axis: Axis) -> list[tuple[float, float, float, float]]:
    """The fold as a dashed line across the page, inside the printable area."""
    paper, p = layout.paper, layout.printable
    if axis == "x":
        x = paper.width / 2
        return [(x, p, x, paper.height - p)]
    y = paper.height / 2
    return [(p, y, paper.width - p, y)]


class EdgeLuma:
    """How light a face is along each edge, to draw a crop mark over its bleed in the
    colour that shows (black on light, white on dark)."""

    def __init__(self, imposer: Imposer) -> None:
        self.imposer = imposer
        self._cache: dict[tuple[str, str], float] = {}

    def grey(
        self,
        mark: Mark,
        group: Sequence[tuple[str, str, str]],
        layout: SheetLayout,
        axis: Axis | None = None,
    ) -> int:
        if not mark.over:
            return 0
        values = []
        for slot in mark.over:
            index = slot if axis is None else layout.back_slot(slot, axis)
            if index >= len(group):
                continue
            digest = group[index][1 if axis is None else 2]
            side = mark.side
            if axis == "y":  # the back is drawn turned by half a turn
                side = {"top": "bottom", "bottom": "top", "left": "right", "right": "left"}[side]
            values.append(self.luma(digest, side))
        return 1 if values and sum(values) / len(values) < 0.45 else 0

    def luma(self, digest: str, side: str) -> float:
        key = (digest, side)
        if key not in self._cache:
            import pypdfium2 as pdfium

            face = self.imposer.face(digest)
            document = pdfium.PdfDocument(face.pdf)
            image = document[face.index].render(scale=24 / 72).to_pil().convert("L")
            document.close()
            w, h = image.size
            strip = max(1, round(min(w, h) * 0.04))
            boxes = {
                "top": (0, 0, w, strip),
                "bottom": (0, h - strip, w, h),
                "left": (0, 0, strip, h),
                "right": (w - strip, 0, w, h),
            }
            for name, box in boxes.items():
                self._cache[(digest, name)] = ImageStat.Stat(image.crop(box)).mean[0] / 255
        return self._cache[key]


def ink_coverage(data: bytes, plan: SheetPlan, options: DeckOptions) -> list[float]:
    """Per sheet of fronts (and its backs page), the share of the paper covered by ink,
    as the mean of cyan, magenta and yellow over the page rasterised at 20 dpi (100% is
    the whole page solid black)."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(data)
    first = 2 + int(not plan.fold and options.duplex != "none")
    per = 2 if not plan.fold and options.duplex != "none" else 1
    out = []
    for start in range(first - 1, len(document), per):
        covered = []
        for index in range(start, min(start + per, len(document))):
            image = document[index].render(scale=20 / 72).to_pil().convert("RGB")
            covered.append(1 - sum(ImageStat.Stat(image).mean) / 765)
        out.append(round(100 * sum(covered) / len(covered), 1))
    document.close()
    return out


def _cards(
    imposer: Imposer, faces: DeckFaces, run: list[tuple[str, str, str]], options: DeckOptions
) -> None:
    """One card per page, with bleed: TrimBox and BleedBox tell the print shop where to cut."""
    page = faces.page
    full = Rect(0, 0, page.width, page.height)
    for _, front, back in run:
        order = [(back, 0), (front, 0)] if options.interleave else [(front, 0)]
        for digest, _ in order:
            _box_page(imposer.add_page(page, [(digest, full, full, 0)]), faces)
    if not options.interleave and options.duplex != "none":
        for _, _, back in run:
            _box_page(imposer.add_page(page, [(back, full, full, 0)]), faces)


def _box_page(page: pikepdf.Page, faces: DeckFaces) -> None:
    b = faces.bleed * PT_PER_MM
    w, h = faces.page.width * PT_PER_MM, faces.page.height * PT_PER_MM
    page.obj.BleedBox = pikepdf.Array([0, 0, w, h])
    page.obj.TrimBox = pikepdf.Array([b, b, w - b, h - b])


def _face_rect(slot: Rect, bleed: float) -> Rect:
    return Rect(slot.x - bleed, slot.y - bleed, slot.w + 2 * bleed, slot.h + 2 * bleed)


def _shift(rect: Rect, dx: float, dy: float) -> Rect:
    return Rect(rect.x + dx, rect.y + dy, rect.w, rect.h)


def _offset_ops(ops: bytes, dx: float, dy: float) -> bytes:
    """Move drawing operators by (dx, dy) mm; y grows downwards as seen on the sheet."""
    if not dx and not dy:
        return ops
    return f"q 1 0 0 1 {dx * PT_PER_MM:.3f} {-dy * PT_PER_MM:.3f} cm\n".encode() + ops + b"Q\n"


def _instructions(
    project: Project,
    imposer: Imposer,
    game: GameInfo,
    plan: SheetPlan,
    options: DeckOptions,
    cards: int,
    distinct: int,
    sheets: int,
    pages: int,
    first_sheet_page: int,
) -> None:
    """The first page: print at 100%, a 100 mm ruler, duplex check, how to cut.

    One page: the deck's page numbers count on it. Where the text does not fit the paper
    (Letter is 18 mm shorter than A4), its type is made smaller, half a point at a time."""
    name = "print/instructions.html.j2"
    template = environment(project.templates_dir).get_template(name)
    layout = plan.front
    card = layout.card
    facts = dict(
        game=game,
        paper=PAPERS[options.paper],
        paper_label=PAPER_LABELS[options.paper],
        orientation="orizzontale" if layout.landscape else "verticale",
        layout=layout,
        fold=plan.fold,
        axis=plan.axis,
        per_sheet=layout.per_sheet,
        sheets=sheets,
        pages=pages,
        first_sheet_page=first_sheet_page,
        cards=cards,
        distinct=distinct,
        duplex="none" if plan.fold else options.duplex,
        duplex_label="piegati a metà" if plan.fold else DUPLEX_LABELS[options.duplex],
        offset=options.backs_offset,
        bleed=decimal(options.bleed),
        gutter=decimal(options.gutter),
        printable=decimal(layout.printable),
        ink=options.ink,
        card_label=f"{decimal(card.width)} × {decimal(card.height)} mm",
        status_label=STATUS_LABELS.get(game.status, game.status),
    )
    for font_pt in INSTRUCTIONS_PT:
        html = template.render(font_pt=font_pt, **facts)
        pdf = cached_pdf(project, html, str(project.templates_dir))
        if imposer.page_count(pdf) == 1:
            imposer.append_page(pdf)
            return
    raise SourceError(
        Problem(
            "error",
            f"the print instructions take more than one page of {options.paper} paper, "
            f"even in {INSTRUCTIONS_PT[-1]:g} pt type",
            file=project.rel(project.templates_dir / name),
            game=game.slug,
            hint="shorten the template's text: the first page of the deck must be one page",
        )
    )


def _blank_page(project: Project, paper: Size) -> Path:
    """The back of the instructions page, so that printing the whole file duplex puts
    every front sheet on the front of a sheet of paper."""
    html = (
        '<!DOCTYPE html><html lang="it"><head><meta charset="utf-8"><style>'
        f"@page {{ size: {paper.width}mm {paper.height}mm; margin: 0; }}"
        "</style></head><body></body></html>"
    )
    return cached_pdf(project, html, str(project.templates_dir))


def _labels(
    project: Project, plan: SheetPlan, sheets: int, duplex: str
) -> Callable[[int, str], tuple[Path, int]]:
    """The sheets' labels ("foglio 3/7 · fronte"), 6 pt, in a margin outside the bleed,
    rendered once as one PDF page per label and drawn over each sheet."""
    layout = plan.front
    paper = layout.paper
    spots = {"front": layout.label_spot()}
    if duplex != "none":
        x, y, rotation = spots["front"]
        spots["back"] = (*plan.back.flip(x, y, plan.axis), rotation)
    words = {"front": "fronti e retro da piegare" if plan.fold else "fronte", "back": "retro"}
    entries = [(n, side) for n in range(sheets) for side in spots]
    pages = []
    for number, side in entries:
        x, y, rotation = spots[side]
        turn = f"transform: translate(-50%, -50%) rotate({rotation}deg);"
        pages.append(
            f'<section><p style="left: {x:.2f}mm; top: {y:.2f}mm; {turn}">'
            f"foglio {number + 1}/{sheets} · {words[side]}</p></section>"
        )
    html = (
        '<!DOCTYPE html><html lang="it"><head><meta charset="utf-8"><style>'
        f"@page {{ size: {paper.width}mm {paper.height}mm; margin: 0; }}"
        "html, body { margin: 0; } section { position: relative; width: 100%; "
        f"height: {paper.height}mm; break-after: page; overflow: hidden; }}"
        "section:last-child { break-after: auto; }"
        'p { position: absolute; margin: 0; font: 6pt/1 "Inter", sans-serif; color: #444; '
        "white-space: nowrap; }"
        "</style></head><body>" + "".join(pages) + "</body></html>"
    )
    path = cached_pdf(project, html, str(project.templates_dir))
    index = {entry: i for i, entry in enumerate(entries)}
    return lambda number, side: (path, index[(number, side)])


def stale_database_warning(project: Project, slug: str) -> str | None:
    """One line when a source of the game differs from what cards.db was built from (by
    content: a fresh clone's file times say nothing): the deck is made from the database,
    so it would not show the edit."""
    db = project.sqlite_path
    if db is None or not db.exists():
        return None
    try:
        with contextlib.closing(sqlite3.connect(f"file:{db}?mode=ro", uri=True)) as conn:
            rows = conn.execute(
                "SELECT s.path, s.sha256 FROM sourcefile s JOIN game g ON g.id = s.game_id "
                "WHERE g.slug = ?",
                (slug,),
            ).fetchall()
    except sqlite3.Error:
        return None  # not a database this version wrote: opening it says so
    folder = project.games_dir / slug
    built, now = dict(rows), source_files(folder)
    changed = sorted(p for p in built.keys() | now.keys() if built.get(p) != now.get(p))
    if not changed:
        return None
    return (
        f"warning: {project.rel(folder / changed[0])} changed after {project.rel(db)} was "
        "built: the deck shows the database, not the edit (run `cartiera db build` first)"
    )


def deck_summary(project: Project, result: DeckResult) -> str:
    """What the command prints: the file, and for sheets how many and the ink they take."""
    line = f"wrote {project.rel(result.path)}"
    if result.sheets:
        line += (
            f" ({result.sheets} sheets of {result.per_sheet} cards, "
            f"{'landscape' if result.landscape else 'portrait'})"
        )
    if result.coverage:
        line += "; ink coverage per sheet: " + ", ".join(f"{c:g}%" for c in result.coverage)
    return line


CORNER_MM = 3.0  # the usual die-cut corner radius of playing cards


def build_preview(project: Project, slug: str, out: Path, guides: bool = False) -> Path:
    """Every distinct face of a game in one PDF, one per page at trim + bleed, from the
    face cache (only new or changed faces are rendered). `guides` draws the trim with
    its rounded corners and the safe area over each face."""
    faces = load_faces(project, slug, BLEED_MM)
    digests = list(faces.faces)
    paths = render_faces(faces, face_cache(project), digests)
    imposer = Imposer(f"{faces.game.name} — facce", paths, render_cache(project) / "fonts")
    page = faces.page
    full = Rect(0, 0, page.width, page.height)
    overlay = _guides(faces) if guides else b""
    for digest in digests:
        imposer.add_page(page, [(digest, full, full, 0)], overlay)
    atomic_write(out, imposer.save())
    return out


def _guides(faces: DeckFaces) -> bytes:
    """The cut line with rounded corners (magenta) and the safe area (cyan, dashed)."""
    b, trim, h = faces.bleed, faces.trim, faces.page.height

    def rounded(x: float, y: float, w: float, hh: float, r: float) -> str:
        k = 0.5523 * r
        pts = [
            f"{_pt(x + r)} {_pt(h - y)} m",
            f"{_pt(x + w - r)} {_pt(h - y)} l",
            f"{_pt(x + w - r + k)} {_pt(h - y)} {_pt(x + w)} {_pt(h - y - r + k)} "
            f"{_pt(x + w)} {_pt(h - y - r)} c",
            f"{_pt(x + w)} {_pt(h - y - hh + r)} l",
            f"{_pt(x + w)} {_pt(h - y - hh + r - k)} {_pt(x + w - r + k)} {_pt(h - y - hh)} "
            f"{_pt(x + w - r)} {_pt(h - y - hh)} c",
            f"{_pt(x + r)} {_pt(h - y - hh)} l",
            f"{_pt(x + r - k)} {_pt(h - y - hh)} {_pt(x)} {_pt(h - y - hh + r - k)} "
            f"{_pt(x)} {_pt(h - y - hh + r)} c",
            f"{_pt(x)} {_pt(h - y - r)} l",
            f"{_pt(x)} {_pt(h - y - r + k)} {_pt(x + r - k)} {_pt(h - y)} "
            f"{_pt(x + r)} {_pt(h - y)} c",
        ]
        return " ".join(pts) + " S"

    safe = SAFE_MM
    return (
        "q 0.5 w 0 1 0 0 K "
        + rounded(b, b, trim.width, trim.height, CORNER_MM)
        + " 1 0 0 0 K [2 1.5] 0 d "
        + rounded(b + safe, b + safe, trim.width - 2 * safe, trim.height - 2 * safe, 1.0)
        + " Q\n"
    ).encode()


def _pt(mm: float) -> str:
    return f"{mm * PT_PER_MM:.3f}"
