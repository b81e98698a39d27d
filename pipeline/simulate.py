"""Balance figures from many seeded games between agents: `cartiera simulate`.

Game i of a run is played with seeds derived from (seed, i) only, and results are gathered
in game order, so the same seed gives the same figures whatever the number of workers.
"""

from __future__ import annotations

import json
import math
import random
import statistics
from collections import Counter
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from .engine.agents import play
from .engine.core import Replay
from .engine.registry import make_agent
from .play import load_rules
from .project import Project

Progress = Callable[[int, int], None]
CHUNK = 50


@dataclass(frozen=True)
class GameRecord:
    """What one game gives the statistics."""

    index: int
    seats: tuple[str, str]  # the agent of player 1 and of player 2
    first: int
    winner: int  # -1: stopped by the turn cap
    scores: tuple[int, int]
    turns: int
    actions: int
    final_how: str  # "altare", "mazzo" or "" (never triggered)
    plays: tuple[tuple[str, str, int], ...]  # (card code, "maledizione"|"preghiera", player)


@dataclass
class CardFigures:
    code: str
    name: str
    as_maledizione: int = 0
    as_preghiera: int = 0
    games_played: int = 0  # (game, player) pairs in which the player played it
    wins: int = 0

    @property
    def win_rate(self) -> float | None:
        return self.wins / self.games_played if self.games_played else None


@dataclass
class SimulationResult:
    """The figures of a run; `to_json` for machines, `report` for people."""

    slug: str
    games: int
    seed: int
    agents: tuple[str, str]
    finished: int
    first_player_wins: int
    agent_wins: dict[str, int]
    agent_games: dict[str, int]
    final_triggers: dict[str, int]
    scores: dict[str, Any]
    lengths: dict[str, Any]
    cards: list[CardFigures] = field(default_factory=list)

    @property
    def first_player_rate(self) -> float:
        return self.first_player_wins / self.finished if self.finished else 0.0

    @property
    def first_player_ci(self) -> tuple[float, float]:
        return wilson(self.first_player_wins, self.finished)

    def agent_rate(self, name: str) -> float:
        games = self.agent_games.get(name, 0)
        return self.agent_wins.get(name, 0) / games if games else 0.0

    def to_json(self) -> str:
        data = asdict(self)
        data["agents"] = list(self.agents)
        data["first_player_rate"] = self.first_player_rate
        data["first_player_ci95"] = list(self.first_player_ci)
        data["agent_rates"] = {name: self.agent_rate(name) for name in self.agent_games}
        data["cards"] = [{**asdict(c), "win_rate": c.win_rate} for c in self.cards]
        return json.dumps(data, ensure_ascii=False, indent=2)

    def report(self, lang: str = "it") -> str:
        """A plain-text report, in Italian ("it") or English ("en")."""
        t = _WORDS[lang]
        low, high = self.first_player_ci
        lines = [
            t["title"].format(
                slug=self.slug, games=self.games, seed=self.seed, agents=" / ".join(self.agents)
            ),
            t["finished"].format(finished=self.finished, games=self.games),
            t["first"].format(rate=100 * self.first_player_rate, low=100 * low, high=100 * high),
        ]
        if len(set(self.agents)) > 1:
            for name in sorted(self.agent_games):
                lines.append(t["agent"].format(name=name, rate=100 * self.agent_rate(name)))
        triggers = ", ".join(f"{t.get(k, k)} {v}" for k, v in sorted(self.final_triggers.items()))
        lines.append(t["final"].format(triggers=triggers))
        s, n = self.scores, self.lengths
        lines.append(
            t["scores"].format(
                winner=s["winner_mean"], loser=s["loser_mean"], margin=s["margin_median"]
            )
        )
        lines.append(
            t["lengths"].format(
                turns=n["turns_mean"],
                lo=n["turns_min"],
                hi=n["turns_max"],
                actions=n["actions_mean"],
            )
        )
        lines.append("")
        lines.append(t["cards"])
        lines.append(f"{'#':>3}  {t['card']:<32} {'M':>6} {'P':>6} {t['winrate']:>8}")
        for i, c in enumerate(self.cards, 1):
            rate = "-" if c.win_rate is None else f"{100 * c.win_rate:.1f}%"
            lines.append(
                f"{i:>3}  {c.name:<32} {c.as_maledizione:>6} {c.as_preghiera:>6} {rate:>8}"
            )
        return "\n".join(lines)


