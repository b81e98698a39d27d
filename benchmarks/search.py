"""How fast card search answers: queries over all five games, compiled to SQL and run.

    python benchmarks/search.py [--queries 1000] [--project DIR]

Prints the median and 95th percentile time of one query across every game (the goal: a
median of at most 20 ms), and the ratio against a naive baseline that loads every card into
Python and filters there with the browser's rules, i.e. what a search without SQL would cost.
"""

from __future__ import annotations

import argparse
import statistics
import time
from pathlib import Path

from pipeline.common.project import open_project
from pipeline.database.connection import open_project_db
from pipeline.search.sql import Searcher, browser_index

QUERIES = [
    "forma:ombra occhio>=5 preghiera:legame",
    "gioco:samurai-sword tipo:arma difficolta>=3 -nome:daikyu",
    "t:spezza ordina:-karma",
    "colore:rosso or colore:blu",
    "stato:ricostruito tipo:progetto elementi:10",
    "katana",
    "copie>1 ordina:nome",
    'tipo:personaggio (forza>=4 or resistenza>=5) -t:"una ferita"',
    "t:carte* ordina:-copie",
    "fazione:corte astuzia>=3",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--queries", type=int, default=1000)
    parser.add_argument("--project", type=Path, default=None)
    args = parser.parse_args()
    project = open_project(args.project)
    with open_project_db(project) as db:
        searcher = Searcher(db)
        times = []
        for i in range(args.queries):
            started = time.perf_counter()
            searcher.search(QUERIES[i % len(QUERIES)])
            times.append(time.perf_counter() - started)
        median = statistics.median(times)
        p95 = statistics.quantiles(times, n=20)[-1]
        # the baseline: read every card of every game again for each query (as a tool with
        # no query compiler would), counting only the reading
        started = time.perf_counter()
        rounds = max(1, args.queries // 20)
        for _ in range(rounds):
            browser_index(db)
        naive = (time.perf_counter() - started) / rounds
    print(f"search over all five games: {args.queries} queries")
    print(f"  median {median * 1000:.2f} ms, 95th percentile {p95 * 1000:.2f} ms")
    print("  (goal: median <= 20 ms)")
    print(f"  reading every card instead: {naive * 1000:.2f} ms a query")
    print(f"  ratio search / reading every card: {median / naive:.2f}")


if __name__ == "__main__":
    main()
