"""The layouts people ask for: fold-and-glue, gutters, page saving on four papers, light
ink, print-shop PDF/X-4, and the faces preview from the cache."""

from __future__ import annotations

import contextlib
import math
import re
import shutil
import subprocess
from pathlib import Path

import pikepdf
import pypdfium2 as pdfium
import pytest
from conftest import invoke

from pipeline.common.project import open_project
from pipeline.publish.render.deck import face_cache, load_faces
from pipeline.publish.render.layout import SheetLayout, fold_layouts
from pipeline.publish.render.paper import CARD_SIZES, PAPERS, PRINTABLE_MM

PT = 72 / 25.4
GAMES = ("bless", "blitz", "samurai-sword", "mazzo", "bldng")
TOTALS = {"bless": 62, "blitz": 54, "samurai-sword": 110, "mazzo": 33, "bldng": 126}


def _text_in(page: pdfium.PdfPage, x: float, y: float, w: float, h: float) -> str:
    height = page.get_height()
    return page.get_textpage().get_text_bounded(
        left=x * PT, bottom=height - (y + h) * PT, right=(x + w) * PT, top=height - y * PT
    )


@pytest.mark.parametrize(
    ("paper", "size", "expected"),
    [
        ("a4", "poker", (3, 3, False)),
        ("a4", "bridge", (5, 2, True)),  # page saving: 10 instead of 9
        ("letter", "poker", (3, 3, False)),
        ("a3", "poker", (6, 3, True)),
        ("legal", "poker", (5, 2, True)),
        ("a4", "tarot", (2, 2, False)),
        ("a4", "mini", (4, 4, False)),
    ],
)
def test_best_fit_orientation(paper: str, size: str, expected: tuple[int, int, bool]) -> None:
    layout = SheetLayout.best_fit(PAPERS[paper], CARD_SIZES[size], 3.0, 0, PRINTABLE_MM[paper])
    assert (layout.cols, layout.rows, layout.landscape) == expected
    block = layout.block  # the cards stay inside the printable area
    assert block.x >= PRINTABLE_MM[paper] - 1e-6 and block.y >= PRINTABLE_MM[paper] - 1e-6


def test_gutter_gives_every_card_its_bleed() -> None:
    """With a 6 mm gutter a poker card shows its 3 mm bleed on every side; A4 then holds 8
    in landscape (6 in portrait)."""
    layout = SheetLayout.best_fit(PAPERS["a4"], CARD_SIZES["poker"], 3.0, 6.0, 5.0)
    assert (layout.cols, layout.rows, layout.landscape) == (4, 2, True)
    for index in range(layout.per_sheet):
        slot, shown = layout.slot(index), layout.visible(index)
        assert (round(shown.w - slot.w, 6), round(shown.h - slot.h, 6)) == (6.0, 6.0)
    xs, _ = layout.cut_lines()
    assert len(xs) == 2 * layout.cols  # two cuts per gutter


def test_fold_puts_each_back_behind_its_front(prova: Path, tmp_path: Path) -> None:
    out = tmp_path / "fold.pdf"
    run = invoke(prova, "deck", "prova", "--layout", "fold", "--out", str(out))
    assert run.exit_code == 0, run.output
    front, _, axis = fold_layouts(PAPERS["a4"], CARD_SIZES["poker"], 3.0, 0, 5.0)
    assert axis == "x" and front.per_sheet == 4 and front.landscape
    document = pdfium.PdfDocument(out)
    numbers = [*range(1, 11), 10]
    assert len(document) == 1 + math.ceil(len(numbers) / 4)  # no duplex: no blank page
    width = front.paper.width
    for index, number in enumerate(numbers):
        sheet, slot = divmod(index, 4)
        page = document[1 + sheet]
        r = front.slot(slot)
        assert f"F{number}" in _text_in(page, r.x, r.y, r.w, r.h)
        # folded along the middle, the back sits at the mirror image of the front
        assert _text_in(page, width - r.right, r.y, r.w, r.h).strip() == f"B{number}"
    with pikepdf.open(out) as pdf:
        content = pdf.pages[1].Contents.read_bytes()
    fold_x = f"{width / 2 * PT:.3f}".rstrip("0").rstrip(".")
    assert b"[2 2] 0 d" in content and fold_x.encode() in content  # the dashed fold line


