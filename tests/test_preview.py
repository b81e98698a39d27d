"""`cartiera preview` in a real Chromium: the page follows edits of cards.yaml by itself,
re-rendering only what changed, and shows a broken file's error instead of dying."""

from __future__ import annotations

import json
import socket
import subprocess
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from conftest import CARTIERA, checkout_env, edit

from pipeline.commands import preview as preview_module
from pipeline.commands.preview import Preview, make_server
from pipeline.common.project import open_project

CARDS = Path("games") / "mazzo" / "cards.yaml"
# How long a wait may take before the test fails as hung: not a speed requirement (the
# machine may be busy with the rest of the suite), only a bound on a wait that never ends.
HANG = 120
CAPTIONS = "return [...document.querySelectorAll('figcaption')].map(c => c.textContent).join('\\n')"


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def preview_url(project: Path) -> Iterator[str]:
    port = _free_port()
    server = subprocess.Popen(
        [*CARTIERA, "--project", str(project), "preview", "mazzo", "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=checkout_env(),
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}/"
    deadline = time.monotonic() + HANG
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url + "state.json", timeout=1).read()
            break
        except OSError:
            if server.poll() is not None:
                pytest.fail(server.stdout.read() if server.stdout else "preview ended")
            time.sleep(0.3)
    yield url
    server.terminate()
    server.wait(timeout=10)


def _wait(driver: object, condition: object, timeout: float) -> object:
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout, poll_frequency=0.1).until(condition)


@pytest.fixture
def driver(preview_url: str, session_browser: object) -> Iterator[object]:
    """The session's browser, left on a blank page after the test: the preview page polls
    its server, which stops then, and would fill the console of the next test's page."""
    yield session_browser
    session_browser.get("about:blank")  # type: ignore[attr-defined]


def test_the_page_follows_an_edit_and_shows_a_broken_file(
    project: Path, preview_url: str, driver: object
) -> None:
    from selenium.webdriver.common.by import By

    driver.get(preview_url)  # type: ignore[attr-defined]
    _wait(driver, lambda d: d.find_elements(By.CSS_SELECTOR, "figure img"), HANG)
    assert "Spia · fronte" in driver.execute_script(CAPTIONS)  # type: ignore[attr-defined]
    width = driver.execute_script(  # type: ignore[attr-defined]
        "return document.querySelector('.card').getBoundingClientRect().width"
    )
    assert abs(width - (63.5 + 6) * 96 / 25.4) < 2  # poker card plus bleed, at true size
    images = driver.execute_script(  # type: ignore[attr-defined]
        "return [...document.images].filter(i => i.complete && i.naturalWidth > 0).length"
    )
    assert images > 0
    driver.execute_script("window.sameDocument = true")  # type: ignore[attr-defined]
    edit(project / CARDS, "name: Spia", "name: Spia Segreta")
    # The page follows the edit by itself: no reload, the same document. How soon is the
    # long poll's doing, checked without a clock below; HANG only stops a test that hangs.
    _wait(driver, lambda d: "Spia Segreta · fronte" in d.execute_script(CAPTIONS), HANG)
    assert driver.execute_script("return window.sameDocument === true")  # type: ignore[attr-defined]
    (project / CARDS).write_text("cards: [\n  - {number: 1\n", encoding="utf-8")
    alert = _wait(
        driver,
        lambda d: d.execute_script("return document.getElementById('problems').textContent"),
        HANG,
    )
    assert "games/mazzo/cards.yaml" in str(alert)
    assert "error" in str(alert)


def test_only_the_changed_faces_are_laid_out_again(project: Path, own_cache: None) -> None:
    """On BLITZ, the deck with the fewest faces: the cache is empty at the start."""
    preview = Preview(open_project(project), "blitz")
    preview.refresh()
    faces = {f["digest"] for f in preview.state()["faces"]}
    assert len(faces) > 10
    start = preview.rendered
    edit(project / "games/blitz/cards.yaml", "name: Fuoco", "name: Fuoco Vivo")
    preview.refresh()
    assert preview.rendered - start == 1  # the one front that changed
    assert preview.image(preview.state()["faces"][0]["digest"]) is not None


def test_a_page_waiting_for_the_next_state_gets_it_as_soon_as_it_is_rendered(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's request for a state newer than the one it shows is held until a new
    rendering exists (a long poll), instead of answering at once and leaving the page to
    ask again after a polling period. The server would hold it for longer than HANG: an
    answer within HANG is the new rendering waking it, however busy the machine."""
    monkeypatch.setattr(preview_module, "WAIT_S", 10 * HANG)
    preview = Preview(open_project(project), "mazzo")
    shown = preview.refresh().version
    server = make_server(preview, 0)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/state.json?after={shown}"
    answers: list[dict] = []
    waiting = threading.Thread(
        target=lambda: answers.append(json.load(urllib.request.urlopen(url, timeout=HANG)))
    )
    try:
        waiting.start()
        waiting.join(0.5)
        assert not answers  # nothing newer yet: the request is held
        edit(project / CARDS, "name: Spia", "name: Spia Segreta")
        preview.refresh()
        waiting.join(HANG)
    finally:
        server.shutdown()
        server.server_close()
    assert [a["version"] for a in answers] == [shown + 1]
    assert "Spia Segreta" in {face["name"] for face in answers[0]["faces"]}
