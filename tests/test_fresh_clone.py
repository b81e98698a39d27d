"""A clone with nothing beside it: no seeds are guessed, validation only warns, and the
tests that need the seeds or the reference tables skip, saying what to set (or fail,
under --require-seeds as CI runs them)."""

from __future__ import annotations

import ast
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from conftest import ROOT, SEEDS, SLOW, SLOW_TESTS, invoke

from pipeline.common.project import REFERENCE_ENV, SEEDS_ENV
from pipeline.sources.yamlfile import read_yaml


def test_validate_without_seeds_warns_and_passes(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(SEEDS_ENV, raising=False)
    run = invoke(project, "validate", "--no-layout")
    assert run.exit_code == 0, run.output
    warned = [line for line in run.stdout.splitlines() if "CARTIERA_SEEDS is not set" in line]
    assert {line.split("/")[1] for line in warned} == {
        p.name for p in (project / "games").iterdir() if (p / "seedmap.yaml").exists()
    }
    assert all(": warning: " in line for line in warned)


def test_seeds_beside_the_project_are_not_guessed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The old default, ../shared/seeds, is not read: a broken seed there changes nothing."""
    project = tmp_path / "clone"
    project.mkdir()
    shutil.copytree(ROOT / "games" / "mazzo", project / "games" / "mazzo")
    seeds = tmp_path / "shared" / "seeds"
    seeds.mkdir(parents=True)
    seed = read_yaml(project / "games/mazzo/seedmap.yaml", "seedmap.yaml").data["seed"]
    (seeds / seed).write_text("Nulla di utile.\n", encoding="utf-8")
    monkeypatch.delenv(SEEDS_ENV, raising=False)
    run = invoke(project, "validate", "mazzo", "--no-layout")
    assert "CARTIERA_SEEDS is not set" in run.stdout
    assert "not mapped" not in run.stdout and "matches no paragraph" not in run.stdout


TINY = """
def test_reads_the_seeds(seeds):
    assert seeds.is_dir()

def test_reads_the_reference(reference):
    assert reference.is_dir()
"""


def _plugin_options() -> list[str]:
    """The `-p` options of pyproject.toml's addopts (the plugins the suite leaves out: the
    hypothesis one alone took 1.5 s to load in each run), and no cache in the clone."""
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    words = config["tool"]["pytest"]["ini_options"]["addopts"].split()
    names = [words[i + 1] for i, word in enumerate(words[:-1]) if word == "-p"]
    return [arg for name in ("no:cacheprovider", *names) for arg in ("-p", name)]


def _inner_basetemp(folder: Path) -> str:
    """An inner pytest's temporary folder, inside its own. Left to itself it numbers one in
    the user's temporary folder and, on leaving, deletes the oldest there: on this machine
    a gigabyte left by an earlier run, 6 s of a test that otherwise takes 1 s."""
    return f"--basetemp={folder / '.inner-tmp'}"


def _pytest(folder: Path, *args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    plugins = _plugin_options()
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-rs", *plugins, _inner_basetemp(folder), *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture
def tiny_suite(tmp_path: Path) -> Path:
    """Two tests that need the settings, beside a copy of our conftest."""
    for helper in (ROOT / "tests").glob("*.py"):  # conftest and the modules it imports
        if not helper.name.startswith("test_"):
            shutil.copy(helper, tmp_path / helper.name)
    (tmp_path / "test_tiny.py").write_text(TINY, encoding="utf-8")
    return tmp_path


def test_without_settings_the_tests_skip_and_say_what_to_set(
    tiny_suite: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(SEEDS_ENV, raising=False)
    monkeypatch.delenv(REFERENCE_ENV, raising=False)
    result = _pytest(tiny_suite, env=dict(os.environ))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "2 skipped" in result.stdout
    assert f"{SEEDS_ENV} is not set: set it to the folder of the seed documents" in result.stdout
    assert f"{REFERENCE_ENV} is not set" in result.stdout

    strict = _pytest(tiny_suite, "--require-seeds", env=dict(os.environ))
    assert strict.returncode == 1, strict.stdout
    assert "2 errors" in strict.stdout and "skipped" not in strict.stdout


def test_with_the_settings_the_tests_run(tiny_suite: Path) -> None:
    if SEEDS is None:
        pytest.skip(f"{SEEDS_ENV} is not set: set it to the folder of the seed documents")
    env = dict(os.environ, **{REFERENCE_ENV: str(SEEDS)})  # any folder will do here
    result = _pytest(tiny_suite, "--require-seeds", env=env)
    assert result.returncode == 0, result.stdout
    assert "2 passed" in result.stdout


ONE_FILE = """
import os


def _ran():
    with open(os.environ["WORKERS_LOG"], "a", encoding="utf-8") as log:
        log.write(f"{__name__} {os.environ.get('PYTEST_XDIST_WORKER', '-')}\\n")
""" + "".join(f"\n\ndef test_{i}():\n    _ran()\n" for i in range(4))


def test_the_tests_of_one_file_run_on_one_worker(tiny_suite: Path) -> None:
    """pyproject's addopts (-n 2 --dist loadgroup) with conftest's groups keep a file's
    tests on one worker, so its module fixtures are built once. Seen from where the tests
    ran (the worker each test names), not from how pytest-xdist carries a group: it uses
    the node ids, which a pytest release may change under it without a word (9.2 does,
    pytest-dev/pytest-xdist#1386: then every fixture is built twice and nothing fails)."""
    pytest.importorskip("xdist", reason="pytest-xdist is not installed: pip install -e '.[test]'")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    addopts = config["tool"]["pytest"]["ini_options"]["addopts"].split()
    files = ["test_one.py", "test_two.py"]
    for name in files:
        (tiny_suite / name).write_text(ONE_FILE, encoding="utf-8")
    log = tiny_suite / "workers.log"
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *addopts]
        + [_inner_basetemp(tiny_suite), *files],
        cwd=tiny_suite,
        env=dict(os.environ, WORKERS_LOG=str(log)),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    ran = [line.split() for line in log.read_text(encoding="utf-8").splitlines()]
    assert sorted(module for module, _ in ran) == ["test_one"] * 4 + ["test_two"] * 4
    workers = {module: {worker for m, worker in ran if m == module} for module, _ in ran}
    assert all(len(found) == 1 for found in workers.values()), workers
    assert all(worker.startswith("gw") for _, worker in ran)  # on workers, not in-process


def test_every_test_the_quick_loop_leaves_out_exists() -> None:
    """`-m "not slow"` (README) leaves out the files in conftest.SLOW and the tests in
    conftest.SLOW_TESTS: a name there that no longer matches a test (renamed, moved) would
    bring its minutes back into the quick loop without a word."""
    for name in SLOW:
        assert (ROOT / "tests" / name).is_file(), name
    for entry in SLOW_TESTS:
        file, _, function = entry.partition("::")
        source = ROOT / "tests" / file
        assert source.is_file(), entry
        tree = ast.parse(source.read_text(encoding="utf-8"))
        functions = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
        assert function in functions, entry
