"""What a reader reads, not what the source says: every built page's visible text (the
HTML parsed, scripts and styles dropped) and every PDF's extracted text, checked for
Markdown left unprocessed, internal ids where words belong, English interface words and
Italian number agreement. Also: each ruling's box once per rules page, and every ruling
cited in the text reads as its question and links to it.

The site is the session's one build (conftest `session_site`); the PDFs are the
rulebooks and home decks of all five games, made once for this module.
"""

from __future__ import annotations

import re
import sqlite3
from collections import Counter
from html.parser import HTMLParser
from pathlib import Path

import pytest
from conftest import GAMES, invoke, pdf_text
from test_site import ENGLISH

# Markdown or attribute-list syntax that reached the reader.
RESIDUE = re.compile(r"\]\(|\{:|\*\*|`")
# "chiarimento segnalini-onore": a ruling cited by id instead of by its question.
CITED_BY_ID = re.compile(r"chiariment[oi]\s+\*?[a-z0-9]+(?:-[a-z0-9]+)+")
# A singular count with a plural noun ("1 carte", "1 fogli"): the numbers with nouns of
# generated Italian go through pipeline.common.words.count.
ONE_PLURAL = re.compile(
    r"(?<![\d,.])\b1 (carte|fogli|giocatori|turni|partite|copie|punti|segnalini|mazzi|"
    r"azioni|mosse|pagine|scontri|squadre)\b"
)


