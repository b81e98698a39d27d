"""Issue 14's defects, each proven on the real games' outputs (PDFs read with pikepdf and
pypdfium2, images measured with Pillow)."""

from __future__ import annotations

import json
import math
import os
import shutil
import sqlite3
from decimal import Decimal
from pathlib import Path

import pikepdf
import pypdfium2 as pdfium
import pytest
from conftest import edit, invoke, pdf_text
from PIL import Image

from pipeline.common.project import open_project
from pipeline.publish.render.deck import load_faces
from pipeline.publish.render.layout import SheetLayout
from pipeline.publish.render.paper import CARD_SIZES, PAPERS, PRINTABLE_MM, PT_PER_MM

PT = 72 / 25.4


def _type0_fonts(path: Path) -> list[tuple[str, tuple[int, int], bytes]]:
    """(BaseFont, program object, program bytes) of every composite font in the file."""
    found = []
    with pikepdf.open(path) as pdf:
        for obj in pdf.objects:
            if isinstance(obj, pikepdf.Dictionary) and obj.get("/Subtype") == "/Type0":
                descriptor = obj.DescendantFonts[0].FontDescriptor
                program = descriptor.get("/FontFile3") or descriptor.get("/FontFile2")
                found.append((str(obj.BaseFont), program.objgen, program.read_bytes()))
    return found


def test_fonts_one_subset_per_name_and_incremental_equals_clean(
    built: Path, own_cache: None, tmp_path: Path
) -> None:
    """Defect 3: one program per font name, and the same bytes however the cache was made."""
    first, incremental, clean = (tmp_path / f"{n}.pdf" for n in ("a", "b", "c"))
    assert invoke(built, "deck", "blitz", "--out", str(first)).exit_code == 0
    edit(built / "games/blitz/cards.yaml", "name: Fuoco", "name: Fuoco vivo")
    assert invoke(built, "db", "build").exit_code == 0
    assert invoke(built, "deck", "blitz", "--out", str(incremental)).exit_code == 0
    shutil.rmtree(built / "build/cache")
    assert invoke(built, "deck", "blitz", "--out", str(clean)).exit_code == 0
    assert incremental.read_bytes() == clean.read_bytes()
    assert incremental.read_bytes() != first.read_bytes()
    fonts = _type0_fonts(incremental)
    names = [name for name, _, _ in fonts]
    assert len(names) == len(set(names)), names  # one font object per name
    programs = {objgen: data for _, objgen, data in fonts}
    assert len(set(programs.values())) == len(programs)  # each program embedded once
    tags = {data: name.split("+")[0] for name, _, data in fonts}
    assert len(set(tags.values())) == len(tags)  # and named after its own bytes
    assert any("Inter" in name for name in names)


