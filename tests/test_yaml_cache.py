"""The disk cache of parsed sources: a new process reads the tree a past one parsed, with
its lines, and a damaged entry is parsed again, never trusted."""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from pipeline.sources import yamlfile
from pipeline.sources.yamlfile import read_yaml

SOURCE = """\
# a comment the round trip keeps
cards:
  - {id: uno, name: "Uno"}
  - id: due
    name: Due
"""


@pytest.fixture
def new_process(monkeypatch: pytest.MonkeyPatch) -> None:
    """As in a process that has parsed nothing yet."""
    monkeypatch.setattr(yamlfile, "_PARSED", {})


def _parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Count the texts the parser really reads."""
    calls: list[str] = []
    real = yamlfile.round_trip_yaml

    def counting() -> YAML:
        calls.append("parse")
        return real()

    monkeypatch.setattr(yamlfile, "round_trip_yaml", counting)
    return calls


def test_a_new_process_reads_the_tree_from_the_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_process: None
) -> None:
    source, cache = tmp_path / "cards.yaml", tmp_path / "cache"
    source.write_text(SOURCE, encoding="utf-8")
    calls = _parses(monkeypatch)
    first = read_yaml(source, "cards.yaml", cache=cache)
    assert calls == ["parse"] and len(list(cache.iterdir())) == 1
    monkeypatch.setattr(yamlfile, "_PARSED", {})  # another process, the same cache
    again = read_yaml(source, "cards.yaml", cache=cache)
    assert calls == ["parse"]  # not parsed again
    assert again.data == first.data
    assert again.locate(["cards", 1, "name"]) == first.locate(["cards", 1, "name"]) == (5, 5)
    assert again.tree is not first.tree  # each caller gets its own copy to change
    source.write_text(SOURCE.replace("Due", "Tre"), encoding="utf-8")
    assert read_yaml(source, "cards.yaml", cache=cache).data["cards"][1]["name"] == "Tre"
    assert calls == ["parse", "parse"]  # new text, new entry
    assert len(list(cache.iterdir())) == 2


def test_a_second_read_in_one_process_decodes_the_entry_not_the_pickled_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_process: None
) -> None:
    """`build` and `db build` read every source several times in one process; unpickling
    the round-trip tree took 17 ms for Bless's cards, its entry's JSON 1 ms. A reader
    without a cache (one that writes the file back) still gets the tree, comments kept."""
    source, cache = tmp_path / "cards.yaml", tmp_path / "cache"
    source.write_text(SOURCE, encoding="utf-8")
    first = read_yaml(source, "cards.yaml", cache=cache)
    unpickled: list[bytes] = []
    real = yamlfile.pickle.loads
    monkeypatch.setattr(yamlfile.pickle, "loads", lambda b: unpickled.append(b) or real(b))
    again = read_yaml(source, "cards.yaml", cache=cache)
    assert unpickled == []
    assert again.data == first.data and again.locate(["cards", 1, "name"]) == (5, 5)
    writer = read_yaml(source, "cards.yaml")
    assert len(unpickled) == 1 and writer.tree.ca.comment is not None  # the comment line


def test_a_damaged_entry_is_parsed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_process: None
) -> None:
    source, cache = tmp_path / "cards.yaml", tmp_path / "cache"
    source.write_text(SOURCE, encoding="utf-8")
    read_yaml(source, "cards.yaml", cache=cache)
    (entry,) = cache.iterdir()
    entry.write_bytes(entry.read_bytes()[:40])  # cut short, as by a full disk
    monkeypatch.setattr(yamlfile, "_PARSED", {})
    calls = _parses(monkeypatch)
    doc = read_yaml(source, "cards.yaml", cache=cache)
    assert calls == ["parse"] and doc.data["cards"][0]["id"] == "uno"
    assert len(entry.read_bytes()) > 40  # written again, whole


def test_a_file_from_the_cache_is_checked_without_making_its_tree(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_process: None
) -> None:
    """Data and lines come from the entry itself; the ruamel tree is made once, on demand."""
    source, cache = tmp_path / "cards.yaml", tmp_path / "cache"
    source.write_text(SOURCE, encoding="utf-8")
    parsed = read_yaml(source, "cards.yaml", cache=cache)
    monkeypatch.setattr(yamlfile, "_PARSED", {})
    built: list[object] = []
    real = yamlfile._from_json
    monkeypatch.setattr(yamlfile, "_from_json", lambda value: built.append(value) or real(value))
    doc = read_yaml(source, "cards.yaml", cache=cache)
    assert doc.data == parsed.data
    assert doc.locate(["cards", 1, "name"]) == (5, 5) and doc.locate(["cards", 0]) == (3, 5)
    assert doc.locate(["cards", 7, "name"]) == (2, 1)  # the deepest key there is: "cards"
    assert doc.problem(["cards", 1, "id"], "x").line == 4
    assert not built
    assert doc.tree["cards"][1]["name"] == "Due" and doc.locate(["cards", 1, "name"]) == (5, 5)
    made = len(built)  # _from_json recurses: one call per node of the tree
    assert doc.tree is doc.tree and len(built) == made  # made once


@pytest.mark.parametrize(
    "entry",
    [
        '{"cards": [',  # cut short, as by a full disk
        '{"m": [["cards", null, {"s": []}]]}',  # a format-2 entry: a tree, no data line
        "[1, 2]",
    ],
)
def test_an_entry_of_another_shape_is_parsed_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_process: None, entry: str
) -> None:
    source, cache = tmp_path / "cards.yaml", tmp_path / "cache"
    source.write_text(SOURCE, encoding="utf-8")
    cache.mkdir()
    (cache / yamlfile._entry(SOURCE)).write_text(entry, encoding="utf-8")
    calls = _parses(monkeypatch)
    doc = read_yaml(source, "cards.yaml", cache=cache)
    assert calls == ["parse"] and doc.data["cards"][1]["name"] == "Due"
    assert doc.locate(["cards", 1, "name"]) == (5, 5)


DATA = '{"cards":[{"id":"uno","name":"Uno"},{"id":"due","name":"Due"}]}'


@pytest.mark.parametrize(
    "lines",
    [
        '{"m": [["cards", "3", {"s": []}]]}',  # lines that are not numbers
        '{"m": [["cards", null]]}',  # a pair where a triple belongs
        '{"m": [[{"m": []}, null, 1]]}',  # a map as a key
        "[1, 2]",  # a list outside a sequence
        '{"s": [[null, ' * 80 + "1" + "]]}" * 80,  # nested deeper than a source may be
        '{"m": [["cards", [1, 0], {"s": []}]]}',  # well made, but of other data
        '{"m": [["cards", [1, 0], {"s": [',  # cut short
    ],
)
def test_lines_that_do_not_hold_the_data_are_not_trusted(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_process: None, lines: str
) -> None:
    """The data line is read at once; the lines are decoded when a problem is located, and
    checked then: lines of another shape or of other data make the text parsed instead."""
    source, cache = tmp_path / "cards.yaml", tmp_path / "cache"
    source.write_text(SOURCE, encoding="utf-8")
    cache.mkdir()
    (cache / yamlfile._entry(SOURCE)).write_text(f"{DATA}\n{lines}", encoding="utf-8")
    calls = _parses(monkeypatch)
    doc = read_yaml(source, "cards.yaml", cache=cache)
    assert calls == [] and doc.data["cards"][1]["name"] == "Due"
    assert doc.locate(["cards", 1, "name"]) == (5, 5)
    assert calls == ["parse"]
    assert doc.tree["cards"][0]["id"] == "uno"


def test_an_entry_planted_for_a_broken_text_never_raises(tmp_path: Path, new_process: None) -> None:
    """Data that someone left for a text that is not YAML, with lines that do not hold
    it: the problem is still reported, without a line, and not as a traceback."""
    broken = "cards: [\n"
    source, cache = tmp_path / "cards.yaml", tmp_path / "cache"
    source.write_text(broken, encoding="utf-8")
    cache.mkdir()
    (cache / yamlfile._entry(broken)).write_text(f"{DATA}\n[]", encoding="utf-8")
    doc = read_yaml(source, "cards.yaml", cache=cache)
    assert doc.locate(["cards", 1]) == (None, None)
    assert doc.problem(["cards", 1], "x").line is None and doc.tree is None


def test_reading_from_the_cache_never_imports_ruamel(tmp_path: Path) -> None:
    """A command that finds every source in the cache (validate, a no-op build) pays
    nothing for the parser, not even its import; it is imported once a line is wanted."""
    import subprocess
    import sys

    source, cache = tmp_path / "cards.yaml", tmp_path / "cache"
    source.write_text(SOURCE, encoding="utf-8")
    read_yaml(source, "cards.yaml", cache=cache)
    script = (
        "import sys; from pathlib import Path; from pipeline.sources.yamlfile import read_yaml\n"
        f"doc = read_yaml(Path({str(source)!r}), 'cards.yaml', cache=Path({str(cache)!r}))\n"
        "assert doc.data['cards'][1]['name'] == 'Due'\n"
        "print(sorted(m for m in sys.modules if m.startswith('ruamel')))\n"
        "assert doc.locate(['cards', 1, 'name']) == (5, 5)\n"
        "print('ruamel.yaml' in sys.modules)\n"
    )
    run = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split("\n")[:2] == ["[]", "False"]  # lines come from the entry too


def test_a_cache_that_cannot_be_written_only_costs_time(tmp_path: Path, new_process: None) -> None:
    source = tmp_path / "cards.yaml"
    source.write_text(SOURCE, encoding="utf-8")
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("", encoding="utf-8")
    doc = read_yaml(source, "cards.yaml", cache=blocked / "yaml")
    assert doc.data["cards"][1]["id"] == "due"


class _Planted:
    """What someone with write access to a shared cache could leave there: a pickle that
    runs code when it is loaded."""

    def __init__(self, marker: Path) -> None:
        self.marker = marker

    def __reduce__(self) -> tuple[object, tuple[str]]:
        import os

        return os.mkdir, (str(self.marker),)


def test_a_planted_pickle_never_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_process: None
) -> None:
    """$CARTIERA_CACHE may be shared by clones: an entry is plain JSON, never unpickled."""
    import hashlib
    import pickle
    import sys

    import ruamel.yaml

    source, cache = tmp_path / "cards.yaml", tmp_path / "cache"
    source.write_text(SOURCE, encoding="utf-8")
    cache.mkdir()
    marker = tmp_path / "code-ran"
    planted = pickle.dumps(_Planted(marker))
    # the name the pickle cache gave the entry of this text, and the name JSON entries get
    salt = f"1|{ruamel.yaml.__version__}|{sys.version_info[:2]}|"
    old = hashlib.sha256((salt + SOURCE).encode()).hexdigest()[:32] + ".pickle"
    for name in (old, yamlfile._entry(SOURCE)):
        (cache / name).write_bytes(planted)
    calls = _parses(monkeypatch)
    doc = read_yaml(source, "cards.yaml", cache=cache)
    assert not marker.exists()
    assert calls == ["parse"] and doc.data["cards"][1]["name"] == "Due"
    assert (cache / yamlfile._entry(SOURCE)).read_bytes().startswith(b"{")  # replaced by data


def _paths(node: object, at: tuple[str | int, ...] = ()) -> list[tuple[str | int, ...]]:
    found = [at]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*at, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*at, index))
    return found


def test_every_source_reads_back_from_the_cache_with_its_lines(
    tmp_path: Path, new_process: None
) -> None:
    """The JSON entry of each real source gives the same data, and every key and item
    the same line and column, as parsing it."""
    from conftest import ROOT

    sources = sorted((ROOT / "games").glob("*/*.yaml"))  # examples are small and alike
    assert len(sources) > 20
    for path in sources:
        parsed = read_yaml(path, path.name, cache=tmp_path)  # parsed, its entry written
        yamlfile._PARSED.clear()  # as another process
        cached = read_yaml(path, path.name, cache=tmp_path)  # read from the entry
        assert cached.data == parsed.data, path
        for at in _paths(parsed.data):
            assert cached.locate(at) == parsed.locate(at), (path, at)
