"""Whole BLITZ matches (rules 8.1 and 8.2): `cartiera simulate blitz --match rounds|points`.

A match is a run of seeded rounds between the same players; the deal passes left every
round (ruling blitz-mazziere-fra-i-round). Match i of a run is seeded from (seed, i) only
and results are gathered in match order, so any number of workers gives the same figures.
"""

from __future__ import annotations

import json
import random
import statistics
from collections.abc import Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from typing import Any

from pipeline.common.words import decimal
from pipeline.engine.agents import play
from pipeline.engine.core import CardRecord, Seats
from pipeline.engine.plugin import Agent, Engine, rate
from pipeline.engine.registry import build_rules, make_agent

from .state import BlitzState

ROUNDS_IN_A_ROW = 5  # 8.1
CHAMPIONSHIP_POINTS = 255  # 8.2
MATCH_MODES = ("rounds", "points")
CHUNK = 10


def play_match(
    rules: Engine[BlitzState],
    mode: str,
    seed: int,
    players: int,
    options: Mapping[str, Any],
    agents: Sequence[Agent],
    max_rounds: int = 100_000,
) -> dict[str, Any]:
    """One match of seeded rounds (8.1: first side to win 5 rounds in a row; 8.2: first to
    255 points). The deal passes left every round, so match player m sits at seat m - round;
    sides are whole teams. Returns the winners (match players), the rounds with their winners
    and, for a championship, every match player's side total."""
    if mode not in MATCH_MODES:
        raise ValueError(f"match must be one of {', '.join(MATCH_MODES)}, not '{mode}'")
    rng = random.Random(seed)
    streak: dict[int, int] = {}
    totals: dict[int, int] = {}
    tiebreak = False
    side: tuple[int, ...] = ()
    history: list[list[int]] = []
    for played in range(1, max_rounds + 1):
        state = rules.new_game(rng.randrange(2**32), players, options)
        side = side or state.team  # a match player's side: their team in the first round
        shift = played - 1
        play(state, [agents[(s + shift) % players] for s in range(players)])
        outcome = state.outcome()
        assert outcome is not None
        won = {side[(s + shift) % players] for s in outcome.winners}
        history.append(sorted(m for m in range(players) if side[m] in won))
        if outcome.stopped:  # cut short by the safeguard: no result, the round is not counted
            continue
        points: dict[int, int] = {}
        for s in range(players):
            t = side[(s + shift) % players]
            points[t] = points.get(t, 0) + state.points(s)
        if mode == "rounds":
            for t in points:
                streak[t] = streak.get(t, 0) + 1 if t in won else 0
            done = {t for t, k in streak.items() if k >= ROUNDS_IN_A_ROW}
        elif tiebreak:  # ruling blitz-campionato: the extra game's points decide
            best = max(points.values())
            done = {t for t, v in points.items() if v == best}
            done = done if len(done) == 1 else set()
        else:
            for t, v in points.items():
                totals[t] = totals.get(t, 0) + v
            over = {t: v for t, v in totals.items() if v >= CHAMPIONSHIP_POINTS}
            best = max(over.values()) if over else 0
            done = {t for t, v in over.items() if v == best}
            tiebreak = len(done) > 1
            done = set() if tiebreak else done
        if done:
            break
    else:
        done = set()
    return {
        "mode": mode,
        "winners": [m for m in range(players) if side[m] in done],
        "rounds": len(history),
        "history": history,  # per round, the match players who won it
        "totals": [totals.get(side[m], 0) for m in range(players)],
    }


def match_seed(seed: int, index: int, role: str = "match") -> int:
    return random.Random(f"{seed}/{index}/{role}").getrandbits(32)


def _play_matches(
    seats: Seats,
    records: Sequence[CardRecord],
    digest: str,
    spec: tuple[str, int, dict[str, Any], tuple[str, ...], int],
    indices: Sequence[int],
) -> list[dict[str, Any]]:
    """A worker's share: matches `indices`, the agents rotated by the match's index. The
    rules come through the registry, as every worker builds an engine from plain data."""
    mode, players, options, agents, seed = spec
    rules: Engine[BlitzState] = build_rules("blitz", seats, records, digest)
    out = []
    for i in indices:
        names = [agents[(p + i) % players] for p in range(players)]
        playing = [
            make_agent("blitz", name, match_seed(seed, i, f"agent{p}"))
            for p, name in enumerate(names)
        ]
        result = play_match(rules, mode, match_seed(seed, i), players, options, playing)
        result["agents"] = names
        out.append(result)
    return out