_WORDS = {
    "it": {
        "title": "Simulazione di {slug}: {games} partite, seme {seed}, agenti {agents}",
        "finished": "Partite concluse: {finished} su {games}",
        "first": "Vittorie del Primo Giocatore: {rate:.1f}% (IC 95%: {low:.1f}%-{high:.1f}%)",
        "agent": "Vittorie dell'agente {name}: {rate:.1f}%",
        "final": "Turni Finali attivati da: {triggers}",
        "altare": "Altare",
        "mazzo": "Mazzo esaurito",
        "": "mai",
        "scores": (
            "Punti: vincitore {winner:.1f} in media, perdente {loser:.1f}; scarto mediano {margin}"
        ),
        "lengths": "Durata: {turns:.1f} turni in media ({lo}-{hi}), {actions:.1f} decisioni",
        "cards": (
            "Carte (M: calate o giocate come Maledizione, P: come Preghiera; "
            "vittorie di chi le ha giocate)"
        ),
        "card": "Carta",
        "winrate": "Vittorie",
    },
    "en": {
        "title": "{slug} simulation: {games} games, seed {seed}, agents {agents}",
        "finished": "Finished games: {finished} of {games}",
        "first": "First player wins: {rate:.1f}% (95% CI: {low:.1f}%-{high:.1f}%)",
        "agent": "Agent {name} wins: {rate:.1f}%",
        "final": "Final Turns triggered by: {triggers}",
        "altare": "Altar",
        "mazzo": "empty deck",
        "": "never",
        "scores": (
            "Points: winner {winner:.1f} on average, loser {loser:.1f}; median margin {margin}"
        ),
        "lengths": "Length: {turns:.1f} turns on average ({lo}-{hi}), {actions:.1f} decisions",
        "cards": "Cards (M: played as Maledizione, P: as Preghiera; win rate of who played them)",
        "card": "Card",
        "winrate": "Wins",
    },
}


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - spread), min(1.0, centre + spread)


def game_seed(seed: int, index: int, role: str = "game") -> int:
    """The seed of one game (or one of its agents): a function of the run's seed only."""
    return random.Random(f"{seed}/{index}/{role}").getrandbits(32)


def seats_for(agents: Sequence[str], index: int) -> tuple[str, str]:
    """Different agents swap seats every other game, so neither always sits first."""
    a, b = agents
    return (a, b) if index % 2 == 0 or a == b else (b, a)


def play_one(rules: Any, index: int, seed: int, agents: Sequence[str]) -> GameRecord:
    seats = seats_for(agents, index)
    game = rules.new_game(game_seed(seed, index))
    players = [
        make_agent(rules.slug, name, game_seed(seed, index, f"agent{p}"))
        for p, name in enumerate(seats)
    ]
    play(game, players)
    return record(game, index, seats)


def record(game: Any, index: int, seats: tuple[str, str]) -> GameRecord:
    codes = [c.code for c in game.info]
    plays = tuple(
        (codes[e.args[0]], "maledizione" if e.args[1] == 3 else "preghiera", e.player)
        for e in game.log
        if e.kind == "enter" and e.args[2] in ("cala", "play")
    )
    return GameRecord(
        index=index,
        seats=seats,
        first=game.first,
        winner=game.winner,
        scores=(game.scores[0], game.scores[1]),
        turns=game.turn,
        actions=sum(1 for e in game.log if e.kind == "action"),
        final_how=game.final_how,
        plays=plays,
    )


def record_game(
    project: Project,
    slug: str,
    seed: int,
    agents: Sequence[str] = ("random", "random"),
    options: dict[str, Any] | None = None,
) -> Replay:
    """Play one game between two agents and keep it as a replay (``replay.to_json()``)."""
    rules = load_rules(project, slug)
    game = rules.new_game(seed, options or {})
    play(
        game,
        [make_agent(slug, name, game_seed(seed, 0, f"agent{p}")) for p, name in enumerate(agents)],
    )
    return Replay.of(game, rules, seed, options or {})


