"""The site's Bilanciamento pages: balance figures of many simulated games, charted as
static SVG at build time (matplotlib), for every game that has a rules engine.

Simulating is the slow part, so its figures are kept in build/balance/<slug>/ with a stamp
of what they depend on (the game's cards, the engine code and the run's settings) and made
again only when that changes; `cartiera build` runs it as a step of its own. A finished
run is also kept in the render cache under its stamp, so projects that share one cache
($CARTIERA_CACHE: clones, the test suite's copies) simulate the same figures once.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .engine.plugin import FigureTable
from .output import atomic_write
from .project import Project

# Enough for intervals of a few points, little enough for a quick build; the tests use fewer.
GAMES = int(os.environ.get("CARTIERA_BALANCE_GAMES", "200"))
SEED = 1
AGENTS = "random"
WIDTH = 4.8  # inches: the charts' width
_PACKAGE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Balance:
    """One game's figures as the page shows them."""

    slug: str
    games: int
    seed: int
    agents: str
    players: int | None
    tables: list[FigureTable]


def engine_slugs() -> list[str]:
    from .engine.registry import engine_slugs as registered

    return registered()


def balance_dir(project: Project, slug: str) -> Path:
    return project.build_dir / "balance" / slug


def stamp(project: Project, slug: str) -> str:
    """What the figures depend on: the game's player counts and cards (game.yaml and
    cards.yaml), the engine code, the run's settings."""
    from .play import engine_input

    digest = hashlib.sha256(f"{slug}|{GAMES}|{SEED}|{AGENTS}".encode())
    seats, records = engine_input(project, slug)
    digest.update(repr(seats).encode())
    for record in records:
        digest.update(repr(record).encode())
    package = slug.replace("-", "_")
    code = [
        *sorted((_PACKAGE / "engine").rglob("*.py")),
        *sorted((_PACKAGE / "games" / package).rglob("*.py")),
        _PACKAGE / "simulate.py",
        Path(__file__).resolve(),
    ]
    for path in code:
        if path.is_file():
            digest.update(path.relative_to(_PACKAGE).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def _stored(path: Path) -> dict[str, Any] | None:
    """The figures kept from an earlier run, or None when there are none or they are torn
    (a build killed while writing them): they are simulated again."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def ensure_balance(project: Project, slug: str) -> Balance | str:
    """The game's figures and charts, simulated again only when their stamp changed; or,
    for an engine that cannot play yet, the one line that says why (kept with its stamp, so
    it is tried again when the engine changes)."""
    folder = balance_dir(project, slug)
    wanted = stamp(project, slug)
    stored = folder / "figures.json"
    data = _stored(stored)
    if data is not None and data.get("stamp") == wanted:
        return data["error"] if "error" in data else _from_json(data)
    folder.mkdir(parents=True, exist_ok=True)
    shared = _shared_dir(project, wanted)
    if (shared / "figures.json").is_file():  # another project sharing the cache made them
        for path in sorted(shared.iterdir()):
            atomic_write(folder / path.name, path.read_bytes())
        return _from_json(json.loads(stored.read_text(encoding="utf-8")))
    try:
        balance = simulate_balance(project, slug)
    except Exception as exc:  # an engine still being written must not stop the build
        error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        atomic_write(stored, json.dumps({"stamp": wanted, "error": error}).encode())
        return error
    files = {}
    for index, table in enumerate(balance.tables):
        if chartable(table):
            files[f"{index:02d}-{table.key}.svg"] = chart_svg(table, balance.players or 2)
    data = {"stamp": wanted, **asdict(balance)}
    files["figures.json"] = json.dumps(data, ensure_ascii=False, indent=1).encode()
    for name, content in files.items():  # figures.json last: it says the folder is whole
        atomic_write(folder / name, content)
    _share(shared, files)
    return balance


def _shared_dir(project: Project, wanted: str) -> Path:
    """Where the render cache keeps the same figures and charts for every project sharing
    it (the test suite's copies, clones with one $CARTIERA_CACHE): named by their stamp and
    by the matplotlib that drew the charts, so a project never gets another run's figures."""
    from importlib.metadata import version

    return project.cache_dir / "balance" / f"{wanted[:32]}-matplotlib{version('matplotlib')}"


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


def simulate_balance(project: Project, slug: str) -> Balance:
    """One run with the settings `cartiera simulate SLUG --games N --seed S` uses by default
    (the game's fewest players, the random agent at every seat), so the page can say how to
    repeat it."""
    from .play import load_rules
    from .simulate import make_setup, simulate

    setup = make_setup(load_rules(project, slug), agents=AGENTS)
    result = simulate(project, slug, games=GAMES, seed=SEED, setup=setup)
    return Balance(slug, result.games, result.seed, AGENTS, result.players, figure_tables(result))


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
    if result.teams:
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


def _from_json(data: dict[str, Any]) -> Balance:
    tables = [
        FigureTable(
            t["key"],
            t["title"],
            tuple(t["columns"]),
            tuple(tuple(row) for row in t["rows"]),
            t.get("chart", ""),
        )
        for t in data["tables"]
    ]
    return Balance(
        data["slug"], data["games"], data["seed"], data["agents"], data.get("players"), tables
    )


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


def chart_svg(table: FigureTable, players: int) -> bytes:
    """The table as a static SVG chart; the same figures give the same bytes. A red line
    marks an even share: 1 in `players` (1 in the number of teams for team tables)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    # Drawn 4.8 in wide with 12 pt text: on a 390 px phone the text stays about 12 px tall.
    style: dict[str, Any] = {
        "svg.hashsalt": "cartiera",
        "svg.fonttype": "none",
        "font.family": "DejaVu Sans",
        "font.size": 12,
        "axes.spines.top": False,
        "axes.spines.right": False,
    }
    with plt.rc_context(style):  # type: ignore[arg-type]  # its keys are typed as literals
        if table.chart == "histogram":
            fig = _histogram(plt, table)
        else:
            even = 100 / (len(table.rows) if table.key == "squadre" else players)
            fig = _bars(plt, table, even)
        out = io.BytesIO()
        fig.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
        plt.close(fig)
    return out.getvalue()


def _bars(plt: Any, table: FigureTable, even: float) -> Any:
    column = next(i for i, cell in enumerate(table.rows[0]) if is_rate(cell))
    labels = [str(row[0]) for row in table.rows]
    rates = [row[column]["rate"] * 100 for row in table.rows]
    pairs = zip(rates, table.rows, strict=True)
    lows, highs = zip(
        *(
            (max(0.0, r - row[column]["low"] * 100), max(0.0, row[column]["high"] * 100 - r))
            for r, row in pairs
        ),
        strict=True,
    )
    fig, ax = plt.subplots(figsize=(WIDTH, 1.1 + 0.36 * len(labels)))
    positions = range(len(labels))
    ax.barh(
        positions, rates, xerr=[list(lows), list(highs)], color="#3f51b5", ecolor="#222", capsize=2
    )
    ax.set_yticks(list(positions), labels)
    ax.invert_yaxis()
    ax.axvline(even, color="#c00", lw=0.8, ls="--")
    ax.set_xlim(0, 100)
    _decimal_comma(ax.xaxis)
    ax.set_xlabel(f"{_header(table.columns[column])} (%), intervallo al 95%;\nin rosso la parità")
    ax.set_ylim(len(labels) - 0.5, -0.5)
    return fig


def _histogram(plt: Any, table: FigureTable) -> Any:
    from matplotlib.ticker import MaxNLocator

    column = next(
        i for i in range(1, len(table.columns)) if isinstance(table.rows[0][i], (int, float))
    )
    values = [row[0] for row in table.rows]
    counts = [row[column] for row in table.rows]
    fig, ax = plt.subplots(figsize=(WIDTH, 3.4))
    if all(isinstance(v, (int, float)) for v in values):
        ax.bar(values, counts, width=0.9, color="#3f51b5")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))  # no half turns
        _decimal_comma(ax.xaxis)
    else:
        ax.bar([str(v) for v in values], counts, color="#3f51b5")
        ax.tick_params(axis="x", labelrotation=30)
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))  # counts of games
    _decimal_comma(ax.yaxis)
    ax.set_xlabel(_header(table.columns[0]))
    ax.set_ylabel(_header(table.columns[column]))
    return fig


def _decimal_comma(axis: Any) -> None:
    """A numeric axis's tick labels with a decimal comma, as the tables beside it write."""
    from matplotlib.ticker import FuncFormatter

    axis.set_major_formatter(FuncFormatter(lambda value, _: f"{value:g}".replace(".", ",")))


def _header(column: Any) -> str:
    """A column's name as a header: "vittorie" -> "Vittorie"."""
    text = str(column)
    return text[:1].upper() + text[1:]


def cell_text(cell: Any) -> str:
    """A table cell as the page shows it: rates as percentages with their interval."""
    if is_rate(cell):
        return (
            f"{cell['rate'] * 100:.1f}% ({cell['low'] * 100:.1f}–{cell['high'] * 100:.1f}%, "
            f"n = {cell['n']})"
        ).replace(".", ",")
    if isinstance(cell, float):
        return f"{cell:.2f}".replace(".", ",")
    return str(cell)


def balance_page(
    project: Project, game: Any, folder: Path, warn: Callable[[str], None] | None = None
) -> dict[str, Any] | None:
    """The Bilanciamento page's content, with its charts copied beside it; None for a game
    with no engine, or (with a warning) one whose engine cannot play yet."""
    if game.slug not in engine_slugs():
        return None
    balance = ensure_balance(project, game.slug)
    if isinstance(balance, str):
        if warn:
            warn(f"warning: {game.slug}: no Bilanciamento page, the simulation failed: {balance}")
        return None
    folder.mkdir(parents=True, exist_ok=True)
    tables = []
    for index, table in enumerate(balance.tables):
        chart = None
        if chartable(table):
            name = f"{index:02d}-{table.key}.svg"
            source = balance_dir(project, game.slug) / name
            (folder / name).write_bytes(source.read_bytes())
            chart = f"bilanciamento/{name}"
        tables.append(
            {
                "title": table.title,
                "columns": [_header(c) for c in table.columns],
                "rows": [[cell_text(c) for c in row] for row in table.rows],
                "chart": chart,
                "long": len(table.rows) > 12,
            }
        )
    return {
        "games": balance.games,
        "seed": balance.seed,
        "agents": balance.agents,
        "players": balance.players,
        "tables": tables,
    }
