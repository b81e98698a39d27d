"""Card faces: every distinct face rendered once, at trim size plus bleed, and cached.

A face is the HTML a game's template makes for one side of one card. Faces are keyed
by a digest of everything that shapes them (HTML, CSS, size), so a changed card renders
again and nothing else does. Rendering also measures every text box marked `data-fit`:
text that does not fit its box is reported, never silently clipped.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any, Literal

import segno
from markupsafe import Markup, escape

from pipeline.common.output import FIXED_DATE, atomic_write, load_weasyprint, prepare_weasyprint
from pipeline.common.problems import Problem, SourceError
from pipeline.database.catalog import CardInfo, GameInfo
from pipeline.publish.templating import environment

from .paper import BLEED_MM, CARD_SIZES, SAFE_MM, Size

RENDERER_VERSION = "3"  # bump when the face pipeline changes what a digest stands for
Ink = Literal["full", "light"]  # light: each template's ink-light variables apply
TOLERANCE_PX = 0.75  # layout rounding that is not an overflow (CSS px; 1 px = 0.26 mm)


@dataclass(frozen=True)
class Face:
    digest: str
    html: str  # the face's own markup, inside the page
    label: str  # what a person calls it: "Re Luce (fronte)"


@dataclass(frozen=True)
class Overflow:
    card: str  # card code
    side: str  # front | back
    field: str  # the data-fit name of the box
    how: str  # "in altezza di 2.1 mm" …

    def message(self) -> str:
        return f"text '{self.field}' does not fit its box on the {self.side} ({self.how})"


@dataclass
class DeckFaces:
    """A game's faces: which face is the front and the back of every card."""

    game: GameInfo
    trim: Size
    bleed: float
    css: str
    size: str = "poker"  # the card size's name (CARD_SIZES)
    ink: Ink = "full"
    design: Size | None = None  # the game's own card size, when printed at another

    @property
    def scale(self) -> float:
        """How much the design is scaled to fit this card size (1: printed as drawn)."""
        if self.design is None:
            return 1.0
        return min(self.trim.width / self.design.width, self.trim.height / self.design.height)

    faces: dict[str, Face] = field(default_factory=dict)
    fronts: dict[str, str] = field(default_factory=dict)  # card code -> digest
    backs: dict[str, str] = field(default_factory=dict)

    @property
    def page(self) -> Size:
        return self.trim.grow(self.bleed)

    def cards(self) -> list[CardInfo]:
        return self.game.cards

    def sides(self, digest: str) -> Iterator[tuple[str, str]]:
        """The (card code, side) pairs that use a face."""
        for code, d in self.fronts.items():
            if d == digest:
                yield code, "front"
        for code, d in self.backs.items():
            if d == digest:
                yield code, "back"


# In place of the QR code while the project has not said where its site is published.
NO_SITE_URL = (
    "Qui va il QR code delle regole: scrivi l'indirizzo del sito in mkdocs.yml (site_url) "
    "e stampa di nuovo la carta."
)


def qr_svg(url: str | None, size_mm: float, dark: str = "#111") -> Markup:
    """A QR code as inline SVG, sized in millimetres (vector, prints sharp); with no URL
    (site_url not set), a box of the same size that says how to set it."""
    if url is None:
        return Markup(
            f'<div class="qr-missing" style="width: {size_mm}mm; height: {size_mm}mm">'
            f"{escape(NO_SITE_URL)}</div>"
        )
    code = segno.make(url, error="m", micro=False)
    modules = code.symbol_size(border=0)[0]
    svg = code.svg_inline(scale=1, border=0, dark=dark, omitsize=True)
    svg = svg.replace(
        "<svg ",
        f'<svg width="{size_mm}mm" height="{size_mm}mm" '
        f'viewBox="0 0 {modules} {modules}" role="img" '
        f'aria-label="QR: {escape(url)}" ',
        1,
    )
    return Markup(svg)


