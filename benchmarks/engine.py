"""How fast every registered rules engine plays: random-vs-random games per second on one core.

    python benchmarks/engine.py [--games 300] [--rounds 5] [--seed 1] [--project DIR] [--only SLUG]

For each engine (registry.engine_slugs()): games per second (the fastest of --rounds runs of
the same games), decisions per game (so a shorter game cannot fake a higher rate), decisions
per second, and the ratio against a naive baseline that plays the same games but copies the
whole state with copy.deepcopy before every action, as an engine with immutable states
would. The players' number is the game's minimum. Goals: Bless >= 300 games/s; every engine
>= 50,000 decisions/s.

The engine runs as installed: compiled where setup.py compiled it (the first line says which
modules), pure Python with CARTIERA_PURE_PYTHON=1. A compiled engine is also timed against
its own pure-Python source in a child process, on the same games.
"""

from __future__ import annotations

import argparse
import copy
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from pipeline.common.project import open_project
from pipeline.compiled import PURE_ENV, compiled_modules
from pipeline.engine import registry
from pipeline.engine.agents import RandomAgent, many_games
from pipeline.play.records import load_rules


def _shared(rules: Any) -> dict[int, Any]:
    """What deepcopy must not copy: the rules and the card data they hold."""
    return {id(v): v for v in (rules, *vars(rules).values())}


def play_games(rules: Any, games: int, seed: int, naive: bool = False) -> tuple[float, int, float]:
    """Seconds taken, decisions taken and CPU seconds used by `games` random games from
    `seed` on (CPU time too: on a shared machine the wall clock counts the others' work)."""
    decisions = 0
    cpu = time.process_time()
    started = time.perf_counter()
    with many_games():  # as `cartiera simulate` plays them
        for i in range(games):
            state = rules.new_game(seed + i)
            n = state.num_players
            agents = [RandomAgent(n * (seed + i) + p) for p in range(n)]
            shared = _shared(rules)
            while not state.is_terminal():
                action = agents[state.current_player()].act(state)
                if naive:
                    state = copy.deepcopy(state, dict(shared))
                state.apply(action)
                decisions += 1
    return time.perf_counter() - started, decisions, time.process_time() - cpu


def clone_cost(rules: Any, seed: int) -> tuple[float, float]:
    """Microseconds for one explicit clone() and one copy.deepcopy of a mid-game state."""
    state = rules.new_game(seed)
    agents = [RandomAgent(p) for p in range(state.num_players)]
    for _ in range(80):
        if state.is_terminal():
            break
        state.apply(agents[state.current_player()].act(state))
    shared = _shared(rules)
    n = 200
    started = time.perf_counter()
    for _ in range(n):
        state.clone()
    clone = (time.perf_counter() - started) / n * 1e6
    started = time.perf_counter()
    for _ in range(n // 10):
        copy.deepcopy(state, dict(shared))
    deep = (time.perf_counter() - started) / (n // 10) * 1e6
    return clone, deep


def best_rate(rules: Any, games: int, seed: int, rounds: int = 3) -> float:
    """The best of a few runs, in games per CPU second (the least disturbed by the others)."""
    return max(games / play_games(rules, games, seed)[2] for _ in range(rounds))


def against_pure(rules: Any, games: int, seed: int, project: Path | None) -> tuple[float, float]:
    """Games per CPU second of this compiled engine and of its pure-Python source, measured
    at the same time: the source in a child process (a compiled module cannot be unloaded
    from this one), on the other core, so both meet the same machine."""
    command = [sys.executable, __file__, "--only", rules.slug, "--games", str(games)]
    command += ["--seed", str(seed), "--rate-only"]
    if project is not None:
        command += ["--project", str(project)]
    env = {**os.environ, PURE_ENV: "1"}
    with subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True) as child:
        ours = best_rate(rules, games, seed)
        pure = float(child.communicate()[0])
    return ours, pure


def bench(rules: Any, games: int, baseline_games: int, seed: int, rounds: int) -> None:
    play_games(rules, 5, 10_000)  # warm up
    # the same games `rounds` times, the fastest kept: on a shared machine a run of a second
    # can lose a third of its speed to a neighbour, and the least disturbed run is the
    # engine's own speed (as timeit keeps the minimum)
    seconds, decisions, cpu = min(play_games(rules, games, seed) for _ in range(rounds))
    rate = games / seconds
    base_seconds, _, _ = play_games(rules, baseline_games, seed, naive=True)
    base_rate = baseline_games / base_seconds
    clone, deep = clone_cost(rules, seed)
    print(
        f"{rules.slug}: random against random, one core "
        f"({games} games, seed {seed}, fastest of {rounds} runs)"
    )
    print(f"  games per second:       {rate:10.1f}")
    print(f"  games per CPU second:   {games / cpu:10.1f}")
    print(f"  decisions per game:     {decisions / games:10.1f}")
    print(f"  decisions per second:   {decisions / seconds:10.0f}")
    print(f"  naive deepcopy baseline ({baseline_games} games): {base_rate:.1f} games/s")
    print(f"  speed-up over it:       {rate / base_rate:10.1f}x")
    print(f"  one clone(): {clone:.1f} us, one copy.deepcopy: {deep:.1f} us")


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument(
        "--rounds", type=int, default=5, help="runs of the games, fastest counts (as timeit's 5)"
    )
    parser.add_argument("--baseline-games", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--project", type=Path, default=None)
    parser.add_argument("--only", default=None, help="one engine's slug")
    parser.add_argument("--pure-games", type=int, default=100, help="games played as pure Python")
    parser.add_argument("--rate-only", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    project = open_project(args.project)
    if args.rate_only:  # the child of against_pure()
        rules = load_rules(project, args.only)
        play_games(rules, 5, 10_000)
        print(best_rate(rules, args.games, args.seed))
        return
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"load average at start: {load:.2f} on {os.cpu_count()} cores")
    for slug in [args.only] if args.only else registry.engine_slugs():
        rules = load_rules(project, slug)
        package = f"pipeline.games.{rules.slug.replace('-', '_')}."
        fast = [m for m in compiled_modules() if m.startswith(package)]
        print(
            f"{rules.slug}: {len(fast)} modules compiled" if fast else f"{rules.slug}: pure Python"
        )
        bench(rules, args.games, args.baseline_games, args.seed, args.rounds)
        if fast:
            ours, pure = against_pure(rules, args.pure_games, args.seed, args.project)
            print(f"  compiled against pure Python ({args.pure_games} games, per CPU second):")
            print(f"    {ours:.1f} against {pure:.1f}, {ours / pure:.2f}x")


if __name__ == "__main__":
    main()
