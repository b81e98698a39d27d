"""The rules website in a real headless Chromium: the served site, the offline variant from
file:// with the network cut, a phone-width window, the card table, the rules reference.

One browser and one build of each variant serve every test (session fixtures in conftest).
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest

GAMES = ("bless", "blitz", "samurai-sword", "mazzo", "bldng")


def _wait(driver: Any, condition: Any, timeout: float = 20) -> Any:
    """Poll every 0.1 s (Selenium's default is 0.5 s, most of which the worker sits idle)."""
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(condition)


@pytest.fixture
def browser(session_browser: Any) -> Iterator[Any]:
    """The session's browser at desktop width, back online and at desktop size after use.
    It starts on a blank page with its console log read out: what an earlier test's page
    logged (a test of another file may have run in it just before) is not this test's."""
    session_browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    session_browser.get("about:blank")
    session_browser.get_log("browser")
    yield session_browser
    session_browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    session_browser.execute_cdp_cmd("Network.enable", {})
    session_browser.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
    )


def _offline(driver: Any) -> None:
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0},
    )


def _phone(driver: Any) -> None:
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True},
    )


def _search(driver: Any, words: str) -> list[Any]:
    from selenium.webdriver.common.by import By

    field = driver.find_element(By.CSS_SELECTOR, "input.md-search__input")
    if not field.is_displayed():  # narrow windows hide the field behind an icon
        driver.find_element(By.CSS_SELECTOR, "label[for='__search']").click()
    field.click()
    field.send_keys(words)
    return _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "a.md-search-result__link"))


def _place(url: str) -> str:
    """Path and fragment of a URL: the search adds ?h=… to highlight the words."""
    parts = urlsplit(url)
    return f"{parts.path}#{parts.fragment}"


def _images_loaded(driver: Any) -> list[tuple[str, int]]:
    driver.execute_script("document.querySelectorAll('img').forEach(i => i.loading = 'eager')")
    _wait(driver, lambda d: d.execute_script("return [...document.images].every(i => i.complete)"))
    return driver.execute_script(
        "return [...document.querySelectorAll('.cartiera-galleria img')]"
        ".map(i => [i.getAttribute('src'), i.naturalWidth])"
    )


def test_home_page_loads_without_console_errors(browser: Any, session_server: str) -> None:
    browser.get(session_server + "/")
    assert "Cartiera" in browser.title
    links = browser.find_elements("css selector", ".cartiera-giochi a")
    assert {a.text for a in links} >= {"Bless", "BLITZ", "Samurai Sword", "Mazzo", "BLDNG"}
    errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    assert errors == []


def test_search_finds_the_stasi_rule_and_lands_on_its_anchor(
    browser: Any, session_server: str
) -> None:
    from selenium.webdriver.common.by import By

    browser.get(session_server + "/")
    results = _search(browser, "Stasi")
    link = next(
        a for a in results if _place(a.get_attribute("href")) == "/giochi/bless/regole/#stasi"
    )
    if not link.is_displayed():  # among the page's further sections, behind "more"
        browser.execute_script("arguments[0].closest('details').open = true", link)
    link.click()
    _wait(browser, lambda d: _place(d.current_url) == "/giochi/bless/regole/#stasi")
    heading = browser.find_element(By.ID, "stasi")
    top = browser.execute_script("return arguments[0].getBoundingClientRect().top", heading)
    assert "Stasi" in heading.text and 0 <= top < 300


def test_the_search_index_is_fetched_when_the_search_opens(
    browser: Any, session_server: str
) -> None:
    """A page does not download and index the whole site's search index (800 kB, half a
    second of a core) until the reader opens the search (templates/site/theme/main.html);
    then it does, and the search answers; a page opened from a result still highlights
    the words, which Material takes from the index."""
    from selenium.webdriver.common.by import By

    requests = (
        "return performance.getEntriesByType('resource')"
        ".filter(e => e.name.includes('search/search_index.json')).length"
    )
    browser.get(session_server + "/giochi/bless/")
    _wait(browser, lambda d: d.execute_script("return document.readyState") == "complete")
    time.sleep(0.5)  # Material asks for the index as its bundle starts: long since done
    assert browser.execute_script(requests) == 0
    assert _search(browser, "Stasi")
    assert browser.execute_script(requests) == 1
    browser.get(session_server + "/giochi/bless/regole/?h=stasi#stasi")
    marks = _wait(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "mark[data-md-highlight]"))
    assert any(m.text.lower() == "stasi" for m in marks)


