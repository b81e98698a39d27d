"""The Bilanciamento pages (pipeline/publish/site/balance.py, templates/site/balance.md.j2): every
player count a game allows, the numbers of the report they were made from, outlier cards
linked to their pages, the agents' strength, when and for which cards and engine; a report
made by `cartiera balance --out` is published as it is, with a warning once it is stale."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from pipeline.common.project import open_project
from pipeline.publish.site.balance import read_report

SLUGS = ["bldng", "bless", "blitz", "mazzo", "samurai-sword"]
MONTHS = "gennaio febbraio marzo aprile maggio giugno luglio agosto settembre ottobre novembre "
MONTHS += "dicembre"


def _rate(cell: dict[str, Any]) -> str:
    """A rate as the page must write it, spelled out here rather than imported: "n = 100"
    with no-break spaces, which a phone's narrow column broke between "n" and "= 100"."""
    text = f"{cell['rate'] * 100:.1f}% ({cell['low'] * 100:.1f}–{cell['high'] * 100:.1f}%, "
    return (text + f"n\u00a0=\u00a0{cell['n']})").replace(".", ",")


def _sections(page: str) -> dict[str, str]:
    """The page's h2 sections by heading text, as plain text plus their links."""
    parts = re.split(r"<h2[^>]*>", page)[1:]
    found = {}
    for part in parts:
        heading, _, body = part.partition("</h2>")
        heading = re.sub(r'<a class="headerlink".*?</a>', "", heading)
        found[html.unescape(re.sub(r"<[^>]+>", "", heading)).strip()] = body
    return found


