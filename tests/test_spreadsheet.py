"""Spreadsheet round trip: export, edit, import; nothing written when anything is wrong."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

import pytest
from conftest import GAMES


def _sources(project: Path) -> dict[str, bytes]:
    return {
        p.relative_to(project).as_posix(): p.read_bytes()
        for p in sorted((project / "games").rglob("*"))
        if p.is_file()
    }


@pytest.mark.parametrize("slug", GAMES)
def test_unchanged_export_imports_to_identical_sources(
    built: Path, cli, slug: str, tmp_path: Path
) -> None:
    before = _sources(built)
    out = tmp_path / f"{slug}.csv"
    assert cli(built, "export", slug, "--out", str(out)).exit_code == 0
    run = cli(built, "import", slug, str(out))
    assert run.exit_code == 0, run.output
    assert "0 cards changed" in run.stdout
    assert _sources(built) == before


def test_export_columns_are_the_views(built: Path, cli) -> None:
    run = cli(built, "export", "bless")
    rows = list(csv.DictReader(io.StringIO(run.stdout)))
    assert len(rows) == 62
    with sqlite3.connect(built / "cards.db") as conn:
        columns = [r[1] for r in conn.execute("PRAGMA table_info(bless_cards)")]
    assert list(rows[0]) == columns
    assert rows[0]["name"] == "Re Luce" and rows[0]["occhio"] == "3"


def test_json_export(built: Path, cli) -> None:
    run = cli(built, "export", "samurai-sword", "--format", "json")
    cards = json.loads(run.stdout)
    katana = next(c for c in cards if c["name"] == "Katana")
    assert katana["difficolta"] == 2 and katana["ferite"] == 3


def _edit_csv(path: Path, code: str, column: str, value: str) -> None:
    rows = list(csv.DictReader(io.StringIO(path.read_text(encoding="utf-8"))))
    for row in rows:
        if row["code"] == code:
            row[column] = value
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def test_edited_cell_reaches_the_sources_and_the_database(built: Path, cli, tmp_path: Path) -> None:
    out = tmp_path / "bless.csv"
    cli(built, "export", "bless", "--out", str(out))
    _edit_csv(out, "re-luce", "occhio", "4")
    before = (built / "games/bless/cards.yaml").read_text(encoding="utf-8")
    run = cli(built, "import", "bless", str(out))
    assert run.exit_code == 0, run.output
    assert "1 cards changed" in run.stdout
    after = (built / "games/bless/cards.yaml").read_text(encoding="utf-8")
    changed = [
        (a, b) for a, b in zip(before.splitlines(), after.splitlines(), strict=True) if a != b
    ]
    assert changed == [
        (
            "    attributes: {forma: Luce, occhio: 3, karma: 2, preghiera: Eco}",
            "    attributes: {forma: Luce, occhio: 4, karma: 2, preghiera: Eco}",
        )
    ]
    assert cli(built, "db", "build").exit_code == 0
    with sqlite3.connect(built / "cards.db") as conn:
        assert conn.execute("select occhio from bless_cards where code='re-luce'").fetchall() == [
            (4,)
        ]


def test_invalid_import_writes_nothing(built: Path, cli, tmp_path: Path) -> None:
    out = tmp_path / "bless.csv"
    cli(built, "export", "bless", "--out", str(out))
    _edit_csv(out, "re-luce", "forma", "Grigio")
    before = _sources(built)
    run = cli(built, "import", "bless", str(out))
    assert run.exit_code == 1
    line = run.stderr.strip()
    assert "\n" not in line
    assert line.startswith(f"{out}:2:8: error: bless/re-luce: column forma: 'Grigio' is not one of")
    assert _sources(built) == before


def test_import_rejects_unknown_columns(built: Path, cli, tmp_path: Path) -> None:
    out = tmp_path / "bad.csv"
    out.write_text("number,code,name,kind,colour\n1,re-luce,Re Luce,carta,blu\n")
    run = cli(built, "import", "bless", str(out))
    assert run.exit_code == 1
    assert "unknown column 'colour'" in run.stderr


def test_removed_row_removes_the_card(built: Path, cli, tmp_path: Path) -> None:
    out = tmp_path / "mazzo.csv"
    cli(built, "export", "mazzo", "--out", str(out))
    lines = out.read_text(encoding="utf-8").splitlines(keepends=True)
    out.write_text("".join(lines[:-1]), encoding="utf-8")
    run = cli(built, "import", "mazzo", str(out))
    # the deck total no longer matches, so the import is refused as a whole
    assert run.exit_code == 1
    assert "expected" in run.stderr
