"""No dead code in pipeline/: vulture finds no unused name there, save those that
vulture_allow.py (at the repository's root) lists with the reason each is used."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest
from conftest import ROOT

ALLOW_LIST = ROOT / "vulture_allow.py"


@pytest.mark.skipif(
    importlib.util.find_spec("vulture") is None,
    reason="vulture is not installed: pip install -e '.[test]'",
)
def test_pipeline_has_no_dead_code() -> None:
    run = subprocess.run(
        [sys.executable, "-m", "vulture", "pipeline", ALLOW_LIST.name, "--min-confidence", "60"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 0, (
        "unused code (delete it, or list it in vulture_allow.py with why it is used):\n"
        + run.stdout
        + run.stderr
    )