_worker_rules: Any = None


def _init_worker(project: Project, slug: str) -> None:
    global _worker_rules
    _worker_rules = load_rules(project, slug)


def _play_chunk(indices: Sequence[int], seed: int, agents: Sequence[str]) -> list[GameRecord]:
    return [play_one(_worker_rules, i, seed, agents) for i in indices]


def simulate(
    project: Project,
    slug: str,
    games: int,
    seed: int,
    agents: Sequence[str] = ("random", "random"),
    jobs: int = 1,
    progress: Progress | None = None,
) -> SimulationResult:
    """Play `games` games between two agents ("random", "greedy") and gather the figures.

    The cards come from the project's database. `jobs` worker processes share the games;
    `progress(done, total)` is called as games finish.
    """
    if len(agents) != 2:
        raise ValueError("give two agents, one per player")
    rules = load_rules(project, slug)
    chunks = [range(start, min(start + CHUNK, games)) for start in range(0, games, CHUNK)]
    records: list[GameRecord] = []
    if jobs <= 1:
        for chunk in chunks:
            records += [play_one(rules, i, seed, agents) for i in chunk]
            if progress:
                progress(len(records), games)
    else:
        with ProcessPoolExecutor(jobs, initializer=_init_worker, initargs=(project, slug)) as pool:
            for done in pool.map(_play_chunk, chunks, [seed] * len(chunks), [agents] * len(chunks)):
                records += done
                if progress:
                    progress(len(records), games)
    return summarise(slug, seed, tuple(agents), records, [(c.code, c.name) for c in rules.cards])


def summarise(
    slug: str,
    seed: int,
    agents: tuple[str, str],
    records: Sequence[GameRecord],
    cards: Sequence[tuple[str, str]],
) -> SimulationResult:
    finished = [r for r in records if r.winner >= 0]
    agent_wins: Counter[str] = Counter()
    agent_games: Counter[str] = Counter()
    for r in finished:
        for p, name in enumerate(r.seats):
            agent_games[name] += 1
            agent_wins[name] += r.winner == p
    figures = {code: CardFigures(code, name) for code, name in cards}
    for r in records:
        seen = set()
        for code, way, player in r.plays:
            fig = figures[code]
            if way == "maledizione":
                fig.as_maledizione += 1
            else:
                fig.as_preghiera += 1
            if r.winner >= 0 and (code, player) not in seen:
                seen.add((code, player))
                fig.games_played += 1
                fig.wins += r.winner == player
    winners = [r.scores[r.winner] for r in finished] or [0]
    losers = [r.scores[1 - r.winner] for r in finished] or [0]
    margins = [w - loser for w, loser in zip(winners, losers, strict=True)]
    turns = [r.turns for r in records] or [0]
    actions = [r.actions for r in records] or [0]
    return SimulationResult(
        slug=slug,
        games=len(records),
        seed=seed,
        agents=agents,
        finished=len(finished),
        first_player_wins=sum(r.winner == r.first for r in finished),
        agent_wins=dict(agent_wins),
        agent_games=dict(agent_games),
        final_triggers=dict(Counter(r.final_how for r in records)),
        scores={
            "winner_mean": statistics.fmean(winners),
            "loser_mean": statistics.fmean(losers),
            "margin_median": statistics.median(margins),
            "winner_histogram": _histogram(winners),
            "loser_histogram": _histogram(losers),
            "margin_histogram": _histogram(margins),
        },
        lengths={
            "turns_mean": statistics.fmean(turns),
            "turns_min": min(turns),
            "turns_max": max(turns),
            "turns_histogram": _histogram(turns),
            "actions_mean": statistics.fmean(actions),
            "actions_histogram": _histogram(actions, width=25),
        },
        cards=list(figures.values()),
    )


def _histogram(values: Sequence[int], width: int = 1) -> dict[str, int]:
    """Counts per value (or per bucket of `width` values), keyed "low" or "low-high"."""
    counts = Counter((v // width) * width for v in values)
    return {(str(k) if width == 1 else f"{k}-{k + width - 1}"): counts[k] for k in sorted(counts)}
