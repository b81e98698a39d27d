"""The garbage collector's share of laying out faces: Python's default setting against the
one `cartiera` makes (pipeline/common/collector.py).

Each run is a fresh process that lays out the light-ink faces of the games given (none of
them is in any cache: each run renders into a new folder) and reports its CPU time and the
time the collector took, measured with gc.callbacks. Runs alternate between the two
settings, so that a machine that slows down or speeds up meanwhile weighs on both.

Prints ratios measured in this run. Run from the project folder:
    python3 benchmarks/collector.py [--games bless,mazzo] [--rounds 2]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

RUN = """
import gc, json, resource, sys, tempfile, time
from pathlib import Path
if sys.argv[1] == "cartiera":
    from pipeline.common.collector import collect_less_often
    collect_less_often()
spent = [0.0]
started = [0.0]
def timed(phase, info):
    if phase == "start":
        started[0] = time.perf_counter()
    else:
        spent[0] += time.perf_counter() - started[0]
from pipeline.common.project import open_project
from pipeline.publish.render.deck import load_faces
from pipeline.publish.render.faces import render_faces
from pipeline.publish.render.paper import BLEED_MM
project = open_project(Path(sys.argv[2]))
decks = [load_faces(project, slug, BLEED_MM, ink="light") for slug in sys.argv[3].split(",")]
gc.callbacks.append(timed)
cpu = time.process_time()
for faces in decks:
    with tempfile.TemporaryDirectory() as cache:
        render_faces(faces, Path(cache))
cpu = time.process_time() - cpu
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"cpu": cpu, "gc": spent[0], "peak_mb": peak}))
"""


def run(setting: str, games: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, "-c", RUN, setting, str(ROOT), games],
        check=True,
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    ).stdout
    return json.loads(out.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="bless,mazzo")
    parser.add_argument("--rounds", type=int, default=2)
    args = parser.parse_args()
    results: dict[str, list[dict[str, float]]] = {"default": [], "cartiera": []}
    for _ in range(args.rounds):
        for setting in results:
            results[setting].append(run(setting, args.games))
    median = {
        setting: {key: statistics.median(r[key] for r in runs) for key in runs[0]}
        for setting, runs in results.items()
    }
    print(f"light-ink faces of {args.games}, median of {args.rounds} fresh processes each")
    for setting, m in median.items():
        share = m["gc"] / m["cpu"]
        print(
            f"  {setting:9} CPU {m['cpu']:6.2f} s, collector {m['gc']:5.2f} s ({share:.0%}),"
            f" peak {m['peak_mb']:.0f} MB"
        )
    ratio = median["default"]["cpu"] / median["cartiera"]["cpu"]
    print(f"Python's default setting takes {ratio:.2f}x the CPU time of cartiera's")


if __name__ == "__main__":
    main()
