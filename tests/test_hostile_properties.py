"""Any input at all (Hypothesis): the YAML, CSV, .xlsx and .ods readers and the replay reader
give their result or one clear error (SourceError, ReplayError: what the CLI prints as one
line, exit 1), never another exception; an import that fails changes nothing (issue 37)."""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import tempfile
import zipfile
from collections.abc import Iterator
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from pipeline.cli.app import app
from pipeline.common.problems import SourceError
from pipeline.engine.core import Replay, ReplayError
from pipeline.sources.yamlfile import read_yaml
from pipeline.spreadsheet.files import read_table, write_table

# CI=1 (GitHub's and .ci/run's environment): fewer examples. The same ones on every run
# (derandomize), so a run there never fails on a new draw; the classes of input each test
# draws are few, and the first examples already cover them.
EXAMPLES = 25 if os.environ.get("CI") else 60
QUICK = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=True,  # the same examples on every run: CI never fails on a new draw
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)

YAML_PIECES = [
    "cards:", "\n", "  - ", "{", "}", "[", "]", ": ", " ", "&a ", "*a", "!!python/object ",
    "'", '"', "#", "number: 1", "id: x", "- ", "? ", "|", ">", "\t", "%YAML 1.2\n---\n",
    "<<: *a", "\x00", "é", "1e999", "0x", "~", ",", "!!binary ", "...", "---",
]  # fmt: skip
yaml_texts = st.one_of(
    st.lists(st.sampled_from(YAML_PIECES), max_size=60).map("".join), st.text(max_size=300)
)


@contextlib.contextmanager
def _file(name: str, content: bytes) -> Iterator[Path]:
    """`content` in a file of its own, removed afterwards (one per example: thousands a run)."""
    with tempfile.TemporaryDirectory(prefix="cartiera-hyp-") as folder:
        path = Path(folder) / name
        path.write_bytes(content)
        yield path


@QUICK
@given(text=yaml_texts)
@example(text="? : cards:")  # a key holding a mapping: ruamel raised TypeError
def test_any_yaml_is_data_or_one_problem(text: str) -> None:
    with _file("cards.yaml", text.encode("utf-8", "surrogatepass")) as path:
        try:
            read_yaml(path, "cards.yaml", "prova")
        except SourceError as exc:
            assert exc.problem.one_line().count("\n") == 0


@QUICK
@given(text=st.text(alphabet=st.sampled_from("ab,;\t\"'\n\r=-\x00é1"), max_size=400))
def test_any_csv_is_rows_or_one_problem(text: str) -> None:
    with _file("t.csv", text.encode("utf-8")) as path:
        try:
            header, rows = read_table(path, "t.csv")
        except SourceError:
            return
    assert all(set(row) <= set(header) for _, row in rows)


TABLE = write_table(
    ["number", "code", "name"], [[1, "a", "'-ciao"], [12345678901234567, "b", "=x"]], "csv"
)


def _damaged(content: bytes, cuts: list[tuple[int, int]]) -> bytes:
    body = bytearray(content)
    for position, value in cuts:
        if body:
            body[position % len(body)] = value
    return bytes(body)


def _workbook(fmt: str) -> bytes:
    return write_table(["number", "code", "name"], [[1, "a", "x"], [2, "b", "y"]], fmt)


