"""The query box on the real site, in Chromium: the table, the gallery and the home page
find what the SQL finds, keep the query in the URL, show errors inline, and the filters
write queries."""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from test_search import RUN_ALL, VECTORS

TABLE_ROWS = """return [...document.querySelectorAll('#carte-' + arguments[0] + ' tbody tr')]
  .filter(r => !r.hidden).map(r => r.dataset.code)"""


def _wait(driver: Any, condition: Any, timeout: float = 15) -> Any:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(condition)


def _sql(project: Path, query: str) -> list[str]:
    with sqlite3.connect(project / "cards.db") as conn:
        return [code for (code,) in conn.execute(query)]


SEARCH_OPEN = "return document.querySelector('[data-md-toggle=search]').checked"


def test_vectors_on_the_real_page(session_server: str, session_browser: Any) -> None:
    session_browser.get(f"{session_server}/giochi/bless/tabella/")
    _wait(session_browser, lambda d: d.execute_script("return !!window.CARTIERA_INDEX"))
    session_browser.execute_script("window.ENGINE = new CartieraQuery.Engine(CARTIERA_INDEX)")
    got = session_browser.execute_script(RUN_ALL, [[v["query"], v["game"]] for v in VECTORS])
    for vector, found in zip(VECTORS, got, strict=True):
        assert found == (vector.get("error") or vector["cards"]), vector["query"]


def test_the_table_takes_a_query_from_the_url(
    session_server: str, session_browser: Any, shared_project: Path
) -> None:
    query = "forma:ombra occhio>=5 preghiera:legame"
    session_browser.get(f"{session_server}/giochi/bless/tabella/?cerca={quote(query)}")
    want = _sql(
        shared_project,
        "select code from bless_cards where forma = 'Ombra' and occhio >= 5 "
        "and preghiera = 'Legame' order by number",
    )
    assert want
    _wait(session_browser, lambda d: d.execute_script(TABLE_ROWS, "bless") == want)
    box = session_browser.find_element("css selector", ".cartiera-query-input")
    assert box.get_attribute("value") == query
    # the table, not Material's search over it: with the query in ?q=, which Material reads
    # too, a link to a selection opened the site search, greyed the page and hid the table
    assert session_browser.execute_script(SEARCH_OPEN) is False


def test_a_bad_query_is_shown_inline_in_italian(session_server: str, session_browser: Any) -> None:
    session_browser.get(f"{session_server}/giochi/bless/tabella/")
    box = _wait(session_browser, lambda d: d.find_element("css selector", ".cartiera-query-input"))
    before = session_browser.execute_script(TABLE_ROWS, "bless")
    box.send_keys("forma:ombra ochio>=5")
    error = _wait(
        session_browser,
        lambda d: d.find_element("css selector", ".cartiera-query-error").text or None,
    )
    assert error.startswith("Colonna 13:") and "attributo" in error
    assert session_browser.execute_script(TABLE_ROWS, "bless") == before
    assert "cerca=forma" in session_browser.current_url


def test_the_filters_write_a_query(
    session_server: str, session_browser: Any, shared_project: Path
) -> None:
    from selenium.webdriver.support.ui import Select

    session_browser.get(f"{session_server}/giochi/samurai-sword/tabella/")
    kind = _wait(
        session_browser,
        lambda d: d.find_element("css selector", '.cartiera-filtri select[data-filtro="kind"]'),
    )
    Select(kind).select_by_value("arma")
    box = session_browser.find_element("css selector", ".cartiera-query-input")
    _wait(session_browser, lambda d: box.get_attribute("value") == "tipo:arma")
    want = _sql(
        shared_project,
        "select code from samurai_sword_cards where kind = 'arma' order by number",
    )
    _wait(session_browser, lambda d: d.execute_script(TABLE_ROWS, "samurai-sword") == want)


def test_the_gallery_and_the_home_page_search(
    session_server: str, session_browser: Any, shared_project: Path
) -> None:
    session_browser.get(
        f"{session_server}/giochi/bldng/carte/?cerca={quote('tipo:jolly colore:rosso')}"
    )
    want = _sql(
        shared_project,
        "select code from bldng_cards where kind = 'jolly' and "
        "(', ' || colore || ', ') like '%, Rosso, %' order by number",
    )
    shown = """return [...document.querySelectorAll('.cartiera-galleria li[data-code]')]
      .filter(li => !li.hidden).map(li => li.dataset.code)"""
    _wait(session_browser, lambda d: sorted(d.execute_script(shown)) == sorted(want))
    session_browser.get(f"{session_server}/?cerca={quote('gioco:samurai-sword katana')}")
    link = _wait(
        session_browser,
        lambda d: d.find_element("css selector", ".cartiera-query-risultati a"),
    )
    assert link.text == "Katana"
    assert session_browser.execute_script(SEARCH_OPEN) is False
    session_browser.get(link.get_attribute("href"))  # where the link leads
    _wait(session_browser, lambda d: "/giochi/samurai-sword/carte/katana/" in d.current_url)
    assert "Katana" in session_browser.find_element("tag name", "h1").text


@pytest.mark.parametrize(
    ("page", "query"), [("giochi/mazzo/tabella.html", "forza>=5"), ("index.html", "copie>1")]
)
def test_the_query_box_works_offline(
    session_offline_site: Path, session_browser: Any, page: str, query: str
) -> None:
    session_browser.get((session_offline_site / page).as_uri() + "?cerca=" + quote(query))
    _wait(session_browser, lambda d: d.execute_script("return !!window.CARTIERA_INDEX"))
    count = (
        "return document.querySelectorAll('.cartiera-query-risultati li, "
        "tbody tr:not([hidden])').length"
    )
    # the Mazzo table hides the cards without Forza 5 or more; the home page lists results
    _wait(session_browser, lambda d: 0 < d.execute_script(count) < 33 or page == "index.html")
    assert session_browser.execute_script(count) > 0
    if page == "index.html":  # a result leads to the card's page of the offline variant
        href = session_browser.find_element("css selector", ".cartiera-query-risultati a")
        target = Path(href.get_attribute("href").removeprefix("file://"))
        assert target.exists() and target.suffix == ".html"
