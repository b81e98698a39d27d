"""What a random game costs every registered rules engine, counted in CPU instructions.

    python benchmarks/instructions.py [--games 20] [--seed 1] [--project DIR] [--only SLUG]

Games per second follow the machine: on a shared host the same build runs at half speed in
a neighbour's busy spell. The instructions a game executes do not: they are counted by
Valgrind's callgrind (Debian package valgrind) in a child process, with counting switched on
after the project is loaded and one warm-up game is played, and off when the games end, so
only play is counted. Two runs of the same build agree to about 0.2%. For each engine:
instructions per game and per decision (decisions per game too, so a shorter game cannot
fake a cheaper one), and the ratio of its pure-Python source to the build that runs here,
counted the same way. The games are benchmarks/engine.py's: random against random, one seat
per player, the game's minimum of players.

Slow (about 50 times slower than the games themselves): meant for comparing two builds of an
engine before and after a change, not for CI.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from engine import play_games

from pipeline.common.project import open_project
from pipeline.compiled import PURE_ENV
from pipeline.engine import registry
from pipeline.play.records import load_rules

COLLECTED = re.compile(r"Collected\s*:\s*(\d+)")


def _switch(on: bool) -> None:
    """Counting on or off in the callgrind that runs this process."""
    flag = "on" if on else "off"
    subprocess.run(
        ["callgrind_control", "-i", flag, str(os.getpid())], capture_output=True, check=True
    )


def child(project: Path | None, slug: str, games: int, seed: int) -> None:
    """Runs under callgrind: plays the games with counting on; prints the decisions."""
    rules = load_rules(open_project(project), slug)
    play_games(rules, 1, 10_000)  # warm-up: first-call costs are not the engine's
    _switch(True)
    _, decisions, _ = play_games(rules, games, seed)
    _switch(False)
    print(decisions)


def count(slug: str, args: argparse.Namespace, pure: bool) -> tuple[int, int]:
    """Instructions executed and decisions taken by the games, in a child under callgrind."""
    command = [sys.executable, __file__, "--child", slug, "--games", str(args.games)]
    command += ["--seed", str(args.seed)]
    if args.project is not None:
        command += ["--project", str(args.project)]
    env = {**os.environ, PURE_ENV: "1"} if pure else dict(os.environ)
    with tempfile.TemporaryDirectory() as folder:
        valgrind = ["valgrind", "--tool=callgrind", "--instr-atstart=no"]
        valgrind.append(f"--callgrind-out-file={Path(folder) / 'out'}")
        run = subprocess.run(valgrind + command, capture_output=True, text=True, env=env)
    found = COLLECTED.search(run.stderr)
    if run.returncode != 0 or found is None:
        raise SystemExit(f"{slug}: the counted run failed:\n{run.stderr[-2000:]}")
    return int(found.group(1)), int(run.stdout.split()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=20)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--project", type=Path, default=None)
    parser.add_argument("--only", default=None, help="one engine's slug")
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.project, args.child, args.games, args.seed)
        return
    missing = [tool for tool in ("valgrind", "callgrind_control") if shutil.which(tool) is None]
    if missing:
        sys.exit(f"{missing[0]} not found: install Debian's valgrind package to count instructions")
    print(f"{args.games} random games from seed {args.seed}, instructions counted by callgrind")
    for slug in [args.only] if args.only else registry.engine_slugs():
        ours, decisions = count(slug, args, pure=False)
        pure, _ = count(slug, args, pure=True)
        print(f"{slug}:")
        print(f"  instructions per game:     {ours / args.games:14,.0f}")
        print(f"  decisions per game:        {decisions / args.games:14.1f}")
        print(f"  instructions per decision: {ours / decisions:14,.0f}")
        print(f"  pure Python against this build: {pure / ours:.2f}x the instructions")


if __name__ == "__main__":
    main()
