"""The CLI surface: help everywhere, version, `python -m pipeline`, and documented commands."""

from __future__ import annotations

import subprocess
import sys

import pytest
import typer
from conftest import CARTIERA, ROOT, checkout_env

from pipeline.cli.app import app


def _commands(group: typer.Typer = app, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = [(*prefix, cmd.name or cmd.callback.__name__) for cmd in group.registered_commands]
    for sub in group.registered_groups:
        found += _commands(sub.typer_instance, (*prefix, sub.name))
    return found


COMMANDS = _commands()


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_has_help(cli, command: tuple[str, ...]) -> None:
    run = cli(None, *command, "--help")
    assert run.exit_code == 0
    assert "Usage:" in run.stdout


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_every_command_is_documented(command: tuple[str, ...]) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"cartiera {' '.join(command)}" in readme


def test_version(cli) -> None:
    run = cli(None, "--version")
    assert run.exit_code == 0
    assert run.stdout.startswith("cartiera ")


def test_python_m_pipeline() -> None:
    out = subprocess.run(
        [*CARTIERA, "validate", "mazzo"],
        cwd=ROOT,
        env=checkout_env(),
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr
    assert "mazzo" in out.stdout


def test_a_command_sets_the_garbage_collector_for_its_work() -> None:
    """A fresh process makes a collector pass every 700 new containers (Python's default);
    a command, every 20,000 (pipeline/common/collector.py: laying out faces spent a quarter
    of its time in the collector; benchmarks/collector.py measures it)."""
    code = (
        "import gc\nfrom pipeline.cli.app import app\nbefore = gc.get_threshold()[0]\n"
        "app(['validate', 'mazzo'], prog_name='cartiera', standalone_mode=False)\n"
        "print(before, gc.get_threshold()[0])"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, env=checkout_env(), capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr
    before, after = map(int, out.stdout.splitlines()[-1].split())
    assert before < 20_000 == after  # Python 3.11's default is 700
