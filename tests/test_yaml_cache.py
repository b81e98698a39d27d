"""The disk cache of parsed sources: a new process reads the tree a past one parsed, with
its lines, and a damaged entry is parsed again, never trusted."""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from pipeline import yamlfile
from pipeline.yamlfile import read_yaml

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


def test_a_cache_that_cannot_be_written_only_costs_time(tmp_path: Path, new_process: None) -> None:
    source = tmp_path / "cards.yaml"
    source.write_text(SOURCE, encoding="utf-8")
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("", encoding="utf-8")
    doc = read_yaml(source, "cards.yaml", cache=blocked / "yaml")
    assert doc.data["cards"][1]["id"] == "due"