# A deck and the card size it is printed at, each of the three ways a size can go: BLITZ's
# poker faces enlarged to tarot and shrunk to mini (its labels fall below 6 pt, which is
# said); Samurai Sword's bridge faces at poker size, the same height, a deck drawn at
# another size than poker. Each case lays out the whole deck again at that size, the
# costly part, and scaling knows nothing of the game, so the poker cases take the deck
# whose faces lay out fastest: BLITZ's 54 cards have few different faces (Bless at tarot
# took four times as long). Light ink on every game's templates is tests/test_contrast.py's.
SIZES = [("blitz", "tarot"), ("blitz", "mini"), ("samurai-sword", "poker")]


@pytest.mark.parametrize(("slug", "size"), SIZES)
def test_every_layout_option_on_the_real_decks(
    shared_project: Path, tmp_path: Path, slug: str, size: str
):
    """Fold, gutter, another paper, light ink and another card size together, on the real
    decks: every face is drawn at the chosen size (trim + bleed), as many per sheet as
    fit, and text the scaling takes below 6 pt is said in one line."""
    out = tmp_path / f"{slug}.pdf"
    run = invoke(
        shared_project,
        "deck",
        slug,
        *("--layout", "fold", "--gutter", "4", "--paper", "a3"),
        *("--ink", "light", "--size", size, "--out", str(out)),
    )
    assert run.exit_code == 0, run.output
    card = CARD_SIZES[size]
    front, _, _ = fold_layouts(PAPERS["a3"], card, 3.0, 4.0, 5.0)
    sheets = math.ceil(TOTALS[slug] / front.per_sheet)
    match = re.search(r"\((\d+) sheets of (\d+) cards", run.stdout)
    assert match and (int(match[1]), int(match[2])) == (sheets, front.per_sheet)
    assert len(re.findall(r"[\d.]+%", run.stdout)) == sheets  # ink coverage per sheet
    with pikepdf.open(out) as pdf:
        assert len(pdf.pages) == 1 + sheets
        for name, xobject in pdf.pages[1].Resources.XObject.items():
            if name.startswith("/F"):
                x0, y0, x1, y1 = (float(v) / PT for v in xobject.BBox)
                assert (round(x1 - x0, 2), round(y1 - y0, 2)) == (
                    round(card.width + 6, 2),
                    round(card.height + 6, 2),
                )
    first = pdfium.PdfDocument(out)[0].get_textpage().get_text_range()
    assert f"{front.per_sheet} carte per foglio" in first
    drawn = CARD_SIZES["bridge" if slug == "samurai-sword" else "poker"]
    scale = min(card.width / drawn.width, card.height / drawn.height)
    assert ("below 6 pt" in run.stderr) == (scale < 0.98)  # labels are 6 pt as drawn
    assert (scale < 0.98) == (size == "mini")


def test_light_ink_saves_ink_with_the_same_template(shared_project: Path, tmp_path: Path):
    runs = {}
    for ink in ("full", "light"):
        out = tmp_path / f"{ink}.pdf"
        run = invoke(shared_project, "deck", "blitz", "--ink", ink, "--out", str(out))
        assert run.exit_code == 0, run.output
        runs[ink] = [float(v) for v in re.findall(r"([\d.]+)%", run.stdout.split("ink")[-1])]
    assert len(runs["full"]) == len(runs["light"]) == 6
    for full, light in zip(runs["full"], runs["light"], strict=True):
        assert light < 0.75 * full, (full, light)
    project = open_project(shared_project)
    full = load_faces(project, "blitz", 3.0)
    light = load_faces(project, "blitz", 3.0, ink="light")
    assert [full.faces[d].html for d in full.faces] == [light.faces[d].html for d in light.faces]
    assert set(full.faces).isdisjoint(light.faces)  # cached apart


def test_print_shop_pdf_is_pdfx4_with_an_output_intent(shared_project: Path, tmp_path: Path):
    out = tmp_path / "shop.pdf"
    assert (
        invoke(shared_project, "deck", "blitz", "--layout", "cards", "--out", str(out)).exit_code
        == 0
    )
    with pikepdf.open(out) as pdf:
        assert pdf.pdf_version >= "1.6"
        assert str(pdf.docinfo.GTS_PDFXVersion) == "PDF/X-4"
        assert "PDF/X-4" in str(pdf.open_metadata())
        (intent,) = list(pdf.Root.OutputIntents)
        assert intent.S == "/GTS_PDFX"
        profile = intent.DestOutputProfile.read_bytes()
        assert profile[36:40] == b"acsp" and int(intent.DestOutputProfile.N) == 3
        for page in pdf.pages:
            media, bleed, trim = (
                [float(v) for v in page.obj[key]] for key in ("/MediaBox", "/BleedBox", "/TrimBox")
            )
            assert media[0] <= bleed[0] < trim[0] and trim[2] < bleed[2] <= media[2]
        marked = sum(
            "RICOSTRUITA" in p.get_textpage().get_text_range() for p in pdfium.PdfDocument(out)
        )
        assert marked == 36  # the four reconstructed collections, 9 copies each (defect 8)