class _Visible(HTMLParser):
    """The prose a browser shows: everything outside script, style, template and svg, and
    outside inline code and `<pre class="cartiera-comando">` (a command line is in the
    CLI's English). Any other code block is read: text indented by mistake in generated
    Markdown becomes one, residue and all."""

    HIDDEN = frozenset({"script", "style", "template", "svg", "noscript"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.depth = 0
        self.pre: list[bool] = []  # the open <pre>s: in a code block, <code> is read
        self.parts: list[str] = []
        self.links: list[tuple[str, str]] = []  # (href, text) of every link
        self._href: str | None = None
        self._link_text: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "pre":
            self.pre.append("cartiera-comando" not in (dict(attrs).get("class") or "").split())
        if tag in self.HIDDEN or (tag == "code" and not any(self.pre)):
            self.depth += 1
        if tag == "a":
            self._href = dict(attrs).get("href") or ""
            self._link_text = []

    def handle_endtag(self, tag: str) -> None:
        if tag in self.HIDDEN or (tag == "code" and not any(self.pre)):
            self.depth -= 1
        if tag == "pre" and self.pre:
            self.pre.pop()
        if tag == "a" and self._href is not None:
            self.links.append((self._href, " ".join("".join(self._link_text).split())))
            self._href = None

    def handle_data(self, data: str) -> None:
        if self.depth == 0:
            self.parts.append(data)
            if self._href is not None:
                self._link_text.append(data)


def visible(path: Path) -> _Visible:
    parser = _Visible()
    parser.feed(path.read_text(encoding="utf-8"))
    parser.close()
    return parser


def text_of(parser: _Visible) -> str:
    return " ".join(" ".join(parser.parts).split())


def problems(text: str, slugs: set[str]) -> list[str]:
    """What is wrong with a text a reader reads, one line each."""
    found = []
    for name, pattern in (
        ("Markdown residue", RESIDUE),
        ("ruling cited by id", CITED_BY_ID),
        ("English interface word", ENGLISH),
        ("number agreement", ONE_PLURAL),
    ):
        for match in pattern.finditer(text):
            context = text[max(0, match.start() - 40) : match.end() + 40]
            found.append(f"{name}: …{context}…")
    words = set(re.findall(r"[a-z0-9]+(?:-[a-z0-9]+)+", text))
    found += [f"internal id in the text: {slug}" for slug in sorted(words & slugs)]
    return found


@pytest.fixture(scope="module")
def ruling_questions(shared_project: Path) -> dict[str, dict[str, str]]:
    """game slug -> ruling code -> question, from the session's cards.db."""
    with sqlite3.connect(shared_project / "cards.db") as db:
        rows = db.execute(
            "SELECT g.slug, r.code, r.question FROM ruling r JOIN game g ON g.id = r.game_id"
        ).fetchall()
    result: dict[str, dict[str, str]] = {}
    for game, code, question in rows:
        result.setdefault(game, {})[code] = question
    return result


@pytest.fixture(scope="module")
def ruling_slugs(ruling_questions: dict[str, dict[str, str]]) -> set[str]:
    # Ids that are also ordinary Italian words joined by a hyphen never happen in our data.
    return {code for codes in ruling_questions.values() for code in codes}


def test_no_built_page_shows_markup_ids_english_or_bad_agreement(
    session_site: Path, ruling_slugs: set[str]
) -> None:
    pages = sorted(session_site.rglob("*.html"))
    assert len(pages) > 250
    bad = {}
    for page in pages:
        found = problems(text_of(visible(page)), ruling_slugs)
        if found:
            bad[page.relative_to(session_site).as_posix()] = found[:3]
    assert not bad, f"{len(bad)} pages, e.g. {list(bad.items())[:5]}"


def test_the_checker_sees_what_the_reader_sees(tmp_path: Path) -> None:
    """Residue in a script or an attribute is not read; residue in the text is."""
    page = tmp_path / "p.html"
    page.write_text(
        '<p title="**x**">Una <a href="#a">carta</a></p><script>var a = "**b**";</script>'
        "<p>[Vince](../glossario.md){: .t } · 1 carte · chiarimento *vuoto-in-cima*</p>",
        encoding="utf-8",
    )
    found = problems(text_of(visible(page)), {"vuoto-in-cima"})
    assert [f.split(":")[0] for f in found] == [
        "Markdown residue",
        "Markdown residue",
        "ruling cited by id",
        "number agreement",
        "internal id in the text",
    ]


@pytest.mark.parametrize("game", GAMES)
def test_each_ruling_box_stands_once_on_the_rules_page(session_site: Path, game: str) -> None:
    html = (session_site / "giochi" / game / "regole" / "index.html").read_text(encoding="utf-8")
    titles = Counter(re.findall(r'<p class="admonition-title">Chiarimento: (.*?)</p>', html))
    assert titles, "no ruling box at all"
    assert [t for t, n in titles.items() if n > 1] == []


@pytest.mark.parametrize("page", ["regole", "chiarimenti", "glossario", "index"])
@pytest.mark.parametrize("game", GAMES)
def test_every_cited_ruling_reads_as_its_question_and_links_to_it(
    session_site: Path, ruling_questions: dict[str, dict[str, str]], game: str, page: str
) -> None:
    """A link into the rulings page reads as the ruling's question (or says it is one)."""
    questions = ruling_questions[game]
    folder = session_site / "giochi" / game
    path = folder / "index.html" if page == "index" else folder / page / "index.html"
    parsed = visible(path)
    wrong = []
    for href, text in parsed.links:
        match = re.search(r"chiarimenti/(?:index\.html)?#chiarimento-(.+)$", href)
        if match is None:
            continue
        code = match.group(1)
        assert code in questions, f"link to a ruling that does not exist: {href}"
        if text not in (questions[code], "Vedi il chiarimento"):
            wrong.append((code, text))
    assert wrong == []


def test_a_ruling_answer_starting_with_a_number_keeps_it(session_site: Path) -> None:
    page = session_site / "giochi/samurai-sword/chiarimenti/index.html"
    text = text_of(visible(page))
    assert "Quanti segnalini onore contiamo? ¶ 30. Le fonti" in text


@pytest.fixture(scope="module")
def pdfs(shared_project: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each game's rulebook and home deck (sheets, instructions and card list)."""
    out = tmp_path_factory.mktemp("pdfs")
    paths = {}
    for slug in GAMES:
        for kind in ("rulebook", "deck"):
            path = out / f"{slug}-{kind}.pdf"
            run = invoke(shared_project, kind, slug, "--out", str(path))
            assert run.exit_code == 0, run.output
            paths[f"{slug} {kind}"] = path
    return paths


def test_no_pdf_text_shows_markup_ids_english_or_bad_agreement(
    pdfs: dict[str, Path], ruling_slugs: set[str]
) -> None:
    bad = {}
    for name, path in pdfs.items():
        text = " ".join(pdf_text(path))
        # A PDF breaks lines inside words: rejoin "chiari- mento" before checking.
        text = re.sub(r"(\w)- (\w)", r"\1\2", text)
        found = problems(text, ruling_slugs)
        if found:
            bad[name] = found[:3]
    assert not bad, bad


# -- generated Italian: one helper for numbers with nouns ---------------------------------


def test_count_and_a_agree_in_italian() -> None:
    from pipeline.common.words import a, count

    assert [count(n, "carta", "carte") for n in (0, 1, 2)] == ["0 carte", "1 carta", "2 carte"]
    assert a("Anelli del Sigillo") == "ad Anelli del Sigillo" and a("Re Luce") == "a Re Luce"


def test_narrations_agree_with_their_numbers(shared_project: Path) -> None:
    """The worked examples as stored in cards.db (what the site and rulebook show)."""
    with sqlite3.connect(shared_project / "cards.db") as db:
        texts = [row[0] for row in db.execute("SELECT narration_md FROM example")]
    joined = "\n".join(texts)
    assert texts and not ONE_PLURAL.findall(joined)
    assert ", di Giocatore" not in joined
    assert not re.search(r"\ba A", joined)  # "ad Anelli", not "a Anelli"


def test_replay_prints_plain_text_not_markdown(shared_project: Path, tmp_path: Path) -> None:
    replay = tmp_path / "bless.json"
    run = invoke(shared_project, "record", "bless", "--out", str(replay), "--seed", "3")
    assert run.exit_code == 0, run.output
    run = invoke(shared_project, "replay", str(replay))
    assert run.exit_code == 0, run.output
    assert "Turno 1 di" in run.stdout
    assert not RESIDUE.search(run.stdout), RESIDUE.search(run.stdout)


def test_new_game_scaffold_reads_as_italian(tmp_path: Path) -> None:
    from conftest import copy_sources

    project = tmp_path / "proj"
    copy_sources(project)
    for players, phrase in (
        ("2-4", "un gioco di carte da 2 a 4 giocatori"),
        ("1", "per 1 giocatore"),
    ):
        slug = f"orto{players[0]}"
        run = invoke(project, "new", slug, "--name", "Orto", "--players", players)
        assert run.exit_code == 0, run.output
        game = (project / "games" / slug / "game.yaml").read_text("utf-8")
        assert phrase in game and "per da" not in game and "`" not in game.split("description")[1]


# -- the balance charts ----------------------------------------------------------------------


def _svg_texts(svg: bytes) -> list[str]:
    return [t.strip() for t in re.findall(r"<text[^>]*>([^<]*)</text>", svg.decode()) if t.strip()]


def test_charts_tick_whole_games_with_decimal_commas_and_phone_sized_text() -> None:
    from pipeline.engine.plugin import FigureTable
    from pipeline.publish.site.balance import WIDTH, chart_svg

    lengths = tuple((turns, 3 + turns % 4) for turns in range(4, 19))
    svg = chart_svg(FigureTable("durata", "Durata", ("Turni", "Partite"), lengths, "histogram"))
    ticks = [t for t in _svg_texts(svg) if re.fullmatch(r"[\d.,−-]+", t)]
    assert ticks and all(re.fullmatch(r"\d+", t) for t in ticks), ticks  # no 2.5, no 7.5
    text = svg.decode()
    sizes = {float(s) for s in re.findall(r"font-size: ([\d.]+)px", text)}
    width = float(re.search(r'<svg[^>]* width="([\d.]+)pt"', text).group(1))  # = its viewBox
    # A 390 px phone gives the image about 350 px (never more than its own 4/3 px a pt).
    shown = min(width * 4 / 3, 350) / width
    assert sizes and min(sizes) * shown >= 12, (sizes, width)
    assert width <= WIDTH * 72 * 1.1


def test_bar_charts_draw_rates_to_scale_with_every_label_whole_and_inside() -> None:
    from pipeline.engine.plugin import FigureTable
    from pipeline.publish.site.balance import chart_svg
    from pipeline.publish.site.charts import text_width

    def rate(value: float) -> dict[str, float]:
        return {"rate": value, "low": value - 0.1, "high": value + 0.1, "n": 100}

    long = "chi ha il Mazziere nella mano iniziale della partita"
    rows = (("Posto 1", rate(0.25)), (long, rate(0.5)))
    svg = chart_svg(FigureTable("x", "Vittorie", ("Chi", "Vittorie"), rows, "bars"), 0.5).decode()
    bars = [
        (float(x), float(w))
        for x, w in re.findall(r'<rect x="([\d.]+)" y="[\d.]+" width="([\d.]+)"', svg)
    ]
    assert bars[1][1] == pytest.approx(2 * bars[0][1], rel=0.01)  # 50% is twice 25%
    parity = re.search(r'<line x1="([\d.]+)"[^>]*stroke-dasharray', svg)
    assert parity and float(parity[1]) == pytest.approx(sum(bars[1]), abs=0.05)  # at 50%
    width = float(re.search(r'<svg[^>]* width="([\d.]+)pt"', svg)[1])
    texts = re.findall(r'<text x="([\d.]+)" y="[\d.]+" text-anchor="(\w+)">([^<]*)</text>', svg)
    for x, anchor, text in texts:
        extent = text_width(text)
        start = float(x) - {"end": extent, "middle": extent / 2, "start": 0.0}[anchor]
        assert start >= 0 and start + extent <= width, text
    assert long in " ".join(text for _, _, text in texts)  # on two lines, every word


def test_the_red_line_stands_where_the_page_puts_parity() -> None:
    """The page marks a win rate above or below the report's parity (below 1 in the number
    of players when games can end even); the charts draw their red line there, and none on
    bars that are not win rates."""
    from pipeline.publish.site.balance import chart_svg, charts

    def rate(value: float) -> dict[str, float]:
        return {"rate": value, "low": value - 0.05, "high": value + 0.05, "n": 200}

    own = [
        {"key": "primo", "title": "Primo", "columns": ["chi", "vittorie"], "chart": "bars",
         "rows": [["chi attacca", rate(0.5)], ["chi difende", rate(0.3)]]},
        {"key": "modi", "title": "Modi", "columns": ["modo", "quota"], "chart": "bars",
         "rows": [["bottino", rate(0.8)], ["pari", rate(0.2)]]},
    ]  # fmt: skip
    simulation = {
        "seats": [rate(0.45), rate(0.35)], "teams": {}, "how": {"bottino": 160, "pari": 40},
        "turns": {"histogram": {"15": 44, "16": 156}}, "tables": own,
    }  # fmt: skip
    data = {"report": {"counts": [{"players": 2, "parity": 0.4, "simulation": simulation}]}}
    lines = {table.key: line for _, table, line in charts(data)}
    assert lines == {"posti": 0.4, "primo": 0.4, "modi": None, "finali": None, "durata": None}
    for _, table, line in charts(data):
        if table.chart != "bars":
            continue
        svg = chart_svg(table, line).decode()
        dashed = re.findall(r'<line x1="([\d.]+)"[^>]*stroke-dasharray', svg)
        if line is None:
            assert not dashed and "in rosso" not in svg
            continue
        ends = {t: float(x) for x, t in re.findall(r'<text x="([\d.]+)"[^>]*>(0|100)</text>', svg)}
        at = (float(dashed[0]) - ends["0"]) / (ends["100"] - ends["0"])
        assert at == pytest.approx(0.4, abs=0.002) and "in rosso la parità" in svg


def test_generic_figures_give_way_to_the_games_own_and_read_as_words() -> None:
    from types import SimpleNamespace

    from pipeline.engine.plugin import FigureTable
    from pipeline.publish.site.balance import figure_tables

    rate = {"rate": 0.5, "low": 0.4, "high": 0.6, "n": 10}
    sides = FigureTable("lati", "Squadre", ("squadra", "vittorie"), (("Shogun", rate),), "bars")
    result = SimpleNamespace(
        seats=[rate, rate],
        teams={"1": rate, "2": rate},
        how={"ultimo-in-piedi": 7, "altare": 3},
        turns={"histogram": {"5": 2}},
        tables=[sides],
    )
    tables = {t.key: t for t in figure_tables(result)}
    assert "squadre" not in tables and "lati" in tables  # the same teams once
    assert [row[0] for row in tables["finali"].rows] == ["Ultimo in piedi", "Altare"]


def test_the_print_page_tells_a_home_printer_what_to_do_with_the_printer(
    session_site: Path,
) -> None:
    """The site's print page told home printers to run `cartiera deck --backs-offset` and
    that a short-edge printer needs an option "when the PDF is made": they download a PDF,
    they hold no CLI. As on the deck's first page, printer settings first, and the commands
    only in the note for those who make the PDF, for any game (`cartiera new` copies the
    page into a designer's project, where there is no Bless)."""
    text = text_of(visible(session_site / "stampare" / "index.html"))
    home, marker, designers = text.rpartition("Per chi crea il PDF con Cartiera")  # not the TOC
    assert marker and "impostazioni di stampa" in home and "allineamento del retro" in home
    assert "cartiera deck" not in home and "--" not in home and "quando si crea" not in home
    assert "cartiera deck GIOCO --duplex short" in designers and "--backs-offset" in designers
