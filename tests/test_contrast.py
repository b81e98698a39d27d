"""Text a player can read: every word printed on the card fronts of the five games, in
full and in light ink, measured on the rendered face against what lies around it (WCAG
contrast: 4.5:1 for text, 3:1 for titles of 18 pt and more).

Measured from pixels, not from the CSS: a colour variable overridden by the light ink,
a tint under a title or a highlighted keyword count as the reader sees them. The word's
box comes from the PDF's text (pypdfium2); its background is the median of a thin ring
around the box, its colour the pixel inside the box farthest from that background.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest

from pipeline.common.project import Project, open_project
from pipeline.publish.render.deck import face_cache, load_faces, print_run
from pipeline.publish.render.faces import Ink, render_faces
from pipeline.publish.render.paper import BLEED_MM

DPI = 200
LARGE_PT = 18.0  # WCAG "large text": 18 pt (14 pt bold), 3:1 instead of 4.5:1
RING_PX = 3

pytestmark = pytest.mark.slow


def _linear(c: np.ndarray) -> np.ndarray:
    """sRGB components in 0-1, made linear (WCAG 2)."""
    return np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


# What each of the 256 levels of R, G and B adds to the luminance: a page is looked up,
# not raised to the power 2.4 pixel by pixel (which took two thirds of this test's time).
WEIGHTED = [
    (weight * _linear(np.arange(256) / 255)).astype(np.float32)
    for weight in (0.2126, 0.7152, 0.0722)
]


def relative_luminance(rgb: np.ndarray) -> np.ndarray:
    """WCAG 2 relative luminance of sRGB pixels (last axis R, G, B in 0-255)."""
    lum = np.take(WEIGHTED[0], rgb[..., 0])
    lum += np.take(WEIGHTED[1], rgb[..., 1])
    lum += np.take(WEIGHTED[2], rgb[..., 2])
    return lum


def test_the_luminance_follows_wcag() -> None:
    """#767676 is the palest grey that reads on white (4.54:1, WebAIM's checker); the
    lookup gives the formula's value at every level of every channel."""
    white, grey = relative_luminance(np.array([[255, 255, 255], [118, 118, 118]], np.uint8))
    assert round(contrast(white, grey), 2) == 4.54
    level = np.arange(256, dtype=np.uint8)
    for channel, weight in enumerate((0.2126, 0.7152, 0.0722)):
        pixels = np.zeros((256, 3), np.uint8)
        pixels[:, channel] = level
        assert np.allclose(relative_luminance(pixels), weight * _linear(level / 255))


def contrast(a: float, b: float) -> float:
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


def _words(text: str) -> list[list[int]]:
    """Character indexes of each word of a page's text."""
    words: list[list[int]] = []
    current: list[int] = []
    for index, char in enumerate(text):
        if char.isspace() or char == "·":
            if current:
                words.append(current)
            current = []
        else:
            current.append(index)
    return [*words, current] if current else words


def low_contrast_words(path: Path, pages: range) -> list[tuple[int, str, float]]:
    """(page, word, ratio) of every word under its WCAG minimum on those pages."""
    found = []
    document = pdfium.PdfDocument(path)
    for number in pages:
        page = document[number]
        image = page.render(scale=DPI / 72).to_pil().convert("RGB")
        lum = relative_luminance(np.asarray(image))
        height, scale = page.get_height(), DPI / 72
        textpage = page.get_textpage()
        text = textpage.get_text_range()
        for word in _words(text):
            boxes = [textpage.get_charbox(i) for i in word]
            left, right = min(b[0] for b in boxes), max(b[2] for b in boxes)
            bottom, top = min(b[1] for b in boxes), max(b[3] for b in boxes)
            x0, x1 = int(left * scale), int(right * scale) + 1
            y0, y1 = int((height - top) * scale), int((height - bottom) * scale) + 1
            if x1 - x0 < 2 or y1 - y0 < 2:
                continue
            ring = np.concatenate(
                [
                    lum[max(y0 - RING_PX, 0) : y0, x0:x1].ravel(),
                    lum[y1 : y1 + RING_PX, x0:x1].ravel(),
                    lum[y0:y1, max(x0 - RING_PX, 0) : x0].ravel(),
                    lum[y0:y1, x1 : x1 + RING_PX].ravel(),
                ]
            )
            if ring.size == 0:
                continue
            background = float(np.median(ring))
            inside = lum[y0:y1, x0:x1].ravel()
            ink = float(inside[np.argmax(np.abs(inside - background))])
            needed = 3.0 if top - bottom >= LARGE_PT * 0.7 else 4.5  # cap height ~0.7 em
            ratio = contrast(background, ink)
            if ratio < needed:
                found.append((number + 1, "".join(text[i] for i in word), round(ratio, 2)))
    return found


