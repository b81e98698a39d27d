"""The site's Bilanciamento pages: the balance report of a game at every player count it
allows, with the strength of its agents, charted as static SVG at build time (charts.py).

Where the figures come from, in order:

1. ``games/<slug>/balance.json``, a report made by ``cartiera balance SLUG --out
   games/<slug>/balance.json`` (any agents, games, cluster: as long as a designer wants).
   It is committed with the game; it records when it was made and the digests of the cards
   and of the engine code it was computed for, and the page warns when either changed since.
2. Otherwise the build plays the report itself: ``GAMES`` seeded games at every player
   count with the strongest of the game's agents that a build can afford at every seat
   (the strongest in the strength table below, leaving out the agents in ``SLOW``; the
   search agent costs seconds a game and is always left to ``cartiera balance``).

The strength table (each agent in one seat against random at the others, at the fewest
players, seats rotated) is always played by the build: it is cheap, and tells which agent
the figures come from.

Simulating is the slow part, so the figures are kept in build/balance/<slug>/ with a stamp of
what they depend on (the game's game.yaml and cards.yaml, the report file, the engine code,
the run's settings, the code that draws the charts; read as files: the stamp opens no
database) and made again only when that changes; `cartiera build` runs it as a step of its
own. A finished run is also kept in the render cache under its stamp, so projects that
share one cache ($CARTIERA_CACHE: clones, the test suite's copies) simulate the same
figures once.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any

from pipeline.common import words
from pipeline.common.output import atomic_write
from pipeline.common.project import Project
from pipeline.common.words import decimal, decimals
from pipeline.engine.plugin import FigureTable, is_share
from pipeline.publish.markup import escape_html, escape_markdown

from . import charts as draw

if TYPE_CHECKING:
    from pipeline.play.balance import BalanceReport

# Games at the fewest players (intervals of about seven points) and at every other count
# (about ten): a quick build; the tests use fewer.
GAMES = int(os.environ.get("CARTIERA_BALANCE_GAMES", "200"))
MORE_PLAYERS_GAMES = max(4, GAMES // 2)
SEED = 1
STRENGTH_GAMES = max(4, GAMES // 2)
# Agents too slow to play every seat of a build's games (CPU per game with the agent at
# every seat, measured 2026-12: Bless greedy 620 ms against 18 ms for random). They still
# get a row in the strength table, on fewer games.
SLOW = {"bless": {"greedy": max(4, GAMES // 20)}}
_PLAIN_KEY = re.compile(r"[a-z0-9][a-z0-9_-]{0,59}")  # a table's key, as the engines name them
REPORT_FILE = "balance.json"  # in games/<slug>/: a report the build reads instead
WIDTH = draw.WIDTH  # inches: the charts' width
_PACKAGE = Path(__file__).resolve().parents[2]  # pipeline/
MONTHS = (
    "gennaio", "febbraio", "marzo", "aprile", "maggio", "giugno",
    "luglio", "agosto", "settembre", "ottobre", "novembre", "dicembre",
)  # fmt: skip


def engine_slugs() -> list[str]:
    from pipeline.engine.registry import engine_slugs as registered

    return registered()


def balance_dir(project: Project, slug: str) -> Path:
    return project.build_dir / "balance" / slug


def report_path(project: Project, slug: str) -> Path:
    """Where a report made by `cartiera balance --out` is read from."""
    return project.games_dir / slug / REPORT_FILE


def _digest_paths(digest: Any, paths: Sequence[Path], root: Path) -> None:
    for path in paths:
        if path.is_file():
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())


def _engine_code(slug: str) -> list[Path]:
    package = slug.replace("-", "_")
    return [
        *sorted((_PACKAGE / "engine").rglob("*.py")),
        *sorted((_PACKAGE / "games" / package).rglob("*.py")),
        _PACKAGE / "play" / "simulate.py",
        _PACKAGE / "play" / "balance.py",
    ]


def engine_digest(slug: str) -> str:
    """The version of the engine a report was computed with: a digest of the code that
    plays and counts the game's games (the shared engine, the game's package, simulate and
    balance)."""
    digest = hashlib.sha256()
    _digest_paths(digest, _engine_code(slug), _PACKAGE)
    return digest.hexdigest()


def save_report(project: Project, slug: str, report: BalanceReport, path: Path) -> None:
    """Write `report` as the file the site reads: the report's JSON with when it was made
    and the engine it was made with (the cards' digest is the report's own)."""
    data = json.loads(report.to_json())
    data["made"] = datetime.now(UTC).isoformat(timespec="seconds")
    data["engine"] = engine_digest(slug)
    atomic_write(path, (json.dumps(data, ensure_ascii=False, indent=1) + "\n").encode())


def stamp(project: Project, slug: str) -> str:
    """What the figures depend on, read as files (a no-op build opens no database for it):
    the game's game.yaml and cards.yaml (its player counts and cards), the report file, the
    engine code, this module, the charts' code and the run's settings."""
    settings = f"{slug}|{GAMES}|{MORE_PLAYERS_GAMES}|{SEED}|{STRENGTH_GAMES}|{SLOW}"
    digest = hashlib.sha256(settings.encode())
    folder = project.games_dir / slug
    sources = [folder / "game.yaml", folder / "cards.yaml", folder / REPORT_FILE]
    _digest_paths(digest, sources, project.root)
    here = Path(__file__).resolve()
    _digest_paths(digest, [*_engine_code(slug), here, here.with_name("charts.py")], _PACKAGE)
    return digest.hexdigest()


def _stored(path: Path) -> dict[str, Any] | None:
    """The figures kept from an earlier run, or None when there are none or they are torn
    (a build killed while writing them): they are simulated again."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def ensure_balance(project: Project, slug: str) -> dict[str, Any] | str:
    """The game's figures (as figures.json keeps them) and charts, made again only when
    their stamp changed; or, for an engine that cannot play yet, the one line that says why
    (kept with its stamp, so it is tried again when the engine changes)."""
    folder = balance_dir(project, slug)
    wanted = stamp(project, slug)
    stored = folder / "figures.json"
    data = _stored(stored)
    if data is not None and data.get("stamp") == wanted:
        return str(data["error"]) if "error" in data else data
    folder.mkdir(parents=True, exist_ok=True)
    shared = _shared_dir(project, wanted)
    if (shared / "figures.json").is_file():  # another project sharing the cache made them
        for path in sorted(shared.iterdir()):
            atomic_write(folder / path.name, path.read_bytes())
        return dict(json.loads(stored.read_text(encoding="utf-8")))
    try:
        data = make_figures(project, slug)
    except Exception as exc:  # an engine still being written must not stop the build
        error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        atomic_write(stored, json.dumps({"stamp": wanted, "error": error}).encode())
        return error
    data = {"stamp": wanted, **data}
    files = {name: chart_svg(table, line) for name, table, line in charts(data)}
    files["figures.json"] = json.dumps(data, ensure_ascii=False, indent=1).encode()
    for old in folder.glob("*.svg"):  # the charts of another run
        if old.name not in files:
            old.unlink()
    for name, content in files.items():  # figures.json last: it says the folder is whole
        atomic_write(folder / name, content)
    _share(shared, files)
    return data


