"""`cartiera rulebook`: the PDF a player prints, opened and read back with pypdf."""

from __future__ import annotations

import functools
import re
import sqlite3
from pathlib import Path

import pikepdf
import pypdfium2 as pdfium
import pytest
from conftest import GAMES, edit, invoke, pdf_pages
from pypdf import PdfReader
from pypdf.generic import DictionaryObject

from pipeline.common.project import CACHE_ENV

MM = 72 / 25.4


@pytest.fixture(scope="module")
def rulebooks(shared_project: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    out = tmp_path_factory.mktemp("rulebooks")
    paths = {}
    for slug in GAMES:
        path = out / f"{slug}.pdf"
        run = invoke(shared_project, "rulebook", slug, "--out", str(path))
        assert run.exit_code == 0, run.output
        paths[slug] = path
    return paths


@functools.cache
def _page_texts(path: Path) -> tuple[str, ...]:
    """Each page's text, read once per file (the module's rulebooks are only read:
    several tests look at the same pages)."""
    return pdf_pages(path)


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _contents(db: Path, slug: str) -> tuple[list[tuple[str, str, int]], list[str]]:
    with sqlite3.connect(db) as conn:
        sections = conn.execute(
            "select s.number, s.title, s.level from rulesection s join game g "
            "on g.id = s.game_id where g.slug = ? order by s.position",
            (slug,),
        ).fetchall()
        terms = [
            row[0]
            for row in conn.execute(
                "select t.term from glossaryterm t join game g on g.id = t.game_id "
                "where g.slug = ?",
                (slug,),
            )
        ]
    return sections, terms


@pytest.mark.parametrize("slug", GAMES)
def test_every_section_and_term_is_in_the_pdf(rulebooks, shared_project: Path, slug: str) -> None:
    text = _flat(" ".join(_page_texts(rulebooks[slug])))
    sections, terms = _contents(shared_project / "cards.db", slug)
    assert sections and terms
    for number, title, level in sections:
        heading = f"{number}. {title}" if level == 2 else f"{number} {title}"
        assert _flat(heading) in text, heading
    for term in terms:
        assert term in text, term
    for back in (
        "Glossario",
        "Chiarimenti",
        "Componenti e composizione",
        "Elenco delle carte",
        "Stampare il mazzo a casa",
    ):
        assert back in text


@pytest.mark.parametrize("slug", GAMES)
def test_contents_page_numbers_are_the_headings_pages(
    rulebooks, shared_project: Path, slug: str
) -> None:
    pages = [_flat(page) for page in _page_texts(rulebooks[slug])]
    toc = pages[1]
    assert toc.startswith("INDICE Indice") or "Indice" in toc[:40]
    sections, _ = _contents(shared_project / "cards.db", slug)
    titles = [f"{n}. {t}" for n, t, level in sections if level == 2]
    titles += [
        "Glossario",
        "Chiarimenti",
        "Componenti e composizione",
        "Elenco delle carte",
        "Stampare il mazzo a casa",
    ]
    for title in titles:
        match = re.search(re.escape(_flat(title)) + r"[ .]*?(\d+)(?= |$)", toc)
        assert match, title
        printed = int(match.group(1))
        # the heading is on the printed page, and on no earlier page after the contents
        assert _flat(title) in pages[printed - 1], (title, printed)
        assert not any(_flat(title) in p for p in pages[2 : printed - 1]), title


@pytest.mark.parametrize("slug", GAMES)
def test_bookmarks_and_accessibility(rulebooks, shared_project: Path, slug: str) -> None:
    # pikepdf (qpdf) reads the outline in 50 ms where pypdf took 0.6 s a rulebook
    with pikepdf.open(rulebooks[slug]) as pdf:
        with pdf.open_outline() as outline:
            titles = [item.title for item in outline.root]
            nested = any(item.children for item in outline.root)
        root = pdf.Root
        assert str(root.Lang) == "it"
        assert bool(root.MarkInfo.Marked)
        assert "/StructTreeRoot" in root
        title = str(pdf.docinfo.Title)
    sections, _ = _contents(shared_project / "cards.db", slug)
    first = next(f"{n}. {t}" for n, t, level in sections if level == 2)
    assert _flat(first) in [_flat(t) for t in titles]
    assert nested, "clauses nest under sections"
    assert title.startswith(title.split(" —")[0])
    assert "Regolamento" in title


def _fonts(obj, seen: set[int]) -> list[DictionaryObject]:
    found = []
    resources = obj.get("/Resources")
    if resources is None:
        return found
    resources = resources.get_object()
    for font in (resources.get("/Font") or {}).values():
        font = font.get_object()
        if id(font) not in seen:
            seen.add(id(font))
            found.append(font)
    for xobj in (resources.get("/XObject") or {}).values():
        found += _fonts(xobj.get_object(), seen)
    return found


def test_fonts_are_embedded(rulebooks) -> None:
    reader = PdfReader(rulebooks["bless"])
    seen: set[int] = set()
    fonts = [f for page in reader.pages for f in _fonts(page, seen)]
    assert fonts
    for font in fonts:
        descriptor = font.get("/FontDescriptor")
        if descriptor is None and "/DescendantFonts" in font:
            descriptor = font["/DescendantFonts"][0].get_object()["/FontDescriptor"]
        descriptor = descriptor.get_object()
        assert any(k in descriptor for k in ("/FontFile", "/FontFile2", "/FontFile3")), font


def test_paper_sizes(rulebooks, shared_project: Path, tmp_path: Path) -> None:
    a5 = PdfReader(rulebooks["mazzo"]).pages[0].mediabox
    assert (round(a5.width / MM), round(a5.height / MM)) == (148, 210)
    out = tmp_path / "a4.pdf"
    assert (
        invoke(shared_project, "rulebook", "mazzo", "--paper", "a4", "--out", str(out)).exit_code
        == 0
    )
    a4 = PdfReader(out).pages[0].mediabox
    assert (round(a4.width / MM), round(a4.height / MM)) == (210, 297)


def test_same_database_same_bytes(
    rulebooks, shared_project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Rendered again from nothing (an empty render cache), not read from the cache."""
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "empty-cache"))
    again = tmp_path / "again.pdf"
    assert invoke(shared_project, "rulebook", "mazzo", "--out", str(again)).exit_code == 0
    assert any((tmp_path / "empty-cache").rglob("*.pdf"))
    assert again.read_bytes() == rulebooks["mazzo"].read_bytes()


def test_card_text_is_printed_literally(built: Path, tmp_path: Path) -> None:
    cards = built / "games/mazzo/cards.yaml"
    text = cards.read_text(encoding="utf-8")
    match = re.search(r"^(\s+descrizione: )(.+)$", text, re.M)
    assert match
    edit(cards, match.group(0), match.group(1) + '"<b>Spada & scudo</b> <script>x</script>"')
    assert invoke(built, "db", "build").exit_code == 0
    out = tmp_path / "mazzo.pdf"
    assert invoke(built, "rulebook", "mazzo", "--out", str(out)).exit_code == 0
    text = _flat(" ".join(pdf_pages(out)))
    assert "<b>Spada & scudo</b> <script>x</script>" in text


def test_unknown_game_and_missing_database(project: Path) -> None:
    assert invoke(project, "rulebook", "monopoli").exit_code == 2
    run = invoke(project, "rulebook", "mazzo")
    assert run.exit_code == 1
    assert "cards.db does not exist" in run.stderr


def test_the_card_list_keeps_its_number_columns_apart(rulebooks: dict[str, Path]) -> None:
    """On A5, Copie's right-aligned numbers ran into Difficoltà's values ("6 1" read "61"):
    the header cells show the gap every row has."""
    doc = pdfium.PdfDocument(rulebooks["samurai-sword"])
    for page in doc:
        text = page.get_textpage()
        if "Elenco delle carte" in text.get_text_range() and "Difficoltà" in text.get_text_range():
            break
    else:
        pytest.fail("no card list with a Difficoltà column")

    def span(word: str) -> tuple[float, float]:
        index, count = text.search(word).get_next()
        return text.get_charbox(index)[0], text.get_charbox(index + count - 1)[2]

    gap_mm = (span("Difficoltà")[0] - span("Copie")[1]) * 25.4 / 72
    assert gap_mm >= 2.5, gap_mm


def test_the_booklet_folds_into_the_a5_rulebook(rulebooks, shared_project: Path, tmp_path: Path):
    """`--booklet` (and `cartiera build`): the A5 pages two to a landscape A4 side, in the
    order that reads on after printing both sides and folding: the cover on the right of
    the first side, page 2 on the left of its back, the last page beside page 2."""
    out = tmp_path / "libretto.pdf"
    run = invoke(shared_project, "rulebook", "mazzo", "--booklet", "--out", str(out))
    assert run.exit_code == 0, run.output
    pages = pdf_pages(rulebooks["mazzo"])
    booklet = pdfium.PdfDocument(out)
    assert len(booklet) == 2 * -(-len(pages) // 4)
    width, height = booklet[0].get_size()
    assert (round(width / MM), round(height / MM)) == (297, 210)

    def half(side: int, right: bool) -> str:
        text = (
            booklet[side]
            .get_textpage()
            .get_text_bounded(left=width / 2 if right else 0, right=width if right else width / 2)
        )
        return " ".join(text.replace("\ufffe", "-\n").split())

    def words(page: str) -> str:
        return " ".join(page.split())[:60]

    total = 2 * len(booklet)
    last = pages[total - 2] if total - 2 < len(pages) else ""
    assert words(pages[0]) in half(0, right=True)
    assert half(0, right=False) == (words(pages[total - 1]) if total - 1 < len(pages) else "")
    assert words(pages[1]) in half(1, right=False) and words(last) in half(1, right=True)
    run = invoke(shared_project, "rulebook", "mazzo", "--booklet", "--paper", "a4")
    assert run.exit_code == 2 and "A5 pages" in run.output


@pytest.mark.parametrize("slug", GAMES)
def test_the_print_guide_speaks_to_who_holds_the_pdf(rulebooks, slug: str) -> None:
    """The rulebook's last chapter told its readers to check duplex on a test sheet that
    does not exist and, if the backs were off, to make the PDF again with an offset: a
    player holds the rulebook and the deck's PDF, not the CLI. It now says what the deck's
    first page says: the targets, the printer's settings, and the cuts in their order."""
    text = _flat(" ".join(_page_texts(rulebooks[slug])))
    guide = text[text.rindex("Stampare il mazzo a casa") :]
    assert "«Scarica»" in guide and "mirini" in guide and "impostazioni di stampa" in guide
    assert "ricrea il PDF" not in guide and "foglio di prova" not in guide
    assert "striscia di scarto in alto" in guide
