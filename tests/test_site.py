"""The rules website: built with the real `mkdocs build --strict`, read by a real Chromium."""

from __future__ import annotations

import functools
import http.server
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from conftest import invoke

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


@pytest.fixture(scope="module")
def site(shared_project: Path) -> Path:
    run = invoke(shared_project, "site")
    assert run.exit_code == 0, run.output
    return shared_project / "build" / "site"


@pytest.fixture(scope="module")
def server(site: Path) -> Iterator[str]:
    handler = functools.partial(QuietHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


class QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in [*FLAGS, f"--user-data-dir={profile}", "--window-size=1280,1000"]:
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)


def _wait(driver, condition, timeout: float = 20):
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout).until(condition)


def test_every_card_and_clause_has_its_page_entry(site: Path, shared_project: Path) -> None:
    with sqlite3.connect(shared_project / "cards.db") as conn:
        cards = conn.execute(
            "select g.slug, c.code from card c join game g on g.id = c.game_id"
        ).fetchall()
        clauses = conn.execute(
            "select g.slug, s.anchor from rulesection s join game g on g.id = s.game_id"
        ).fetchall()
    pages: dict[str, str] = {}

    def page(slug: str, name: str) -> str:
        key = f"{slug}/{name}"
        if key not in pages:
            pages[key] = (site / "giochi" / slug / name / "index.html").read_text("utf-8")
        return pages[key]

    for slug, code in cards:
        html = page(slug, "carte")
        assert f'id="carta-{code}"' in html, (slug, code)
    for slug, anchor in clauses:
        assert f'id="{anchor}"' in page(slug, "regole"), (slug, anchor)
    assert len(cards) == 240 and len(clauses) > 200


def test_home_page_loads_without_console_errors(browser, server: str) -> None:
    browser.get(server + "/")
    assert "Cartiera" in browser.title
    links = browser.find_elements("css selector", ".cartiera-giochi a")
    assert {a.text for a in links} >= {"Bless", "BLITZ", "Samurai Sword", "Mazzo", "BLDNG"}
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []


def _search(browser, server: str, words: str) -> list[str]:
    from selenium.webdriver.common.by import By

    browser.get(server + "/")
    field = browser.find_element(By.CSS_SELECTOR, "input.md-search__input")
    if not field.is_displayed():  # narrow windows hide the field behind an icon
        browser.find_element(By.CSS_SELECTOR, "label[for='__search']").click()
    field.click()
    field.send_keys(words)
    _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "a.md-search-result__link"))
    return [
        a.get_attribute("href")
        for a in browser.find_elements(By.CSS_SELECTOR, "a.md-search-result__link")
    ]


def _place(url: str) -> str:
    """Path and fragment of a URL: the search adds ?h=… to highlight the words."""
    parts = urlsplit(url)
    return f"{parts.path}#{parts.fragment}"


def test_search_finds_the_stasi_rule_and_lands_on_its_anchor(browser, server: str) -> None:
    from selenium.webdriver.common.by import By

    hrefs = _search(browser, server, "Stasi")
    target = next(h for h in hrefs if _place(h) == "/giochi/bless/regole/#stasi")
    link = next(a for a in browser.find_elements(By.CSS_SELECTOR, "a.md-search-result__link")
                if a.get_attribute("href") == target)
    link.click()
    _wait(browser, lambda d: _place(d.current_url) == "/giochi/bless/regole/#stasi")
    heading = browser.find_element(By.ID, "stasi")
    assert "Stasi" in heading.text
    top = browser.execute_script("return arguments[0].getBoundingClientRect().top", heading)
    assert 0 <= top < 300  # scrolled to it


def test_search_finds_the_katana_card(browser, server: str) -> None:
    hrefs = _search(browser, server, "Katana")
    assert "/giochi/samurai-sword/carte/#carta-katana" in [_place(h) for h in hrefs], hrefs


@pytest.mark.parametrize("slug", ["bless", "blitz", "samurai-sword", "mazzo", "bldng"])
def test_no_image_on_a_gallery_page_is_broken(browser, server: str, slug: str) -> None:
    browser.get(f"{server}/giochi/{slug}/carte/")
    browser.execute_script("document.querySelectorAll('img').forEach(i => i.loading = 'eager')")
    _wait(
        browser,
        lambda d: d.execute_script("return Array.from(document.images).every(i => i.complete)"),
        timeout=60,
    )
    images = browser.execute_script(
        "return Array.from(document.querySelectorAll('.cartiera-carta img'))"
        ".map(i => [i.getAttribute('src'), i.naturalWidth])"
    )
    assert len(images) >= 10
    assert [src for src, width in images if width == 0] == []


def test_bless_table_filter_matches_sql(browser, server: str, shared_project: Path) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    with sqlite3.connect(shared_project / "cards.db") as conn:
        expected = [
            row[0]
            for row in conn.execute(
                "select code from bless_cards where forma = 'Ombra' and occhio >= 5 order by number"
            )
        ]
    browser.get(f"{server}/giochi/bless/tabella/")
    Select(browser.find_element(By.CSS_SELECTOR, "select[data-filtro='forma']")).select_by_value(
        "Ombra"
    )
    minimum = browser.find_element(By.CSS_SELECTOR, "input[data-filtro='occhio'][data-tipo='min']")
    minimum.send_keys("5")
    shown = browser.execute_script(
        "return Array.from(document.querySelectorAll('#carte-bless tbody tr'))"
        ".filter(r => !r.hidden).map(r => r.dataset.code)"
    )
    assert shown == expected and len(expected) > 3
    count = browser.find_element(By.CSS_SELECTOR, ".cartiera-conteggio").text
    assert count == f"{len(expected)} carte su 62"
    header = browser.find_element(By.CSS_SELECTOR, "th[data-colonna='occhio']")
    header.click()
    header.click()  # descending
    ordered = browser.execute_script(
        "return Array.from(document.querySelectorAll('#carte-bless tbody tr'))"
        ".filter(r => !r.hidden).map(r => Number(r.dataset.occhio))"
    )
    assert ordered == sorted(ordered, reverse=True)


def test_card_text_is_shown_literally(built: Path) -> None:
    cards = built / "games/mazzo/cards.yaml"
    text = cards.read_text(encoding="utf-8")
    line = re.search(r"^(\s+descrizione: )(.+)$", text, re.M)
    assert line
    cards.write_text(
        text.replace(line.group(0), line.group(1) + '"<b>Spada & scudo</b> *non* corsivo"', 1),
        encoding="utf-8",
    )
    assert invoke(built, "db", "build").exit_code == 0
    from pipeline.project import open_project
    from pipeline.site import generate

    generate(open_project(built), with_images=False)
    page = (built / "site/giochi/mazzo/carte.md").read_text(encoding="utf-8")
    assert "&lt;b&gt;Spada &amp; scudo&lt;/b&gt; *non* corsivo" in page


def test_build_makes_no_network_connection(shared_project: Path, tmp_path: Path) -> None:
    if shutil.which("unshare") is None:
        pytest.fail("unshare (util-linux) is needed to cut the network")
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("this sandbox does not allow network namespaces")
    result = subprocess.run(
        [
            "unshare",
            "-n",
            sys.executable,
            "-m",
            "pipeline",
            "--project",
            str(shared_project),
            "site",
        ],
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert result.returncode == 0, result.stderr
