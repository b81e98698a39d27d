"""The balance report: seat advantage, how games end, length and the game's own figures at
every player count, each figure marked when it is off parity, and "what if" variants.

A run is `simulate`'s: the same seeded games, chunks and workers (``play_games``), so the
report does not depend on ``--jobs`` or the cluster. A variant changes card values
(``re-luce.occhio=2``), builds the rules again from the changed card records and plays the
very same seeds; the difference to the baseline is taken game by game (paired), so the
noise the two runs share cancels and a small effect shows with fewer games.

A game an engine's safeguard stopped has no result (``Outcome.stopped``): parity and win rates
count the games that finished, a variant's wins and draws are compared on the games that
finished in both runs, and how many games were stopped is compared on all of them.
"""

from __future__ import annotations

import dataclasses
import json
import math
import statistics
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pipeline.common.project import Project
from pipeline.common.words import decimal
from pipeline.database.catalog import AttributeInfo
from pipeline.engine import registry
from pipeline.engine.core import CardRecord, Seats, card_digest
from pipeline.engine.plugin import rate

from .records import declared_attributes, engine_input, file_records, load_rules
from .simulate import (
    SimulationError,
    SimulationResult,
    make_setup,
    parse_options,
    play_games,
    summarise,
)

Z95 = 1.96
WIN_COLUMN = "vittorie"  # the column in which the games' own tables give win rates
Progress = Callable[[str], None]


class BalanceError(SimulationError):
    """A bad variant, player count or agent list: one line, exit 2."""


@dataclass(frozen=True)
class Change:
    """One value of one card changed: ``code.field=value``."""

    code: str
    field: str
    value: Any

    def __str__(self) -> str:
        return f"{self.code}.{self.field}={self.value}"


def parse_change(text: str) -> Change:
    """``card.field=value`` (the value read as simulate reads options); BalanceError else."""
    target, sep, _ = text.partition("=")
    code, dot, name = target.strip().partition(".")
    if not sep or not dot or not code or not name:
        raise BalanceError(f"a variant is card.field=value, e.g. re-luce.occhio=2, not '{text}'")
    value = parse_options([f"{name}={text.partition('=')[2]}"])[name]
    return Change(code, name, value)


def changed_cards(
    cards: Sequence[CardRecord],
    changes: Sequence[Change],
    declared: Mapping[str, AttributeInfo] | None = None,
) -> list[CardRecord]:
    """The card records with the changes made: an attribute, or the number of copies. With
    the game's `declared` attributes, a value must be one a card could have (within the
    range, one of the values): a variant is a card the designer could print."""
    by_code = {c.code: c for c in cards}
    out = list(cards)
    for change in changes:
        card = by_code.get(change.code)
        if card is None:
            raise BalanceError(f"variant {change}: no card '{change.code}' in this game")
        if change.field == "copies":
            if not isinstance(change.value, int) or change.value < 0:
                raise BalanceError(f"variant {change}: copies is a whole number, 0 or more")
            new = dataclasses.replace(card, copies=change.value)
        elif change.field in card.attributes:
            old = card.attributes[change.field]
            if type(old) is not type(change.value):
                raise BalanceError(
                    f"variant {change}: {change.field} of {card.code} is "
                    f"{type(old).__name__} ({old!r}), not {type(change.value).__name__}"
                )
            if declared and change.field in declared:
                _check_declared(change, declared[change.field])
            new = dataclasses.replace(
                card, attributes={**card.attributes, change.field: change.value}
            )
        else:
            fields = ", ".join(["copies", *card.attributes])
            raise BalanceError(f"variant {change}: {card.code} has no '{change.field}' ({fields})")
        by_code[card.code] = new
        out = [new if c.code == card.code else c for c in out]
    return out


def _check_declared(change: Change, attribute: AttributeInfo) -> None:
    """BalanceError for a value game.yaml does not allow the attribute: validate's own
    check of a card's value (pipeline.sources.gamespec), on the declaration cards.db holds."""
    from pipeline.sources.formats import Attribute
    from pipeline.sources.gamespec import check_value

    declared = Attribute(
        label=attribute.label,
        type=attribute.type,  # type: ignore[arg-type]  # one of the four, as validated
        values=attribute.values or None,
        min=attribute.min,
        max=attribute.max,
        multiple=attribute.multiple,
    )
    if (why := check_value(change.field, declared, change.value)) is not None:
        raise BalanceError(f"variant {change}: {why}, as game.yaml declares it")


def paired_difference(base: Sequence[float], other: Sequence[float]) -> dict[str, float]:
    """The mean of per-game differences (other - base) with a 95% normal interval: exactly
    0 with an empty interval when every game came out the same."""
    diffs = [o - b for b, o in zip(base, other, strict=True)]
    n = len(diffs)
    mean = statistics.fmean(diffs) if n else 0.0
    spread = Z95 * statistics.stdev(diffs) / math.sqrt(n) if n > 1 else 0.0
    return {"mean": mean, "low": mean - spread, "high": mean + spread, "n": n}


