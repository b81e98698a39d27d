"""The compiled engine modules (setup.py, pipeline/compiled.py): every engine plays exactly as
its Python source does, and a module whose source changed since it was built is never run."""

from __future__ import annotations

import ast
import hashlib
import importlib
import importlib.machinery
import json
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from conftest import NOT_COMPILED, checkout_env

from pipeline import compiled
from pipeline.common.project import open_project
from pipeline.engine import registry
from pipeline.engine.agents import RandomAgent
from pipeline.play.records import load_rules

ROOT = Path(__file__).resolve().parents[1]
MODULE = "pipeline.games.bless.turns"  # one of the modules setup.py compiles
GAMES = 30  # per engine


def log_digest(root: Path, games: int) -> str:
    """The event logs of seeded random games of every engine, hashed: what the engines did."""
    project = open_project(root)
    digest = hashlib.sha256()
    for slug in registry.engine_slugs():
        rules = load_rules(project, slug)
        for seed in range(1, games + 1):
            low, high = rules.info.min_players, rules.info.max_players
            state = rules.new_game(seed, low + seed % (high - low + 1))
            n = state.num_players
            agents = [RandomAgent(n * seed + p) for p in range(n)]
            while not state.is_terminal():
                state.apply(agents[state.current_player()].act(state))
            digest.update(repr(state.log).encode())
    return digest.hexdigest()


def needs_compiled() -> dict[str, str]:
    importlib.import_module(MODULE)
    if MODULE not in compiled.compiled_modules():
        pytest.skip(
            f"{NOT_COMPILED} (no C compiler at install, or {compiled.PURE_ENV} set): "
            "nothing to compare"
        )
    return dict(json.loads(compiled.MANIFEST.read_text(encoding="utf-8")))


def test_the_compiled_engine_plays_as_its_python_source(built_copy) -> None:
    needs_compiled()
    root = built_copy("compiled")
    here = log_digest(root, GAMES)
    script = (
        "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]);"
        "from test_compiled import log_digest; from pipeline.compiled import compiled_modules;"
        f"print(log_digest(Path(sys.argv[2]), {GAMES}), len(compiled_modules()))"
    )
    pure = subprocess.run(
        [sys.executable, "-c", script, str(ROOT / "tests"), str(root)],
        capture_output=True,
        text=True,
        check=True,
        env=checkout_env(**{compiled.PURE_ENV: "1"}),
    ).stdout.split()
    assert pure == [here, "0"]  # the same games, and not one compiled module in that process


def test_an_unchanged_source_runs_compiled_a_changed_one_from_source() -> None:
    built = needs_compiled()
    package = importlib.import_module(MODULE.rpartition(".")[0])
    up_to_date = compiled.FreshCompiledOnly(built, pure=False)
    assert up_to_date.find_spec(MODULE, package.__path__) is None  # the ordinary import: compiled

    stale = compiled.FreshCompiledOnly({**built, MODULE: "0" * 64}, pure=False)
    with pytest.warns(UserWarning, match="turns.py in .* changed since compiled"):
        spec = stale.find_spec(MODULE, package.__path__)
    assert spec is not None and spec.origin is not None and spec.origin.endswith("turns.py")
    # its package's other compiled modules share C classes with it: they run from source too
    sibling = stale.find_spec("pipeline.games.bless.values", package.__path__)
    assert sibling is not None and sibling.origin is not None
    assert sibling.origin.endswith("values.py")
    # another package stays compiled
    engine = importlib.import_module("pipeline.engine")
    assert stale.find_spec("pipeline.engine.core", engine.__path__) is None

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # asked for: no warning
        spec = compiled.FreshCompiledOnly(built, pure=True).find_spec(MODULE, package.__path__)
    assert spec is not None and spec.origin is not None and spec.origin.endswith("turns.py")


def test_a_changed_declaration_file_makes_its_module_stale(tmp_path: Path) -> None:
    source = tmp_path / "turns.py"
    source.write_text("X = 1\n", encoding="utf-8")
    alone = compiled.source_digest(source)
    (tmp_path / "turns.pxd").write_text("cdef class Turns:\n    pass\n", encoding="utf-8")
    declared = compiled.source_digest(source)
    (tmp_path / "turns.pxd").write_text("cdef class Turns:\n    cpdef f(self)\n", "utf-8")
    assert len({alone, declared, compiled.source_digest(source)}) == 3