def make_figures(project: Project, slug: str) -> dict[str, Any]:
    """The strength table, and the report: the game's report file when there is a good one,
    else a run of `cartiera balance` at every player count with the strongest agent a build
    can afford."""
    from pipeline.engine.core import card_digest
    from pipeline.play.records import engine_input, load_rules

    rules = load_rules(project, slug)
    seats, cards = engine_input(project, slug)
    strength = strength_table(rules, slug, cards, seats.min)
    found: dict[str, Any] = {
        "strength": strength,
        "cards_now": card_digest(cards),
        "engine_now": engine_digest(slug),
    }
    path = report_path(project, slug)
    if path.is_file():
        read, problem = read_report(path, slug)
        if read is not None:
            return {**found, "source": "file", "file": project.rel(path), "report": read}
        found["problem"] = f"{project.rel(path)}: {problem}; the build played its own games"
    from pipeline.play.balance import balance

    agent = build_agent(slug, strength)
    report: dict[str, Any] = {}
    for players in range(seats.min, seats.max + 1):
        games = GAMES if players == seats.min else MORE_PLAYERS_GAMES
        run = json.loads(balance(project, slug, games, SEED, players, agent).to_json())
        report = {**run, "counts": report.get("counts", []) + run["counts"]}
        report["games"] = GAMES
    # no date: these figures are a function of the cards, the engine and the settings (the
    # digests say which), so the same sources give the same page on any day
    report["engine"] = found["engine_now"]
    return {**found, "source": "build", "agent": agent, "report": report}