def highlight(text: str, words: Iterable[str], css_class: str = "kw") -> Markup:
    """Escape `text` and set the given game words apart (e.g. Rivalità, Impatto)."""
    escaped = str(escape(text))
    found = sorted({str(escape(w)) for w in words if w}, key=len, reverse=True)
    if not found:
        return Markup(escaped)
    pattern = re.compile(r"(?<!\w)(" + "|".join(map(re.escape, found)) + r")(?!\w)")
    return Markup(pattern.sub(rf'<span class="{css_class}">\1</span>', escaped))


def deck_faces(
    game: GameInfo,
    templates: Path,
    site_url: str | None,
    bleed: float = BLEED_MM,
    size: str | None = None,
    ink: Ink = "full",
) -> DeckFaces:
    """Render every card's front and back markup; identical faces share one digest.

    `size` prints the deck at another card size than the game's (CARD_SIZES); `ink`
    "light" sets the class `ink-light` on every face, whose CSS variables each game's
    stylesheet defines to save ink at home."""
    folder = templates / "cards" / game.slug
    if not (folder / "front.html.j2").exists():
        raise FileNotFoundError(folder / "front.html.j2")
    env = environment(templates)
    env.filters.setdefault("highlight", highlight)
    front = env.get_template(f"cards/{game.slug}/front.html.j2")
    back = env.get_template(f"cards/{game.slug}/back.html.j2")
    css = "\n".join(
        (templates / "cards" / name).read_text(encoding="utf-8")
        for name in ("base.css", f"{game.slug}/card.css")
    )
    size = size or game.card_size
    trim = CARD_SIZES[size]
    design = CARD_SIZES[game.card_size] if size != game.card_size else None
    faces = DeckFaces(game, trim, bleed, css, size=size, ink=ink, design=design)
    rules_url = f"{site_url.rstrip('/')}/giochi/{game.slug}/regole/" if site_url else None
    base = {
        "game": game,
        "trim": design or trim,  # templates draw at the game's size; a resize scales it
        "bleed": bleed,
        "safe": SAFE_MM,
        "qr_svg": qr_svg,
        "rules_url": rules_url,
        "site_url": site_url,
    }
    salt = f"{RENDERER_VERSION}|{css}|{trim}|{design}|{bleed}|{ink}"
    for card in game.cards:
        for side, template, index, label in (
            ("front", front, faces.fronts, "fronte"),
            ("back", back, faces.backs, "retro"),
        ):
            html = template.render(card=card, side=side, **base).strip()
            if design is not None:
                html = f'<div class="design">{html}</div>'
            digest = hashlib.sha256(f"{salt}|{html}".encode()).hexdigest()[:24]
            index[card.code] = digest
            faces.faces.setdefault(digest, Face(digest, html, f"{card.name} ({label})"))
    return faces


def face_document(deck: DeckFaces, digests: Sequence[str], outline: bool = False) -> str:
    """One HTML document, one page per face, pages exactly trim + bleed."""
    ink = " ink-light" if deck.ink == "light" else ""
    pages = "\n".join(
        f'<section class="face game-{deck.game.slug}{ink}" data-face="{d}"'
        f"{f' aria-label={json.dumps(deck.faces[d].label)}' if outline else ''}>"
        f'<div class="trim">{deck.faces[d].html}</div></section>'
        for d in digests
    )
    return (
        '<!DOCTYPE html><html lang="it"><head><meta charset="utf-8">'
        f"<title>{escape(deck.game.name)}</title>"
        f'<meta name="dcterms.created" content="{FIXED_DATE}">'
        f'<meta name="dcterms.modified" content="{FIXED_DATE}">'
        f"<style>{_geometry_css(deck)}\n{deck.css}</style>"
        f"</head><body>{pages}</body></html>"
    )


