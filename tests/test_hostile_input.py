"""Hostile and damaged input, as an attacker or a careless user makes it: every command
ends in one line and exit 1 or 2, never a traceback, and changes neither the sources nor
the database (issue 37). Each case is a reproduction that failed before."""

from __future__ import annotations

import hashlib
import io
import json
import re
import shutil
import sqlite3
import struct
import zipfile
from collections.abc import Callable
from pathlib import Path

import pytest
from pgserver import Server
from typer.testing import CliRunner

from pipeline.cli.app import app
from pipeline.spreadsheet.files import read_table, write_table

BOX = str.maketrans("", "", "│╭╮╰╯─")
Make = Callable[[Path, Path], list[str]]  # (project, scratch folder) -> arguments


def _digest(project: Path) -> str:
    """The sources and the database, as one digest."""
    digest = hashlib.sha256()
    for path in sorted([*(project / "games").rglob("*"), project / "cards.db"]):
        if path.is_file() and not path.is_symlink():
            digest.update(path.relative_to(project).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


# --- databases --------------------------------------------------------------------------


def _db_copy(project: Path, scratch: Path, change: Callable[[sqlite3.Connection], object]) -> Path:
    path = scratch / "copy.db"
    shutil.copy(project / "cards.db", path)
    with sqlite3.connect(path) as conn:
        change(conn)
    return path


def _older_schema(conn: sqlite3.Connection) -> None:
    for (view,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'view'").fetchall():
        conn.execute(f'DROP VIEW "{view}"')
    conn.execute("ALTER TABLE card DROP COLUMN note")


def damaged_db(project: Path, scratch: Path) -> list[str]:
    body = bytearray((project / "cards.db").read_bytes())
    for index in range(8192, len(body), 97):  # the header stays valid, the pages do not
        body[index] = 0xAB
    (scratch / "damaged.db").write_bytes(bytes(body))
    return ["--db", str(scratch / "damaged.db"), "export", "bless"]


def truncated_db(project: Path, scratch: Path) -> list[str]:
    body = (project / "cards.db").read_bytes()
    (scratch / "cut.db").write_bytes(body[: len(body) // 3])
    return ["--db", str(scratch / "cut.db"), "search", "occhio"]


def older_db(project: Path, scratch: Path) -> list[str]:
    return ["--db", str(_db_copy(project, scratch, _older_schema)), "db", "dump"]


def foreign_db(project: Path, scratch: Path) -> list[str]:
    with sqlite3.connect(scratch / "other.db") as conn:
        conn.execute("CREATE TABLE photo (id INTEGER, path TEXT)")
    return ["--db", str(scratch / "other.db"), "export", "bless"]


def viewless_db(project: Path, scratch: Path) -> list[str]:
    path = _db_copy(project, scratch, lambda conn: conn.execute("DROP VIEW bless_cards"))
    return ["--db", str(path), "export", "bless"]


def searched(make: Make) -> Make:
    """The same database, read by `search`: SQLite without SQLAlchemy (database.reader)."""

    def search_it(project: Path, scratch: Path) -> list[str]:
        return [*make(project, scratch)[:2], "search", "bless", "occhio>1"]

    return search_it


def bad_port(project: Path, scratch: Path) -> list[str]:
    return ["--db", "postgresql://u:secret@127.0.0.1:notaport/x", "export", "bless"]


# --- sources ----------------------------------------------------------------------------


def _cards(project: Path, text: str) -> None:
    (project / "games/mazzo/cards.yaml").write_text(text, encoding="utf-8")


def billion_laughs(project: Path, scratch: Path) -> list[str]:
    text, previous = 'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]\n', "a"
    for name in "bcdefghij":
        text += f"{name}: &{name} [{', '.join(['*' + previous] * 9)}]\n"
        previous = name
    _cards(project, text)
    return ["validate", "mazzo"]


def anchor_twice(project: Path, scratch: Path) -> list[str]:
    _cards(project, "cards:\n  - &a {id: x}\n  - &a {id: y}\n  - *a\n")
    return ["validate", "mazzo"]


def _linked_out(project: Path, scratch: Path, source: str) -> None:
    """`source` (a path in the project) made a symbolic link to a secret outside it."""
    secret = scratch / "secret.txt"
    secret.write_text("## 1. secret {#secret}\n\nsecret\n", encoding="utf-8")
    link = project / source
    link.unlink(missing_ok=True)
    link.symlink_to(secret)


def rules_linked_out(project: Path, scratch: Path) -> list[str]:
    _linked_out(project, scratch, "games/mazzo/rules.md")
    return ["validate", "mazzo"]


def template_linked_out(project: Path, scratch: Path) -> list[str]:
    _linked_out(project, scratch, "templates/cards/mazzo/back.html.j2")
    return ["faces", "mazzo", "--out", str(scratch / "facce.pdf")]


def site_page_linked_out(project: Path, scratch: Path) -> list[str]:
    _linked_out(project, scratch, "site/segreto.md")
    return ["site"]


def deep_yaml(project: Path, scratch: Path) -> list[str]:
    _cards(project, "cards: " + "[" * 400 + "]" * 400 + "\n")
    return ["validate", "mazzo"]


def huge_card_number(project: Path, scratch: Path) -> list[str]:
    cards = project / "games/mazzo/cards.yaml"
    text = cards.read_text(encoding="utf-8").replace(
        "- number: 1\n", "- number: " + "1" * 30 + "\n", 1
    )
    cards.write_text(text, encoding="utf-8")
    return ["db", "build"]


def self_symlink(project: Path, scratch: Path) -> list[str]:
    cards = project / "games/mazzo/cards.yaml"
    cards.unlink()
    cards.symlink_to("cards.yaml")
    return ["validate", "mazzo"]


# --- replays ----------------------------------------------------------------------------

REPLAY = {
    "format": 2,
    "game": "mazzo",
    "cards": "x",
    "seed": 1,
    "players": 2,
    "options": {},
    "actions": [0, 1],
    "chance": ["s1a"],
}


def _replay(scratch: Path, text: str) -> list[str]:
    (scratch / "r.json").write_text(text, encoding="utf-8")
    return ["replay", str(scratch / "r.json")]


def seed_infinite(project: Path, scratch: Path) -> list[str]:
    return _replay(scratch, json.dumps(REPLAY).replace('"seed": 1', '"seed": 1e999'))


def chance_word(project: Path, scratch: Path) -> list[str]:
    return _replay(scratch, json.dumps({**REPLAY, "chance": ["s!!"]}))


def chance_long(project: Path, scratch: Path) -> list[str]:
    return _replay(scratch, json.dumps({**REPLAY, "chance": ["s" + "1" * 5000]}))


def json_deep(project: Path, scratch: Path) -> list[str]:
    return _replay(scratch, "[" * 100_000 + "]" * 100_000)


def action_fraction(project: Path, scratch: Path) -> list[str]:
    return _replay(scratch, json.dumps({**REPLAY, "actions": [1.7, 0]}))


# --- options ----------------------------------------------------------------------------


def cluster_empty(project: Path, scratch: Path) -> list[str]:
    return ["simulate", "mazzo", "--games", "2", "--cluster", "tcp://"]


def example_path(project: Path, scratch: Path) -> list[str]:
    (scratch / "fuori.yaml").write_text("title: fuori\n", encoding="utf-8")
    return ["example", "bless", str(scratch / "fuori")]


def out_nowhere(project: Path, scratch: Path) -> list[str]:
    return ["export", "bless", "--out", str(scratch / "manca/ancora/x.csv")]


def search_limit(project: Path, scratch: Path) -> list[str]:
    return ["search", "occhio", "--limit", "1e23"]


# --- spreadsheets -----------------------------------------------------------------------


def _exported(project: Path, scratch: Path, fmt: str) -> Path:
    path = scratch / f"mazzo.{fmt}"
    run = CliRunner().invoke(
        app, ["--project", str(project), "export", "mazzo", "--format", fmt, "--out", str(path)]
    )
    assert run.exit_code == 0, run.output
    return path


def _without_total(project: Path) -> None:
    """Mazzo without its declared total (optional in game.yaml): a missing row is then no
    error of the game, only of the file."""
    game = project / "games/mazzo/game.yaml"
    game.write_text(game.read_text(encoding="utf-8").replace("total: 33", ""), encoding="utf-8")


def _ods(project: Path, scratch: Path, change: Callable[[bytes], bytes]) -> list[str]:
    source = zipfile.ZipFile(_exported(project, scratch, "ods"))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for name in source.namelist():
            data = source.read(name)
            target.writestr(name, change(data) if name == "content.xml" else data)
    (scratch / "bad.ods").write_bytes(out.getvalue())
    _without_total(project)
    return ["import", "mazzo", str(scratch / "bad.ods")]


FLOAT_CELL = rb'(office:value-type="float") office:value="[^"]*"'


def ods_cut(project: Path, scratch: Path) -> list[str]:
    return _ods(project, scratch, lambda xml: xml[: len(xml) * 2 // 3])


def ods_no_value(project: Path, scratch: Path) -> list[str]:
    return _ods(project, scratch, lambda xml: re.sub(FLOAT_CELL, rb"\1", xml, count=1))


def ods_bad_value(project: Path, scratch: Path) -> list[str]:
    return _ods(
        project, scratch, lambda xml: re.sub(FLOAT_CELL, rb'\1 office:value="abc"', xml, count=1)
    )


def ods_repeat(project: Path, scratch: Path) -> list[str]:
    cell = b'<table:table-cell office:value-type="string"><text:p>Spia'
    repeated = cell.replace(b"cell ", b'cell table:number-columns-repeated="1e9" ', 1)
    return _ods(project, scratch, lambda xml: xml.replace(cell, repeated, 1))


def _csv(project: Path, scratch: Path, change: Callable[[str], str]) -> list[str]:
    lines = _exported(project, scratch, "csv").read_text(encoding="utf-8").splitlines()
    lines[1] = change(lines[1])
    (scratch / "bad.csv").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return ["import", "mazzo", str(scratch / "bad.csv")]


def csv_long_cell(project: Path, scratch: Path) -> list[str]:
    return _csv(project, scratch, lambda row: row.replace("Spia,", "S" + "x" * 140_000 + ",", 1))


def csv_deep_data(project: Path, scratch: Path) -> list[str]:
    return _csv(project, scratch, lambda row: row[:-1] + '"' + "[" * 30_000 + "]" * 30_000 + '",')


def csv_huge_number(project: Path, scratch: Path) -> list[str]:
    return _csv(project, scratch, lambda row: re.sub(r"^1,", "1" * 400 + ",", row))


def xlsx_far_cell(project: Path, scratch: Path) -> list[str]:
    import openpyxl

    book = openpyxl.Workbook()
    book.active["A1"] = "number"
    book.active["XFD1048576"] = "x"
    book.save(scratch / "far.xlsx")
    return ["import", "mazzo", str(scratch / "far.xlsx")]


def xlsx_bomb(project: Path, scratch: Path) -> list[str]:
    source = zipfile.ZipFile(_exported(project, scratch, "xlsx"))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for name in source.namelist():
            data = source.read(name)
            if name == "xl/worksheets/sheet1.xml":  # 70 MB of comment: 70 KB zipped
                data = data.replace(b"<sheetData>", b"<sheetData><!--" + b"x" * 70_000_000 + b"-->")
            target.writestr(name, data)
    (scratch / "bomb.xlsx").write_bytes(out.getvalue())
    return ["import", "mazzo", str(scratch / "bomb.xlsx")]


def _deflate_damaged(path: Path, member: str) -> list[str]:
    """`path` with `member`'s compressed stream made invalid (a reserved deflate block type)
    where it starts: zipfile's directory is intact, the member cannot be unzipped."""
    content = bytearray(path.read_bytes())
    info = zipfile.ZipFile(io.BytesIO(content)).getinfo(member)
    assert info.compress_type == zipfile.ZIP_DEFLATED
    name_length, extra_length = struct.unpack_from("<HH", content, info.header_offset + 26)
    content[info.header_offset + 30 + name_length + extra_length] = 0b110
    path.write_bytes(bytes(content))
    return ["import", "mazzo", str(path)]


def _zip_headers(path: Path, member: str, flags: int = 0, method: int | None = None) -> list[str]:
    """`path` with `member`'s headers changed: `flags` set in its general-purpose bits and
    `method` as its compression method, in its local header and in the central directory."""
    content = bytearray(path.read_bytes())
    local = zipfile.ZipFile(io.BytesIO(content)).getinfo(member).header_offset
    central = content.index(b"PK\x01\x02", content.index(member.encode(), local + 30))
    while content[central + 46 : central + 46 + len(member)] != member.encode():
        central = content.index(b"PK\x01\x02", central + 4)
    for header, at in ((local, 6), (central, 8)):  # the flags, then the method
        (bits,) = struct.unpack_from("<H", content, header + at)
        struct.pack_into("<H", content, header + at, bits | flags)
        if method is not None:
            struct.pack_into("<H", content, header + at + 2, method)
    path.write_bytes(bytes(content))
    return ["import", "mazzo", str(path)]


def xlsx_password(project: Path, scratch: Path) -> list[str]:
    return _zip_headers(_exported(project, scratch, "xlsx"), "xl/workbook.xml", flags=0x1)


def xlsx_unknown_method(project: Path, scratch: Path) -> list[str]:
    return _zip_headers(_exported(project, scratch, "xlsx"), "xl/workbook.xml", method=99)


def ods_patched_data(project: Path, scratch: Path) -> list[str]:
    path = _exported(project, scratch, "ods")
    _without_total(project)
    return _zip_headers(path, "content.xml", flags=0x20)


def xlsx_deflate(project: Path, scratch: Path) -> list[str]:
    return _deflate_damaged(_exported(project, scratch, "xlsx"), "xl/worksheets/sheet1.xml")


def ods_deflate(project: Path, scratch: Path) -> list[str]:
    path = _exported(project, scratch, "ods")
    _without_total(project)
    return _deflate_damaged(path, "content.xml")


def lossy_export(project: Path, scratch: Path) -> list[str]:
    out = scratch / "ss.csv"
    return [
        "export",
        "samurai-sword",
        "--delimiter",
        ";",
        "--encoding",
        "cp1252",
        "--out",
        str(out),
    ]


CASES: list[tuple[str, Make, str]] = [
    ("db-damaged", damaged_db, "damaged"),
    ("db-truncated", truncated_db, "damaged"),
    ("db-older-schema", older_db, "table card has no column note"),
    ("db-other-program", foreign_db, "not a Cartiera database"),
    ("db-missing-view", viewless_db, "no view bless_cards"),
    ("db-damaged-search", searched(damaged_db), "damaged"),
    ("db-older-schema-search", searched(older_db), "table card has no column note"),
    ("db-other-program-search", searched(foreign_db), "not a Cartiera database"),
    ("db-missing-view-search", searched(viewless_db), "no view bless_cards"),
    ("db-bad-port", bad_port, "not a database URL"),
    ("yaml-billion-laughs", billion_laughs, "aliases"),
    ("yaml-400-deep", deep_yaml, "nested more than"),
    ("link-out-rules", rules_linked_out, "games/mazzo/rules.md: error: a symbolic link to a"),
    ("link-out-template", template_linked_out, "back.html.j2: error: a symbolic link to a"),
    ("link-out-site-page", site_page_linked_out, "site/segreto.md: error: a symbolic link to a"),
    ("yaml-anchor-twice", anchor_twice, "cards.yaml:3:5: error: YAML: the anchor 'a' is named a"),
    ("yaml-self-symlink", self_symlink, "symbolic links"),
    ("yaml-number-30-digits", huge_card_number, "number is too large for the database"),
    ("replay-seed-1e999", seed_infinite, "seed"),
    ("replay-chance-word", chance_word, "'s!!'"),
    ("replay-chance-5000-digits", chance_long, "chance entry"),
    ("replay-json-100000-deep", json_deep, "nested too deep"),
    ("replay-action-1.7", action_fraction, "'1.7'"),
    ("simulate-cluster-empty", cluster_empty, "tcp://HOST:PORT"),
    ("example-path", example_path, "is a path"),
    ("out-missing-folder", out_nowhere, "does not exist"),
    ("search-limit-1e23", search_limit, "--limit"),
    ("ods-cut-short", ods_cut, "damaged"),
    ("ods-float-no-value", ods_no_value, "holds no value"),
    ("ods-float-bad-value", ods_bad_value, "holds 'abc'"),
    ("ods-repeat-1e9", ods_repeat, "1e9"),
    ("csv-cell-140000", csv_long_cell, "longer than"),
    ("csv-data-30000-deep", csv_deep_data, "column data is too deep"),
    ("csv-400-digits", csv_huge_number, "not a whole number of 18 digits or fewer"),
    ("xlsx-cell-at-XFD1048576", xlsx_far_cell, "rows"),
    ("xlsx-800mb-sheet", xlsx_bomb, "once unzipped"),
    ("xlsx-deflate-damaged", xlsx_deflate, "invalid block type"),
    ("ods-deflate-damaged", ods_deflate, "invalid block type"),
    ("xlsx-zip-password", xlsx_password, "'xl/workbook.xml' is password-protected"),
    ("xlsx-zip-method-99", xlsx_unknown_method, "compression method"),
    ("ods-zip-patched-data", ods_patched_data, "patched data"),
    ("export-cp1252-lossy", lossy_export, "'ō' (U+014D)"),
]


@pytest.mark.parametrize(("make", "needle"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_hostile_input_is_one_line_and_changes_nothing(
    built: Path, tmp_path: Path, make: Make, needle: str
) -> None:
    args = make(built, tmp_path)
    before = _digest(built)
    result = CliRunner().invoke(app, ["--project", str(built), *args])
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"cartiera {' '.join(args)[:200]} raised") from result.exception
    message = result.stderr.strip() if args[0] != "validate" else result.output  # its report
    assert result.exit_code in (1, 2), (result.exit_code, result.output[-2000:])
    assert "Traceback" not in result.output
    flat = " ".join(message.translate(BOX).split())  # usage errors come in Typer's box
    assert needle in flat, message[-2000:]
    # each line names one fix, the problem's own
    assert all(line.count("(fix:") <= 1 for line in message.splitlines()), message[-2000:]
    if result.exit_code == 1:
        errors = [line for line in message.splitlines() if ": error:" in line]
        assert len(errors) == 1 + (args[:2] == ["db", "build"]), message[-3000:]  # + summary
    assert _digest(built) == before
    assert "secret" not in result.output


def test_no_lossy_file_is_written(built: Path, tmp_path: Path) -> None:
    CliRunner().invoke(app, ["--project", str(built), *lossy_export(built, tmp_path)])
    assert not (tmp_path / "ss.csv").exists()


def test_empty_postgres_database_is_one_line(postgres: Server, built: Path) -> None:
    url = postgres.create_database("cartiera_empty")
    for args in (["db", "dump"], ["db", "build", "--check"]):
        result = CliRunner().invoke(app, ["--project", str(built), "--db", url, *args])
        assert result.exception is None or isinstance(result.exception, SystemExit), args
        assert result.exit_code == 1, result.output
        assert "is empty (no table game)" in result.stderr, result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


def test_jobs_beyond_the_cores_are_capped_with_a_note(built: Path) -> None:
    result = CliRunner().invoke(
        app, ["--project", str(built), "simulate", "mazzo", "--games", "2", "--jobs", "4000"]
    )
    assert result.exit_code == 0, result.output
    assert "note: --jobs 4000 is more than the" in result.stderr


# --- spreadsheets: what survives a round trip -------------------------------------------


def test_long_numbers_stay_exact(built: Path, tmp_path: Path) -> None:
    """A 17-digit card number went through a float: 12345678901234567 came back ...568."""
    args = _csv(built, tmp_path, lambda row: re.sub(r"^1,", "12345678901234567,", row))
    result = CliRunner().invoke(app, ["--project", str(built), *args])
    assert result.exit_code == 0, result.output
    assert "number: 12345678901234567\n" in (built / "games/mazzo/cards.yaml").read_text("utf-8")


@pytest.mark.parametrize("fmt", ["csv", "xlsx", "ods"])
def test_a_leading_apostrophe_survives_the_round_trip(fmt: str, tmp_path: Path) -> None:
    texts = ["'-ciao", "'ciao", "'", "''=x", "=1+1", "-ciao"]
    content = write_table(["code", "name"], [[f"c{i}", t] for i, t in enumerate(texts)], fmt)
    path = tmp_path / f"t.{fmt}"
    path.write_bytes(content)
    _, rows = read_table(path, path.name)
    assert [row["name"] for _, row in rows] == texts


def test_damaged_ods_never_changes_cards_yaml_even_without_a_total(
    built: Path, tmp_path: Path
) -> None:
    """Old code: the sheet read up to the damage, exit 0, one card silently deleted."""
    cards = (built / "games/mazzo/cards.yaml").read_bytes()
    args = ods_cut(built, tmp_path)
    result = CliRunner().invoke(app, ["--project", str(built), *args])
    assert result.exit_code == 1
    assert (built / "games/mazzo/cards.yaml").read_bytes() == cards


# --- one problem, one line --------------------------------------------------------------


def _errors(project: Path, game: str) -> list[str]:
    result = CliRunner().invoke(app, ["--project", str(project), "validate", game, "-f", "json"])
    return [p["message"] for p in json.loads(result.stdout)["problems"] if p["severity"] == "error"]


def _unknown_field(project: Path) -> str:
    cards = project / "games/mazzo/cards.yaml"
    text = cards.read_text(encoding="utf-8")
    text = text.replace("    name: Spia\n", "    name: Spia\n    colour: blu\n", 1)
    cards.write_text(text.replace("astuzia: 10}", "astuzia: 99}", 1), encoding="utf-8")
    return "mazzo"


def _duplicate_id(project: Path) -> str:
    cards = project / "games/mazzo/cards.yaml"
    text = cards.read_text(encoding="utf-8").replace("id: corriere", "id: spia", 1)
    cards.write_text(text, encoding="utf-8")
    return "mazzo"


def _broken_cards_yaml(project: Path) -> str:
    """In Bless, whose rulings name many cards: once 56 "ruling names unknown card" lines."""
    cards = project / "games/bless/cards.yaml"
    cards.write_text(cards.read_text(encoding="utf-8") + "cards: [\n", encoding="utf-8")
    return "bless"


def _empty_rules(project: Path) -> str:
    (project / "games/bless/rules.md").write_text("", encoding="utf-8")
    return "bless"


ROOT_CAUSES = [
    # the card is still checked (its other error is reported), no deck-count errors follow
    ("unknown-field", _unknown_field, ["unknown field 'colour'", "astuzia 99 is above the max"]),
    ("duplicate-id", _duplicate_id, ["duplicate card id 'spia'"]),  # no cascade
    ("broken-cards-yaml", _broken_cards_yaml, ["YAML syntax: "]),  # no ruling lines after it
    ("empty-rules-md", _empty_rules, ["rules.md is empty"]),  # not 164 section errors
]  # fmt: skip


@pytest.mark.parametrize(
    ("make", "expected"), [c[1:] for c in ROOT_CAUSES], ids=[c[0] for c in ROOT_CAUSES]
)
def test_one_problem_is_reported_once_without_what_follows(
    project: Path, make: Callable[[Path], str], expected: list[str]
) -> None:
    """Each error names the root cause; nothing that only follows from it is reported."""
    errors = _errors(project, make(project))
    assert len(errors) == len(expected), errors
    assert all(e.startswith(x) for e, x in zip(errors, expected, strict=True)), errors
