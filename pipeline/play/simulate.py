"""Balance figures from many seeded games between agents, for any registered engine.

Game i of a run is played with seeds derived from (seed, i) only, seats rotate over games,
and games are played in chunks merged in game order, so the same seed gives the same figures
whatever the number of workers. ``run_chunk`` plays one chunk from plain data (card records,
seed, indices), so a distributed runner can reuse it. Every game gets the same figures (win
rate by seat, by team and by agent with 95% Wilson intervals, draws, how games ended, length
in turns and decisions); a game adds its own tables through its Engine hooks (``summarize``,
``figures``). A game an engine's safeguard stopped (``Outcome.stopped``: a cap that exists
only so that random play ends) has no result: it is counted apart (``stopped``, and in how
games ended), and every other figure, the game's own included, is taken over the games that
finished by the rules: a stopped game's length is the cap's, and its end no end.
"""

from __future__ import annotations

import json
import random
import statistics
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from pipeline.common.project import Project
from pipeline.common.words import decimal, decimals
from pipeline.engine import registry
from pipeline.engine.agents import many_games, play
from pipeline.engine.core import CardRecord, Replay, Rules, Seats, card_digest
from pipeline.engine.plugin import Engine, FigureTable, S, is_share, rate

from .records import card_records, load_rules

Progress = Callable[[int, int], None]
CHUNK = 50


class SimulationError(ValueError):
    """A bad number of players, team mode, option or agent list: one line, exit 2."""


@dataclass(frozen=True)
class Setup:
    """What a run plays: plain values, so a worker (or another machine) can rebuild it."""

    slug: str
    seats: Seats  # game.yaml's player counts, which the rules are built for
    players: int
    agents: tuple[str, ...]  # one per seat before rotation
    options: dict[str, Any] = field(default_factory=dict)


def parse_agents(slug: str, text: str, players: int) -> tuple[str, ...]:
    """``random`` (all seats) or ``greedy,random,...`` (one per seat); one clear line else."""
    names = tuple(a.strip() for a in text.split(","))
    for name in names:
        try:
            registry.check_agent(slug, name)
        except registry.UnknownName as exc:
            raise SimulationError(str(exc)) from None
    if len(names) == 1:
        return names * players
    if len(names) != players:
        raise SimulationError(
            f"give one agent, or {players} (one per player), not {len(names)}: {text}"
        )
    return names


def parse_options(pairs: Sequence[str]) -> dict[str, Any]:
    """``key=value`` pairs; whole numbers and true/false are read as such."""
    out: dict[str, Any] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise SimulationError(f"an option is key=value, not '{pair}'")
        text = value.strip()
        lowered = text.lower()
        parsed: Any = text
        if lowered in ("true", "false"):
            parsed = lowered == "true"
        elif text.lstrip("-").isdigit():
            parsed = int(text)
        out[key.strip()] = parsed
    return out


def make_setup(
    rules: Rules,
    players: int | None = None,
    teams: str | None = None,
    options: Mapping[str, Any] | None = None,
    agents: str = "random",
) -> Setup:
    """Check a run's players, team mode, options and agents against the game's rules."""
    info = rules.info
    try:
        n = info.players(players)
    except ValueError as exc:
        raise SimulationError(str(exc)) from exc
    opts = dict(options or {})
    if teams is not None:
        if teams not in info.team_modes:
            modes = ", ".join(info.team_modes)
            raise SimulationError(f"{info.slug} has no team mode '{teams}' (modes: {modes})")
        if teams != "none":
            opts["teams"] = teams
    try:
        rules.new_game(0, n, opts)
    except ValueError as exc:
        raise SimulationError(str(exc).splitlines()[0]) from exc
    seats = Seats(info.min_players, info.max_players)
    return Setup(info.slug, seats, n, parse_agents(info.slug, agents, n), opts)


def game_seed(seed: int, index: int, role: str = "game") -> int:
    """The seed of one game (or one of its agents): a function of the run's seed only."""
    return random.Random(f"{seed}/{index}/{role}").getrandbits(32)


def seats_for(agents: Sequence[str], index: int) -> tuple[str, ...]:
    """Game `index` rotates the agents by `index` seats, so none always sits first."""
    n = len(agents)
    return tuple(agents[(p + index) % n] for p in range(n))