def _geometry_css(deck: DeckFaces) -> str:
    """Page, trim and bleed boxes in millimetres, so templates need no arithmetic.

    At another card size than the game's, `.design` holds the face as drawn, scaled to
    fit the card and centred; its background layer stretches to fill the new bleed."""
    page, trim, bleed = deck.page, deck.trim, deck.bleed
    drawn = deck.design or trim
    css = (
        f"@page {{ size: {page.width}mm {page.height}mm; margin: 0; }}\n"
        "html, body { margin: 0; padding: 0; }\n"
        f".face {{ position: relative; width: {page.width}mm; height: {page.height}mm; "
        "overflow: hidden; break-after: page; }\n"
        ".face:last-child { break-after: auto; }\n"
        f".trim {{ position: absolute; left: {bleed}mm; top: {bleed}mm; "
        f"width: {trim.width}mm; height: {trim.height}mm; }}\n"
        f".bleed-fill {{ position: absolute; left: -{bleed}mm; top: -{bleed}mm; "
        f"width: {drawn.width + 2 * bleed}mm; height: {drawn.height + 2 * bleed}mm; }}\n"
        f".safe {{ position: absolute; left: {SAFE_MM}mm; top: {SAFE_MM}mm; "
        f"width: {drawn.width - 2 * SAFE_MM}mm; height: {drawn.height - 2 * SAFE_MM}mm; }}"
    )
    if deck.design is not None:
        s = deck.scale
        dx = (trim.width - s * drawn.width) / 2
        dy = (trim.height - s * drawn.height) / 2
        kx = (trim.width + 2 * bleed) / (s * (drawn.width + 2 * bleed))
        ky = (trim.height + 2 * bleed) / (s * (drawn.height + 2 * bleed))
        css += (
            f"\n.design {{ position: absolute; left: {dx:.4f}mm; top: {dy:.4f}mm; "
            f"width: {drawn.width}mm; height: {drawn.height}mm; "
            f"transform-origin: 0 0; transform: scale({s:.5f}); }}\n"
            f".design > .bleed-fill {{ transform: scale({kx:.5f}, {ky:.5f}); }}"
        )
    return css


@cache
def _font_config() -> Any:
    load_weasyprint()
    from weasyprint.text.fonts import FontConfiguration

    return FontConfiguration()


@dataclass(frozen=True)
class FacePage:
    """Where a rendered face lives: its own one-page PDF in the cache."""

    pdf: Path
    index: int
    fits: tuple[dict[str, str], ...]  # the data-fit boxes that overflow on this face
    smallest_pt: float = 0.0  # the smallest text on the face as laid out (before scaling)


def render_faces(
    deck: DeckFaces, cache_dir: Path, digests: Iterable[str] | None = None
) -> dict[str, FacePage]:
    """Make sure every face is rendered in the cache; return where each one is.

    Faces already in the cache are not rendered again. The missing ones are laid out in
    one WeasyPrint document, one page each, then every page is written as its own PDF:
    a face's bytes never depend on which other faces were rendered with it, so an
    incremental build gives the same outputs as a clean one.
    """
    wanted = list(dict.fromkeys(digests if digests is not None else deck.faces))
    cache_dir.mkdir(parents=True, exist_ok=True)
    records = {d: cache_dir / f"{d}.json" for d in wanted}
    missing = [d for d in wanted if not _usable(records[d], cache_dir)]
    if missing:
        # Two build steps of one game (its A4 and Letter decks) run side by side: the
        # second waits for the first and finds its faces in the cache, instead of laying
        # out the same faces again.
        with _game_lock(cache_dir, deck.game.slug):
            missing = [d for d in wanted if not _usable(records[d], cache_dir)]
            _render_missing(deck, cache_dir, missing, records)
    pages = {}
    for digest, path in records.items():
        record = json.loads(path.read_text(encoding="utf-8"))
        pages[digest] = FacePage(
            cache_dir / record["pdf"], 0, tuple(record["fits"]), record.get("smallest_pt", 0.0)
        )
    return pages


@contextlib.contextmanager
def _game_lock(cache_dir: Path, slug: str) -> Iterator[None]:
    with open(cache_dir / f".{slug}.lock", "a+b") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _render_missing(
    deck: DeckFaces, cache_dir: Path, missing: list[str], records: dict[str, Path]
) -> None:
    """Lay out the missing faces in one document and write each page as its own PDF."""
    if missing:
        from .fetch import ProjectFetcher  # imports WeasyPrint (load_weasyprint)

        prepare_weasyprint()
        from weasyprint import HTML

        # A face names no file: its fetcher serves only what the cache holds.
        fetcher = ProjectFetcher([cache_dir])
        document = HTML(string=face_document(deck, missing), url_fetcher=fetcher).render(
            font_config=_font_config()
        )
        if len(document.pages) != len(missing):
            raise SourceError(_spilled(deck, document, missing))
        fits = _measure(document)
        for index, digest in enumerate(missing):
            pdf = cache_dir / f"{digest}.pdf"
            data = document.copy([document.pages[index]]).write_pdf(pdf_identifier=digest.encode())
            atomic_write(pdf, data)
            record = {
                "pdf": pdf.name,
                "fits": fits.get(index, []),
                "smallest_pt": _smallest_text(document.pages[index]),
            }
            atomic_write(records[digest], json.dumps(record, ensure_ascii=False).encode())


