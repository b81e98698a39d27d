"""How fast `cartiera import` takes a large table: a CSV of N new cards (all but the first
ten) imported into a small game, timed three ways in one run:

    python benchmarks/import_rows.py [--rows 10000]

- ours: `import` as it is (unchanged cards keep their text, the rest written by
  yamlwrite's fast emitter);
- ruamel: the same import writing the whole cards.yaml with ruamel's emitter, as it did
  before (about a millisecond a card: a 100,000-row table took minutes);
- raw: the floor, csv.DictReader and PyYAML's C emitter, no checks at all.

Prints CPU seconds and rows per second for each, and the ratios. The written files of
`ours` and `ruamel` must be the same text (the script checks it).
"""

from __future__ import annotations

import argparse
import csv
import io
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from pipeline.common.project import open_project
from pipeline.sources import yamlfile, yamlwrite
from pipeline.spreadsheet import roundtrip as spreadsheet

GAME = """\
slug: prova
name: Prova
players: {min: 1, max: 1}
status: reconstructed
status_note: Mazzo di prova per l'importazione.
description: Carte numerate.
attributes:
  valore: {label: Valore, type: int, min: 1, max: 99}
kinds:
  carta: {label: Carta, attributes: [valore]}
decks:
  base: {name: Base}
"""
COLUMNS = ["number", "code", "name", "kind", "copies", "deck", "status", "valore"]


def _project(root: Path, rows: int) -> Path:
    game = root / "games/prova"
    game.mkdir(parents=True)
    (game / "game.yaml").write_text(GAME, encoding="utf-8")
    (game / "cards.yaml").write_text(
        "# le carte di prova\ncards:\n"
        + "".join(
            f"  - number: {n}\n    id: carta-{n}\n    name: Carta {n}\n    kind: carta\n"
            f"    attributes: {{valore: {n % 90 + 1}}}  # {n}\n"
            for n in range(1, 11)
        ),
        encoding="utf-8",
    )
    table = root / "carte.csv"
    with table.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(COLUMNS)
        for n in range(1, rows + 1):
            name = f"Carta {n}" if n % 7 else f"Carta {n}: l'ultima, «bis»"
            writer.writerow([n, f"carta-{n}", name, "carta", 1 + (n % 50 == 0), "", "", n % 90 + 1])
    return table


def _whole_file_by_ruamel(text: str, tree: Any, key: str, items: list[yamlwrite.Item]) -> str:
    """The writer import used before replace_items: ruamel dumps the whole tree."""
    tree[key][:] = [item.node for item in items]
    stream = io.StringIO()
    yamlfile.round_trip_yaml().dump(tree, stream)
    return stream.getvalue()


def _cpu(run: Callable[[], Any]) -> float:
    started = time.process_time()
    run()
    return time.process_time() - started


def _import(root: Path, table: Path) -> Callable[[], Any]:
    project = open_project(root)
    original = (root / "games/prova/cards.yaml").read_bytes()

    def run() -> None:
        (root / "games/prova/cards.yaml").write_bytes(original)
        spreadsheet.import_csv(project, "prova", table)

    return run


def _raw(table: Path, out: Path) -> Callable[[], Any]:
    def run() -> None:
        with table.open(encoding="utf-8", newline="") as handle:
            cards = [
                {
                    "number": int(row["number"]),
                    "id": row["code"],
                    "name": row["name"],
                    "kind": row["kind"],
                    "attributes": {"valore": int(row["valore"])},
                }
                for row in csv.DictReader(handle)
            ]
        out.write_text(yaml.dump({"cards": cards}, Dumper=yaml.CSafeDumper, allow_unicode=True))

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder) / "proj"
        table = _project(root, args.rows)
        cards = root / "games/prova/cards.yaml"
        ours = _cpu(_import(root, table))
        written = cards.read_text(encoding="utf-8")
        fast = spreadsheet.replace_items
        spreadsheet.replace_items = _whole_file_by_ruamel
        try:
            ruamel = _cpu(_import(root, table))
        finally:
            spreadsheet.replace_items = fast
        same = cards.read_text(encoding="utf-8") == written
        raw = _cpu(_raw(table, Path(folder) / "raw.yaml"))
    rows = args.rows
    for name, seconds in (("ours", ours), ("ruamel", ruamel), ("raw", raw)):
        print(f"{name:>7}: {seconds:6.2f} s CPU, {rows / seconds:9,.0f} rows/s")
    print(f"ours is {ruamel / ours:.1f}x the rows/s of ruamel, {raw / ours:.2f}x those of raw")
    print(f"ours and ruamel wrote the same cards.yaml: {same}")
    if not same:
        sys.exit(1)


if __name__ == "__main__":
    main()
