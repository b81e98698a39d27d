"""How fast the Bless engine plays: random-vs-random games per second on one core.

    python benchmarks/engine.py [--games 300] [--seed 1] [--project DIR]

Prints games per second, the mean number of actions (decisions) per game, and the ratio
against a naive baseline that plays the same games but copies the whole state with
copy.deepcopy before every action, as an engine with immutable states would.
"""

from __future__ import annotations

import argparse
import copy
import time
from pathlib import Path

from pipeline.engine.agents import RandomAgent
from pipeline.engine.registry import load_rules
from pipeline.project import open_project


def play_games(rules, games: int, seed: int, naive: bool = False) -> tuple[float, int]:
    """Seconds taken and actions played by `games` random games from `seed` on."""
    actions = 0
    started = time.perf_counter()
    for i in range(games):
        game = rules.new_game(seed + i)
        agents = [RandomAgent(2 * (seed + i)), RandomAgent(2 * (seed + i) + 1)]
        shared = {id(rules): rules, id(game.info): game.info}
        while not game.is_terminal():
            action = agents[game.current_player()].act(game)
            if naive:
                game = copy.deepcopy(game, dict(shared))
            game.apply(action)
            actions += 1
    return time.perf_counter() - started, actions


def clone_cost(rules, seed: int) -> tuple[float, float]:
    """Microseconds for one explicit clone() and one copy.deepcopy of a mid-game state."""
    game = rules.new_game(seed)
    agents = [RandomAgent(1), RandomAgent(2)]
    for _ in range(80):
        if game.is_terminal():
            break
        game.apply(agents[game.current_player()].act(game))
    shared = {id(rules): rules, id(game.info): game.info}
    n = 200
    started = time.perf_counter()
    for _ in range(n):
        game.clone()
    clone = (time.perf_counter() - started) / n * 1e6
    started = time.perf_counter()
    for _ in range(n // 10):
        copy.deepcopy(game, dict(shared))
    deep = (time.perf_counter() - started) / (n // 10) * 1e6
    return clone, deep


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=300)
    parser.add_argument("--baseline-games", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--project", type=Path, default=None)
    args = parser.parse_args()
    rules = load_rules(open_project(args.project), "bless")
    play_games(rules, 5, 10_000)  # warm up
    seconds, actions = play_games(rules, args.games, args.seed)
    rate = args.games / seconds
    base_seconds, _ = play_games(rules, args.baseline_games, args.seed, naive=True)
    base_rate = args.baseline_games / base_seconds
    clone, deep = clone_cost(rules, args.seed)
    print(f"Bless engine, random against random, one core ({args.games} games, seed {args.seed})")
    print(f"  games per second:       {rate:8.1f}")
    print(f"  actions per game:       {actions / args.games:8.1f}")
    print(f"  actions per second:     {actions / seconds:8.0f}")
    games = args.baseline_games
    print(f"naive baseline (copy.deepcopy of the state before each action, {games} games)")
    print(f"  games per second:       {base_rate:8.1f}")
    print(f"  speed-up:               {rate / base_rate:8.1f}x")
    print(f"  one clone(): {clone:.1f} us, one copy.deepcopy: {deep:.1f} us")


if __name__ == "__main__":
    main()
