"""Spreadsheet round trip: export, edit, import; nothing written when anything is wrong."""

from __future__ import annotations

import csv
import io
import json
import sqlite3
from pathlib import Path

import pytest
from conftest import GAMES, ROOT
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml.comments import CommentedMap
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, SingleQuotedScalarString

from pipeline.sources import yamlwrite
from pipeline.sources.yamlfile import plain, read_yaml, round_trip_yaml
from pipeline.sources.yamlwrite import Item, replace_items


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


# --- the fast writer of cards.yaml (yamlwrite.replace_items) -----------------------------


@pytest.mark.parametrize("slug", GAMES)
def test_rewritten_cards_are_the_bytes_ruamel_writes(slug: str) -> None:
    """Every card of every game written again, by the fast emitter where it can and ruamel
    where it cannot: the whole file as ruamel writes it; untouched: the file itself."""
    path = ROOT / "games" / slug / "cards.yaml"
    text = path.read_text(encoding="utf-8")
    for changed in (True, False):
        doc = read_yaml(path, path.name)
        items = [Item(node, i, changed) for i, node in enumerate(doc.tree["cards"])]
        assert replace_items(text, doc.tree, "cards", items) == text
    fast = 0
    for node in read_yaml(path, path.name).tree["cards"]:
        out: list[str] = []
        try:
            yamlwrite._block_map(node, 4, out, "  - ")
        except yamlwrite._NotFast:
            continue
        fast += 1
        assert "".join(out) == yamlwrite._item_by_ruamel(round_trip_yaml(), "cards", node)
    assert fast > 0


COMMENTED = """\
# le carte
cards:
  # prima
  - number: 1
    id: a  # fine riga
    attributes: {v: 1, w: "x"}
  # tra le carte
  - number: 2
    id: b
    name: 'Bi'
  - number: 3
    id: c
"""


def test_comments_order_and_quotes_survive_a_rewrite(tmp_path: Path) -> None:
    path = tmp_path / "cards.yaml"
    path.write_text(COMMENTED, encoding="utf-8")
    doc = read_yaml(path, path.name)
    a, b, c = doc.tree["cards"]
    b["kind"] = "nuovo"
    new = {"number": 4, "id": "d", "name": "Quattro: sì", "attributes": {"v": 2}}
    items = [Item(c, 2, False), Item(b, 1, True), Item(a, 0, False), Item(new, None, True)]
    text = replace_items(COMMENTED, doc.tree, "cards", items)
    assert text == (
        "# le carte\ncards:\n  # prima\n"
        "  - number: 3\n    id: c\n"
        "  - number: 2\n    id: b\n    name: 'Bi'\n    kind: nuovo\n"
        '  - number: 1\n    id: a  # fine riga\n    attributes: {v: 1, w: "x"}\n  # tra le carte\n'
        "  - number: 4\n    id: d\n    name: 'Quattro: sì'\n    attributes:\n      v: 2\n"
    )
    assert plain(round_trip_yaml().load(text)) == plain(doc.tree)


scalars = st.one_of(
    st.integers(-(10**20), 10**20),
    st.booleans(),
    st.text(max_size=12),
    st.sampled_from(["no", "~", "1e3", "a: b", "- x", "#", "«bis»", "l'ultima", "x,y", "null"]),
    st.text(max_size=8).map(DoubleQuotedScalarString),
    st.text(max_size=8).map(SingleQuotedScalarString),
)
keys = st.text(alphabet="abcdeéz_-: 1", min_size=1, max_size=6)
values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(keys, inner, max_size=3),
    max_leaves=8,
)


@settings(max_examples=150, deadline=None, derandomize=True)
@given(card=st.dictionaries(keys, values, min_size=1, max_size=5), flow=st.booleans())
def test_the_fast_emitter_writes_what_ruamel_writes_or_steps_aside(
    card: dict[str, object], flow: bool
) -> None:
    node = CommentedMap()
    for key, value in card.items():
        if isinstance(value, dict):
            value = CommentedMap(value)
            if flow:
                value.fa.set_flow_style()
        node[key] = value
    out: list[str] = []
    try:
        yamlwrite._block_map(node, 4, out, "  - ")
    except yamlwrite._NotFast:
        return
    assert "".join(out) == yamlwrite._item_by_ruamel(round_trip_yaml(), "cards", node)
