"""What a Dask cluster gives a balance run: `--cluster local:N` against `--jobs 1`.

    python benchmarks/cluster.py [--game bless] [--games 4000] [--workers 2] [--project DIR]

Plays the same seeded games on one process and on a local cluster of N worker processes,
checks that the figures are identical, and prints the speed-up and the games per second per
core, from which the README's sizing of a 10^7-game sweep is worked out.
"""

from __future__ import annotations

import argparse
import os
import time
from pathlib import Path

from pipeline.common.project import open_project
from pipeline.play.simulate import simulate


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="bless")
    parser.add_argument("--games", type=int, default=4000)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--seed", type=int, default=11)
    parser.add_argument("--project", type=Path, default=None)
    args = parser.parse_args()
    project = open_project(args.project)

    started = time.perf_counter()
    alone = simulate(project, args.game, args.games, args.seed, jobs=1)
    one = time.perf_counter() - started

    started = time.perf_counter()
    spread = simulate(project, args.game, args.games, args.seed, cluster=f"local:{args.workers}")
    many = time.perf_counter() - started

    same = alone.to_json() == spread.to_json()
    print(f"{args.game}: {args.games} games, seed {args.seed}, {os.cpu_count()} cores here")
    print(f"  --jobs 1:          {one:7.1f} s  ({args.games / one:7.1f} games/s on one core)")
    print(f"  --cluster local:{args.workers}: {many:7.1f} s  (starting the cluster included)")
    print(f"  speed-up: {one / many:.2f}x; identical figures: {same}")
    if not same:
        raise SystemExit("the cluster's figures differ from one process's")


if __name__ == "__main__":
    main()
