"""The site step of `cartiera build`: both variants side by side against one after the other.

    python3 benchmarks/site.py [--rounds 2]

`cartiera build` makes the served site and the offline one from one generation of the
pages, the two MkDocs builds running side by side (pipeline/publish/site/pages.py,
build_sites). Before, they were built one after the other, each generating the pages, while
the build's other core waited. This prints both ways, timed in the same run on a copy of
this checkout that `cartiera build` has built once (so every download and picture exists),
alternating so that a busy moment of a shared machine falls on both, and their ratio.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from first_run import copy_checkout  # the checkout's tracked files, as a clone has them

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        project = copy_checkout(Path(scratch) / "project")
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        print("building the copy once (a cold `cartiera build`)...", flush=True)
        subprocess.run(
            [sys.executable, "-m", "pipeline", "build"], cwd=project, env=env, check=True
        )
        os.chdir(project)
        from pipeline.common.project import open_project
        from pipeline.publish.site import pages

        opened = open_project(project)

        def side_by_side() -> None:
            pages.build_sites(opened)

        def one_after_the_other() -> None:
            folder = pages.build_site(opened, offline=True)
            pages.offline_zip(opened, folder, pages.offline_zip_path(opened))
            pages.build_site(opened)

        ways = {"side by side": side_by_side, "one after the other": one_after_the_other}
        times: dict[str, list[float]] = {name: [] for name in ways}
        for _ in range(args.rounds):
            for name, way in ways.items():
                started = time.perf_counter()
                way()
                times[name].append(time.perf_counter() - started)
        best = {name: min(values) for name, values in times.items()}
        for name, seconds in best.items():
            print(f"{name:<22} {seconds:6.1f} s (best of {args.rounds})")
        ratio = best["one after the other"] / best["side by side"]
        print(f"side by side is {ratio:.2f}x as fast, on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
