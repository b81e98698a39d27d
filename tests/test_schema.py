"""`cartiera schema`: generated JSON Schemas, current, and true to the data."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest
from conftest import GAMES, ROOT, edit

from pipeline.sources.yamlfile import plain, read_yaml


def test_committed_schemas_are_current(cli) -> None:
    run = cli(ROOT, "schema", "--check")
    assert run.exit_code == 0, run.output


def test_check_detects_drift(project: Path, cli) -> None:
    edit(project / "games/bless/game.yaml", "Duale]", "Duale, Grigio]")
    run = cli(project, "schema", "--check")
    assert run.exit_code == 1
    assert "schemas/bless/cards.schema.json: error: out of date" in run.stderr
    assert cli(project, "schema").exit_code == 0
    assert cli(project, "schema", "--check").exit_code == 0
    schema = json.loads((project / "schemas/bless/cards.schema.json").read_text())
    forma = schema["$defs"]["CardSource"]["properties"]["attributes"]["properties"]["forma"]
    assert forma["enum"] == ["Luce", "Ombra", "Duale", "Grigio"]


def _schema_for(path: Path) -> dict:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first.startswith("# yaml-language-server: $schema=")
    target = (path.parent / first.split("$schema=", 1)[1]).resolve()
    return json.loads(target.read_text(encoding="utf-8"))


@pytest.mark.parametrize("slug", GAMES)
def test_sources_match_their_schemas(slug: str) -> None:
    for path in sorted((ROOT / "games" / slug).glob("*.yaml")):
        data = plain(read_yaml(path, path.name).tree)
        jsonschema.validate(data, _schema_for(path))


def test_schema_rejects_what_validate_rejects() -> None:
    path = ROOT / "games/bless/cards.yaml"
    data = plain(read_yaml(path, path.name).tree)
    data["cards"][0]["attributes"]["forma"] = "Grigio"
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, _schema_for(path))
    data["cards"][0]["attributes"]["forma"] = "Luce"
    del data["cards"][0]["attributes"]["karma"]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(data, _schema_for(path))