def test_search_finds_a_card_page_and_ranks_the_glossary_high(
    browser: Any, session_server: str
) -> None:
    browser.get(session_server + "/")
    places = [_place(a.get_attribute("href")) for a in _search(browser, "Katana")]
    assert "/giochi/samurai-sword/carte/katana/#" in places, places
    browser.get(session_server + "/")
    results = [a for a in _search(browser, "Corrotta") if a.is_displayed()]
    places = [_place(a.get_attribute("href")) for a in results]
    glossary = [i for i, p in enumerate(places) if p.startswith("/giochi/bless/glossario/")]
    assert glossary and glossary[0] < 5, places


def test_offline_site_from_file_works_with_the_network_cut(
    browser: Any, session_offline_site: Path
) -> None:
    from selenium.webdriver.common.by import By

    _offline(browser)
    for slug in GAMES:
        browser.get((session_offline_site / f"giochi/{slug}/carte.html").as_uri())
        images = _images_loaded(browser)
        assert len(images) >= 10 and [src for src, width in images if width == 0] == [], slug
    browser.get((session_offline_site / "giochi/samurai-sword/tabella.html").as_uri())
    browser.find_element(By.LINK_TEXT, "Katana").click()
    _wait(browser, lambda d: d.current_url.endswith("/giochi/samurai-sword/carte/katana.html"))
    assert browser.find_element(By.TAG_NAME, "h1").text == "Katana"
    assert _images_loaded(browser) == [] and browser.execute_script(
        "return document.querySelector('.cartiera-carta img').naturalWidth"
    )
    results = _search(browser, "Stasi")
    assert any("regole.html" in (a.get_attribute("href") or "") for a in results)
    requests = browser.execute_script(
        "return performance.getEntriesByType('resource').map(e => e.name)"
    )
    assert [r for r in requests if not r.startswith(("file:", "data:", "blob:"))] == []


@pytest.mark.parametrize("page", [f"giochi/{slug}/tabella/" for slug in GAMES])
def test_table_pages_fit_a_phone(browser: Any, session_server: str, page: str) -> None:
    _phone(browser)
    browser.get(f"{session_server}/{page}")
    width = browser.execute_script("return document.documentElement.scrollWidth")
    assert width <= 390, (page, width)
    broken = browser.execute_script(
        "return [...document.querySelectorAll('table.cartiera-tabella td:nth-child(2) a')]"
        ".filter(a => a.getClientRects().length > 1).map(a => a.textContent)"
    )
    assert broken == [], broken  # no name cut over two lines ("Shog/un")
    box = browser.execute_script(
        "const s = getComputedStyle(document.querySelector('.cartiera-filtri select'));"
        "return [s.borderTopWidth, s.borderTopStyle]"
    )
    assert box[0] != "0px" and box[1] != "none"


def test_other_wide_pages_fit_a_phone(browser: Any, session_server: str) -> None:
    _phone(browser)
    for page in ("giochi/bless/regole/", "giochi/bldng/carte/", "giochi/bless/bilanciamento/"):
        browser.get(f"{session_server}/{page}")
        assert browser.execute_script("return document.documentElement.scrollWidth") <= 390, page


@pytest.mark.parametrize("width", [1280, 390])
def test_every_card_table_fits_a_desktop_window_and_no_mark_covers_a_label(
    browser: Any, session_server: str, width: int
) -> None:
    """At 1280 px every game's table fits its box: BLDNG's labels of several words wrap
    ("Tipo di / progetto"), and the sort marks sit in the labels' right padding, where beside
    the label they made Samurai Sword's eleven columns scroll sideways by 84 px. At either
    width no mark is drawn over its label (the phone's smaller padding must keep room)."""
    if width == 390:
        _phone(browser)
    for slug in GAMES:
        browser.get(f"{session_server}/giochi/{slug}/tabella/")
        overflow, covered = browser.execute_script(
            """const box = document.querySelector('.cartiera-scorri');
            const probe = document.createElement('span');
            const covered = [];
            for (const th of box.querySelectorAll('th[data-colonna]')) {
              const after = getComputedStyle(th, '::after');
              probe.textContent = after.content.replace(/"/g, '');
              probe.style.font = after.font;
              th.appendChild(probe);
              const mark = probe.getBoundingClientRect().width;
              probe.remove();
              const range = document.createRange();
              range.selectNodeContents(th);
              const label = range.getBoundingClientRect();
              const left = th.getBoundingClientRect().right - parseFloat(after.right) - mark;
              if (after.position !== 'absolute' || label.right > left + 0.5)
                covered.push(th.textContent);
            }
            return [box.scrollWidth - box.clientWidth, covered];"""
        )
        assert covered == [], (slug, width, covered)
        if width == 1280:
            assert overflow <= 0, slug


