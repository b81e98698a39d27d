"""Shared fixtures: a throwaway copy of the real project, and the CLI run in-process."""

from __future__ import annotations

import shutil
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli import app

ROOT = Path(__file__).resolve().parents[1]
GAMES = ("bldng", "bless", "blitz", "mazzo", "samurai-sword")
SEEDS = ROOT.parent / "shared" / "seeds"


@pytest.fixture(autouse=True)
def _seeds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Project copies live in temporary folders: point them at the real seed documents."""
    monkeypatch.setenv("CARTIERA_SEEDS", str(SEEDS))


@dataclass
class Run:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def invoke(project: Path | None, *args: str, env: dict[str, str] | None = None) -> Run:
    runner = CliRunner()
    prefix = ["--project", str(project)] if project is not None else []
    result = runner.invoke(app, [*prefix, *args], env=env, catch_exceptions=False)
    return Run(result.exit_code, result.stdout, result.stderr)


@pytest.fixture
def cli() -> Callable[..., Run]:
    return invoke


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the real games/, schemas/ and templates/ in a temporary folder, without a
    database. Seeds are found through CARTIERA_SEEDS (set below), as in the real project."""
    dest = tmp_path / "proj"
    copy_sources(dest)
    return dest


def copy_sources(dest: Path) -> None:
    """What a fresh clone has: sources, schemas, templates, hand-written site pages."""
    for name in ("games", "schemas", "templates"):
        shutil.copytree(ROOT / name, dest / name)
    shutil.copytree(
        ROOT / "site",
        dest / "site",
        ignore=lambda folder, names: [
            n for n in names if Path(folder) == ROOT / "site" and n in ("index.md", "giochi")
        ],
    )
    shutil.copy(ROOT / "mkdocs.yml", dest / "mkdocs.yml")


@pytest.fixture
def built(project: Path) -> Path:
    """The project copy with its cards.db built."""
    run = invoke(project, "db", "build")
    assert run.exit_code == 0, run.output
    return project


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replace `old` by `new` in a source file; fail loudly if `old` is not there."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) >= count, f"{old!r} not found in {path}"
    path.write_text(text.replace(old, new, count), encoding="utf-8")


@pytest.fixture(scope="session")
def shared_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One built copy of the project for tests that only read it (faster than `built`)."""
    dest = tmp_path_factory.mktemp("shared") / "proj"
    copy_sources(dest)
    run = invoke(dest, "db", "build")
    assert run.exit_code == 0, run.output
    return dest