def test_modules_that_are_not_compiled_are_left_alone() -> None:
    finder = compiled.FreshCompiledOnly({"pipeline.games.bless.vocab": "0" * 64}, pure=True)
    package = importlib.import_module("pipeline.games.bless")
    # listed but with no compiled file beside it: the ordinary import finds the source
    assert finder.find_spec("pipeline.games.bless.vocab", package.__path__) is None
    assert finder.find_spec("pipeline.games.bless.narrate", package.__path__) is None


def _slots(source: Path) -> dict[str, set[str]]:
    """The __slots__ of every class of a module, read from its source."""
    out = {}
    for node in ast.parse(source.read_text(encoding="utf-8")).body:
        for item in node.body if isinstance(node, ast.ClassDef) else ():
            if isinstance(item, ast.Assign) and ast.unparse(item.targets[0]) == "__slots__":
                out[node.name] = set(ast.literal_eval(item.value))
    return out


def test_every_c_class_declares_exactly_the_slots_of_its_python_class() -> None:
    """A .pxd turns a slotted class into a C class in the compiled build: its members must
    be the slots, or the compiled game fails (a field missing) or differs (one too many)."""
    declarations = sorted((ROOT / "pipeline").rglob("*.pxd"))
    assert declarations, "no .pxd file: this test checks nothing"
    for pxd in declarations:
        slots = _slots(pxd.with_suffix(".py"))
        classes = re.split(r"^cdef class (\w+)\b.*:$", pxd.read_text(encoding="utf-8"), flags=re.M)
        for name, body in zip(classes[1::2], classes[2::2], strict=True):
            members = {
                m
                for line in re.findall(r"^    cdef public \w+ (.+)$", body, re.M)
                for m in re.split(r",\s*", line.strip())
            }
            assert members == slots.get(name, set()), f"{pxd.name}: {name}"


@pytest.fixture
def fake_compiled(tmp_path: Path) -> tuple[Path, Path]:
    """A package `fakeeng` with a source and an (empty) compiled module file beside it, as
    an old build leaves one: the import system takes such a file for the module."""
    package = tmp_path / "fakeeng"
    package.mkdir()
    (package / "__init__.py").write_text("", encoding="utf-8")
    source = package / "turns.py"
    source.write_text("ROUNDS = 2\n", encoding="utf-8")
    extension = package / f"turns{importlib.machinery.EXTENSION_SUFFIXES[0]}"
    extension.write_bytes(b"")
    return package, source


@pytest.mark.parametrize("manifest", ["dropped", "empty"])
def test_a_compiled_file_the_manifest_does_not_list_never_runs(
    fake_compiled: tuple[Path, Path], manifest: str
) -> None:
    """After a failed recompile the manifest drops the module, or is empty: the old file
    must not run in place of the edited source."""
    package, source = fake_compiled
    built = {"fakeeng.other": "0" * 64} if manifest == "dropped" else {}
    finder = compiled.FreshCompiledOnly(built, pure=False, prefix="fakeeng.")
    with pytest.warns(UserWarning, match="turns.py in .* did not record it"):
        spec = finder.find_spec("fakeeng.turns", [str(package)])
    assert spec is not None and spec.origin == str(source)
    assert compiled.stale_modules("fakeeng", package, built) == ["turns.py"]


def test_a_listed_fresh_compiled_file_runs_and_pure_python_never_does(
    fake_compiled: tuple[Path, Path],
) -> None:
    package, source = fake_compiled
    built = {"fakeeng.turns": compiled.source_digest(source)}
    fresh = compiled.FreshCompiledOnly(built, pure=False, prefix="fakeeng.")
    assert fresh.find_spec("fakeeng.turns", [str(package)]) is None  # the compiled file
    pure = compiled.FreshCompiledOnly(built, pure=True, prefix="fakeeng.")
    spec = pure.find_spec("fakeeng.turns", [str(package)])
    assert spec is not None and spec.origin == str(source)


def test_the_guard_is_installed_without_a_manifest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(compiled, "MANIFEST", tmp_path / "missing.json")
    others = [f for f in sys.meta_path if not isinstance(f, compiled.FreshCompiledOnly)]
    monkeypatch.setattr(sys, "meta_path", others)
    compiled.install()
    guard = next(f for f in sys.meta_path if isinstance(f, compiled.FreshCompiledOnly))
    assert guard.built == {}