def _shown(browser: Any, field: str) -> list[str]:
    return browser.execute_script(
        "return [...document.querySelectorAll('#carte-bless tbody tr')]"
        f".filter(r => !r.hidden).map(r => r.dataset.{field})"
    )


def test_bless_table_filter_matches_sql_and_survives_a_reload(
    browser: Any, session_server: str, shared_project: Path
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    with sqlite3.connect(shared_project / "cards.db") as conn:
        expected = [
            row[0]
            for row in conn.execute(
                "select code from bless_cards where forma = 'Ombra' and occhio >= 5 order by number"
            )
        ]
    browser.get(f"{session_server}/giochi/bless/tabella/")
    number = browser.find_element(By.CSS_SELECTOR, "input[data-filtro='occhio'][data-tipo='min']")
    style = browser.execute_script(
        "const s = getComputedStyle(arguments[0]); return [s.borderTopWidth, s.borderTopStyle]",
        number,
    )
    assert style[0] != "0px" and style[1] == "solid"  # the boxes are visible
    Select(browser.find_element(By.CSS_SELECTOR, "select[data-filtro='forma']")).select_by_value(
        "Ombra"
    )
    number.send_keys("5")
    assert _shown(browser, "code") == expected and len(expected) > 3
    count = browser.find_element(By.CSS_SELECTOR, ".cartiera-conteggio").text
    assert count == f"{len(expected)} carte su 62"
    header = browser.find_element(By.CSS_SELECTOR, "th[data-colonna='occhio']")
    header.click()
    header.click()  # descending
    ordered = [int(v) for v in _shown(browser, "occhio")]
    assert ordered == sorted(ordered, reverse=True)
    order = _shown(browser, "code")
    assert "forma=Ombra" in browser.current_url and "ordine=-occhio" in browser.current_url
    browser.refresh()
    _wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".cartiera-conteggio").text)
    assert _shown(browser, "code") == order
    assert (
        browser.find_element(By.CSS_SELECTOR, "select[data-filtro='forma']").get_attribute("value")
        == "Ombra"
    )
    padding = browser.execute_script(
        "return getComputedStyle(document.querySelector('#carte-bless td')).paddingLeft"
    )
    assert padding != "0px"


def test_the_table_counter_follows_the_rows_after_a_bad_query(
    browser: Any, session_server: str
) -> None:
    """A query with no match, then a bad one: every row shows again, and so says the count."""
    from selenium.webdriver.common.by import By

    browser.get(f"{session_server}/giochi/bless/tabella/")
    field = browser.find_element(By.CSS_SELECTOR, ".cartiera-query input")
    counter = browser.find_element(By.CSS_SELECTOR, ".cartiera-conteggio")
    field.send_keys("occhio>=99")
    _wait(browser, lambda d: counter.text == "0 carte su 62")
    field.send_keys(" (")
    _wait(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".cartiera-query-invalid"))
    assert len(_shown(browser, "code")) == 62
    assert counter.text == "62 carte su 62"


def test_the_table_sorts_by_name_both_ways(browser: Any, session_server: str) -> None:
    from selenium.webdriver.common.by import By

    browser.get(f"{session_server}/giochi/bless/tabella/")
    header = browser.find_element(By.CSS_SELECTOR, "th[data-colonna='name']")
    header.click()
    names = _shown(browser, "name")
    italian = browser.execute_script(
        "return arguments[0].slice().sort((a, b) => a.localeCompare(b, 'it', "
        "{sensitivity: 'base', numeric: true}))",
        names,
    )
    assert names == italian and names[0] != names[-1]
    header.click()
    assert _shown(browser, "name") == italian[::-1]


