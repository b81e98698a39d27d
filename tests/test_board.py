"""The step-through board (pipeline/publish/board.py, templates/board/): frames that say what the
engine's states say, `cartiera replay FILE --html OUT` for every game, and the viewer in a
real headless Chromium on the site and from file:// with the network cut."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import invoke

from pipeline.common.project import open_project
from pipeline.play.examples import SCENARIO_ERRORS, Move, example_names, examples_dir, load_scenario
from pipeline.play.records import load_rules
from pipeline.publish import board

GAMES = ("bless", "blitz", "samurai-sword", "mazzo", "bldng")
DATA = re.compile(r'data-tavolo="([^"]*)"')


def engine_views(project: Any, slug: str, name: str) -> list[dict[str, Any]]:
    """The engine's view after the placing and after each move of a scenario, played here
    without pipeline.publish.board: what every frame must show."""
    rules = load_rules(project, slug)
    scenario, _ = load_scenario(examples_dir(project, slug) / f"{name}.yaml", project, slug)
    players = scenario.players or rules.info.min_players
    state = rules.setup(scenario.position.model_dump(exclude_unset=True), players, scenario.options)
    views = [rules.view(state)]
    for step in scenario.steps:
        if not isinstance(step, Move):
            continue
        try:
            action = rules.parse_action(state, step.play)
        except SCENARIO_ERRORS:
            continue
        if action in state.legal_actions():
            state.apply(action)
            views.append(rules.view(state))
    return [{"turn": v.turn, "seats": v.seats, "piles": v.piles} for v in views]


def decoded(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The board's frames as the viewer reads them: deltas carried forward, card indices
    back to codes."""
    codes = [card[0] for card in data["carte"]]
    kinds = data["chiavi"]
    out: list[dict[str, Any]] = []
    seats: list[dict[str, Any]] = []
    piles: dict[str, Any] = {}
    for frame in data["passi"]:
        seats = [{**(seats[i] if seats else {}), **seat} for i, seat in enumerate(frame["posti"])]
        piles = {**piles, **frame["pile"]}

        def code(key: str, value: Any) -> Any:
            if kinds[key] == "zona":
                return [codes[i] for i in value]
            if kinds[key] == "carta":
                return None if value is None else codes[value]
            return value

        out.append(
            {
                "turn": frame["turno"],
                "seats": [{k: code(k, v) for k, v in s.items()} for s in seats],
                "piles": {k: [codes[i] for i in v] for k, v in piles.items()},
            }
        )
    return out


@pytest.fixture(scope="module")
def here() -> Any:
    return open_project(Path(__file__).resolve().parents[1])


@pytest.mark.parametrize("slug", GAMES)
def test_every_example_frame_is_the_engine_state(here: Any, slug: str) -> None:
    rules = load_rules(here, slug)
    names = example_names(here, slug)
    assert names
    for name in names:
        made = board.example_board(here, slug, name, rules)
        data = made.data(board.labels(here, slug))
        assert decoded(data) == engine_views(here, slug, name), name
        # the narration of the steps, in order, is the example's whole narration
        assert len(data["passi"]) == len(made.frames) >= 1
        assert all(frame["testo"] for frame in made.frames[1:]), name


def test_changes_mark_the_cards_that_arrived(here: Any) -> None:
    """In every BLDNG example, the highlighted cards of a zone are those it gained, and
    the changed keys are those whose value changed."""
    from collections import Counter

    rules = load_rules(here, "bldng")
    gained = 0
    for name in example_names(here, "bldng"):
        made = board.example_board(here, "bldng", name, rules)
        views = engine_views(here, "bldng", name)
        codes = [card[0] for card in made.cards]
        for before, now, frame in zip(views, views[1:], made.frames[1:], strict=False):
            for number, (old, new) in enumerate(zip(before["seats"], now["seats"], strict=True), 1):
                for key, value in new.items():
                    assert (f"{number}.{key}" in frame["cambi"]) == (old[key] != value)
                    if isinstance(value, list):
                        arrived = Counter(value) - Counter(old[key])
                        marked = frame["nuove"].get(f"{number}.{key}", [])
                        zone = frame["posti"][number - 1][key]
                        assert Counter(codes[zone[i]] for i in marked) == arrived
                        gained += len(marked)
            assert frame["chi"] is not None
    assert gained > 0


