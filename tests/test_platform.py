"""The engine platform's shape: a pure core, no import cycles, one registry of games."""

from __future__ import annotations

import ast
import importlib
import random
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import GAMES, checkout_env

from pipeline.engine import registry
from pipeline.engine.core import Seats, choose, shuffle
from pipeline.engine.plugin import GamePlugin

PACKAGE = Path(__file__).resolve().parents[1] / "pipeline"


def test_the_core_imports_no_database_library():
    code = (
        "import sys, pipeline.engine.core, pipeline.engine.registry, pipeline.play.examples; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('sqlalchemy', 'sqlmodel')))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=checkout_env()
    ).stdout
    assert out.strip() == "[]"


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, name: str, modules: set[str]) -> set[str]:
    """Every pipeline module `path` imports, at any depth of the file: lazy imports and
    imports for type hints only (under ``if TYPE_CHECKING:``) too, since a module that
    needs another's types to be read is tied to it as much as one that imports it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, base] if base else anchor)
            targets = [f"{base}.{a.name}" for a in node.names] + [base]
        else:
            continue
        for target in targets:
            while target and target not in modules:
                target = target.rpartition(".")[0]
            if target and target != name:
                out.add(target)
    return out


def import_graph() -> dict[str, set[str]]:
    files = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: _imports(path, name, set(files)) for name, path in files.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_no_import_cycle_in_pipeline():
    graph = import_graph()
    # a package's __init__ re-exporting its own modules is not a cycle between modules
    for name in graph:
        graph[name] = {t for t in graph[name] if not name.startswith(f"{t}.")}
    assert cycles(graph) == []


def test_the_cycle_finder_finds_cycles():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_registered_game_is_a_plugin_under_its_slug():
    """Each of the five games is registered under its slug and has an engine whose
    "module:function" names a function that exists."""
    plugins = registry.plugins()
    assert list(plugins) == list(GAMES)
    assert all(isinstance(p, GamePlugin) and p.slug == s for s, p in plugins.items())
    assert registry.engine_slugs() == list(GAMES)
    for slug, found in plugins.items():
        module, _, name = (found.engine or "").partition(":")
        assert callable(getattr(importlib.import_module(module), name, None)), slug


def test_a_game_without_an_engine_is_not_listed_as_one(monkeypatch: pytest.MonkeyPatch):
    plugins = registry.plugins()
    bare = GamePlugin(slug="bldng")  # its data checks only, as a game starts out
    monkeypatch.setattr(registry, "plugins", lambda: {**plugins, "bldng": bare})
    assert registry.engine_slugs() == [s for s in GAMES if s != "bldng"]


def test_the_loader_finds_game_checks_through_the_registry():
    from pipeline.games.bldng import checks

    assert registry.plugin("bldng").check is checks.check
    assert registry.plugin("no-such-game") is None


def test_unknown_names_are_one_line_listing_the_known_ones():
    with pytest.raises(registry.UnknownName, match=r"no rules engine for the game 'x' \(engines:"):
        registry.build_rules("x", Seats(2, 2), [], "")
    with pytest.raises(registry.UnknownName, match=r"unknown agent .smart.*random, search, greedy"):
        registry.make_agent("bless", "smart", 1)
    assert registry.agent_names("bless") == ["random", "search", "greedy"]


def test_chance_shuffles_as_pythons_random_does_and_the_same_on_every_version():
    """The core's written-out shuffle makes the same draws as Random.shuffle (CPython 3.11's
    algorithm), and a fixed seed gives a fixed order, whatever Python runs the tests."""
    order = list(range(10))
    shuffle(random.Random(7), order)
    assert order == [8, 3, 1, 4, 7, 0, 9, 6, 2, 5]
    if sys.version_info[:2] == (3, 11):
        for seed in range(200):
            for size in (0, 1, 2, 5, 48, 62):
                ours, theirs = list(range(size)), list(range(size))
                a, b = random.Random(seed), random.Random(seed)
                shuffle(a, ours)
                b.shuffle(theirs)
                assert ours == theirs and a.getstate() == b.getstate()


def test_the_random_agent_chooses_as_pythons_random_does():
    """choose() makes the same draws as Random.choice on CPython 3.11, and a fixed seed gives
    fixed choices whatever Python runs the tests."""
    rng = random.Random(3)
    assert [choose(rng, "abcdefg") for _ in range(8)] == list("beebcedf")
    with pytest.raises(IndexError):
        choose(rng, [])
    if sys.version_info[:2] == (3, 11):
        for seed in range(200):
            a, b = random.Random(seed), random.Random(seed)
            for size in (1, 2, 3, 7, 16, 62):
                options = list(range(size))
                assert choose(a, options) == b.choice(options)
            assert a.getstate() == b.getstate()
