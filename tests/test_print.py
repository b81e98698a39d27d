"""Print-and-play: deck PDFs and card images, opened, read and rasterised."""

from __future__ import annotations

import math
import shutil
from pathlib import Path

import pikepdf
import pypdfium2 as pdfium
import pytest
from conftest import edit, invoke
from PIL import Image
from pypdf import PdfReader

from pipeline.publish.render.imposition import SheetLayout
from pipeline.publish.render.paper import CARD_SIZES, PAPERS

PT = 72 / 25.4  # points per mm
EXPECTED_CARDS = {"bless": 62, "blitz": 54, "samurai-sword": 110, "mazzo": 33, "bldng": 126}
SIZES = {
    "bless": "poker",
    "blitz": "poker",
    "samurai-sword": "bridge",
    "mazzo": "poker",
    "bldng": "poker",
}


@pytest.fixture(scope="module")
def decks(shared_project: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("decks")
    paths = {}
    for slug in EXPECTED_CARDS:
        path = out / f"{slug}.pdf"
        run = invoke(shared_project, "deck", slug, "--out", str(path))
        assert run.exit_code == 0, run.output
        paths[slug] = path
    return paths


@pytest.mark.parametrize("slug", sorted(EXPECTED_CARDS))
def test_page_count_follows_the_composition(decks, slug: str) -> None:
    """Poker cards: 9 on A4 portrait; bridge cards: 10 on A4 landscape (page saving).
    The instructions' blank back keeps the page count even, for duplex."""
    reader = PdfReader(decks[slug])
    layout = SheetLayout.best_fit(PAPERS["a4"], CARD_SIZES[SIZES[slug]], 3.0)
    per_sheet = 10 if SIZES[slug] == "bridge" else 9
    assert layout.per_sheet == per_sheet
    sheets = math.ceil(EXPECTED_CARDS[slug] / per_sheet)
    assert len(reader.pages) == 2 + 2 * sheets
    size = (297, 210) if SIZES[slug] == "bridge" else (210, 297)
    for page in reader.pages[2:]:
        assert (round(page.mediabox.width / PT), round(page.mediabox.height / PT)) == size


def test_bless_is_fifteen_pages_with_embedded_fonts(decks) -> None:
    reader = PdfReader(decks["bless"])
    assert len(reader.pages) == 16  # instructions, its blank back, 7 front and 7 back sheets
    text = reader.pages[0].extract_text()
    assert "100%" in text and "100 mm" in text
    for font in _all_fonts(reader):
        descriptor = font.get("/FontDescriptor")
        if descriptor is None and "/DescendantFonts" in font:
            descriptor = font["/DescendantFonts"][0].get_object()["/FontDescriptor"]
        assert any(k in descriptor.get_object() for k in ("/FontFile", "/FontFile2", "/FontFile3"))


def test_a_faded_shape_is_no_transparency_group(decks) -> None:
    """A Bless front draws a hundred faded shapes: its rays, stars and rings. Faded with SVG
    `opacity`, each shape was a transparency group of its own: 3,475 of them in the deck,
    1.8 MB. Faded with the shape's own fill or stroke alpha, the pixels are the same (within
    one level at 300 dpi) and the deck holds a few groups per face drawn (its gradients and
    faded text), 0.7 MB."""
    with pikepdf.open(decks["bless"]) as pdf:
        faces = {
            xobject.objgen
            for page in pdf.pages
            for name, xobject in (page.Resources.get("/XObject") or {}).items()
            if name.startswith("/F")
        }
        groups = [
            obj
            for obj in pdf.objects
            if isinstance(obj, pikepdf.Stream)
            and obj.get("/Subtype") == "/Form"
            and "/Group" in obj
        ]
    assert faces
    assert len(groups) < 4 * len(faces), (len(groups), len(faces))


def _all_fonts(reader: PdfReader) -> list:
    fonts, stack, seen = [], [p for p in reader.pages], set()
    while stack:
        node = stack.pop()
        resources = node.get("/Resources")
        if resources is None:
            continue
        resources = resources.get_object()
        for font in (resources.get("/Font") or {}).values():
            if font.idnum not in seen:
                seen.add(font.idnum)
                fonts.append(font.get_object())
        for xobj in (resources.get("/XObject") or {}).values():
            if xobj.idnum not in seen:
                seen.add(xobj.idnum)
                stack.append(xobj.get_object())
    assert fonts
    return fonts


def _text_in(page: pdfium.PdfPage, rect_mm: tuple[float, float, float, float]) -> str:
    """Text inside a rectangle given in mm from the page's top left (x, y, w, h)."""
    x, y, w, h = rect_mm
    height = page.get_height()
    textpage = page.get_textpage()
    return textpage.get_text_bounded(
        left=x * PT, bottom=height - (y + h) * PT, right=(x + w) * PT, top=height - y * PT
    )


def test_each_card_is_in_its_slot(decks, shared_project: Path) -> None:
    layout = SheetLayout.fit(PAPERS["a4"], CARD_SIZES["poker"], 3.0)
    names = [
        "Re Luce",
        "Zoreo",
        "Lama del Mattino",
        "Dragone di Fiele",
        "Battito d",
        "Tormenta degli Angeli",
        "Ali di Mos",
        "Catene Lucenti",
        "Anelli del Sigillo",
        "Tocco Divino",
    ]
    document = pdfium.PdfDocument(decks["bless"])
    for index, name in enumerate(names):
        sheet, slot = divmod(index, 9)
        page = document[2 + 2 * sheet]
        r = layout.slot(slot)
        inside = _text_in(page, (r.x + 1, r.y + 1, r.w - 2, r.h - 2))
        assert name in inside, (name, inside[:80])
        for other in names:
            if other != name:
                assert other not in inside


def _dark_runs(values: list[int], threshold: int = 128) -> list[float]:
    """Centres of the runs of dark pixels in a line of grey values."""
    runs, start = [], None
    for i, v in enumerate([*values, 255]):
        if v < threshold and start is None:
            start = i
        elif v >= threshold and start is not None:
            runs.append((start + i - 1) / 2)
            start = None
    return runs


def test_crop_marks_are_where_the_cuts_are(decks) -> None:
    dpi = 600
    px = dpi / 25.4
    layout = SheetLayout.fit(PAPERS["a4"], CARD_SIZES["poker"], 3.0)
    image = pdfium.PdfDocument(decks["bless"])[2].render(scale=dpi / 72).to_pil().convert("L")
    xs, ys = layout.cut_lines()
    block = layout.block
    # a row of pixels across the top margin, between the bleed and the paper edge
    row_y = round((block.y - 3.0 - 0.9) * px)  # below the duplex targets
    found = _dark_runs([image.getpixel((x, row_y)) for x in range(image.width)])
    assert len(found) == len(xs)
    for expected, got in zip(xs, found, strict=True):
        assert abs(got / px - expected) <= 0.2, (expected, got / px)
    # a column of pixels down the left margin
    col_x = round((block.x - 3.0 - 1.5) * px)
    found = _dark_runs([image.getpixel((col_x, y)) for y in range(image.height)])
    # the duplex registration target sits in this margin at mid-height: a ring, not a mark
    target = PAPERS["a4"].height / 2
    marks = [
        y for y in found if block.y - 1 <= y / px <= block.bottom + 1 and abs(y / px - target) > 3
    ]
    assert len(marks) == len(ys)
    for expected, got in zip(ys, marks, strict=True):
        assert abs(got / px - expected) <= 0.2, (expected, got / px)
    # nothing is drawn in the margin between the marks (the bleed stops at the block)
    assert (
        min(
            image.getpixel((round((block.x + 10) * px), round(3 * px))),
            image.getpixel((round(2 * px), round(100 * px))),
        )
        > 200
    )


# -- duplex, proven on a test deck whose backs say which card they belong to ------------

# The numbered test deck `prova` (ten cards, F1/B1 … on fronts and backs): see conftest.


@pytest.mark.parametrize("duplex", ["long", "short"])
def test_every_back_lands_behind_its_front(prova: Path, tmp_path: Path, duplex: str) -> None:
    out = tmp_path / "prova.pdf"
    assert invoke(prova, "deck", "prova", "--duplex", duplex, "--out", str(out)).exit_code == 0
    layout = SheetLayout.fit(PAPERS["a4"], CARD_SIZES["poker"], 3.0)
    document = pdfium.PdfDocument(out)
    assert len(document) == 2 + 2 * 2
    numbers = [*range(1, 11), 10]
    for index, number in enumerate(numbers):
        sheet, slot = divmod(index, 9)
        front, back = document[2 + 2 * sheet], document[3 + 2 * sheet]
        r = layout.slot(slot)
        assert f"F{number}" in _text_in(front, (r.x, r.y, r.w, r.h))
        # the sheet turned over: long edge mirrors left-right, short edge top-bottom
        if duplex == "long":
            behind = (PAPERS["a4"].width - r.right, r.y, r.w, r.h)
        else:
            behind = (r.x, PAPERS["a4"].height - r.bottom, r.w, r.h)
        assert _text_in(back, behind).strip() == f"B{number}", (duplex, number)


def test_backs_offset_moves_the_backs(prova: Path, tmp_path: Path) -> None:
    plain, moved = tmp_path / "plain.pdf", tmp_path / "moved.pdf"
    invoke(prova, "deck", "prova", "--out", str(plain))
    assert (
        invoke(prova, "deck", "prova", "--backs-offset", "2,-1", "--out", str(moved)).exit_code == 0
    )

    def first_char_box(path: Path) -> tuple[float, float]:
        textpage = pdfium.PdfDocument(path)[3].get_textpage()
        left, bottom, _, _ = textpage.get_charbox(0)
        return left / PT, bottom / PT

    (x0, y0), (x1, y1) = first_char_box(plain), first_char_box(moved)
    assert abs((x1 - x0) - 2) < 0.05 and abs((y1 - y0) - 1) < 0.05  # y up in PDF space
    assert invoke(prova, "deck", "prova", "--backs-offset", "due").exit_code == 2


def test_print_shop_pages(prova: Path, tmp_path: Path) -> None:
    out = tmp_path / "shop.pdf"
    assert (
        invoke(
            prova, "deck", "prova", "--layout", "cards", "--interleave", "--out", str(out)
        ).exit_code
        == 0
    )
    reader = PdfReader(out)
    assert len(reader.pages) == 22
    page = reader.pages[0]
    w, h = 63.5 + 6, 88.9 + 6
    assert (
        round(float(page.mediabox.width) / PT, 2),
        round(float(page.mediabox.height) / PT, 2),
    ) == (w, h)
    trim = [round(float(v) / PT, 2) for v in page.trimbox]
    assert trim == [3.0, 3.0, 66.5, 91.9]
    assert [round(float(v) / PT, 2) for v in page.bleedbox] == [0, 0, w, h]
    texts = [p.extract_text().strip() for p in reader.pages[:4]]
    assert texts == ["B1", "F1", "B2", "F2"]  # DriveThruCards: back, front, back, front


def test_same_database_same_bytes(prova: Path, own_cache: None, tmp_path: Path) -> None:
    first, second = tmp_path / "a.pdf", tmp_path / "b.pdf"
    invoke(prova, "deck", "prova", "--out", str(first))
    shutil.rmtree(prova / "build/cache")  # render the faces again, from nothing
    invoke(prova, "deck", "prova", "--out", str(second))
    assert first.read_bytes() == second.read_bytes()


@pytest.mark.parametrize(("preset", "size"), [("tgc", (825, 1125)), ("mpc", (822, 1122))])
def test_image_presets(prova: Path, tmp_path: Path, preset: str, size: tuple[int, int]) -> None:
    out = tmp_path / preset
    run = invoke(prova, "images", "prova", "--preset", preset, "--out", str(out))
    assert run.exit_code == 0, run.output
    pngs = sorted(out.glob("*.png"))
    assert len(pngs) == 10 + 10  # ten distinct fronts and ten distinct backs
    for png in pngs:
        assert Image.open(png).size == size
    if preset == "mpc":
        assert "non confermat" in run.stdout


def test_images_at_a_chosen_dpi_with_and_without_bleed(
    prova: Path, own_cache: None, tmp_path: Path
) -> None:
    invoke(prova, "images", "prova", "--dpi", "150", "--out", str(tmp_path / "a"))
    invoke(prova, "images", "prova", "--no-bleed", "--out", str(tmp_path / "b"))
    with_bleed = Image.open(tmp_path / "a/001-carta-1-fronte.png")
    assert with_bleed.size == (round(69.5 / 25.4 * 150), round(94.9 / 25.4 * 150))
    assert Image.open(tmp_path / "b/001-carta-1-fronte.png").size == (750, 1050)
    again = tmp_path / "c"
    shutil.rmtree(prova / "build/cache")
    invoke(prova, "images", "prova", "--no-bleed", "--out", str(again))
    assert (again / "001-carta-1-fronte.png").read_bytes() == (
        tmp_path / "b/001-carta-1-fronte.png"
    ).read_bytes()


def test_tabletop_simulator_sheet(prova: Path, tmp_path: Path) -> None:
    out = tmp_path / "tts"
    run = invoke(prova, "images", "prova", "--preset", "tts", "--out", str(out))
    assert run.exit_code == 0
    assert "1 sheet of 10 columns" in run.output  # was "1 fogli", then Italian
    assert not (out / "tts-2.png").exists()
    sheet = Image.open(out / "tts-1.png")
    assert sheet.width <= 4096 and sheet.height <= 4096
    card_w = sheet.width // 10
    assert card_w == 409
    assert sheet.height == 2 * round(409 * 88.9 / 63.5) or sheet.height == 2 * (409 * 889 // 635)


def test_text_that_does_not_fit_is_an_error(prova: Path, cli) -> None:
    (prova / "templates/cards/prova/front.html.j2").write_text(
        '<div data-fit="name" style="height: 10mm; width: 40mm; overflow: hidden; '
        'font-size: 10pt">{{ card.name }}</div>',
        encoding="utf-8",
    )
    edit(
        prova / "games/prova/cards.yaml",
        "name: Carta 3,",
        "name: Carta con un nome lunghissimo che non ci sta,",
    )
    run = cli(prova, "validate", "prova")
    assert run.exit_code == 1
    line = next(x for x in run.stdout.splitlines() if "does not fit" in x)
    assert line.startswith("games/prova/cards.yaml:4:")
    assert "prova/carta-3: text 'name' does not fit its box on the front" in line


def test_card_text_prints_literally(prova: Path, tmp_path: Path) -> None:
    edit(prova / "games/prova/cards.yaml", "name: Carta 2,", 'name: "<b>Spada & scudo</b>",')
    (prova / "templates/cards/prova/front.html.j2").write_text(
        '<div class="big">{{ card.name }}</div>', encoding="utf-8"
    )
    assert invoke(prova, "db", "build").exit_code == 0
    out = tmp_path / "lit.pdf"
    assert invoke(prova, "deck", "prova", "--out", str(out)).exit_code == 0
    text = pdfium.PdfDocument(out)[2].get_textpage().get_text_range()
    assert "<b>Spada & scudo</b>" in " ".join(text.split())
