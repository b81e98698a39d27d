"""The first minutes and the edit loop (issue 38): a command imports only what it uses, and a
no-op build does not check cards.db again when nothing it is made from changed. Their speed
is measured by benchmarks/first_run.py, not here."""

from __future__ import annotations

import subprocess
import sys

import pytest
from conftest import ROOT

# Run `cartiera ARGS…` in this process, then name the heavy libraries it imported.
IMPORTED = """
import sys
from pipeline.cli import run
sys.argv = ["cartiera", *sys.argv[1:]]
try:
    run()
except SystemExit:
    pass
heavy = ("weasyprint", "matplotlib", "mkdocs", "sqlalchemy", "pydantic", "PIL")
print(" ".join(sorted(m for m in heavy if m in sys.modules)), file=sys.stderr)
"""


def _heavy_imports(*args: str) -> set[str]:
    run = subprocess.run(
        [sys.executable, "-c", IMPORTED, *args], cwd=ROOT, capture_output=True, text=True
    )
    return set(run.stderr.splitlines()[-1].split())


@pytest.mark.parametrize(
    ("args", "needs"),
    [
        (["--help"], set()),
        (["validate", "--no-layout", "mazzo"], {"pydantic"}),  # the source models
        (["search", "bless", "re"], {"sqlalchemy", "pydantic"}),  # the database
    ],
)
def test_a_command_imports_only_what_it_uses(args: list[str], needs: set[str]) -> None:
    assert _heavy_imports(*args) <= needs