def overlapping_text(path: Path) -> list[tuple[str, str]]:
    """Pairs of text runs on the PDF's first page drawn over each other: sharing more than
    a point across and more than 40% of the lower run's height (PDFium's text rectangles,
    one per run of a line)."""
    textpage = pdfium.PdfDocument(path)[0].get_textpage()
    runs = []
    for i in range(textpage.count_rects()):
        left, bottom, right, top = textpage.get_rect(i)
        text = textpage.get_text_bounded(left, bottom, right, top).strip()
        if text and right - left > 1 and top - bottom > 1:
            runs.append((left, bottom, right, top, text))
    found = []
    for i, a in enumerate(runs):
        for b in runs[i + 1 :]:
            across = min(a[2], b[2]) - max(a[0], b[0])
            down = min(a[3], b[3]) - max(a[1], b[1])
            if across > 1 and down > 0.4 * min(a[3] - a[1], b[3] - b[1]):
                found.append((a[4], b[4]))
    return found


GAMES = ("samurai-sword", "blitz", "bless", "mazzo", "bldng")


@pytest.fixture(scope="module")
def project(shared_project: Path) -> Project:
    return open_project(shared_project)


def fronts(project: Project, game: str, ink: Ink) -> dict[str, Path]:
    """The PDF of every distinct front of the game's printed deck, as `cartiera deck` lays
    it on the sheet (trim and bleed), by the name of a card that shows it."""
    faces = load_faces(project, game, BLEED_MM, ink=ink)
    shown = {front: code for code, front, _ in print_run(faces, None)}
    pages = render_faces(faces, face_cache(project), shown)
    return {shown[digest]: page.pdf for digest, page in pages.items()}


@pytest.mark.parametrize("ink", ["full", "light"])
@pytest.mark.parametrize("game", GAMES)
def test_every_word_on_the_fronts_is_readable(project: Project, game: str, ink: Ink) -> None:
    """Each distinct front once, as drawn on the sheets (a deck repeats them). In light
    ink, Samurai Sword's Ninja and Ronin titles were cream on pale blue and pink (about
    1.35:1), its Shogun keyword dark yellow on cream (4.2:1); BLITZ's corner names were
    white on the sunburst (3.5:1), and in light ink its actions white on pale grey.
    Bless's card number fell to 2.9:1 (faded "/62"), and in light ink Occhio, Karma and
    the Ombra word stayed pale lilac on the pale field (1.1:1); Mazzo's empty ability
    slots were 2.6:1, white on the Giallo frame 4.1:1; BLDNG's white letters on its green
    3.4:1, and in light ink a Progetto's band and an Evento's words white on a pale tint."""
    faces = fronts(project, game, ink)
    found = {code: low_contrast_words(pdf, range(1)) for code, pdf in faces.items()}
    assert {code: words for code, words in found.items() if words} == {}
    # nor hidden under other text: BLDNG's "ricostruita" mark covered a Progetto's ninth
    # legend line ("1× Rettangolo giallo" on Villette a schiera)
    covered = {code: overlapping_text(pdf) for code, pdf in faces.items()}
    assert {code: pairs for code, pairs in covered.items() if pairs} == {}


def test_the_overlap_measure_sees_text_over_text(tmp_path: Path) -> None:
    from weasyprint import HTML

    page = tmp_path / "p.pdf"
    HTML(
        string='<body style="font: 12pt sans-serif"><p>Rettangolo giallo</p>'
        '<p style="position: absolute; top: 0.6em; left: 2em">RICOSTRUITA</p>'
        "<p>Altro testo, più in basso, da solo.</p></body>"
    ).write_pdf(page)
    pairs = overlapping_text(page)
    assert len(pairs) == 1 and "RICOSTRUITA" in " ".join(pairs[0])


def test_the_measure_sees_pale_text(tmp_path: Path) -> None:
    """The check itself: cream on pale blue fails, dark blue on pale blue passes."""
    from weasyprint import HTML

    page = tmp_path / "p.pdf"
    HTML(
        string='<body style="background: #c9d1df; font: 24pt serif">'
        '<p style="color: #f6f1e3">Ninja</p><p style="color: #0d1d3a">Ronin</p></body>'
    ).write_pdf(page)
    assert [w for _, w, _ in low_contrast_words(page, range(1))] == ["Ninja"]
