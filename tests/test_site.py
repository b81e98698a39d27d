"""The rules website: built with the real `mkdocs build --strict` (once per session for each
variant), read as files and by a real headless Chromium (tests/test_site_browser.py).

The issue's defects each have a test here or there: offline links and images, the card
table, publishing (site URL, 404), the hyperlinked rules, English strings, and the rest.
"""

from __future__ import annotations

import http.client
import re
import shutil
import sqlite3
import unicodedata
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from conftest import NO_UNSHARE, SiteBuild, invoke

from pipeline.common.project import Project

# Interface strings of Material (and of our own pages) that must not appear in English.
ENGLISH = re.compile(
    r"\b(Permanent link|Made with|Home|Search|Back to top|Skip to content|Table of contents|"
    r"Copy to clipboard|Previous|Next|Initializing search|Type to start searching|"
    r"Share|Clear|Navigation|Edit this page|Last update|Error response|Not found|random)\b"
)


@pytest.fixture(scope="session")
def offline_site(session_offline_site: Path) -> Path:
    return session_offline_site


class Page(HTMLParser):
    """The ids, links and visible strings of one built page (prose: a command line in
    inline `<code>` or a `<pre class="cartiera-comando">` speaks the CLI's English by
    design; any other code block is read)."""

    SKIPPED = frozenset({"script", "style"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[tuple[str, str]] = []  # (tag, url)
        self.texts: list[str] = []
        self._skip = 0
        self._pre: list[bool] = []  # the open <pre>s: True for a code block that is read

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = {k: v or "" for k, v in attrs}
        if "id" in values:
            self.ids.add(values["id"])
        if tag == "a" and "name" in values:
            self.ids.add(values["name"])
        fetched = tag != "link" or values.get("rel") in ("stylesheet", "icon", "preload")
        for attr in ("href", "src"):
            if attr in values and tag in ("a", "img", "script", "link", "iframe") and fetched:
                self.links.append((tag, values[attr]))
        for attr in ("title", "aria-label", "placeholder", "alt"):
            if values.get(attr):
                self.texts.append(values[attr])
        if tag == "pre":
            self._pre.append("cartiera-comando" not in values.get("class", "").split())
        if tag in self.SKIPPED or (tag == "code" and not any(self._pre)):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in self.SKIPPED or (tag == "code" and not any(self._pre)):
            self._skip -= 1
        if tag == "pre" and self._pre:
            self._pre.pop()

    def handle_data(self, data: str) -> None:
        if not self._skip and data.strip():
            self.texts.append(data.strip())


def parse(path: Path) -> Page:
    page = Page()
    page.feed(path.read_text(encoding="utf-8"))
    return page


def _target(site: Path, page: Path, url: str, folder_urls: bool) -> tuple[Path, str] | None:
    """The file a relative link names, with its fragment; None for links out of the site."""
    parts = urlsplit(url)
    if parts.scheme or url.startswith("//"):
        return None
    if url.startswith("/"):
        raise AssertionError(f"{page.relative_to(site)}: absolute link {url}")
    path = page.parent / unquote(parts.path) if parts.path else page
    if path.is_dir() or parts.path.endswith("/"):
        path = path / "index.html"
    return path.resolve(), unquote(parts.fragment)


def crawl(site: Path, folder_urls: bool) -> tuple[int, list[str]]:
    """Every link and image of every page: (links checked, broken ones)."""
    pages: dict[Path, Page] = {}

    def page(path: Path) -> Page:
        if path not in pages:
            pages[path] = parse(path)
        return pages[path]

    # The same link from pages of one folder names the same file (the navigation repeats
    # on every page): resolve it once, not for each of the ~30,000 links (lstat per part).
    targets: dict[tuple[Path, str], tuple[Path, str] | None] = {}

    def target_of(html: Path, url: str) -> tuple[Path, str] | None:
        key = (html.parent, url)
        if url.startswith("/") or not urlsplit(url).path:  # the page itself, or an error
            return _target(site, html, url, folder_urls)
        if key not in targets:
            targets[key] = _target(site, html, url, folder_urls)
        return targets[key]

    exists: dict[Path, bool] = {}
    broken: list[str] = []
    checked = 0
    for html in sorted(site.rglob("*.html")):
        if html.name == "404.html":
            continue
        for tag, url in page(html.resolve()).links:
            found = target_of(html, url)
            if found is None:
                if tag != "a":
                    broken.append(f"{html.relative_to(site)}: {tag} from the network: {url}")
                continue
            checked += 1
            target, fragment = found
            where = f"{html.relative_to(site)}: {url}"
            if target not in exists:
                exists[target] = target.exists()
            if not exists[target]:
                broken.append(f"{where} (no file)")
            elif fragment and target.suffix == ".html" and fragment not in page(target).ids:
                broken.append(f"{where} (no anchor)")
    return checked, broken


def test_every_link_and_anchor_of_the_served_site_resolves(session_site: Path) -> None:
    checked, broken = crawl(session_site, folder_urls=True)
    assert broken == [] and checked > 10_000, broken[:20]


def test_every_link_and_anchor_of_the_offline_site_resolves(offline_site: Path) -> None:
    checked, broken = crawl(offline_site, folder_urls=False)
    assert broken == [] and checked > 10_000, broken[:20]
    html = (offline_site / "giochi/bless/tabella.html").read_text("utf-8")
    assert 'href="carte/re-luce.html"' in html  # file URLs, not folders


def test_the_offline_site_fetches_nothing_from_the_network(offline_site: Path) -> None:
    for html in offline_site.rglob("*.html"):
        text = html.read_text("utf-8")
        assert "unpkg.com" not in text and "iframe-worker/shim.js" in text, html
        assert not re.search(r'<(?:script|img|iframe)[^>]+src="https?://', text), html
        assert not re.search(r'<link rel="(?:stylesheet|icon|preload)"[^>]+"https?://', text)
    assert (offline_site / "search/search_index.js").exists()


def test_every_card_and_clause_has_its_page_entry(session_site: Path, shared_project: Path) -> None:
    with sqlite3.connect(shared_project / "cards.db") as conn:
        cards = conn.execute("select g.slug, c.code from card c join game g on g.id = c.game_id")
        cards = cards.fetchall()
        clauses = conn.execute(
            "select g.slug, s.anchor, s.number from rulesection s join game g on g.id = s.game_id"
        ).fetchall()
    for slug, code in cards:
        gallery = parse(session_site / "giochi" / slug / "carte/index.html")
        assert f"carta-{code}" in gallery.ids, (slug, code)
        assert (session_site / "giochi" / slug / "carte" / code / "index.html").exists()
    rules = {}
    for slug, anchor, number in clauses:
        if slug not in rules:
            rules[slug] = parse(session_site / "giochi" / slug / "regole/index.html").ids
        assert {anchor, f"r{number}"} <= rules[slug], (slug, anchor)
    assert len(cards) == 240 and len(clauses) > 200


def test_every_rule_paragraph_is_numbered_with_an_anchor(session_site: Path) -> None:
    html = (session_site / "giochi/bless/regole/index.html").read_text("utf-8")
    numbers = re.findall(r'<div class="cartiera-par" id="r(\d+\.\d+[a-z]+)">', html)
    assert len(numbers) > 80 and len(set(numbers)) == len(numbers)
    assert {"1.1a", "1.2a", "2.1a", "2.2a"} <= set(numbers)
    assert 'data-ancora="r2.2a"' in html  # its copy-link button
    for number in numbers:
        assert f'href="#r{number}"' in html


def test_every_vedi_in_the_rules_is_a_link(session_site: Path) -> None:
    html = (session_site / "giochi/bless/regole/index.html").read_text("utf-8")
    text = re.sub(r"<a [^>]*>[^<]*</a>", "LINK", html)
    assert re.findall(r"\bvedi\s+\d", text) == []
    links = re.findall(r'vedi\s+<a href="\./#([^"]+)">(\d+(?:\.\d+)?)</a>', html)
    assert len(links) >= 60
    ids = parse(session_site / "giochi/bless/regole/index.html").ids
    assert all(anchor in ids for anchor, _ in links)
    for slug in ("blitz", "bldng", "mazzo", "samurai-sword"):
        html = (session_site / "giochi" / slug / "regole/index.html").read_text("utf-8")
        cited = re.findall(r'(?:regola|sezione)\s+<a href="\./#[^"]+">\d', html)
        plain = re.findall(r"\b(?:regola|sezione)\s+\d", re.sub(r"<a [^>]*>[^<]*</a>", "", html))
        assert cited and not plain, (slug, plain)


@pytest.mark.parametrize("page", ["regole", "chiarimenti", "esempi", "glossario"])
def test_glossary_terms_are_linked_with_their_definition(session_site: Path, page: str) -> None:
    html = (session_site / "giochi/bless" / page / "index.html").read_text("utf-8")
    terms = re.findall(r'<a class="cartiera-termine" href="([^"]+)" title="([^"]+)"', html)
    assert len(terms) >= 5, page
    assert all(title.count(":") >= 1 and len(title) > 20 for _, title in terms)


def test_the_glossary_is_alphabetical(session_site: Path) -> None:
    for slug in ("bless", "samurai-sword", "bldng"):
        html = (session_site / "giochi" / slug / "glossario/index.html").read_text("utf-8")
        terms = re.findall(r'<h3 id="[^"]+">([^<]+)<a class="headerlink"', html)
        assert len(terms) > 5
        plain = [
            "".join(c for c in unicodedata.normalize("NFKD", t.casefold()) if c.isascii())
            for t in terms
        ]
        assert plain == sorted(plain), slug


def test_the_site_speaks_italian_on_every_page(session_site: Path) -> None:
    found = []
    for html in sorted(session_site.rglob("*.html")):
        page = parse(html)
        found += [f"{html.relative_to(session_site)}: {t}" for t in page.texts if ENGLISH.search(t)]
    assert found == [], found[:10]
    home = (session_site / "index.html").read_text("utf-8")
    assert 'placeholder="Cerca"' in home
    slips = re.compile(r"\((?:incompleti|ricostruiti|ufficiali)\)")
    pages = [p for p in session_site.rglob("*.html") if slips.search(p.read_text("utf-8"))]
    assert pages == []


def test_navigation_has_one_tab_per_game(session_site: Path) -> None:
    html = (session_site / "giochi/bless/regole/index.html").read_text("utf-8")
    tabs = re.findall(r'class="md-tabs__link[^"]*"[^>]*>\s*([^<]+?)\s*<', html)
    assert {"Bless", "BLITZ", "Samurai Sword", "Mazzo", "BLDNG"} <= set(tabs), tabs
    assert "Inizio" in tabs and "Home" not in tabs


def test_overview_and_cards_have_no_empty_headers_or_generic_kinds(session_site: Path) -> None:
    overview = (session_site / "giochi/bless/index.html").read_text("utf-8")
    assert not re.search(r"<th>\s*</th>", overview)
    card = (session_site / "giochi/bless/carte/re-luce/index.html").read_text("utf-8")
    assert "<dt>Tipo</dt>" not in card and "<dt>Occhio</dt>" in card
    katana = (session_site / "giochi/samurai-sword/carte/katana/index.html").read_text("utf-8")
    assert "<dt>Tipo</dt><dd>Arma</dd>" in katana


def test_a_card_page_shows_its_rulings_and_examples(session_site: Path, shared_project) -> None:
    with sqlite3.connect(shared_project / "cards.db") as conn:
        code = conn.execute(
            "select c.code from rulingcard rc join card c on c.id = rc.card_id "
            "join game g on g.id = c.game_id where g.slug = 'samurai-sword' limit 1"
        ).fetchone()[0]
    html = (session_site / f"giochi/samurai-sword/carte/{code}/index.html").read_text("utf-8")
    assert '<h2 id="chiarimenti">Chiarimenti<a' in html
    assert re.search(r'href="\.\./\.\./chiarimenti/#chiarimento-[^"]+"', html)
    bless = sorted((session_site / "giochi/bless/carte").glob("*/index.html"))
    with_examples = [p for p in bless if '<h2 id="esempi">Esempi<a' in p.read_text("utf-8")]
    assert len(with_examples) >= 3


def test_table_pages_carry_names_decks_and_a_query_slot(session_site: Path) -> None:
    html = (session_site / "giochi/samurai-sword/tabella/index.html").read_text("utf-8")
    assert 'data-filtro="deck"' in html and 'data-colonna="deck"' in html
    assert 'data-deck="rising-sun"' in html and 'data-name="Katana"' in html
    assert '<div id="card-query"' in html
    gallery = (session_site / "giochi/samurai-sword/carte/index.html").read_text("utf-8")
    assert '<div id="card-query"' in gallery


def test_downloads_are_listed_before_they_are_built(session_site: Path) -> None:
    html = (session_site / "giochi/bless/scarica/index.html").read_text("utf-8")
    assert "non sono ancora stati creati" not in html
    assert "bless-sheets-a4-long.pdf" in html and "bless-regolamento-a5.pdf" in html


def test_balance_page_states_its_run_and_shows_svg_charts(session_site: Path) -> None:
    page = session_site / "giochi/bless/bilanciamento/index.html"
    html = page.read_text("utf-8")
    assert "partite" in html and "seme" in html and "sceglie a caso" in html
    charts = re.findall(r'<img src="([^"]+\.svg)"', html)
    assert len(charts) >= 3
    for chart in charts:
        svg = (page.parent / chart).read_text("utf-8")
        assert svg.lstrip().startswith("<?xml") and "<svg" in svg
        assert "<image" not in svg and 'href="http' not in svg


def test_site_url_is_a_setting_with_no_made_up_default(shared_project: Path, monkeypatch) -> None:
    import yaml

    from pipeline.common.project import open_project
    from pipeline.common.settings import SITE_URL_ENV, missing_site_url_note, site_url
    from pipeline.publish.site.pages import mkdocs_config

    monkeypatch.delenv(SITE_URL_ENV, raising=False)
    project = open_project(shared_project)
    assert site_url(project) is None
    assert "site_url is not set" in (missing_site_url_note(project) or "")
    config = yaml.safe_load(mkdocs_config(project, ["bless"], offline=False).read_text("utf-8"))
    assert "site_url" not in config
    monkeypatch.setenv(SITE_URL_ENV, "https://giochi.example.net/cartiera-prova/")
    assert missing_site_url_note(project) is None
    config = yaml.safe_load(mkdocs_config(project, ["bless"], offline=False).read_text("utf-8"))
    assert config["site_url"] == "https://giochi.example.net/cartiera-prova/"


def test_without_site_url_no_page_names_a_made_up_address(session_site: Path) -> None:
    """The session's site is built with no site_url: no sitemap, no canonical link."""
    assert not (session_site / "sitemap.xml").exists()
    assert not (session_site / "sitemap.xml.gz").exists()
    pages = [p for p in session_site.rglob("*.html") if 'rel="canonical"' in p.read_text("utf-8")]
    assert pages == []
    assert not [p for p in session_site.rglob("*.html") if "example.org" in p.read_text("utf-8")]


def test_site_says_once_what_it_leaves_out_without_site_url(built: Path, monkeypatch) -> None:
    import subprocess

    import pipeline.publish.site.pages

    monkeypatch.delenv("CARTIERA_SITE_URL", raising=False)
    monkeypatch.setattr(pipeline.publish.site.pages, "_generate", lambda *args, **kwargs: [])
    monkeypatch.setattr(
        pipeline.publish.site.pages.subprocess,
        "run",
        lambda *a, **k: subprocess.CompletedProcess(a, 0, "", ""),
    )
    run = invoke(built, "site")
    assert run.exit_code == 0
    assert run.stderr.count("site_url is not set") == 1, run.stderr
    assert "no canonical links and no sitemap" in run.stderr
    run = invoke(built, "site", env={"CARTIERA_SITE_URL": "https://giochi.example.net/"})
    assert "site_url" not in run.stderr


def test_build_makes_the_offline_site_its_zip_and_the_balance_figures(built: Path) -> None:
    from pipeline.commands.build import plan
    from pipeline.common.project import open_project

    steps = {s.name: s for s in plan(open_project(built), ["bless", "blitz"])}
    assert steps["site"].outputs == (
        "build/site/index.html",
        "build/site-offline/index.html",
        "build/downloads/cartiera-sito-offline.zip",
    )
    from pipeline.engine.registry import engine_slugs

    balance = {name for name in steps if name.startswith("balance ")}
    assert "balance bless" in balance
    assert balance == {f"balance {slug}" for slug in ("bless", "blitz") if slug in engine_slugs()}
    assert list(steps)[-1] == "site"  # it shows every other step's files


def test_the_home_page_offers_the_offline_zip(built: Path, monkeypatch) -> None:
    from pipeline.common.project import open_project
    from pipeline.publish.site.hooks import on_page_markdown
    from pipeline.publish.site.pages import generate, offline_zip_path

    project = open_project(built)
    zip_path = offline_zip_path(project)
    zip_path.parent.mkdir(parents=True, exist_ok=True)
    zip_path.write_bytes(b"PK\x05\x06" + bytes(18))
    generate(project, with_images=False)
    home = (built / "site/index.md").read_text("utf-8")
    # the link names a stand-in while the site is built (offer_offline_zip swaps it)
    assert (built / "site/scarica/cartiera-sito-offline.zip").read_bytes() == b""

    def variant(offline: bool) -> str:
        monkeypatch.setenv("CARTIERA_OFFLINE", "true" if offline else "false")
        return on_page_markdown(home, None, None, None)

    served, offline = variant(False), variant(True)
    assert "](scarica/cartiera-sito-offline.zip)" in served and "versione offline" not in served
    assert "](scarica/" not in offline and "Stai leggendo la versione offline" in offline
    assert "cartiera:" not in served + offline
    zip_path.unlink()
    generate(project, with_images=False)
    home = (built / "site/index.md").read_text("utf-8")
    assert "](scarica/" not in variant(False) and "si crea con `cartiera build`" in home
    assert not (built / "site/scarica/cartiera-sito-offline.zip").exists()


def test_card_text_is_shown_literally(built: Path) -> None:
    from conftest import edit

    from pipeline.common.project import open_project
    from pipeline.publish.site.pages import generate

    cards = built / "games/mazzo/cards.yaml"
    line = re.search(r"^(\s+descrizione: )(.+)$", cards.read_text(encoding="utf-8"), re.M)
    assert line
    edit(cards, line.group(0), line.group(1) + '"<b>Spada & scudo</b> *non* corsivo"')
    assert invoke(built, "db", "build").exit_code == 0
    generate(open_project(built), with_images=False)
    pages = (built / "site/giochi/mazzo/carte").glob("*.md")
    text = "".join(p.read_text(encoding="utf-8") for p in pages)
    assert "&lt;b>Spada &amp; scudo&lt;/b> \\*non\\* corsivo" in text and "<b>" not in text


def test_404_is_the_italian_page_and_works_under_any_base(
    project_server: str, session_site: Path
) -> None:
    conn = http.client.HTTPConnection(project_server.removeprefix("http://"), timeout=10)
    conn.request("GET", "/giochi/bless/non-esiste/")
    response = conn.getresponse()
    body = response.read().decode("utf-8")
    assert response.status == 404
    assert "Error response" not in body and 'lang="it"' in body
    assert not re.search(r'(?:href|src)="/cartiera/', body)
    assert "<base href=" in body  # set by its script from the path it is served under


def test_build_makes_no_network_connection(session_site_build: SiteBuild) -> None:
    """The session's site was built by a process with no network (see the fixture)."""
    why = session_site_build.network_cut
    if why == NO_UNSHARE:  # every machine that runs the tests should have it
        pytest.fail(why)
    if why is not None:
        pytest.skip(why)
    assert (session_site_build.path / "index.html").is_file()


def test_charts_are_the_same_bytes_for_the_same_figures() -> None:
    from pipeline.engine.plugin import FigureTable
    from pipeline.publish.site.balance import chart_svg, chartable

    cell = {"rate": 0.55, "low": 0.5, "high": 0.6, "n": 400}
    bars = FigureTable("posti", "Vittorie", ("Posto", "Vittorie"), (("Posto 1", cell),), "bars")
    counts = FigureTable("durata", "Durata", ("Turni", "Partite"), ((30, 4), (31, 9)), "histogram")
    for table in (bars, counts):
        assert chartable(table)
        assert chart_svg(table, 0.5) == chart_svg(table, 0.5)
        assert b"<dc:date>" not in chart_svg(table, 0.5)
    assert not chartable(FigureTable("x", "X", ("a", "b"), (("a", "b"),), "bars"))


def _one_page_site(root: Path) -> Project:
    """A project whose site is one hand-written page, with the real mkdocs.yml and theme."""
    from conftest import ROOT

    (root / "games").mkdir(parents=True)
    (root / "site").mkdir()
    (root / "site/index.md").write_text("# Prova\n\nUna pagina.\n", encoding="utf-8")
    shutil.copytree(ROOT / "templates/site/theme", root / "templates/site/theme")
    shutil.copy(ROOT / "mkdocs.yml", root / "mkdocs.yml")
    return Project(root, "sqlite:///unused.db")


def test_the_theme_renders_in_the_sandbox_and_a_failed_build_keeps_the_last_site(
    tmp_path: Path,
) -> None:
    """The theme's overrides are sources too: MkDocs's own Jinja2 ran one that reached for
    os (here the build's working folder), and a build that failed emptied build/site."""
    from pipeline.common.problems import SourceError
    from pipeline.publish.site.pages import _mkdocs

    project = _one_page_site(tmp_path / "proj")
    site = _mkdocs(project, [], offline=False)
    page = (site / "index.html").read_text("utf-8")
    assert "Una pagina." in page
    theme = project.root / "templates/site/theme/main.html"
    reach = "{{ cycler.__init__.__globals__.os.getcwd() }}"
    theme.write_text(
        theme.read_text("utf-8").replace("{{ super() }}", "{{ super() }}" + reach, 1), "utf-8"
    )
    with pytest.raises(SourceError) as refused:
        _mkdocs(project, [], offline=False)
    assert "SecurityError: access to attribute '__init__'" in refused.value.problem.message
    assert (site / "index.html").read_text("utf-8") == page  # the last good site, whole
    assert [p.name for p in project.build_dir.iterdir() if p.name.startswith(".")] == []