@pytest.mark.parametrize("slug", GAMES)
def test_the_site_offers_a_whole_sample_game(here: Any, tmp_path: Path, slug: str) -> None:
    from pipeline.database.catalog import read_game
    from pipeline.database.connection import open_project_db

    with open_project_db(here) as db:
        game = read_game(db, slug)
    page = board.sample_page(here, game, tmp_path)
    assert page is not None and page.startswith("---\ntitle: ")
    assert "search:\n  exclude: true\n---" in page  # the search index serves the rules
    found = [json.loads(html.unescape(data)) for data in DATA.findall(page)]
    # one whole game at every table size the game allows, in order
    assert [data["giocatori"] for data in found] == list(
        range(game.players_min, game.players_max + 1)
    )
    for data in found:
        assert len(data["passi"]) > board.SAMPLE_MIN_STEPS and data["passi"][-1]["fine"]
        # the whole game stays on the page as text, one numbered line per step
        assert f"## A {data['giocatori']} giocatori" in page
        assert f"\n{len(data['passi']) - 1}. " in page


def test_mazzo_shows_the_duel_cards_on_the_table(here: Any) -> None:
    """Rule 3: the attacker's card lies face down until the clash, and a «non ce l'ho» puts
    the defender's face down beside it; the board shows both, as backs unless asked."""
    views = engine_views(here, "mazzo", "03-bluff-dubitato")
    played = [[seat["played"] for seat in view["seats"]] for view in views]
    assert played[:3] == [[[], []], [["strega"], []], [["strega"], ["corriere"]]]
    assert played[3] == [[], []]  # the doubt turns both and takes them off the table
    assert "played" in board.labels(here, "mazzo")["hidden"]


@pytest.mark.parametrize("slug", GAMES)
def test_every_view_key_has_an_italian_label(here: Any, slug: str) -> None:
    rules = load_rules(here, slug)
    view = rules.view(rules.new_game(1))
    words = board.labels(here, slug)["labels"]
    keys = {k for seat in view.seats for k in seat} | set(view.piles)
    assert keys <= set(words), sorted(keys - set(words))
    hidden = board.labels(here, slug)["hidden"]
    assert "pile:draw" in hidden


@pytest.mark.parametrize("slug", GAMES)
def test_replay_html_steps_through_a_whole_game(shared_project: Path, tmp_path: Path, slug: str):
    recorded, page = tmp_path / "partita.json", tmp_path / "partita.html"
    run = invoke(shared_project, "record", slug, "--out", str(recorded), "--seed", "5")
    assert run.exit_code == 0, run.output
    run = invoke(shared_project, "replay", str(recorded), "--html", str(page))
    assert run.exit_code == 0, run.output
    text = page.read_text(encoding="utf-8")
    data = json.loads(html.unescape(DATA.search(text)[1]))
    actions = len(json.loads(recorded.read_text())["actions"])
    assert len(data["passi"]) == actions + 1
    assert data["passi"][-1]["fine"] is True
    assert all(card[2].startswith("data:image/webp;base64,") for card in data["carte"])
    assert not re.search(r"(src|href)=\"(https?:)?//", text)  # nothing fetched
    assert "<script src" not in text and "<link" not in text
    assert not list(tmp_path.glob("*.tmp"))  # written beside, renamed into place


def test_replay_html_bad_input_is_one_line(shared_project: Path, tmp_path: Path) -> None:
    page = tmp_path / "out.html"
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": 2, "game": "bless"}', encoding="utf-8")
    for args, code in (
        ((str(tmp_path / "missing.json"), "--html", str(page)), (1, 2)),
        ((str(bad), "--html", str(page)), (1,)),
        ((str(bad), "--html", str(tmp_path / "no" / "out.html")), (2,)),
    ):
        run = invoke(shared_project, "replay", *args)
        assert run.exit_code in code, run.output
        assert "Traceback" not in run.output
        assert len(run.output.strip().splitlines()) <= 2, run.output
    assert not page.exists()


# -- in a real browser -----------------------------------------------------------------


def _shown(driver: Any, dom_id: str) -> dict[str, Any]:
    """What the viewer draws now: each zone's cards and each pile's count and top card."""
    return driver.execute_script(
        """
        const root = document.getElementById(arguments[0]);
        const out = {step: +root.getAttribute('data-mostrato'), zones: {}, piles: {}};
        root.querySelectorAll('[data-zona]').forEach(z => {
          out.zones[z.getAttribute('data-zona')] = Array.from(
            z.querySelectorAll('.ct-carta')).map(c => c.getAttribute('data-codice'));
        });
        root.querySelectorAll('[data-pila]').forEach(p => {
          const top = p.querySelector('.ct-carta[data-codice]');
          out.piles[p.getAttribute('data-pila')] = [+p.getAttribute('data-n'),
            top ? top.getAttribute('data-codice') : null];
        });
        return out;
        """,
        dom_id,
    )