GS = shutil.which("gs")


def preflight(path: Path) -> list[str]:
    """The PDF/X-4 checks we can run here (no veraPDF: it does not check PDF/X, and is not
    packaged): the structure pikepdf reads, then Ghostscript reading every page."""
    found = []
    with pikepdf.open(path) as pdf:
        info, xmp = pdf.docinfo, pdf.open_metadata()
        if str(info.get("/GTS_PDFXVersion", "")) != "PDF/X-4":
            found.append("Info GTS_PDFXVersion is not PDF/X-4")
        if xmp.get("pdfxid:GTS_PDFXVersion") != "PDF/X-4":
            found.append("XMP pdfxid:GTS_PDFXVersion is not PDF/X-4")
        trapped = info.get("/Trapped")
        if not isinstance(trapped, pikepdf.Name) or str(trapped) not in ("/True", "/False"):
            found.append(f"Info /Trapped is {trapped!r}, not the name /True or /False")
        elif str(trapped)[1:] != xmp.get("pdf:Trapped"):
            found.append(f"Info /Trapped {trapped} disagrees with XMP {xmp.get('pdf:Trapped')}")
        if str(info.get("/Title", "")) != xmp.get("dc:title"):
            found.append("Info /Title and XMP dc:title differ")
        intents = list(pdf.Root.get("/OutputIntents", []))
        if len(intents) != 1 or intents[0].get("/S") != "/GTS_PDFX":
            found.append("not one GTS_PDFX output intent")
        else:
            intent = intents[0]
            profile = intent.DestOutputProfile.read_bytes()
            space = {b"RGB ": 3, b"CMYK": 4, b"GRAY": 1}.get(profile[16:20])
            if profile[36:40] != b"acsp" or space != int(intent.DestOutputProfile.N):
                found.append("the output profile is not an ICC profile of its /N components")
            if not str(intent.get("/OutputConditionIdentifier", "")):
                found.append("the output intent has no OutputConditionIdentifier")
        for number, page in enumerate(pdf.pages, 1):
            media, bleed, trim = (
                [float(v) for v in page.obj[key]] for key in ("/MediaBox", "/BleedBox", "/TrimBox")
            )
            inside = all(
                outer[0] <= inner[0] and outer[1] <= inner[1]
                and inner[2] <= outer[2] and inner[3] <= outer[3]
                for inner, outer in ((trim, bleed), (bleed, media))
            )  # fmt: skip
            if not inside:
                found.append(f"page {number}: TrimBox, BleedBox, MediaBox not nested")
    run = subprocess.run(
        [GS or "gs", "-q", "-dNOPAUSE", "-dBATCH", "-dSAFER", "-sDEVICE=nullpage", str(path)],
        capture_output=True,
        text=True,
    )
    if run.returncode != 0 or run.stdout.strip() or run.stderr.strip():
        found.append(f"Ghostscript: {(run.stderr or run.stdout).strip()[:200]}")
    return found


@pytest.mark.skipif(GS is None, reason="Ghostscript is not installed: apt-get install ghostscript")
def test_print_shop_pdf_passes_the_preflight(shared_project: Path, tmp_path: Path) -> None:
    out = tmp_path / "shop.pdf"
    run = invoke(shared_project, "deck", "samurai-sword", "--layout", "cards", "--out", str(out))
    assert run.exit_code == 0, run.output
    assert preflight(out) == []


def test_faces_preview_uses_the_cache(built: Path, own_cache: None, tmp_path: Path) -> None:
    """Defect 9: a second `cartiera faces` renders nothing and gives the same bytes (on
    BLITZ, the deck with the fewest faces: the cache is empty at the start)."""
    first, second = tmp_path / "a.pdf", tmp_path / "b.pdf"
    assert invoke(built, "faces", "blitz", "--out", str(first)).exit_code == 0
    cache = face_cache(open_project(built))
    stamps = {p.name: p.stat().st_mtime_ns for p in cache.glob("*.pdf")}
    assert stamps
    assert invoke(built, "faces", "blitz", "--guides", "--out", str(second)).exit_code == 0
    assert {p.name: p.stat().st_mtime_ns for p in cache.glob("*.pdf")} == stamps
    assert len(pikepdf.open(first).pages) == len(pikepdf.open(second).pages)


