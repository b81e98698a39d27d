"""The first minutes and the edit loop (issue 38): a command imports only what it uses, and a
no-op build does not check cards.db again when nothing it is made from changed. Their speed
is measured by benchmarks/first_run.py, not here."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT, checkout_env, edit

from pipeline.commands import build
from pipeline.commands.validate import validate
from pipeline.common.project import open_project
from pipeline.database import store

# Run `cartiera ARGS…` in this process, then name the heavy libraries it imported.
IMPORTED = """
import sys
from pipeline.cli.app import run
sys.argv = ["cartiera", *sys.argv[1:]]
try:
    run()
except SystemExit:
    pass
heavy = ("weasyprint", "mkdocs", "sqlalchemy", "pydantic", "PIL")
print(" ".join(sorted(m for m in heavy if m in sys.modules)), file=sys.stderr)
"""


def _heavy_imports(*args: str) -> set[str]:
    run = subprocess.run(
        [sys.executable, "-c", IMPORTED, *args],
        cwd=ROOT,
        env=checkout_env(),
        capture_output=True,
        text=True,
    )
    return set(run.stderr.splitlines()[-1].split())


@pytest.mark.parametrize(
    ("args", "needs"),
    [
        (["--help"], set()),
        (["validate", "--no-layout", "mazzo"], {"pydantic"}),  # the source models
        (["search", "bless", "re"], {"pydantic"}),  # Typer's, not the database's
    ],
)
def test_a_command_imports_only_what_it_uses(args: list[str], needs: set[str]) -> None:
    assert _heavy_imports(*args) <= needs


def test_a_no_op_build_does_not_check_the_database_again(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Checking cards.db writes a whole database and plays every worked example: a build
    does it when the sources, the code or the file changed, not when nothing did."""
    here = open_project(project)
    games = validate(here, layout=False).games
    snapshot = project / "snapshot.db"
    first = build._database(here, games, snapshot)

    def checked(*args: object) -> str | None:
        raise AssertionError("cards.db was checked again")

    real = store.refresh
    refreshed: list[int] = []

    def counted(*args: Any) -> Any:
        refreshed.append(1)
        return real(*args)

    with monkeypatch.context() as patched:
        patched.setattr(store, "refresh", checked)
        assert build._database(here, games, snapshot) == (None, first[1])

    edit(project / "games/mazzo/cards.yaml", "name: Spia", "name: Spia Astuta")
    games = validate(here, layout=False).games
    written = []
    real_write = store.write_sqlite

    def write(*args: Any) -> Any:
        written.append(1)
        return real_write(*args)

    with monkeypatch.context() as patched:
        patched.setattr(store, "refresh", counted)
        patched.setattr(store, "write_sqlite", write)
        _, content = build._database(here, games, snapshot)
    assert refreshed and content != first[1]
    # the database the edit gives is written once: compared, then renamed into place
    assert len(written) == 1
    assert "Spia Astuta" in "".join(store.sorted_dump(here.sqlite_path))
    assert not list(project.glob(".cards.db.*"))

    here.sqlite_path.write_bytes(b"")  # type: ignore[union-attr]  # not the file recorded
    refreshed.clear()
    with monkeypatch.context() as patched:
        patched.setattr(store, "refresh", counted)
        _, again = build._database(here, games, snapshot)
    assert refreshed and again == content


# Import WeasyPrint as a rendering command does, counting the processes started meanwhile.
LOADED = """
import ctypes.util, subprocess, sys
started = []
original = subprocess.Popen.__init__
def counted(self, args, *rest, **options):
    started.append(args[0] if isinstance(args, (list, tuple)) else args)
    original(self, args, *rest, **options)
subprocess.Popen.__init__ = counted
lookup = ctypes.util.find_library
from pipeline.common.output import load_weasyprint
load_weasyprint()
from weasyprint.text import ffi
assert ctypes.util.find_library is lookup, "find_library is not given back"
assert None not in (ffi.gobject, ffi.pango, ffi.harfbuzz, ffi.fontconfig, ffi.pangoft2)
print(" ".join(started))
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the linker's cache is Linux's")
def test_weasyprint_finds_its_libraries_in_one_look_at_the_linker_cache() -> None:
    """WeasyPrint asks for each library under several names; ctypes ran ldconfig, then gcc
    and ld, for each wrong one (54 processes, 0.3 s of every renderer's start)."""
    run = subprocess.run(
        [sys.executable, "-c", LOADED], cwd=ROOT, env=checkout_env(), capture_output=True, text=True
    )
    assert run.returncode == 0, run.stderr
    started = run.stdout.split()
    assert len(started) == 1 and started[0].endswith("ldconfig"), started


def test_the_compiled_modules_finder_costs_no_imports() -> None:
    """`import pipeline` installs the finder of compiled modules in every command; it must
    not bring importlib.abc with importlib.resources, tempfile and zipfile (10 ms of
    `cartiera --help`). -S leaves out site-packages, whose .pth files import such modules
    on some machines, so only what `pipeline` imports is seen."""
    probe = "import sys, pipeline; print(sorted(set(sys.modules) & set(sys.argv[1:])))"
    run = subprocess.run(
        [sys.executable, "-S", "-c", probe, "importlib.abc", "importlib.resources", "tempfile"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stderr
    assert run.stdout.strip() == "[]"