def off_parity(low: float, high: float, parity: float, threshold: float) -> bool:
    """Whether an interval lies wholly beyond parity by more than `threshold`."""
    return low - parity > threshold or parity - high > threshold


@dataclass
class Variant:
    """A variant's figures at one player count, each beside the baseline's."""

    changes: list[str]
    digest: str
    seats: list[dict[str, Any]]  # per seat: baseline rate, variant rate, paired difference
    draws: dict[str, Any]
    turns: dict[str, float]  # mean turns: the paired difference
    stopped: dict[str, Any] = field(default_factory=dict)  # games stopped: baseline, variant


@dataclass
class Count:
    """Everything measured at one player count."""

    players: int
    agents: list[str]
    result: SimulationResult
    parity: float  # a seat's share of the wins if no seat had an edge
    flags: list[dict[str, Any]]
    variants: list[Variant] = field(default_factory=list)

    def to_data(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "agents": self.agents,
            "parity": self.parity,
            "simulation": json.loads(self.result.to_json()),
            "flags": self.flags,
            "variants": [dataclasses.asdict(v) for v in self.variants],
        }


@dataclass
class BalanceReport:
    slug: str
    games: int
    seed: int
    threshold: float
    digest: str  # the cards the report was computed for
    counts: list[Count]

    def to_json(self) -> str:
        data = {
            "game": self.slug,
            "games": self.games,
            "seed": self.seed,
            "threshold": self.threshold,
            "cards": self.digest,
            "counts": [c.to_data() for c in self.counts],
        }
        return json.dumps(data, ensure_ascii=False, indent=2)

    def report(self, name: str | None = None) -> str:
        """The plain-text report, in Italian like `simulate`'s, titled with the game's `name`
        (its slug when not given)."""
        lines = [
            f"Bilanciamento di {name or self.slug}: {self.games} partite per numero di giocatori, "
            f"seme {self.seed}, soglia {decimal(100 * self.threshold, '.1f')} punti, "
            f"carte {self.digest[:12]}"
        ]
        for count in self.counts:
            lines += ["", f"== {count.players} giocatori", count.result.report("it", name), ""]
            lines.append(f"Fuori parità di oltre la soglia ({len(count.flags)}):")
            lines += [f"  * {_flag_line(f)}" for f in count.flags] or ["  nessuna cifra"]
            for variant in count.variants:
                lines += ["", f"Variante {', '.join(variant.changes)}:"]
                for seat in variant.seats:
                    lines.append("  " + _variant_line(f"posto {seat['seat']}", seat, "%"))
                lines.append("  " + _variant_line("pareggi", variant.draws, "%"))
                lines.append("  " + _variant_line("interrotte", variant.stopped, "%"))
                turns = variant.turns
                low, high = decimal(turns["low"], "+.2f"), decimal(turns["high"], "+.2f")
                lines.append(
                    f"  durata: {decimal(turns['mean'], '+.2f')} turni a partita "
                    f"(IC 95%: {low} .. {high})"
                )
        return "\n".join(lines)


def _flag_line(flag: Mapping[str, Any]) -> str:
    rate, low, high, parity = (
        decimal(100 * flag[k], ".1f") for k in ("rate", "low", "high", "parity")
    )
    # n counts what the figure counts (games, plays, draws), as on the balance page
    return f"{flag['figure']}: {rate}% (IC 95%: {low}-{high}%, n = {flag['n']}, parità {parity}%)"


def _variant_line(label: str, cell: Mapping[str, Any], unit: str) -> str:
    d = cell["difference"]
    mark = " *" if cell["flag"] else ""
    variant, baseline = (decimal(100 * cell[k]["rate"], ".1f") for k in ("variant", "baseline"))
    mean, low, high = (decimal(100 * d[k], "+.1f") for k in ("mean", "low", "high"))
    return (
        f"{label}: {variant}{unit} invece di {baseline}{unit}, differenza {mean} punti "
        f"(IC 95%: {low} .. {high}){mark}"
    )


def seat_agents(text: str, players: int) -> str:
    """The agents of `players` seats: the names given, the last one filling the seats left
    (``search,random`` at 4 players: one search, three random)."""
    names = [a.strip() for a in text.split(",")]
    if len(names) > players:
        raise BalanceError(f"{len(names)} agents for {players} players: {text}")
    return ",".join(names + names[-1:] * (players - len(names)))


def figure_flags(result: SimulationResult, parity: float, threshold: float) -> list[dict[str, Any]]:
    """The seat win rates and the game's own win-rate cells (a card's, a character's: the
    wins of the players who had it) whose interval excludes `parity`, a seat's share of
    the wins, by more than `threshold`."""
    cells = [(f"posto {p}", "posti", cell) for p, cell in enumerate(result.seats, 1)]
    for table in result.tables:
        if WIN_COLUMN in table.columns:
            column = table.columns.index(WIN_COLUMN)
            cells += [
                (f"{table.key}: {row[0]}", table.key, row[column])
                for row in table.rows
                if isinstance(row[column], dict)
            ]
    return [
        {"figure": figure, "table": key, **cell, "parity": parity}
        for figure, key, cell in cells
        if cell["n"] and off_parity(cell["low"], cell["high"], parity, threshold)
    ]