@pytest.fixture(scope="module")
def samurai_tts(shared_project: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tts") / "samurai"
    run = invoke(shared_project, "images", "samurai-sword", "--preset", "tts", "--out", str(out))
    assert run.exit_code == 0, run.output
    return out


def test_tts_gives_every_card_its_own_back(samurai_tts: Path, shared_project: Path) -> None:
    """Defect 1: the backs sheet holds each card's back in its slot, and the manifest says
    each sheet's grid and card count."""
    manifest = json.loads((samurai_tts / "tts.json").read_text(encoding="utf-8"))
    sheets = manifest["sheets"]
    assert [(s["columns"], s["rows"], s["cards"]) for s in sheets] == [(10, 7, 69), (10, 5, 41)]
    faces = load_faces(open_project(shared_project), "samurai-sword", 3.0)
    w, h = manifest["card_px"]
    seen: dict[str, bytes] = {}  # back digest -> pixels
    kinds = set()
    for sheet in sheets:
        image = Image.open(samurai_tts / sheet["back"]).convert("RGB")
        assert image.size == (10 * w, sheet["rows"] * h)
        for slot, code in enumerate(sheet["codes"]):
            row, col = divmod(slot, 10)
            pixels = image.crop((col * w, row * h, (col + 1) * w, (row + 1) * h)).tobytes()
            digest = faces.backs[code]
            kinds.add(digest)
            assert seen.setdefault(digest, pixels) == pixels, code
    assert len(kinds) >= 2  # role cards and playing cards have different backs
    assert len({seen[d] for d in kinds}) == len(kinds)


def test_presets_follow_the_card_size(prova: Path, shared_project: Path, tmp_path: Path) -> None:
    """Defect 2: bridge cards get The Game Crafter's bridge size; MPC, with no known bridge
    size, refuses in one line. The size is the game's card size, whatever its design: the
    ten-card test deck made bridge-sized shows it without laying out a real deck at The
    Game Crafter's bleed (110 cards, about ten seconds on a fresh cache)."""
    edit(prova / "games/prova/game.yaml", "decks:", "card_size: bridge\ndecks:")
    assert invoke(prova, "db", "build").exit_code == 0
    out = tmp_path / "tgc"
    run = invoke(prova, "images", "prova", "--preset", "tgc", "--out", str(out))
    assert run.exit_code == 0, run.output
    sizes = {Image.open(p).size for p in out.glob("*.png")}
    assert sizes == {(750, 1125)}
    run = invoke(prova, "images", "prova", "--preset", "mpc")
    assert run.exit_code == 1
    assert "no card image size for bridge cards" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.output
    # defect 9: the manifest says which deck each card is from, and its status
    out = tmp_path / "samurai"
    run = invoke(shared_project, "images", "samurai-sword", "--out", str(out))
    assert run.exit_code == 0, run.output
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    decks = {c["deck"]: c["status"] for c in manifest["cards"]}
    assert decks == {"base": "official", "rising-sun": "incomplete"}


# -- sheets: marks in the printable area, a duplex check that knows the flip edge ---------


def _own_paths(page: pikepdf.Page, height: float) -> list[list[tuple[float, float]]]:
    """The subpaths a sheet page draws itself (not its faces), in mm from the top left."""
    paths: list[list[tuple[float, float]]] = []
    for operands, operator in pikepdf.parse_content_stream(page):
        op = str(operator)
        nums = [float(v) / PT for v in operands if isinstance(v, (int, float, Decimal))]
        points = [(nums[i], height - nums[i + 1]) for i in range(0, len(nums) - 1, 2)]
        if op == "m":
            paths.append(points)
        elif op in ("l", "c") and paths:
            paths[-1].extend(points)
    return paths


def _centres(paths: list[list[tuple[float, float]]]) -> set[tuple[float, float]]:
    """Centres of the targets' outer rings: subpaths of curves (4 quarter arcs)."""
    out = set()
    for path in paths:
        if len(path) == 13:  # m + 4 × c (3 points each)
            ends = [path[i] for i in (3, 6, 9, 12)]
            out.add((round(sum(x for x, _ in ends) / 4, 1), round(sum(y for _, y in ends) / 4, 1)))
    return out


@pytest.mark.parametrize("paper", ["a4", "letter", "a3", "legal"])
def test_marks_and_targets_stay_inside_the_printable_margin(
    prova: Path, tmp_path: Path, paper: str
) -> None:
    """Defect 4: nothing the sheet draws comes nearer the edge than PRINTABLE_MM, and
    every cut line still has its marks."""
    out = tmp_path / "deck.pdf"
    assert invoke(prova, "deck", "prova", "--paper", paper, "--out", str(out)).exit_code == 0
    margin = PRINTABLE_MM[paper]
    with pikepdf.open(out) as pdf:
        page = pdf.pages[2]
        w, h = (float(v) / PT for v in page.mediabox[2:])
        paths = _own_paths(page, h)
    points = [p for path in paths for p in path]
    assert points
    for x, y in points:
        assert margin - 0.01 <= x <= w - margin + 0.01, (paper, x)
        assert margin - 0.01 <= y <= h - margin + 0.01, (paper, y)
    layout = SheetLayout.best_fit(PAPERS[paper], CARD_SIZES["poker"], 3.0, 0, margin)
    xs, ys = layout.cut_lines()
    segments = [p for p in paths if len(p) == 2]
    assert len(segments) == 2 * (len(xs) + len(ys))
    for x in xs:  # each vertical cut has a mark above and below the block
        assert sum(abs(a[0] - x) < 0.01 and abs(b[0] - x) < 0.01 for a, b in segments) == 2


def test_duplex_targets_tell_the_flip_edge(prova: Path, tmp_path: Path) -> None:
    """Defect 5: the targets on the back are where the front's land for the chosen flip,
    and that place differs between long and short edge."""
    found = {}
    for duplex in ("long", "short"):
        out = tmp_path / f"{duplex}.pdf"
        assert invoke(prova, "deck", "prova", "--duplex", duplex, "--out", str(out)).exit_code == 0
        with pikepdf.open(out) as pdf:
            front = _centres(_own_paths(pdf.pages[2], 297))
            back = _centres(_own_paths(pdf.pages[3], 297))
        assert len(front) == 2
        found[duplex] = (front, back)
    front = found["long"][0]
    assert found["short"][0] == front
    mirrored_x = {(round(210 - x, 1), y) for x, y in front}
    mirrored_y = {(x, round(297 - y, 1)) for x, y in front}
    assert found["long"][1] == mirrored_x
    assert found["short"][1] == mirrored_y
    assert mirrored_x != mirrored_y  # a long-edge print flipped on the short edge shows it
    for x, y in front:  # and every target is inside the printable margin with its ring
        assert 5.0 + 2.0 <= y <= 297 - 7.0 and 7.0 <= x <= 203


def test_duplex_file_has_an_even_page_count(prova: Path, tmp_path: Path) -> None:
    """Defect 9: instructions, a blank back, then front/back pairs: printed whole in duplex,
    every front sheet is on the front of a sheet of paper."""
    out = tmp_path / "deck.pdf"
    assert invoke(prova, "deck", "prova", "--out", str(out)).exit_code == 0
    document = pdfium.PdfDocument(out)
    assert len(document) % 2 == 0
    assert document[1].get_textpage().get_text_range().strip() == ""
    assert "F1" in document[2].get_textpage().get_text_range()
    assert "B1" in document[3].get_textpage().get_text_range()


def test_deck_warns_when_the_database_is_stale(built: Path, tmp_path: Path) -> None:
    """Defect 6: an edit to cards.yaml after cards.db was built gets a one-line warning.
    Told by content, not by file times (a fresh clone's say nothing), so the times are set
    to mislead: a file touched after the build but unchanged gets no warning, an edit dated
    before the build gets one."""
    out = str(tmp_path / "deck.pdf")
    cards = built / "games/blitz/cards.yaml"
    built_at = (built / "cards.db").stat().st_mtime_ns
    hour = 3600 * 10**9
    os.utime(cards, ns=(built_at + hour, built_at + hour))
    run = invoke(built, "deck", "blitz", "--out", out)
    assert run.exit_code == 0 and "changed after" not in run.stderr
    edit(cards, "name: Fuoco", "name: Fuoco vivo")
    os.utime(cards, ns=(built_at - hour, built_at - hour))
    run = invoke(built, "deck", "blitz", "--out", out)
    assert run.exit_code == 0
    line = next(x for x in run.stderr.splitlines() if "changed after" in x)
    assert line.startswith("warning: games/blitz/cards.yaml changed after cards.db")
    assert "cartiera db build" in line


def test_no_site_url_warning_on_every_command_and_the_qr_card_says_how(
    shared_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Without site_url, validate and deck print nothing about it (validate --format
    github stays pure annotations), and the rules card prints how to set it."""
    monkeypatch.delenv("CARTIERA_SITE_URL", raising=False)
    run = invoke(shared_project, "validate", "blitz", "--format", "github", "--no-layout")
    assert "site_url" not in run.output and "example.org" not in run.output
    out = tmp_path / "blitz.pdf"
    run = invoke(shared_project, "deck", "blitz", "--out", str(out))
    assert run.exit_code == 0 and "site_url" not in run.stderr
    text = " ".join(pdf_text(out))
    assert "Qui va il QR code delle regole" in text and "example.org" not in text
    address = "https://carte.example/"
    run = invoke(
        shared_project, "deck", "blitz", "--out", str(out), env={"CARTIERA_SITE_URL": address}
    )
    text = " ".join(pdf_text(out))
    assert "Qui va il QR code" not in text and "carte.example/giochi/blitz/regole/" in text


# -- the faces: labels, tight boxes, the reconstructed mark -------------------------------

CAP_HEIGHT = 0.727  # Inter's capital height, in em


@pytest.fixture(scope="module")
def previews(shared_project: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("faces")
    paths = {}
    for slug in ("bless", "blitz", "samurai-sword", "mazzo", "bldng"):
        paths[slug] = out / f"{slug}.pdf"
        run = invoke(shared_project, "faces", slug, "--out", str(paths[slug]))
        assert run.exit_code == 0, run.output
    return paths


def _words(path: Path, word: str) -> list[list[tuple[float, float, float, float]]]:
    """Every occurrence of `word` (case as printed): its character boxes in mm, from the
    page's top left."""
    found = []
    document = pdfium.PdfDocument(path)
    for page in document:
        textpage = page.get_textpage()
        text = textpage.get_text_range()
        height = page.get_height()
        start = text.find(word)
        while start >= 0:
            boxes = []
            for k in range(len(word)):
                left, bottom, right, top = textpage.get_charbox(start + k)
                boxes.append((left / PT, (height - top) / PT, right / PT, (height - bottom) / PT))
            found.append(boxes)
            start = text.find(word, start + 1)
    return found


@pytest.mark.parametrize(
    ("slug", "word", "capital"),
    [
        ("samurai-sword", "RESISTENZA", "R"),
        ("samurai-sword", "Gioco base", "G"),  # the footer
        ("bless", "OCCHIO", "H"),
        ("bless", "KARMA", "K"),
        ("bless", "LuceOmbra", "L"),  # the footer
    ],
)
def test_labels_are_at_least_6_pt(previews, slug: str, word: str, capital: str) -> None:
    """Defect 9: labels measured by the height of a capital letter on the page."""
    occurrences = _words(previews[slug], word)
    assert occurrences, word
    for boxes in occurrences:
        _, top, _, bottom = boxes[word.index(capital)]
        size_pt = (bottom - top) * PT / CAP_HEIGHT
        assert size_pt >= 5.9, (word, round(size_pt, 2))


def test_the_two_tight_boxes_have_room(previews) -> None:
    """Defect 9: Mazzo's "10" keeps 1 mm from its slot's edge, BLITZ's SCAMBIA 1 mm from the
    medallion's ring."""
    slot_inner_right = 3 + 3 + 14.5 - 0.45  # bleed, safe, slot width, border
    tens = [b for b in _words(previews["mazzo"], "10") if b[0][0] < slot_inner_right]
    assert tens
    for boxes in tens:
        assert slot_inner_right - boxes[-1][2] >= 1.0
        assert boxes[0][0] - (3 + 3 + 0.45) >= 1.0
    ring = (3 + 3 + 13.75 + 15, 3 + 3 + 7 + 15, 15)  # centre x, y and radius (mm)
    labels = _words(previews["blitz"], "SCAMBIA")
    assert labels
    for boxes in labels:
        if boxes[0][1] > 20:  # the turned index at the bottom is far from the ring
            continue
        gap = min(
            math.hypot(x - ring[0], y - ring[1]) - ring[2]
            for box in boxes
            for x in box[0::2]
            for y in box[1::2]
        )
        assert gap >= 1.0, gap


def test_reconstructed_cards_are_marked_on_the_card(previews, shared_project: Path) -> None:
    """Defect 8: every reconstructed card's face says so; official ones do not."""
    expected = {"blitz": 4, "mazzo": 31, "bldng": 36, "bless": 0}
    for slug, count in expected.items():
        document = pdfium.PdfDocument(previews[slug])
        marked = sum("RICOSTRUITA" in page.get_textpage().get_text_range() for page in document)
        assert marked == count, slug
    game = load_faces(open_project(shared_project), "blitz", 3.0).game
    assert sum(c.status == "reconstructed" for c in game.cards) == 4


def test_sheet_labels_sit_outside_the_cut_area(prova: Path, tmp_path: Path) -> None:
    out = tmp_path / "deck.pdf"
    assert invoke(prova, "deck", "prova", "--out", str(out)).exit_code == 0
    layout = SheetLayout.best_fit(PAPERS["a4"], CARD_SIZES["poker"], 3.0, 0, 5.0)
    block = layout.block
    for page_index, label in ((2, "foglio 1/2 · fronte"), (3, "foglio 1/2 · retro")):
        page = pdfium.PdfDocument(out)[page_index]
        textpage = page.get_textpage()
        text = textpage.get_text_range()
        start = text.find(label)
        assert start >= 0, text[-80:]
        height = page.get_height()
        for k in range(len(label)):
            if not label[k].strip():
                continue
            left, bottom, right, top = (v / PT for v in textpage.get_charbox(start + k))
            y_top, y_bottom = height / PT - top, height / PT - bottom
            outside = (
                y_top >= block.bottom + 3.0
                or y_bottom <= block.y - 3.0
                or left >= block.right + 3.0
                or right <= block.x - 3.0
            )
            assert outside and y_bottom <= 297 - 5.0 and y_top >= 5.0, (label, k)


@pytest.mark.parametrize(("background", "grey"), [("#111", b"1 G"), ("#fff", b"0 G")])
def test_marks_in_the_bleed_contrast_with_the_card(
    prova: Path, tmp_path: Path, background: str, grey: bytes
) -> None:
    """On Letter there is no room for marks outside the bleed at the top: they are drawn
    in it, white over a dark card and black over a light one."""
    (prova / "templates/cards/prova/front.html.j2").write_text(
        f'<div class="bleed-fill" style="background: {background}"></div>'
        '<div class="big">F{{ card.number }}</div>',
        encoding="utf-8",
    )
    out = tmp_path / "deck.pdf"
    assert invoke(prova, "deck", "prova", "--paper", "letter", "--out", str(out)).exit_code == 0
    with pikepdf.open(out) as pdf:
        content = pdf.pages[2].Contents.read_bytes()
    layout = SheetLayout.best_fit(PAPERS["letter"], CARD_SIZES["poker"], 3.0, 0, 4.2)
    inside = [m for m in layout.marks() if m.over]
    assert inside and {m.side for m in inside} == {"top", "bottom"}
    assert content.count(grey + b" ") >= len(inside)
    if grey == b"0 G":
        assert b"1 G" not in content  # no white mark over a white card


def test_only_cards_missing_data_are_stamped_and_the_stamp_says_what(
    previews: dict[str, Path], shared_project: Path
) -> None:
    """Base-game cards whose data are complete (Concentrazione: only its Italian name is
    unverified) were stamped "dati incompleti"; the stamp now names what is missing."""
    with sqlite3.connect(shared_project / "cards.db") as db:
        incomplete = {
            name
            for (name,) in db.execute(
                "SELECT c.name FROM card c JOIN game g ON g.id = c.game_id "
                "WHERE g.slug = 'samurai-sword' AND c.status = 'incomplete'"
            )
        }
    stamped, texts = set(), []
    for page in pdfium.PdfDocument(previews["samurai-sword"]):
        text = page.get_textpage().get_text_range()
        texts.append(text)
        for line in text.splitlines():
            if line.startswith("MANCA "):
                stamped.add(line)
                assert set(line[6:].split(", ")) <= {"DIFFICOLTÀ", "FERITE", "EFFETTO",
                                                     "RESISTENZA", "ABILITÀ"}, line  # fmt: skip
    assert stamped and not any("DATI INCOMPLETI" in t.upper() for t in texts)
    concentrazione = next(t for t in texts if "Concentrazione" in t)
    assert "MANCA" not in concentrazione
    assert sum("MANCA " in t for t in texts) <= len(incomplete)


def test_the_instructions_tell_a_home_printer_what_to_do_with_the_printer(
    prova: Path, tmp_path: Path
) -> None:
    """The duplex check told home printers to run `cartiera deck --backs-offset`: they hold
    a PDF, not the CLI. Printer settings first; the command only in the designers' note."""
    out = tmp_path / "prova.pdf"
    assert invoke(prova, "deck", "prova", "--out", str(out)).exit_code == 0
    text = pdf_text(out)[0]
    home, marker, designers = text.partition("Per chi prepara il PDF con Cartiera:")
    assert marker and "impostazioni" in home
    assert "cartiera" not in home.casefold() and "--" not in home
    assert "backs-offset" in designers and "--duplex" in designers  # commands never wrap


def _text_boxes(path: Path) -> tuple[str, list[tuple[str, float, float]]]:
    """Page 1's text, and each line of it with its bottom and top (pt from the page's foot)."""
    page = pdfium.PdfDocument(path)[0]
    textpage = page.get_textpage()
    text = textpage.get_text_range()
    lines, start = [], 0
    for end in [*(i for i, c in enumerate(text) if c == "\n"), len(text)]:
        boxes = [textpage.get_charbox(i) for i in range(start, end) if not text[i].isspace()]
        if boxes:
            line = text[start:end].strip()
            lines.append((line, min(b[1] for b in boxes), max(b[3] for b in boxes)))
        start = end + 1
    return text, lines


@pytest.mark.parametrize("paper", ["a4", "letter", "a3", "legal"])
def test_the_instructions_fit_their_page_whatever_the_options(
    prova: Path, tmp_path: Path, paper: str
) -> None:
    """On Letter the instructions ran onto a second page, which the deck dropped: the last
    cutting step and the foot were missing, and on A4 Samurai Sword's last step ran into
    the foot. With every option that adds a line, each paper's first page holds all of
    it, and the foot sits below the text, in the page's margin."""
    out = tmp_path / "prova.pdf"
    options = ("--gutter", "4", "--backs-offset", "1.5,-0.5", "--ink", "light")
    run = invoke(prova, "deck", "prova", "--paper", paper, *options, "--out", str(out))
    assert run.exit_code == 0, run.output
    text, lines = _text_boxes(out)
    assert "Impila le strisce" in text and "Scostamento dei retro" in text
    (foot,) = [line for line in lines if line[0].startswith("Generato da Cartiera")]
    body = [line for line in lines if line is not foot]
    assert foot[2] < min(bottom for _, bottom, _ in body), (foot, min(body, key=lambda b: b[1]))
    assert foot[2] < 14 * PT_PER_MM  # in the bottom margin


def test_instructions_that_cannot_fit_are_one_line(prova: Path, tmp_path: Path) -> None:
    template = prova / "templates/print/instructions.html.j2"
    edit(template, "</body>", "<p>" + "Una riga di troppo. " * 1500 + "</p></body>")
    run = invoke(prova, "deck", "prova", "--out", str(tmp_path / "prova.pdf"))
    assert run.exit_code == 1
    assert run.stderr.count("\n") == 1 and "Traceback" not in run.output
    assert "templates/print/instructions.html.j2" in run.stderr and "one page" in run.stderr
    assert not (tmp_path / "prova.pdf").exists()