@dataclass
class MatchResult:
    """The figures of a run of matches; `to_json` for machines, `report` for people."""

    mode: str
    matches: int
    seed: int
    players: int
    agents: tuple[str, ...]
    options: dict[str, Any]
    seats: list[dict[str, Any]]  # match wins of the player who sat at seat p in round 1
    agent_rates: dict[str, dict[str, Any]]
    unfinished: int
    rounds: dict[str, float]
    champion_points: float  # mean final total of the winning side (points mode)

    def to_json(self) -> str:
        data = asdict(self)
        data["agents"] = list(self.agents)
        return json.dumps(data, ensure_ascii=False, indent=2)

    def report(self) -> str:
        what = {"rounds": "round singoli (5 di seguito)", "points": "campionato a 255 punti"}
        lines = [
            f"Sfide di BLITZ, {what[self.mode]}: {self.matches} sfide, seme {self.seed}, "
            f"{self.players} giocatori, agenti {' / '.join(self.agents)}"
        ]
        for p, cell in enumerate(self.seats, 1):
            lines.append(f"Sfide vinte dal giocatore {p}: {_pct(cell)}")
        if len(set(self.agents)) > 1:
            for name, cell in self.agent_rates.items():
                lines.append(f"Sfide vinte dall'agente {name}: {_pct(cell)}")
        r = self.rounds
        lines.append(
            f"Round per sfida: {decimal(r['mean'], '.1f')} in media, mediana "
            f"{decimal(r['median'])} ({r['min']:g}-{r['max']:g})"
        )
        if self.mode == "points":
            points = decimal(self.champion_points, ".1f")
            lines.append(f"Punti finali di chi vince: {points} in media")
        if self.unfinished:
            lines.append(f"Sfide non concluse entro il limite di round: {self.unfinished}")
        return "\n".join(lines)


def _pct(cell: Mapping[str, Any]) -> str:
    rate, low, high = (decimal(100 * cell[k], ".1f") for k in ("rate", "low", "high"))
    return f"{rate}% (IC 95%: {low}%-{high}%)"


class Matches:
    """BLITZ's whole matches, as the platform asks for them (MatchPlay): the rules are built
    again from plain data in every worker."""

    modes = MATCH_MODES

    def __init__(self, seats: Seats, records: Sequence[CardRecord], digest: str):
        self.seats = seats
        self.records = list(records)
        self.digest = digest

    def play(
        self,
        mode: str,
        matches: int,
        seed: int,
        players: int,
        options: Mapping[str, Any],
        agents: Sequence[str],
        jobs: int = 1,
    ) -> MatchResult:
        """Whole matches of rounds (8.1, 8.2), for `cartiera simulate blitz --match`."""
        return simulate_matches(self, mode, matches, seed, players, options, agents, jobs)


def simulate_matches(
    source: Matches,
    mode: str,
    matches: int,
    seed: int,
    players: int,
    options: Mapping[str, Any],
    agents: Sequence[str],
    jobs: int = 1,
) -> MatchResult:
    """Play `matches` seeded matches and gather who won them and how long they lasted."""
    if mode not in MATCH_MODES:
        raise ValueError(f"match must be one of {', '.join(MATCH_MODES)}, not '{mode}'")
    spec = (mode, players, dict(options), tuple(agents), seed)
    chunks = [range(s, min(s + CHUNK, matches)) for s in range(0, matches, CHUNK)]
    data = (source.seats, source.records, source.digest)
    results: list[dict[str, Any]] = []
    if jobs <= 1:
        for chunk in chunks:
            results += _play_matches(*data, spec, chunk)
    else:
        n = len(chunks)
        with ProcessPoolExecutor(jobs) as pool:
            for part in pool.map(_play_matches, *([d] * n for d in data), [spec] * n, chunks):
                results += part
    wins = [0] * players
    agent_wins: dict[str, int] = {}
    agent_seats: dict[str, int] = {}
    for r in results:
        for m in r["winners"]:
            wins[m] += 1
        for m, name in enumerate(r["agents"]):
            agent_seats[name] = agent_seats.get(name, 0) + 1
            agent_wins[name] = agent_wins.get(name, 0) + (m in r["winners"])
    rounds = [r["rounds"] for r in results] or [0]
    finished = [r for r in results if r["winners"]]
    return MatchResult(
        mode=mode,
        matches=len(results),
        seed=seed,
        players=players,
        agents=tuple(agents),
        options=dict(options),
        seats=[rate(wins[m], len(results)) for m in range(players)],
        agent_rates={a: rate(agent_wins[a], agent_seats[a]) for a in sorted(agent_seats)},
        unfinished=len(results) - len(finished),
        rounds={
            "mean": statistics.fmean(rounds),
            "median": statistics.median(rounds),
            "min": min(rounds),
            "max": max(rounds),
        },
        champion_points=statistics.fmean([r["totals"][r["winners"][0]] for r in finished] or [0]),
    )