def _expected(view: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
    zones: dict[str, Any] = {}
    for number, seat in enumerate(view["seats"], 1):
        for key, value in seat.items():
            if isinstance(value, list):
                zones[f"{number}.{key}"] = value
            elif isinstance(value, str):
                zones[f"{number}.{key}"] = [value]
            elif value is None:
                zones[f"{number}.{key}"] = []
    piles = {}
    for key, cards in view["piles"].items():
        top = None if not cards else cards[0] if key in ("draw", "projects") else cards[-1]
        piles[key] = [len(cards), top]
    return zones, piles


@pytest.mark.slow
@pytest.mark.parametrize("slug", GAMES)
def test_the_browser_steps_through_an_example(
    shared_project: Path, session_server: str, session_browser: Any, tmp_path: Path, slug: str
) -> None:
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    project = open_project(shared_project)
    name = example_names(project, slug)[0]
    views = engine_views(project, slug, name)
    driver = session_browser
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    driver.get(f"{session_server}/giochi/{slug}/esempi/")
    dom_id = f"tavolo-{name}"
    root = driver.find_element(By.ID, dom_id)
    assert root.get_attribute("data-pronto") == "1", root.get_attribute("data-errore")
    counters = driver.execute_script(
        "return window.cartieraTavoli.map(b => [b.data.passi.length - 1,"
        " b.root.querySelector('.ct-contatore').textContent])"
    )  # every board of the page at its start: "1 passo", not "1 passi"
    assert counters and all(
        text == f"Inizio ({steps} {'passo' if steps == 1 else 'passi'})" for steps, text in counters
    ), counters
    root.find_element(By.CSS_SELECTOR, ".ct-coperte input").click()  # show hidden cards
    for step, view in enumerate(views):
        shown = _shown(driver, dom_id)
        zones, piles = _expected(view)
        assert shown["step"] == step
        for zone, cards in zones.items():
            # an attribute that never holds a card (BLDNG keep) reads as a value
            assert sorted(shown["zones"].get(zone, [])) == sorted(cards), (step, zone)
        assert shown["piles"] == piles, step
        if step < len(views) - 1:
            root.find_element(By.CSS_SELECTOR, ".ct-succ").click()
    assert root.find_element(By.CSS_SELECTOR, ".ct-succ").get_attribute("disabled")
    # the arrow keys and the step links move too; hidden cards are backs again
    root.find_element(By.CSS_SELECTOR, ".ct-coperte input").click()
    root.send_keys(Keys.ARROW_LEFT)
    assert _shown(driver, dom_id)["step"] == len(views) - 2
    hand = next(k for k in _shown(driver, dom_id)["zones"] if k.endswith((".hand", ".project")))
    assert set(_shown(driver, dom_id)["zones"][hand]) <= {""}
    driver.get(f"{session_server}/giochi/{slug}/esempi/#{dom_id}-passo-1")
    assert _shown(driver, dom_id)["step"] == 1
    images = driver.execute_script(
        "return Array.from(document.querySelectorAll('#' + arguments[0] + ' img'))"
        ".map(i => i.complete && i.naturalWidth > 0)",
        dom_id,
    )
    assert images and all(images)
    for width, height, mobile in ((1280, 1000, False), (390, 844, True)):
        driver.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile},
        )
        driver.execute_script("document.getElementById(arguments[0]).scrollIntoView()", dom_id)
        overflow = driver.execute_script(
            "return document.getElementById(arguments[0]).scrollWidth"
            " - document.getElementById(arguments[0]).clientWidth",
            dom_id,
        )
        assert overflow <= 1, (width, overflow)  # nothing runs off the board's edge
        shot = tmp_path / f"{slug}-{width}.png"
        driver.save_screenshot(str(shot))
        assert shot.stat().st_size > 10_000
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})