def play_one(rules: Engine[S], setup: Setup, index: int, seed: int) -> dict[str, Any]:
    """One seeded game to its end, as plain figures."""
    seats = seats_for(setup.agents, index)
    state = rules.new_game(game_seed(seed, index), setup.players, setup.options)
    agents = [
        registry.make_agent(setup.slug, name, game_seed(seed, index, f"agent{p}"))
        for p, name in enumerate(seats)
    ]
    play(state, agents)
    outcome = state.outcome()
    assert outcome is not None
    return {
        "index": index,
        "seats": list(seats),
        "winners": list(outcome.winners),
        "how": outcome.how,
        "stopped": outcome.stopped,
        "teams": list(outcome.teams),
        "turns": state.turn_number(),
        "decisions": sum(1 for e in state.log if e.kind == "action"),
        "own": rules.summarize(state),
    }


_rules_cache: dict[tuple[str, Seats, str], Engine[Any]] = {}


def _rules_for(slug: str, seats: Seats, cards: Sequence[CardRecord]) -> Engine[Any]:
    key = (slug, seats, card_digest(cards))
    if key not in _rules_cache:
        _rules_cache[key] = registry.build_rules(slug, seats, cards, key[2])
    return _rules_cache[key]


def run_chunk(
    setup: Setup, cards: Sequence[CardRecord], seed: int, indices: Sequence[int]
) -> list[dict[str, Any]]:
    """Play the games `indices` of a run from plain data (a worker's unit of work)."""
    rules = _rules_for(setup.slug, setup.seats, cards)
    with many_games():
        return [play_one(rules, setup, i, seed) for i in indices]


@dataclass
class SimulationResult:
    """The figures of a run; `to_json` for machines, `report` for people."""

    slug: str
    games: int
    seed: int
    players: int
    agents: tuple[str, ...]
    options: dict[str, Any]
    seats: list[dict[str, Any]]  # win rate of each seat (player 1..N), over finished games
    teams: dict[str, dict[str, Any]]  # win rate of each team, when sides matter
    agent_rates: dict[str, dict[str, Any]]  # win rate of each agent over its seats
    draws: dict[str, Any]  # finished games without winners, over finished games
    finished: int  # games that ended by the rules (wins and draws are rates of these)
    stopped: dict[str, Any]  # games a safeguard stopped, over all games, with their `count`
    how: dict[str, int]  # how games ended, stopped ones included
    turns: dict[str, Any]  # lengths of the finished games, as are decisions and tables
    decisions: dict[str, Any]
    tables: list[FigureTable] = field(default_factory=list)  # the game's own figures

    def table(self, key: str) -> FigureTable:
        return next(t for t in self.tables if t.key == key)

    def to_json(self) -> str:
        data = asdict(self)
        data["agents"] = list(self.agents)
        return json.dumps(data, ensure_ascii=False, indent=2)

    def report(self, lang: str = "it", name: str | None = None) -> str:
        """A plain-text report, in Italian ("it", decimal commas) or English ("en"), titled
        with the game's `name` (its slug when not given)."""
        t = _WORDS[lang]
        number = decimal if lang == "it" else format
        lines = [
            t["title"].format(
                game=name or self.slug,
                games=self.games,
                seed=self.seed,
                players=self.players,
                agents=" / ".join(self.agents),
                finished=self.finished,
            ),
        ]
        for p, seat in enumerate(self.seats, 1):
            lines.append(t["seat"].format(p=p, **_percent(seat, number)))
        # teams by number, unless each is one seat (the lines above again) or the game's own
        # figures name them (Samurai Sword's table "squadra": Shogun, Ninja, Ronin), as the
        # site leaves its numbered table out then
        named = "squadra" in {str(table.columns[0]).casefold() for table in self.tables}
        if len(self.teams) < self.players and not named:
            for team, cell in self.teams.items():
                lines.append(t["team"].format(team=team, **_percent(cell, number)))
        if len(set(self.agents)) > 1:
            for name, cell in self.agent_rates.items():
                lines.append(t["agent"].format(name=name, **_percent(cell, number)))
        lines.append(t["draws"].format(**_percent(self.draws, number)))
        stopped = _percent(self.stopped, number)
        lines.append(t["stopped"].format(count=self.stopped["count"], games=self.games, **stopped))
        endings = ", ".join(f"{k.replace('-', ' ')} {v}" for k, v in self.how.items())
        lines.append(t["how"].format(how=endings))
        n, d = self.turns, self.decisions
        mean, per_game = number(n["mean"], ".1f"), number(d["mean"], ".1f")
        lines.append(t["length"].format(mean=mean, lo=n["min"], hi=n["max"], d=per_game))
        for table in self.tables:
            rows = [table.columns, *_cells(table.rows, number)]
            lines += ["", table.title, *_aligned(rows)]
        return "\n".join(lines)