@QUICK
@given(
    fmt=st.sampled_from(["xlsx", "ods"]),
    cuts=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), max_size=6),
    keep=st.integers(0, 100),
)
def test_any_damaged_workbook_is_rows_or_one_problem(
    fmt: str, cuts: list[tuple[int, int]], keep: int
) -> None:
    content = _damaged(_workbook(fmt), cuts)
    content = content[: max(1, len(content) * keep // 100)] if keep < 100 else content
    with _file(f"t.{fmt}", content) as path, contextlib.suppress(SourceError):
        read_table(path, f"t.{fmt}")


@QUICK
@given(
    fmt=st.sampled_from(["xlsx", "ods"]),
    xml=st.lists(
        st.sampled_from(
            [
                "<",
                ">",
                "</",
                "/>",
                "=",
                '"',
                "&amp;",
                "&lol;",
                "<!DOCTYPE x [<!ENTITY lol 'x'>]>",
                "table:table-row",
                "table:table-cell",
                "text:p",
                'office:value-type="float"',
                'office:value="1e999"',
                'table:number-columns-repeated="99999999999"',
                "x",
            ]
        ),
        max_size=40,
    ).map("".join),
)
def test_any_sheet_xml_is_rows_or_one_problem(fmt: str, xml: str) -> None:
    """The XML inside a well-formed zip: the sheet itself is hostile."""
    member = "content.xml" if fmt == "ods" else "xl/worksheets/sheet1.xml"
    source = zipfile.ZipFile(io.BytesIO(_workbook(fmt)))
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as target:
        for name in source.namelist():
            data = source.read(name)
            if name == member:
                data = data.replace(b"<", xml.encode() + b"<", 3)
            target.writestr(name, data)
    with _file(f"t.{fmt}", out.getvalue()) as path, contextlib.suppress(SourceError):
        read_table(path, f"t.{fmt}")


json_values = st.recursive(
    st.none() | st.booleans() | st.floats() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=20,
)
REPLAY = {"format": 2, "game": "mazzo", "cards": "x", "seed": 1, "players": 2, "options": {}}


@QUICK
@given(
    field=st.sampled_from(["seed", "players", "options", "actions", "chance", "format", "game"]),
    value=json_values,
)
def test_any_replay_field_is_a_replay_or_one_problem(field: str, value: object) -> None:
    text = json.dumps({**REPLAY, "actions": [0], "chance": ["s1"], field: value})
    try:
        replay = Replay.from_json(text)
    except ReplayError as exc:
        assert "\n" not in str(exc)
        return
    assert all(type(a) is int for a in replay.actions)
    assert isinstance(replay.seed, int) and not isinstance(replay.seed, bool)


@QUICK
@given(text=st.text(max_size=200) | st.binary(max_size=200).map(lambda b: b.decode("latin-1")))
def test_any_replay_text_is_a_replay_or_one_problem(text: str) -> None:
    with contextlib.suppress(ReplayError):
        Replay.from_json(text)


EDITS = st.lists(
    st.tuples(
        st.integers(1, 40),
        st.integers(0, 20),
        st.sampled_from(["", "x", "-1", "1e9", "'=1", "9" * 30, "{", "[[[", 'é;"', "\x00", "5,0"]),
    ),
    min_size=1,
    max_size=4,
)


@settings(QUICK, max_examples=min(6, EXAMPLES))
@given(edits=EDITS)
def test_an_import_of_any_edit_is_whole_or_changes_nothing(
    built: Path, edits: list[tuple[int, int, str]]
) -> None:
    """Through the CLI: exit 0 (the edit was valid) or one error per bad cell, exit 1, and
    then cards.yaml is byte for byte what it was."""
    cards = built / "games/mazzo/cards.yaml"
    original = cards.read_bytes()
    exported = built / "mazzo.csv"  # once for all the examples
    if not exported.exists():
        run = CliRunner().invoke(
            app, ["--project", str(built), "export", "mazzo", "-o", str(exported)]
        )
        assert run.exit_code == 0, run.output
    rows = list(csv.reader(io.StringIO(exported.read_text(encoding="utf-8"))))
    table = built / "edited.csv"
    for row, column, value in edits:
        line = rows[row % len(rows)]
        line[column % len(line)] = value
    out = io.StringIO()
    csv.writer(out).writerows(rows)
    table.write_text(out.getvalue(), encoding="utf-8")
    try:
        result = CliRunner().invoke(app, ["--project", str(built), "import", "mazzo", str(table)])
        assert result.exception is None or isinstance(result.exception, SystemExit), result.output
        assert result.exit_code in (0, 1), result.output
        assert "Traceback" not in result.output
        if result.exit_code:
            assert cards.read_bytes() == original
            assert all(": error:" in line for line in result.stderr.strip().splitlines())
    finally:
        cards.write_bytes(original)