def read_report(path: Path, slug: str) -> tuple[dict[str, Any] | None, str]:
    """A report file's content, or None and what is wrong with it."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        return None, f"not a JSON report ({str(exc).splitlines()[0]})"
    if not isinstance(data, dict) or data.get("game") != slug:
        return None, f"not a balance report of {slug} (make it with `cartiera balance --out`)"
    try:
        for count in data["counts"]:
            for table in count_tables(count):
                if not isinstance(table.key, str) or not _PLAIN_KEY.fullmatch(table.key):
                    # it names the table's chart file: "../" in it would write elsewhere
                    return None, f"a table key that is not a plain name: {str(table.key)!r:.60}"
            int(count["players"])
        str(data["cards"])
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return None, f"an incomplete report ({type(exc).__name__}: {exc})"
    if not data["counts"]:
        return None, "a report with no player count"
    try:  # a file from anywhere: it is taken only if its page can be made from it
        with tempfile.TemporaryDirectory() as scratch:
            folder = Path(scratch)
            for name, table, line in charts({"report": data}):
                (folder / name).write_bytes(chart_svg(table, line))
            _page_view(slug, None, {"report": data, "source": "file"}, folder, folder)
    except Exception as exc:  # whatever a wrong value deep inside breaks
        what = " ".join(f"{type(exc).__name__}: {exc}".split())[:120]
        return None, f"a report this version cannot show ({what})"
    return data, ""


def strength_table(rules: Any, slug: str, cards: Sequence[Any], players: int) -> list[Any]:
    """Each of the game's own agents in one seat against random at the others, at the
    fewest players, seats rotated: its win rate, and the parity (the average seat's)."""
    from pipeline.engine.registry import agent_names
    from pipeline.play.simulate import make_setup, play_games, summarise

    rows = []
    for name in [a for a in agent_names(slug) if a not in ("random", "search")]:
        games = SLOW.get(slug, {}).get(name, STRENGTH_GAMES)
        setup = make_setup(rules, players, agents=",".join([name] + ["random"] * (players - 1)))
        result = summarise(rules, setup, SEED, play_games(setup, cards, games, SEED))
        parity = sum(seat["rate"] for seat in result.seats) / players
        rows.append(
            {
                "agent": name,
                "players": players,
                "rate": result.agent_rates[name],
                "parity": parity,
                "slow": name in SLOW.get(slug, {}),
            }
        )
    return rows


def build_agent(slug: str, strength: Sequence[Mapping[str, Any]]) -> str:
    """The strongest agent a build can afford at every seat: the one whose interval
    against random lies highest above parity, random when none beats it."""
    best, score = "random", 0.0
    for row in strength:
        edge = row["rate"]["low"] - row["parity"]
        if not row["slow"] and edge > score:
            best, score = row["agent"], edge
    return best


def count_tables(count: Mapping[str, Any]) -> list[FigureTable]:
    """The tables of one player count of a report (its `simulation`), generic and own."""
    sim = count["simulation"]
    own = [
        FigureTable(
            t["key"],
            t["title"],
            tuple(t["columns"]),
            tuple(tuple(row) for row in t["rows"]),
            t.get("chart", ""),
        )
        for t in sim["tables"]
    ]
    result = SimpleNamespace(
        seats=sim["seats"], teams=sim["teams"], how=sim["how"], turns=sim["turns"], tables=own
    )
    return figure_tables(result)


def charts(data: Mapping[str, Any]) -> list[tuple[str, FigureTable, float | None]]:
    """Every chart of a report: its file name, its table, where its red line stands."""
    found = []
    for count in data["report"]["counts"]:
        players = int(count["players"])
        parity = float(count.get("parity", 1 / players))  # (a report file without it)
        for index, table in enumerate(count_tables(count)):
            if chartable(table):
                name = f"{players}-{index:02d}-{table.key}.svg"
                found.append((name, table, parity_line(table, parity)))
    return found


def parity_line(table: FigureTable, parity: float) -> float | None:
    """Where a bar chart's red line stands, as a share, or None for bars that are not win
    rates (how games end). Seats, and the games' own win-rate columns, have the report's
    parity, against which the page marks them: the average seat's share of the wins, below
    1 in the number of players where games can end with no winner. Teams have the average
    team's share."""
    from pipeline.play.balance import WIN_COLUMN

    if table.chart != "bars":
        return None
    column = next(i for i, cell in enumerate(table.rows[0]) if is_rate(cell))
    if table.key == "squadre":
        return sum(row[column]["rate"] for row in table.rows) / len(table.rows)
    return parity if str(table.columns[column]).casefold() == WIN_COLUMN else None


def _shared_dir(project: Project, wanted: str) -> Path:
    """Where the render cache keeps the same figures and charts for every project sharing
    it (the test suite's copies, clones with one $CARTIERA_CACHE): named by their stamp,
    which covers the code that drew the charts, so a project never gets another run's."""
    return project.cache_dir / "balance" / wanted[:32]


def _share(shared: Path, files: dict[str, bytes]) -> None:
    """Publish a finished run in the cache as one rename, so that a reader never sees half
    of it (two builds at once: the first rename wins, the same bytes either way)."""
    tmp = shared.with_name(f".{shared.name}.{os.getpid()}.tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    for name, content in files.items():
        (tmp / name).write_bytes(content)
    try:
        tmp.rename(shared)
    except OSError:  # already there
        shutil.rmtree(tmp, ignore_errors=True)


# A game's own table whose rows are these (its first column) replaces the generic one.
REPLACED_BY = {"squadre": "squadra", "finali": "fine", "durata": "turni"}


def figure_tables(result: Any) -> list[FigureTable]:
    """The figures every game gets (seats, teams, endings, length) as tables, then the game's
    own (`result.tables`); a generic table the game draws better itself is left out."""
    own = {str(t.columns[0]).casefold() for t in result.tables if t.columns}
    generic = [t for t in _generic_tables(result) if REPLACED_BY.get(t.key) not in own]
    return generic + list(result.tables)


def ending_label(how: str) -> str:
    """An ending's id as words: "ultimo-in-piedi" -> "Ultimo in piedi"."""
    return how.replace("-", " ").capitalize() if how else "—"


def _generic_tables(result: Any) -> list[FigureTable]:
    seats = tuple((f"Posto {p}", cell) for p, cell in enumerate(result.seats, 1))
    tables = [
        FigureTable("posti", "Vittorie per posto al tavolo", ("Posto", "Vittorie"), seats, "bars")
    ]
    if result.teams and len(result.teams) < len(result.seats):  # not teams of one: seats
        rows = tuple((f"Squadra {team}", cell) for team, cell in result.teams.items())
        tables.append(
            FigureTable("squadre", "Vittorie per squadra", ("Squadra", "Vittorie"), rows, "bars")
        )
    if result.how:
        rows = tuple((ending_label(how), count) for how, count in result.how.items())
        tables.append(
            FigureTable(
                "finali", "Come finiscono le partite", ("Fine", "Partite"), rows, "histogram"
            )
        )
    lengths = tuple((int(turns), count) for turns, count in result.turns["histogram"].items())
    tables.append(
        FigureTable("durata", "Durata delle partite", ("Turni", "Partite"), lengths, "histogram")
    )
    return tables


def is_rate(cell: Any) -> bool:
    return isinstance(cell, dict) and {"rate", "low", "high"} <= set(cell)


def chartable(table: FigureTable) -> bool:
    """Whether the table can be drawn as it asks: bars need a rate column, a histogram a
    column of counts."""
    if not table.rows or table.chart not in ("bars", "histogram"):
        return False
    first = table.rows[0]
    if table.chart == "bars":
        return any(is_rate(cell) for cell in first)
    return any(isinstance(cell, (int, float)) for cell in first[1:])


def chart_svg(table: FigureTable, parity: float | None = None) -> bytes:
    """The table as a static SVG chart; the same figures give the same bytes. A bar chart
    draws a dashed red line at `parity` (a share; parity_line), or none."""
    title = str(table.title)
    if table.chart == "histogram":
        column = next(
            i for i in range(1, len(table.columns)) if isinstance(table.rows[0][i], (int, float))
        )
        return draw.histogram(
            [row[0] for row in table.rows],
            [row[column] for row in table.rows],
            _header(table.columns[0]),
            _header(table.columns[column]),
            title,
        )
    column = next(i for i, cell in enumerate(table.rows[0]) if is_rate(cell))
    rates = [
        (row[column]["rate"] * 100, row[column]["low"] * 100, row[column]["high"] * 100)
        for row in table.rows
    ]
    axis = [f"{_header(table.columns[column])} (%), intervallo al 95%"]
    if parity is not None:
        axis = [axis[0] + ";", "in rosso la parità"]
    even = None if parity is None else parity * 100
    return draw.bars([str(row[0]) for row in table.rows], rates, axis, even, title)


def _header(column: Any) -> str:
    """A column's name as a header: "vittorie" -> "Vittorie"."""
    text = str(column)
    return text[:1].upper() + text[1:]


def cell_text(cell: Any, places: int = 2) -> str:
    """A table cell as the page shows it: rates as percentages with their interval, other
    figures with `places` decimals (those of its column: pipeline.common.words.decimals)."""
    if is_rate(cell):
        rate, low, high = (percent(cell[k])[:-1] for k in ("rate", "low", "high"))
        return f"{rate}% ({low}–{high}%, n\u00a0=\u00a0{cell['n']})"  # "n = 100" kept whole
    if is_share(cell):
        return percent(cell["share"])
    if isinstance(cell, float):
        return decimal(cell, f".{places}f")
    return str(cell)


def percent(value: float, digits: int = 1) -> str:
    """A share as an Italian percentage: 0.534 -> "53,4%"."""
    return decimal(value * 100, f".{digits}f") + "%"


def italian_date(stamp: str) -> str:
    """An ISO time as Italian words: "4 dicembre 2026, 05:41 UTC"."""
    try:
        when = datetime.fromisoformat(stamp)
    except (TypeError, ValueError):
        return "data sconosciuta"
    return f"{when.day} {MONTHS[when.month - 1]} {when.year}, {when:%H:%M} UTC"


def _card_links(game: Any) -> dict[str, Any]:
    """A figure's row label (a card's code, or a name only one card has) -> the card."""
    found: dict[str, Any] = {}
    names: dict[str, list[Any]] = {}
    for card in getattr(game, "cards", []):
        names.setdefault(str(card.name).casefold(), []).append(card)
    for name, cards in names.items():
        if len(cards) == 1:
            found[name] = cards[0]
    for card in getattr(game, "cards", []):
        found[str(card.code).casefold()] = card
    return found


def _cell(text: str, href: str | None = None, mark: str = "") -> dict[str, Any]:
    return {"text": text, "href": href, "mark": mark}


def _count_view(
    game: Any, count: Mapping[str, Any], folder: Path, source: Path, threshold: float
) -> dict[str, Any]:
    players = int(count["players"])
    cards = _card_links(game)
    flags: dict[tuple[str, str], Mapping[str, Any]] = {}
    for flag in count.get("flags", []):
        key, _, label = str(flag["figure"]).partition(": ")
        flags[(flag["table"], label if flag["table"] != "posti" else key)] = flag
    outliers = []
    for flag in count.get("flags", []):
        if flag["table"] == "posti":
            label = str(flag["figure"]).capitalize()
            card = None
        else:
            label = str(flag["figure"]).partition(": ")[2]
            card = cards.get(label.casefold())
        high = flag["rate"] > flag["parity"]
        outliers.append(
            {
                "label": card.name if card is not None else label,
                "href": f"carte/{card.code}.md" if card is not None else None,
                "card": card is not None,
                "text": cell_text(flag),
                "parity": percent(flag["parity"]),
                "direction": "sopra" if high else "sotto",
                "mark": "▲" if high else "▼",
            }
        )
    tables = []
    for index, table in enumerate(count_tables(count)):
        chart = None
        if chartable(table):
            name = f"{players}-{index:02d}-{table.key}.svg"
            (folder / name).write_bytes((source / name).read_bytes())
            chart = f"bilanciamento/{name}"
        rows = []
        places = [decimals(column) for column in zip(*table.rows, strict=True)]
        for number, row in enumerate(table.rows, 1):
            label = str(row[0])
            where = (table.key, f"posto {number}" if table.key == "posti" else label)
            flag = flags.get(where)
            mark = ("▲" if flag["rate"] > flag["parity"] else "▼") if flag else ""
            card = cards.get(label.casefold()) if table.key != "posti" else None
            first = _cell(
                card.name if card is not None else label,
                f"carte/{card.code}.md" if card is not None else None,
                mark,
            )
            figures = zip(row[1:], places[1:], strict=True)
            rows.append([first, *(_cell(cell_text(c, d)) for c, d in figures)])
        tables.append(
            {
                "title": table.title,
                "columns": [_header(c) for c in table.columns],
                "rows": rows,
                "chart": chart,
                "long": len(table.rows) > 12,
            }
        )
    sim = count["simulation"]
    agents = [str(a) for a in count.get("agents", sim.get("agents", []))]
    stopped = _stopped(sim)
    return {
        "players": players,
        "games": int(sim["games"]),
        "stopped": stopped,
        "stopped_text": stopped_words(stopped),
        "agents": agents,
        "agents_text": agent_words(agents),
        "outliers": outliers,
        "card_outliers": [o for o in outliers if o["card"]],
        "other_outliers": [o for o in outliers if not o["card"]],
        "tables": tables,
        "threshold": percent(threshold),
    }


def _stopped(sim: Mapping[str, Any]) -> int:
    """How many games a safeguard cut short (counted apart from wins and draws), in either
    shape a report may give it: a number, or a rate cell with its `n`."""
    stopped = sim.get("stopped", 0)
    if isinstance(stopped, dict):
        return int(stopped.get("count", round(stopped.get("rate", 0) * sim["games"])))
    return int(stopped or 0)


def stopped_words(stopped: int) -> str:
    """The sentence that says how many games a safeguard cut short, agreeing with their
    number: "1 partita interrotta … non conta", "11 partite interrotte … non contano"."""
    games = words.count(stopped, "partita interrotta", "partite interrotte")
    if stopped == 1:
        return f"{games} da un limite del motore: non conta né come vittoria né come pareggio."
    return f"{games} da un limite del motore: non contano né come vittorie né come pareggi."


# an agent and its settings: "bluffer", "search:200", "search:0.5s", "search:100:bluffer"
AGENT_NAME = re.compile(r"[a-z][a-z0-9_]*(:[a-z0-9_.]+)*")


def agent_words(agents: Sequence[str]) -> str:
    """The seats' agents in words (Markdown): "a ogni posto un giocatore a caso", "al posto 1
    `search:200`, al posto 2 un giocatore a caso" (before rotation: seats rotate from game to
    game). Agent names are identifiers, so they stay in code; random play is said in Italian."""

    def who(name: str) -> str:
        if name == "random":
            return "un giocatore a caso"
        if AGENT_NAME.fullmatch(name):
            return f"`{name}`"
        return escape_markdown(escape_html(name))  # a report file is a source: untrusted

    if not agents:
        return ""
    if len(set(agents)) == 1:
        return f"a ogni posto {who(agents[0])}"
    return ", ".join(f"al posto {seat} {who(name)}" for seat, name in enumerate(agents, 1))


def balance_page(
    project: Project, game: Any, folder: Path, warn: Callable[[str], None] | None = None
) -> dict[str, Any] | None:
    """The Bilanciamento page's content, with its charts copied beside it; None for a game
    with no engine, or (with a warning) one whose engine cannot play yet."""
    if game.slug not in engine_slugs():
        return None
    data = ensure_balance(project, game.slug)
    if isinstance(data, str):
        if warn:
            warn(f"warning: {game.slug}: no Bilanciamento page, the simulation failed: {data}")
        return None
    if warn and data.get("problem"):
        warn(f"warning: {game.slug}: {data['problem']}")
    folder.mkdir(parents=True, exist_ok=True)
    return _page_view(game.slug, game, data, folder, balance_dir(project, game.slug))


def _page_view(
    slug: str, game: Any, data: Mapping[str, Any], folder: Path, source: Path
) -> dict[str, Any]:
    """The page's content from the figures, the charts copied from `source` to `folder`;
    `game` (its cards, for links) may be None."""
    report = data["report"]
    threshold = float(report.get("threshold", 0.02))
    counts = [_count_view(game, c, folder, source, threshold) for c in report["counts"]]
    for count in counts:
        count["command"] = (
            f"cartiera balance {slug} --players {count['players']} --agents "
            f"{data.get('agent')} --games {count['games']} --seed {report['seed']}"
        )
    changed = []
    if report.get("cards") != data.get("cards_now"):
        changed.append("le carte")
    if report.get("engine") != data.get("engine_now"):
        changed.append("il motore delle regole")
    strength = [
        {
            "agent": row["agent"],
            "players": row["players"],
            "rate": cell_text(row["rate"]),
            "games": row["rate"]["n"] // 1,
            "parity": percent(row["parity"]),
            "used": data.get("source") == "build" and row["agent"] == data.get("agent"),
        }
        for row in data.get("strength", [])
    ]
    return {
        "source": data.get("source", "build"),
        "file": data.get("file"),
        "agent": data.get("agent"),
        "made": italian_date(str(report.get("made", ""))),
        "games": int(report["games"]),
        "seed": report["seed"],
        "threshold": percent(threshold),
        "cards": str(report.get("cards", ""))[:12],
        "engine": str(report.get("engine", ""))[:12],
        "changed": " e ".join(changed),
        "players": [c["players"] for c in counts],
        "games_text": games_words(counts),
        "counts": counts,
        "strength": strength,
        "slow": ", ".join(row["agent"] for row in data.get("strength", []) if row["slow"]),
        "strength_games": STRENGTH_GAMES,
    }


def games_words(counts: Sequence[Mapping[str, Any]]) -> str:
    """How many games were played at which player counts, in words: "200 partite con 2
    giocatori, 100 con 3, 4 e 5"."""
    groups: dict[int, list[int]] = {}
    for count in counts:
        groups.setdefault(count["games"], []).append(count["players"])
    parts = []
    for games, players in groups.items():
        listed = ", ".join(str(n) for n in players[:-1])
        listed = f"{listed} e {players[-1]}" if listed else str(players[-1])
        parts.append(f"{games} partite con {listed} giocatori")
    return "; ".join(parts)