def test_text_fit_is_checked_at_the_chosen_size(prova: Path, tmp_path: Path) -> None:
    (prova / "templates/cards/prova/front.html.j2").write_text(
        '<div data-fit="name" style="height: 4mm; width: 20mm; overflow: hidden; '
        'font-size: 10pt">{{ card.name }} con un nome lungo</div>',
        encoding="utf-8",
    )
    run = invoke(prova, "deck", "prova", "--size", "mini", "--out", str(tmp_path / "x.pdf"))
    assert run.exit_code == 1
    assert "does not fit its box on the front at mini size" in run.stderr
    assert len(run.stderr.strip().splitlines()) <= 2 and "Traceback" not in run.output


@pytest.mark.parametrize("duplex", ["long", "short"])
def test_backs_land_behind_fronts_on_a_landscape_sheet(
    prova: Path, tmp_path: Path, duplex: str
) -> None:
    """Bridge cards go landscape on A4; its long edge is the top one, so a long-edge flip
    reverses the rows (backs turned), a short-edge flip the columns."""
    out = tmp_path / "land.pdf"
    run = invoke(prova, "deck", "prova", "--size", "bridge", "--duplex", duplex, "--out", str(out))
    assert run.exit_code == 0, run.output
    layout = SheetLayout.best_fit(PAPERS["a4"], CARD_SIZES["bridge"], 3.0, 0, 5.0)
    assert layout.landscape and layout.per_sheet == 10
    document = pdfium.PdfDocument(out)
    w, h = layout.paper.width, layout.paper.height
    for index, number in enumerate([*range(1, 11), 10]):
        sheet, slot = divmod(index, 10)
        front, back = document[2 + 2 * sheet], document[3 + 2 * sheet]
        r = layout.slot(slot)
        assert f"F{number}" in _text_in(front, r.x, r.y, r.w, r.h)
        behind = {"long": (r.x, h - r.bottom, r.w, r.h), "short": (w - r.right, r.y, r.w, r.h)}
        assert _text_in(back, *behind[duplex]).strip() == f"B{number}", (duplex, number)


@pytest.mark.parametrize("size", sorted(CARD_SIZES))
def test_the_fold_sheet_label_stays_off_every_card(size: str) -> None:
    """The label ("foglio 1/22 · fronti e retro da piegare", about 40 × 2 mm at 6 pt) sat
    on the fifth Samurai Sword back: it goes beside the fold line, off both halves' cards.
    """
    for paper in ("a4", "letter"):
        try:
            front, back, _ = fold_layouts(
                PAPERS[paper], CARD_SIZES[size], 3.0, 0.0, PRINTABLE_MM[paper]
            )
        except ValueError:
            continue
        x, y, rotation = front.label_spot()
        half_w, half_h = (20.0, 1.2) if rotation == 0 else (1.2, 20.0)
        for layout in (front, back):
            for index in range(layout.per_sheet):
                card = layout.slot(index)
                apart = (  # off the trim: the bleed around it is cut away
                    x + half_w <= card.x
                    or x - half_w >= card.right
                    or y + half_h <= card.y
                    or y - half_h >= card.bottom
                )
                assert apart, (paper, size, (x, y, rotation), index)


@pytest.mark.parametrize("size", sorted(CARD_SIZES))
def test_crop_marks_never_reach_into_a_card(size: str) -> None:
    """Marks drawn in a narrow bleed stopped 0.5 mm inside the trim (Samurai Sword):
    every mark ends at least 0.4 mm outside every card."""
    for paper in ("a4", "letter", "a3"):
        layouts = [SheetLayout.best_fit(PAPERS[paper], CARD_SIZES[size], 3.0, 0.0, 5.0)]
        with contextlib.suppress(ValueError):  # the card does not fit half this paper
            layouts += fold_layouts(PAPERS[paper], CARD_SIZES[size], 3.0, 0.0, 5.0)[:2]
        for layout in layouts:
            cards = [layout.slot(i) for i in range(layout.per_sheet)]
            for mark in layout.marks():
                for x, y in ((mark.x1, mark.y1), (mark.x2, mark.y2)):
                    inside = [
                        c
                        for c in cards
                        if c.x - 0.4 < x < c.right + 0.4 and c.y - 0.4 < y < c.bottom + 0.4
                    ]
                    assert not inside, (paper, size, mark)