def _seat_wins(games: Sequence[Mapping[str, Any]], seat: int) -> list[float]:
    return [float(seat in g["winners"]) for g in games]


def _draws(games: Sequence[Mapping[str, Any]]) -> list[float]:
    return [float(not g["winners"]) for g in games]


def _stopped(games: Sequence[Mapping[str, Any]]) -> list[float]:
    return [float(bool(g.get("stopped"))) for g in games]


def _finished(games: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return [g for g in games if not g.get("stopped")]


def _compared(base: list[float], other: list[float], threshold: float) -> dict[str, Any]:
    difference = paired_difference(base, other)
    return {
        "baseline": rate(int(sum(base)), len(base)),
        "variant": rate(int(sum(other)), len(other)),
        "difference": difference,
        "flag": off_parity(difference["low"], difference["high"], 0.0, threshold),
    }


def balance(
    project: Project,
    slug: str,
    games: int,
    seed: int,
    players: int | None = None,
    agents: str = "random",
    variants: Sequence[str] = (),
    threshold: float = 0.02,
    options: Sequence[str] = (),
    jobs: int = 1,
    cluster: str | None = None,
    progress: Progress | None = None,
) -> BalanceReport:
    """Play `games` seeded games at each player count (or only `players`) on the project's
    cards, and as many again on the changed cards when `variants` are given (all of them
    together, one variant): changes ``card.field=value``, and at most one whole other
    cards.yaml (a path), which the changes then apply to."""
    rules = load_rules(project, slug)
    seats, cards = engine_input(project, slug)
    files = [v for v in variants if "=" not in v]
    if len(files) > 1:
        raise BalanceError(f"one other cards.yaml at a time, not {len(files)}: {', '.join(files)}")
    changes = [parse_change(v) for v in variants if "=" in v]
    what = [*files, *map(str, changes)]  # the variant, as the report names it
    changed = None
    if files:
        changed = file_records(project, slug, _variant_file(files[0]), files[0])
    if changes:
        declared = declared_attributes(project, slug)
        changed = changed_cards(cards if changed is None else changed, changes, declared)
    if changed is not None:
        _check_builds(slug, seats, changed, what)
    counts = [players] if players else list(range(seats.min, seats.max + 1))
    found = []
    for n in counts:
        setup = make_setup(rules, n, options=parse_options(options), agents=seat_agents(agents, n))
        if progress:
            progress(f"{n} giocatori")
        base = play_games(setup, cards, games, seed, jobs, cluster=cluster)
        result = summarise(rules, setup, seed, base)
        finished = _finished(base)
        wins = sum(sum(_seat_wins(finished, p)) for p in range(n))
        parity = wins / (n * len(finished)) if finished else 1 / n
        count = Count(
            n, list(setup.agents), result, parity, figure_flags(result, parity, threshold)
        )
        if changed is not None:
            other = play_games(setup, changed, games, seed, jobs, cluster=cluster)
            count.variants.append(_variant(what, changed, base, other, n, threshold))
        found.append(count)
    return BalanceReport(slug, games, seed, threshold, card_digest(cards), found)


def _variant_file(text: str) -> Path:
    """The path of a whole other cards.yaml given as a variant; BalanceError when it is not
    a file (a change written without its "=" lands here too, and is told how to write)."""
    path = Path(text).expanduser()
    if not path.is_file():
        raise BalanceError(
            f"variant {text}: no such file; a variant is card.field=value (e.g. "
            "re-luce.occhio=2) or the path of a whole other cards.yaml"
        )
    return path


def _check_builds(slug: str, seats: Seats, cards: Sequence[CardRecord], what: list[str]) -> None:
    """The changed cards must still make rules: a value the engine refuses is bad usage."""
    try:
        registry.build_rules(slug, seats, cards, card_digest(cards))
    except (ValueError, TypeError, KeyError) as exc:
        raise BalanceError(f"variant {', '.join(what)}: the engine refuses it ({exc})") from None


def _variant(
    changes: Sequence[str],
    cards: Sequence[CardRecord],
    base: Sequence[Mapping[str, Any]],
    other: Sequence[Mapping[str, Any]],
    players: int,
    threshold: float,
) -> Variant:
    both = [
        (b, o)
        for b, o in zip(base, other, strict=True)
        if not b.get("stopped") and not o.get("stopped")
    ]
    done_base, done_other = [b for b, _ in both], [o for _, o in both]
    seats = [
        {
            "seat": p + 1,
            **_compared(_seat_wins(done_base, p), _seat_wins(done_other, p), threshold),
        }
        for p in range(players)
    ]
    # lengths of the games both sides finished: a stopped game's is the safeguard's cap
    turns = paired_difference([g["turns"] for g in done_base], [g["turns"] for g in done_other])
    return Variant(
        list(changes),
        card_digest(cards),
        seats,
        _compared(_draws(done_base), _draws(done_other), threshold),
        turns,
        _compared(_stopped(base), _stopped(other), threshold),
    )
