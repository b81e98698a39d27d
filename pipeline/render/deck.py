"""`cartiera deck`: a game's deck as home-print sheets or as print-shop pages.

Faces are rendered once (faces.py) and imposed (sheets.py): copies come from the deck
composition, so a face drawn nine times is still rendered and stored once.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import pikepdf

from ..catalog import GameInfo, read_game
from ..database import open_engine
from ..output import atomic_write, html_to_pdf
from ..problems import Problem, SourceError
from ..project import Project
from ..rulebook import STATUS_LABELS
from ..settings import site_url
from ..templating import environment
from .faces import DeckFaces, deck_faces, render_faces
from .paper import BLEED_MM, PAPERS, PT_PER_MM
from .sheets import Duplex, Imposer, Rect, SheetLayout, chunks, marks_stream

Layout = Literal["sheets", "cards"]
DUPLEX_LABELS = {
    "long": "fronte-retro, girando sul lato lungo",
    "short": "fronte-retro, girando sul lato corto",
    "none": "solo fronti",
}
PAPER_LABELS = {"a4": "A4 (210 × 297 mm)", "letter": "US Letter (8,5 × 11 in)"}


@dataclass(frozen=True)
class DeckOptions:
    paper: str = "a4"
    duplex: Duplex = "long"
    bleed: float = BLEED_MM
    layout: Layout = "sheets"
    backs_offset: tuple[float, float] = (0.0, 0.0)  # mm, as seen on the backs sheet
    interleave: bool = False  # print-shop order: back 1, front 1, back 2, front 2 …
    deck: str | None = None  # deck code; default: the game's first deck


def face_cache(project: Project) -> Path:
    return project.cache_dir / "faces"


def load_faces(project: Project, slug: str, bleed: float) -> DeckFaces:
    with open_engine(project) as engine:
        game = read_game(engine, slug)
    return deck_faces(game, project.templates_dir, site_url(project), bleed)


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
) -> Path:
    """The deck's PDF (`faces`, when given, saves reading the game again)."""
    if faces is None or faces.bleed != options.bleed:
        faces = load_faces(project, slug, options.bleed)
    run = print_run(faces, options.deck)
    paths = render_faces(
        faces, face_cache(project), [d for _, front, back in run for d in (front, back)]
    )
    title = f"{faces.game.name} — mazzo da stampare"
    imposer = Imposer(title, paths, face_cache(project).parent / "fonts")
    if options.layout == "sheets":
        _sheets(project, imposer, faces, run, options)
    else:
        _cards(imposer, faces, run, options)
    name = (
        f"{slug}-{options.layout}-{options.paper}-{options.duplex}.pdf"
        if options.layout == "sheets"
        else f"{slug}-carte.pdf"
    )
    target = out or project.build_dir / "decks" / name
    atomic_write(target, imposer.save())
    return target


def _sheets(
    project: Project,
    imposer: Imposer,
    faces: DeckFaces,
    run: list[tuple[str, str, str]],
    options: DeckOptions,
) -> None:
    if options.paper not in PAPERS:
        raise SourceError(
            Problem(
                "error", f"unknown paper '{options.paper}'", hint=f"use one of: {', '.join(PAPERS)}"
            )
        )
    paper = PAPERS[options.paper]
    layout = SheetLayout.fit(paper, faces.trim, options.bleed)
    sheets = math.ceil(len(run) / layout.per_sheet)
    pages = 1 + sheets * (1 if options.duplex == "none" else 2)
    _instructions(
        project,
        imposer,
        faces.game,
        layout,
        options,
        len(run),
        len({code for code, _, _ in run}),
        sheets,
        pages,
    )
    duplex = options.duplex
    dx, dy = options.backs_offset
    front_marks = marks_stream(layout, with_marks=True, registration=duplex != "none")
    back_marks = _offset_ops(marks_stream(layout, with_marks=False, registration=True), dx, dy)
    for group in chunks(run, layout.per_sheet):
        draws = [
            (front, _face_rect(layout.slot(i), faces.bleed), layout.visible(i), 0)
            for i, (_, front, _) in enumerate(group)
        ]
        imposer.add_page(paper, draws, front_marks)
        if duplex == "none":
            continue
        draws = []
        for i, (_, _, back) in enumerate(group):
            slot = layout.back_slot(i, duplex)
            where = _shift(_face_rect(layout.slot(slot), faces.bleed), dx, dy)
            clip = _shift(layout.visible(slot), dx, dy)
            draws.append((back, where, clip, 180 if duplex == "short" else 0))
        imposer.add_page(paper, draws, back_marks)


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
    layout: SheetLayout,
    options: DeckOptions,
    cards: int,
    distinct: int,
    sheets: int,
    pages: int,
) -> None:
    """The first page: print at 100%, a 100 mm ruler, duplex check, how to cut."""
    template = environment(project.templates_dir).get_template("print/instructions.html.j2")
    card = layout.card
    html = template.render(
        game=game,
        paper=layout.paper,
        paper_label=PAPER_LABELS[options.paper],
        layout=layout,
        per_sheet=layout.per_sheet,
        sheets=sheets,
        pages=pages,
        cards=cards,
        distinct=distinct,
        duplex=options.duplex,
        duplex_label=DUPLEX_LABELS[options.duplex],
        offset=options.backs_offset,
        bleed=_mm(options.bleed),
        card_label=f"{_mm(card.width)} × {_mm(card.height)} mm",
        status_label=STATUS_LABELS.get(game.status, game.status),
    )
    digest = hashlib.sha256(html.encode()).hexdigest()[:24]
    path = project.build_dir / "cache" / "pages" / f"{digest}.pdf"
    if not path.exists():
        atomic_write(path, html_to_pdf(html, base_url=str(project.templates_dir)))
    imposer.append_page(path)


def _mm(value: float) -> str:
    return f"{value:g}".replace(".", ",")