_WORDS = {
    "it": {
        "title": "Simulazione di {game}: {games} partite, seme {seed}, {players} giocatori, "
        "agenti {agents}\nVittorie e pareggi contano le {finished} partite finite per le regole",
        "seat": "Vittorie del posto {p}: {rate}% (IC 95%: {low}%-{high}%)",
        "team": "Vittorie della squadra {team}: {rate}% (IC 95%: {low}%-{high}%)",
        "agent": "Vittorie dell'agente {name}: {rate}% (IC 95%: {low}%-{high}%)",
        "draws": "Pareggi: {rate}% (IC 95%: {low}%-{high}%)",
        "stopped": "Interrotte da una salvaguardia del motore, senza risultato: {count} su "
        "{games}, {rate}% (IC 95%: {low}%-{high}%)",
        "how": "Come sono finite: {how}",
        "length": "Durata delle partite finite: {mean} turni in media ({lo}-{hi}), "
        "{d} decisioni a partita",
    },
    "en": {
        "title": "{game} simulation: {games} games, seed {seed}, {players} players, "
        "agents {agents}\nWins and draws count the {finished} games that ended by the rules",
        "seat": "Seat {p} wins: {rate}% (95% CI: {low}%-{high}%)",
        "team": "Team {team} wins: {rate}% (95% CI: {low}%-{high}%)",
        "agent": "Agent {name} wins: {rate}% (95% CI: {low}%-{high}%)",
        "draws": "Draws: {rate}% (95% CI: {low}%-{high}%)",
        "stopped": "Stopped by an engine safeguard, no result: {count} of {games}, "
        "{rate}% (95% CI: {low}%-{high}%)",
        "how": "How they ended: {how}",
        "length": "Length of the finished games: {mean} turns on average ({lo}-{hi}), "
        "{d} decisions a game",
    },
}


Number = Callable[[float, str], str]  # a figure in the report's language: decimal or format


def _percent(cell: Mapping[str, Any], number: Number) -> dict[str, str]:
    return {k: number(100 * cell[k], ".1f") for k in ("rate", "low", "high")}


def _cells(rows: Sequence[Sequence[Any]], number: Number) -> list[tuple[str, ...]]:
    """A figure table's rows as text, numbers in the report's language: a rate with its
    interval, "14,0% (9-22)"; the floats of a column with the decimals of its most precise
    one, so that they line up."""
    places = [decimals(column) for column in zip(*rows, strict=True)]

    def cell(value: Any, places: int) -> str:
        if isinstance(value, dict) and "rate" in value:
            if not value["n"]:
                return "-"
            low, high = 100 * value["low"], 100 * value["high"]
            return f"{number(100 * value['rate'], '.1f')}% ({low:.0f}-{high:.0f})"
        if is_share(value):
            return f"{number(100 * value['share'], '.1f')}%"
        if isinstance(value, float):
            return number(value, f".{places}f")
        return str(value)

    return [tuple(cell(v, d) for v, d in zip(row, places, strict=True)) for row in rows]


def _aligned(rows: Sequence[Sequence[Any]]) -> list[str]:
    """A text table: the first column as wide as its longest cell, left-aligned; the others
    right-aligned, each as wide as its own longest cell, three spaces apart. A rate with its
    interval ("14.0% (9-22)") is aligned on the rate, the interval after it, so that the
    rates of a column stand one under the other whatever their intervals' widths."""
    texts = [[str(c) for c in row] for row in rows]
    columns = max(len(row) for row in texts)
    cells: list[list[str]] = [[] for _ in texts]
    for i in range(columns):
        column = [row[i] if i < len(row) else "" for row in texts]
        if i == 0:
            width = max(map(len, column))
            parts = [c.ljust(width) for c in column]
        else:
            split = [c.partition(" (") for c in column]
            left = max(len(value) for value, _, _ in split)
            right = max(len(sep + rest) for _, sep, rest in split)
            parts = [(value.rjust(left) + (sep + rest).ljust(right)) for value, sep, rest in split]
            width = max(map(len, parts))
            parts = ["   " + p.rjust(width) for p in parts]
        for row, part in zip(cells, parts, strict=True):
            row.append(part)
    return ["".join(row).rstrip() for row in cells]