@pytest.mark.slow
def test_no_card_leaves_its_zone_in_a_sample_game(
    session_server: str, session_browser: Any
) -> None:
    """Whole sample games have the longest rows (BLDNG's cantiere overlaps its cards and
    wraps): in every game of the page, at every step, at 1280 and 390 px, every card lies
    inside the box of its zone."""
    from selenium.webdriver.common.by import By

    driver = session_browser
    outside = {}
    for slug in GAMES:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        driver.get(f"{session_server}/giochi/{slug}/partita/")
        root = driver.find_element(By.CSS_SELECTOR, ".cartiera-tavolo[data-tavolo]")
        assert root.get_attribute("data-pronto") == "1", root.get_attribute("data-errore")
        for width, mobile in ((1280, False), (390, True)):
            driver.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": mobile},
            )
            found = driver.execute_script(
                """
                const out = [];
                let cards = 0;
                for (const board of window.cartieraTavoli)
                for (let step = 0; step < board.data.passi.length; step++) {
                  board.show(step);
                  board.root.querySelectorAll('[data-zona]').forEach(z => {
                    const box = z.getBoundingClientRect();
                    z.querySelectorAll('.ct-carta').forEach(c => {
                      const r = c.getBoundingClientRect();
                      cards++;
                      if (r.left < box.left - 1 || r.right > box.right + 1)
                        out.push(board.prefix + ' ' + step + ' ' + z.getAttribute('data-zona'));
                    });
                  });
                }
                return [cards, out.slice(0, 5)];
                """
            )
            assert found[0] > 0, slug  # the check saw cards
            if found[1]:
                outside[(slug, width)] = found[1]
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert not outside, outside


@pytest.mark.slow
def test_a_step_redraws_only_what_it_changed(session_server: str, session_browser: Any) -> None:
    """Stepping keeps the nodes of the seats and piles a step left as they were (the
    browser lays out only the rest again: Samurai Sword's seven-seat game steps 1.6 times
    faster), and the table drawn that way is the one drawn from nothing at every step:
    forwards, backwards, jumping, with the covered cards shown or not."""
    driver = session_browser
    driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    driver.get(f"{session_server}/giochi/samurai-sword/partita/")
    kept, seats, differ = driver.execute_script(
        """
        const board = window.cartieraTavoli[window.cartieraTavoli.length - 1];
        const n = board.data.passi.length, steps = [...Array(n).keys()];
        const order = [...steps, ...steps.reverse(), 0, n - 1, Math.floor(n / 2), 1];
        let kept = 0, seats = 0;
        const differ = [];
        order.forEach((step, i) => {
          board.reveal = i >= n;  // the way back with the covered cards shown
          const before = [...board.seats.children];
          board.show(step);
          const drawn = board.table.innerHTML;
          [...board.seats.children].forEach((node, at) => {
            seats++;
            if (node === before[at]) kept++;
          });
          board.drawn = {};
          board.show(step);  // from nothing
          if (board.table.innerHTML !== drawn) differ.push(step);
        });
        return [kept, seats, differ];
        """
    )
    assert differ == []
    # 577 of 973 stepping forwards: a seat is drawn again when its step changes it, or
    # the step before did (its marks go); drawing every seat at every step kept none
    assert kept > seats / 3, (kept, seats)


@pytest.mark.slow
def test_the_replay_page_works_offline_from_a_file(
    shared_project: Path, session_browser: Any, tmp_path: Path
) -> None:
    from selenium.webdriver.common.by import By

    recorded, page = tmp_path / "partita.json", tmp_path / "partita.html"
    assert invoke(shared_project, "record", "mazzo", "--out", str(recorded)).exit_code == 0
    assert invoke(shared_project, "replay", str(recorded), "--html", str(page)).exit_code == 0
    driver = session_browser
    driver.execute_cdp_cmd("Network.enable", {})
    driver.execute_cdp_cmd(
        "Network.emulateNetworkConditions",
        {"offline": True, "latency": 0, "downloadThroughput": 0, "uploadThroughput": 0},
    )
    try:
        driver.get(page.as_uri())
        root = driver.find_element(By.ID, "tavolo")
        total = len(json.loads(root.get_attribute("data-tavolo"))["passi"])
        for _ in range(total - 1):
            root.find_element(By.CSS_SELECTOR, ".ct-succ").click()
        assert _shown(driver, "tavolo")["step"] == total - 1
        assert "Partita finita" in root.text
        assert driver.execute_script("return location.hash") == f"#passo-{total - 1}"
    finally:
        driver.execute_cdp_cmd(
            "Network.emulateNetworkConditions",
            {"offline": False, "latency": 0, "downloadThroughput": -1, "uploadThroughput": -1},
        )