def _text(fragment: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", fragment))


def _players(project: Path, slug: str) -> list[int]:
    game = yaml.safe_load((project / "games" / slug / "game.yaml").read_text("utf-8"))
    return list(range(game["players"]["min"], game["players"]["max"] + 1))


@pytest.mark.parametrize("slug", SLUGS)
def test_the_page_shows_every_player_count_with_the_reports_numbers(
    slug: str, session_site: Path, shared_project: Path
) -> None:
    figures = json.loads((shared_project / f"build/balance/{slug}/figures.json").read_text())
    report = figures["report"]
    page = (session_site / f"giochi/{slug}/bilanciamento/index.html").read_text("utf-8")
    sections = _sections(page)
    counts = {c["players"]: c for c in report["counts"]}
    assert sorted(counts) == _players(shared_project, slug)  # every count, not the fewest
    for players, count in counts.items():
        body = sections[f"{players} giocatori"]
        text = _text(body)
        sim = count["simulation"]
        assert f"{sim['games']} partite" in text
        if len(sim["teams"]) >= len(sim["seats"]):  # each team one seat: the seats' table again
            assert f"Vittorie per squadra, {players} giocatori" not in text, players
        for cell in sim["seats"]:
            assert _rate(cell) in text, (players, _rate(cell))
        # every figure the report marks is on the page; a card's links to its page
        links = _links(_cards(shared_project, slug))
        for flag in count["flags"]:
            assert _rate(flag) in text, flag
            code = links.get(flag["figure"].partition(": ")[2].casefold())
            if code is not None:
                assert f'carte/{code}/"' in body, code
        # Italian numbers: a decimal comma everywhere (BLDNG's and BLITZ's table titles
        # said "(50.0%)" and "media 32.87"), and the floats of a column with the decimals of
        # its most precise one ("0,70" beside "1,25", "-14,0" not "-14,00")
        assert not re.search(r"\d\.\d", text), re.findall(r".{30}\d\.\d.{8}", text)
        cells = {_text(c).strip() for c in re.findall(r"<td[^>]*>(.*?)</td>", body, re.S)}
        for table in sim["tables"]:
            for column in list(zip(*table["rows"], strict=True))[1:]:
                floats = [v for v in column if isinstance(v, float)]
                shown = [len(repr(v).partition(".")[2].rstrip("0")) for v in floats]
                places = min(2, max(shown, default=0))
                for value in floats:
                    assert f"{value:.{places}f}".replace(".", ",") in cells, (table["key"], value)
                # a share worked out, not counted, is a percentage like the rates beside it
                for value in (v["share"] for v in column if isinstance(v, dict) and "share" in v):
                    assert f"{100 * value:.1f}%".replace(".", ",") in cells, (table["key"], value)
        # each table's heading names the count after its title, without a second pair of
        # brackets: "… media di tutti i giocatori (50,0%) (2 giocatori)" read as a slip
        headings = [
            _text(re.sub(r'<a class="headerlink".*?</a>', "", h)).strip()
            for h in re.findall(r"<h3[^>]*>(.*?)</h3>", body, re.S)
        ]
        assert headings and all(h.endswith(f", {players} giocatori") for h in headings), headings
        assert not any(") (" in h for h in headings), headings
        # the command that plays them again stands on its own line, whole
        command = re.search(r'<pre class="cartiera-comando"><code>(cartiera balance [^<]*)</', body)
        assert command and f" --players {players} " in command.group(1)
        charts = re.findall(r'<img src="([^"]+\.svg)"', body)
        assert charts and all(c.rpartition("/")[2].startswith(f"{players}-") for c in charts)
    intro = _text(page.split("<h2", 1)[0])
    # the build's own figures carry no date: the same sources give the same page any day
    assert "made" not in report and "quando il sito è stato costruito" in intro
    assert not re.search(rf"\b\d+ ({'|'.join(MONTHS.split())}) 20\d\d\b", intro)
    assert report["cards"][:12] in intro and report["engine"][:12] in intro
    assert "Cifre da rifare" not in page  # the build's own run is always current
    strength = _text(sections["Forza dei giocatori simulati"])
    for row in figures["strength"]:
        assert row["agent"] in strength and _rate(row["rate"]) in strength
    if figures["agent"] != "random":
        assert f"{figures['agent']} (usato qui)" in strength


def _cards(project: Path, slug: str) -> list[dict[str, Any]]:
    data = yaml.safe_load((project / "games" / slug / "cards.yaml").read_text("utf-8"))
    return [{"code": c["id"], "name": c["name"]} for c in data["cards"]]


def _links(cards: list[dict[str, Any]]) -> dict[str, str]:
    """A row label -> the code of the card whose page it links to: its code, or its name
    when no other card has that name."""
    names = [c["name"].casefold() for c in cards]
    found = {n: c["code"] for n, c in zip(names, cards, strict=True) if names.count(n) == 1}
    return found | {c["code"]: c["code"] for c in cards}


@pytest.fixture(scope="module")
def own(built_copy: Any) -> Path:
    return built_copy("site-balance")


def _page(project: Path, slug: str, warnings: list[str]) -> str:
    from pipeline.publish.site.pages import generate

    generate(open_project(project), with_images=False, warn=warnings.append)
    return (project / f"site/giochi/{slug}/bilanciamento.md").read_text("utf-8")


def test_a_report_file_is_published_and_flagged_when_stale(cli: Any, own: Path) -> None:
    path = own / "games/mazzo/balance.json"
    run = cli(own, "balance", "mazzo", "--games", "12", "--agents", "bluffer", "--out", str(path))
    assert run.exit_code == 0, run.output
    data = json.loads(path.read_text("utf-8"))
    assert data["game"] == "mazzo" and data["made"] and len(data["engine"]) == 64
    warnings: list[str] = []
    page = _page(own, "mazzo", warnings)
    assert not warnings, warnings
    assert "salvato in `games/mazzo/balance.json`" in page
    made = data["made"]  # a report file says when it was made
    assert f"{int(made[8:10])} {MONTHS.split()[int(made[5:7]) - 1]} {made[:4]}" in page
    (count,) = data["counts"]
    for cell in count["simulation"]["seats"]:
        assert _rate(cell) in page
    assert "12 partite con 2 giocatori" in page and "Cifre da rifare" not in page
    # games a safeguard cut short are counted in words that agree with their number: the
    # BLITZ page said "1 partite interrotte" at four and five players
    played = dict(count["simulation"])
    for stopped, words in (
        (1, "1 partita interrotta da un limite del motore: non conta né come vittoria né"),
        (2, "2 partite interrotte da un limite del motore: non contano né come vittorie né"),
    ):
        count["simulation"]["stopped"] = stopped
        path.write_text(json.dumps(data), "utf-8")
        assert words in " ".join(_page(own, "mazzo", warnings).split())
    count["simulation"] = played
    # a report made for other cards: published, with a warning that says what changed
    data["cards"] = "0" * 64
    path.write_text(json.dumps(data), "utf-8")
    page = _page(own, "mazzo", warnings)
    assert "Cifre da rifare" in page and "le carte" in page
    assert "il motore delle regole" not in page.split("Cifre da rifare")[1].split("\n\n")[1]
    assert _rate(count["simulation"]["seats"][0]) in page
    # a broken one: one warning line, and the build plays its own games
    path.write_text('{"game": "mazzo", "counts": [{"players": 2}]', "utf-8")
    page = _page(own, "mazzo", warnings)
    assert len(warnings) == 1 and "games/mazzo/balance.json: not a JSON report" in warnings[0]
    assert "salvato in" not in page
    assert '<pre class="cartiera-comando"><code>cartiera balance mazzo' in page
    # a table's key names its chart's file: one that climbs out of the folder is refused
    (table, *_) = count["simulation"]["tables"]
    table["key"] = "../../../../fuori"
    path.write_text(json.dumps(data), "utf-8")
    refused = "a table key that is not a plain name: '../../../../fuori'"
    assert read_report(path, "mazzo") == (None, refused)
    # a wrong value deep inside (it broke the site build with a traceback): refused too
    table["key"] = "personaggi"
    count["simulation"]["seats"][0]["low"] = None
    path.write_text(json.dumps(data), "utf-8")
    report, problem = read_report(path, "mazzo")
    assert report is None and problem.startswith("a report this version cannot show (TypeError")


def test_the_stamp_reads_files_and_opens_no_database(
    own: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlalchemy

    from pipeline.database import connection
    from pipeline.publish.site.balance import stamp

    def refuse(*args: Any, **kwargs: Any) -> None:
        raise AssertionError("the stamp opened the database")

    monkeypatch.setattr(connection, "open_project_db", refuse)
    monkeypatch.setattr(sqlalchemy, "create_engine", refuse)
    project = open_project(own)
    before = stamp(project, "blitz")
    assert stamp(project, "blitz") == before
    cards = own / "games/blitz/cards.yaml"
    text = cards.read_text("utf-8")
    try:
        cards.write_text(text + "\n", "utf-8")
        assert stamp(project, "blitz") != before
    finally:
        cards.write_text(text, "utf-8")
    (own / "games/blitz/balance.json").write_text("{}", "utf-8")
    try:
        assert stamp(project, "blitz") != before
    finally:
        (own / "games/blitz/balance.json").unlink()
    assert stamp(project, "blitz") == before


def test_agents_are_named_in_code_and_random_play_in_italian() -> None:
    """The page's prose is Italian: the agents' names are identifiers (code), random play is
    said in words, and a name from a report file that is no identifier is plain, escaped
    text (a report file is a source, as untrusted as any)."""
    from pipeline.publish.site.balance import agent_words

    assert agent_words(["random", "random"]) == "a ogni posto un giocatore a caso"
    assert agent_words(["search:100:bluffer", "random"]) == (
        "al posto 1 `search:100:bluffer`, al posto 2 un giocatore a caso"
    )
    hostile = agent_words(["<img src=x onerror=alert(1)>`", "random"])
    assert "<img" not in hostile and "&lt;img" in hostile and "\\`" in hostile
