"""The site's Bilanciamento pages: balance figures of many simulated games, charted as
static SVG at build time (matplotlib), for every game that has a rules engine.

Simulating is the slow part, so its figures are kept in build/balance/<slug>/ with a stamp
of what they depend on (the game's cards, the engine code and the run's settings) and made
again only when that changes; `cartiera build` runs it as a step of its own.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from .engine.plugin import FigureTable
from .project import Project

GAMES = 300
SEED = 1
AGENTS = "random"
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
    """What the figures depend on: the game's cards, the engine code, the run's settings."""
    from .play import card_records

    digest = hashlib.sha256(f"{slug}|{GAMES}|{SEED}|{AGENTS}".encode())
    for record in card_records(project, slug):
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


def ensure_balance(project: Project, slug: str) -> Balance | str:
    """The game's figures and charts, simulated again only when their stamp changed; or,
    for an engine that cannot play yet, the one line that says why (kept with its stamp, so
    it is tried again when the engine changes)."""
    folder = balance_dir(project, slug)
    wanted = stamp(project, slug)
    stored = folder / "figures.json"
    if stored.exists():
        data = json.loads(stored.read_text(encoding="utf-8"))
        if data.get("stamp") == wanted:
            return data["error"] if "error" in data else _from_json(data)
    folder.mkdir(parents=True, exist_ok=True)
    try:
        balance = simulate_balance(project, slug)
    except Exception as exc:  # an engine still being written must not stop the build
        error = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        stored.write_text(json.dumps({"stamp": wanted, "error": error}), encoding="utf-8")
        return error
    for index, table in enumerate(balance.tables):
        if table.chart:
            (folder / f"{index:02d}-{table.key}.svg").write_bytes(chart_svg(table))
    data = {"stamp": wanted, **asdict(balance)}
    stored.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    return balance


def simulate_balance(project: Project, slug: str) -> Balance:
    from . import simulate

    result = simulate.simulate(project, slug, games=GAMES, seed=SEED, agents=_agents(project, slug))
    return Balance(slug, GAMES, SEED, AGENTS, getattr(result, "players", None), _tables(result))


def _agents(project: Project, slug: str) -> Any:
    """The agents argument simulate takes: one name for every seat."""
    import inspect

    from . import simulate

    default = inspect.signature(simulate.simulate).parameters["agents"].default
    if isinstance(default, tuple):
        return (AGENTS,) * len(default)
    return [AGENTS]


def _tables(result: Any) -> list[FigureTable]:
    """The result's figure tables: the generic ones when simulate gives them, else made from
    the two-player figures it gives today (first player, length, cards)."""
    tables = getattr(result, "tables", None)
    if tables is not None:
        return list(tables)
    from .simulate import wilson

    def rate(wins: int, n: int) -> dict[str, Any]:
        low, high = wilson(wins, n)
        return {"rate": wins / n if n else 0.0, "low": low, "high": high, "n": n}

    first = result.first_player_wins
    seats = FigureTable(
        "posti",
        "Vittorie per posto al tavolo",
        ("Posto", "Vittorie"),
        (
            ("Primo giocatore", rate(first, result.finished)),
            ("Secondo giocatore", rate(result.finished - first, result.finished)),
        ),
        "bars",
    )
    lengths = FigureTable(
        "durata",
        "Durata delle partite",
        ("Turni", "Partite"),
        tuple((int(k), v) for k, v in result.lengths["turns_histogram"].items()),
        "histogram",
    )
    played = [c for c in result.cards if c.games_played]
    cards = FigureTable(
        "carte",
        "Vittorie di chi ha giocato la carta",
        ("Carta", "Vittorie", "Come Maledizione", "Come Preghiera"),
        tuple(
            (c.name, rate(c.wins, c.games_played), c.as_maledizione, c.as_preghiera)
            for c in sorted(played, key=lambda c: -c.wins / c.games_played)
        ),
        "bars",
    )
    return [seats, lengths, cards]


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


def chart_svg(table: FigureTable) -> bytes:
    """The table as a static SVG chart; the same figures give the same bytes."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    style = {
        "svg.hashsalt": "cartiera",
        "svg.fonttype": "none",
        "font.family": "DejaVu Sans",
        "font.size": 10,
        "axes.spines.top": False,
        "axes.spines.right": False,
    }
    with plt.rc_context(style):
        fig = _histogram(plt, table) if table.chart == "histogram" else _bars(plt, table)
        out = io.BytesIO()
        fig.savefig(out, format="svg", bbox_inches="tight", metadata={"Date": None})
        plt.close(fig)
    return out.getvalue()


def _bars(plt: Any, table: FigureTable) -> Any:
    column = next(i for i, cell in enumerate(table.rows[0]) if is_rate(cell))
    labels = [str(row[0]) for row in table.rows]
    rates = [row[column]["rate"] * 100 for row in table.rows]
    lows = [r - row[column]["low"] * 100 for r, row in zip(rates, table.rows, strict=True)]
    highs = [row[column]["high"] * 100 - r for r, row in zip(rates, table.rows, strict=True)]
    fig, ax = plt.subplots(figsize=(7.5, 0.8 + 0.28 * len(labels)))
    positions = range(len(labels))
    ax.barh(positions, rates, xerr=[lows, highs], color="#3f51b5", ecolor="#222", capsize=2)
    ax.set_yticks(list(positions), labels)
    ax.invert_yaxis()
    ax.axvline(100 / max(2, len(labels)) if len(labels) <= 8 else 50, color="#c00", lw=0.8, ls="--")
    ax.set_xlim(0, 100)
    ax.set_xlabel(f"{table.columns[column]} (%) con intervallo al 95%")
    ax.set_ylim(len(labels) - 0.5, -0.5)
    return fig


def _histogram(plt: Any, table: FigureTable) -> Any:
    column = next(
        i for i in range(1, len(table.columns)) if isinstance(table.rows[0][i], (int, float))
    )
    values = [row[0] for row in table.rows]
    counts = [row[column] for row in table.rows]
    fig, ax = plt.subplots(figsize=(7.5, 3.2))
    if all(isinstance(v, (int, float)) for v in values):
        ax.bar(values, counts, width=0.9, color="#3f51b5")
    else:
        ax.bar([str(v) for v in values], counts, color="#3f51b5")
    ax.set_xlabel(table.columns[0])
    ax.set_ylabel(table.columns[column])
    return fig


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
        if table.chart:
            name = f"{index:02d}-{table.key}.svg"
            source = balance_dir(project, game.slug) / name
            (folder / name).write_bytes(source.read_bytes())
            chart = f"bilanciamento/{name}"
        tables.append(
            {
                "title": table.title,
                "columns": table.columns,
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