@pytest.mark.parametrize("start", ["regole/", "glossario/"])
def test_a_rule_number_typed_in_the_search_jumps_to_it(
    browser: Any, session_server: str, start: str
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    browser.get(f"{session_server}/giochi/bless/{start}")
    field = browser.find_element(By.CSS_SELECTOR, "input.md-search__input")
    field.click()
    field.send_keys("4.1a")
    _wait(browser, lambda d: d.find_elements(By.ID, "cartiera-salto"))
    field.send_keys(Keys.ENTER)
    _wait(browser, lambda d: _place(d.current_url) == "/giochi/bless/regole/#r4.1a")
    paragraph = _wait(browser, lambda d: d.find_element(By.ID, "r4.1a"))
    top = browser.execute_script("return arguments[0].getBoundingClientRect().top", paragraph)
    assert 0 <= top < 400 and "4.1a" in paragraph.text


def test_a_glossary_term_shows_its_definition_on_hover(browser: Any, session_server: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    browser.get(f"{session_server}/giochi/bless/chiarimenti/")
    term = browser.find_element(By.CSS_SELECTOR, "a.cartiera-termine")
    ActionChains(browser).move_to_element(term).perform()
    tip = _wait(
        browser,
        lambda d: [t for t in d.find_elements(By.CSS_SELECTOR, ".md-tooltip2") if t.is_displayed()],
    )
    assert term.text in tip[0].text and len(tip[0].text) > len(term.text) + 20


def test_the_404_page_is_styled_wherever_it_is_served(browser: Any, session_site: Path) -> None:
    import functools
    import http.server
    import threading

    from pipeline.publish.site.pages import _Handler

    class Quiet(_Handler):
        def log_message(self, *args: object) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(session_site))
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as httpd:
        threading.Thread(target=httpd.serve_forever, daemon=True).start()
        base = f"http://127.0.0.1:{httpd.server_address[1]}"
        for missing in ("/non-esiste", "/giochi/bless/carte/nessuna/", "/a/b/c/d"):
            browser.get(base + missing)
            styled = browser.execute_script(
                "return getComputedStyle(document.querySelector('.md-header')).position"
            )
            home = browser.execute_script("return document.querySelector('a.md-logo').href")
            assert styled in ("sticky", "fixed") and home == base + "/", (missing, home)
        assert _search(browser, "Stasi")  # the search finds its index from there too
        httpd.shutdown()


def test_the_offline_404_page_is_styled_and_italian_from_file(
    browser: Any, session_offline_site: Path
) -> None:
    """Opened from file://, the page finds its styles and links beside it (not at /)."""
    browser.get((session_offline_site / "404.html").as_uri())
    styled = browser.execute_script(
        "return getComputedStyle(document.querySelector('.md-header')).position"
    )
    title = browser.execute_script("return document.querySelector('article h1').textContent")
    rules = browser.execute_script(
        "return [...document.querySelectorAll('article a')].map(a => a.href)"
    )
    assert styled in ("sticky", "fixed") and title == "Pagina non trovata"
    assert (session_offline_site / "giochi/bless/regole.html").as_uri() in rules


def test_no_english_interface_string_in_the_browser(browser: Any, session_server: str) -> None:
    from test_site import ENGLISH

    for page in ("/", "/giochi/bless/regole/", "/giochi/bless/carte/re-luce/"):
        browser.get(session_server + page)
        text = browser.execute_script(
            "return document.body.innerText + ' ' + [...document.querySelectorAll("
            "'[title],[aria-label],[placeholder]')].map(e => [e.title, e.ariaLabel, "
            "e.placeholder].join(' ')).join(' ')"
        )
        assert not ENGLISH.search(text), (page, ENGLISH.search(text))


def test_a_paragraph_link_can_be_copied(browser: Any, session_server: str) -> None:
    from selenium.webdriver.common.action_chains import ActionChains
    from selenium.webdriver.common.by import By

    browser.get(f"{session_server}/giochi/bless/regole/")
    paragraph = browser.find_element(By.ID, "r2.2a")
    button = paragraph.find_element(By.CSS_SELECTOR, "button.cartiera-copia")
    ActionChains(browser).move_to_element(paragraph).click(button).perform()
    _wait(browser, lambda d: "cartiera-copiato" in button.get_attribute("class"))
    assert button.get_attribute("title") == "Link copiato"