def _spilled(deck: DeckFaces, document: Any, missing: list[str]) -> Problem:
    """The face that broke "one face, one page", as a problem at its template. Page i
    should begin face i: the first page that does not is the previous face's overflow,
    or, with fewer pages than faces, where a face was left out."""
    starts = []
    for page in document.pages:
        elements = (getattr(box, "element", None) for box in _walk(page._page_box))
        marks = (e.get("data-face") for e in elements if e is not None)
        starts.append(next((mark for mark in marks if mark), None))
    at = next(
        (i for i, digest in enumerate(missing) if i >= len(starts) or starts[i] != digest),
        len(missing),
    )
    more = len(starts) > len(missing)
    code, side = next(deck.sides(missing[max(at - 1, 0)] if more else missing[at]))
    return Problem(
        "error",
        f"its {side} takes more than one page" if more else f"its {side} has no page of its own",
        file=f"templates/cards/{deck.game.slug}/{side}.html.j2",
        game=deck.game.slug,
        card=code,
        hint="keep the template's markup inside the card: a face is one page, the card's size",
    )


def _usable(record: Path, cache_dir: Path) -> bool:
    if not record.exists():
        return False
    pdf = json.loads(record.read_text(encoding="utf-8")).get("pdf", "")
    return bool(pdf) and (cache_dir / pdf).exists()


def overflows(deck: DeckFaces, cache_dir: Path) -> list[Overflow]:
    """Every text box that does not fit, for every card of the deck."""
    found = []
    for digest, page in render_faces(deck, cache_dir).items():
        for item in page.fits:
            for code, side in deck.sides(digest):
                found.append(Overflow(code, side, item["field"], item["how"]))
    return sorted(found, key=lambda o: (o.card, o.side, o.field))


def _walk(box: Any) -> Iterator[Any]:
    yield box
    for child in getattr(box, "children", None) or []:
        yield from _walk(child)


def _smallest_text(page: Any) -> float:
    """The smallest font size (pt) of any text on a laid-out page; 0 with no text."""
    sizes = [
        box.style["font_size"] * 0.75
        for box in _walk(page._page_box)
        if type(box).__name__ == "TextBox" and box.text.strip()
    ]
    return round(min(sizes), 2) if sizes else 0.0


def _measure(document: Any) -> dict[int, list[dict[str, str]]]:
    """Per page, the `data-fit` boxes whose content spills out of them."""
    px_to_mm = 25.4 / 96
    result: dict[int, list[dict[str, str]]] = {}
    for index, page in enumerate(document.pages):
        seen: set[int] = set()
        for box in _walk(page._page_box):
            element = getattr(box, "element", None)
            if element is None or id(element) in seen or not element.get("data-fit"):
                continue
            seen.add(id(element))
            bottom = box.content_box_y() + box.height
            right = box.content_box_x() + box.width
            inner = [d for d in _walk(box) if d is not box]
            low = max((d.position_y + d.margin_height() for d in inner), default=bottom)
            wide = max((d.position_x + d.margin_width() for d in inner), default=right)
            problems = []
            if low - bottom > TOLERANCE_PX:
                problems.append(f"{(low - bottom) * px_to_mm:.1f} mm too tall")
            if wide - right > TOLERANCE_PX:
                problems.append(f"{(wide - right) * px_to_mm:.1f} mm too wide")
            if problems:
                result.setdefault(index, []).append(
                    {"field": element.get("data-fit"), "how": ", ".join(problems)}
                )
    return result