def simulate(
    project: Project,
    slug: str,
    games: int,
    seed: int,
    setup: Setup | None = None,
    jobs: int = 1,
    progress: Progress | None = None,
    cluster: str | None = None,
) -> SimulationResult:
    """Play `games` seeded games (cards from the project's database) and gather the figures.

    `jobs` worker processes share the chunks, or the workers of the Dask cluster at `cluster`
    (`local:N` starts one here); `progress(done, total)` is called as chunks end. Chunks are
    merged in game order, so the figures never depend on where the games were played.
    """
    rules = load_rules(project, slug)
    setup = setup or make_setup(rules)
    cards = card_records(project, slug)
    _rules_cache[slug, setup.seats, rules.digest] = rules
    summaries = play_games(setup, cards, games, seed, jobs, progress, cluster)
    return summarise(rules, setup, seed, summaries)


def play_games(
    setup: Setup,
    cards: Sequence[CardRecord],
    games: int,
    seed: int,
    jobs: int = 1,
    progress: Progress | None = None,
    cluster: str | None = None,
) -> list[dict[str, Any]]:
    """The summaries of a run's games on these cards, in game order (see `simulate`): the
    balance report plays the same seeds on changed cards with it."""
    chunks = [range(start, min(start + CHUNK, games)) for start in range(0, games, CHUNK)]
    summaries: list[dict[str, Any]] = []
    if cluster is not None:
        from .cluster import client_for, map_chunks

        done = 0

        def advance(count: int) -> None:
            nonlocal done
            done += count
            if progress:
                progress(done, games)

        with client_for(cluster) as client:
            for part in map_chunks(client, run_chunk, (setup, cards, seed), chunks, advance):
                summaries += part
    elif jobs <= 1:
        parts: Any = (run_chunk(setup, cards, seed, chunk) for chunk in chunks)
        for part in parts:
            summaries += part
            if progress:
                progress(len(summaries), games)
    else:
        with ProcessPoolExecutor(jobs) as pool:
            n = len(chunks)
            for part in pool.map(run_chunk, [setup] * n, [cards] * n, [seed] * n, chunks):
                summaries += part
                if progress:
                    progress(len(summaries), games)
    return summaries


def summarise(
    rules: Engine[Any], setup: Setup, seed: int, games: Sequence[Mapping[str, Any]]
) -> SimulationResult:
    n, total = setup.players, len(games)
    stopped = sum(1 for g in games if g.get("stopped"))
    finished = [g for g in games if not g.get("stopped")]
    done = len(finished)
    seat_wins = Counter(p for g in finished for p in g["winners"])
    team_wins: Counter[str] = Counter()
    team_games: Counter[str] = Counter()
    agent_wins: Counter[str] = Counter()
    agent_games: Counter[str] = Counter()
    for g in finished:
        if g["teams"]:
            sides = sorted(set(g["teams"]))
            team_games.update(str(t + 1) for t in sides)
            team_wins.update({str(g["teams"][g["winners"][0]] + 1)} if g["winners"] else set())
        for p, name in enumerate(g["seats"]):
            agent_games[name] += 1
            agent_wins[name] += p in g["winners"]
    turns = [g["turns"] for g in finished] or [0]
    decisions = [g["decisions"] for g in finished] or [0]
    own = [g["own"] for g in finished]
    return SimulationResult(
        slug=setup.slug,
        games=total,
        seed=seed,
        players=n,
        agents=setup.agents,
        options=dict(setup.options),
        seats=[rate(seat_wins[p], done) for p in range(n)],
        teams={t: rate(team_wins[t], team_games[t]) for t in sorted(team_games)},
        agent_rates={a: rate(agent_wins[a], agent_games[a]) for a in sorted(agent_games)},
        draws=rate(sum(not g["winners"] for g in finished), done),
        finished=done,
        stopped={**rate(stopped, total), "count": stopped},
        how=dict(sorted(Counter(g["how"] for g in games).items())),
        turns={
            "mean": statistics.fmean(turns),
            "min": min(turns),
            "max": max(turns),
            "histogram": dict(sorted(Counter(turns).items())),
        },
        decisions={
            "mean": statistics.fmean(decisions),
            "min": min(decisions),
            "max": max(decisions),
        },
        tables=rules.figures(own, n),
    )


def record_game(project: Project, slug: str, seed: int, setup: Setup | None = None) -> Replay:
    """Play one game between the setup's agents and keep it as a replay."""
    rules = load_rules(project, slug)
    setup = setup or make_setup(rules)
    state = rules.new_game(seed, setup.players, setup.options)
    agents = [
        registry.make_agent(slug, name, game_seed(seed, 0, f"agent{p}"))
        for p, name in enumerate(setup.agents)
    ]
    play(state, agents)
    return Replay.of(state, rules, seed, setup.options, setup.players)
