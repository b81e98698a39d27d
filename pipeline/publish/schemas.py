"""`cartiera schema`: the JSON Schemas of the source files, generated from the models.

Editors use them through the `# yaml-language-server: $schema=…` line of each file.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from pipeline.common.problems import SourceError
from pipeline.common.project import Project
from pipeline.engine.registry import plugin as game_plugin
from pipeline.play.examples import scenario_schema
from pipeline.sources import gamespec
from pipeline.sources.formats import GameSource, GlossarySource, RulingsSource, SeedMapSource
from pipeline.sources.load import load_game

# Source files whose schema does not depend on the game (cards.yaml's does).
SOURCE_MODELS: dict[str, type[BaseModel]] = {
    "game": GameSource,
    "rulings": RulingsSource,
    "glossary": GlossarySource,
    "seedmap": SeedMapSource,
}


def schemas(project: Project) -> dict[str, dict[str, Any]]:
    """Every schema file, by its path relative to schemas/."""
    out: dict[str, dict[str, Any]] = {
        f"{name}.schema.json": _titled(model.model_json_schema(), f"Cartiera: {name}.yaml")
        for name, model in SOURCE_MODELS.items()
    }
    for slug in project.game_slugs():
        loaded = load_game(project, slug)
        declaration_errors = [
            p for p in loaded.problems if p.is_error and p.file and p.file.endswith("game.yaml")
        ]
        if loaded.game is None or declaration_errors:
            problem = (declaration_errors or loaded.problems)[0]
            raise SourceError(problem)
        plugin = game_plugin(slug)
        models = dict(plugin.data_models) if plugin else {}
        out[f"{slug}/cards.schema.json"] = gamespec.cards_schema(loaded.game, models)
        if plugin and plugin.scenario:  # examples/*.yaml: the shared vocabulary and the game's own
            title = f"Cartiera: {slug} examples/*.yaml"
            out[f"{slug}/scenario.schema.json"] = _titled(scenario_schema(slug), title)
    return out


def _titled(schema: dict[str, Any], title: str) -> dict[str, Any]:
    schema["title"] = title
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


def dumps(schema: dict[str, Any]) -> str:
    return json.dumps(schema, ensure_ascii=False, indent=2) + "\n"


def write_schemas(project: Project) -> list[Path]:
    written = []
    for rel, schema in schemas(project).items():
        path = project.schemas_dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        content = dumps(schema)
        if not path.exists() or path.read_text(encoding="utf-8") != content:
            path.write_text(content, encoding="utf-8")
            written.append(path)
    return written


def stale_schemas(project: Project) -> list[str]:
    """Schema files that differ from what the models give (or are missing, or extra)."""
    expected = schemas(project)
    stale = []
    for rel, schema in expected.items():
        path = project.schemas_dir / rel
        if not path.exists() or path.read_text(encoding="utf-8") != dumps(schema):
            stale.append(rel)
    if project.schemas_dir.exists():
        for path in sorted(project.schemas_dir.rglob("*.json")):
            rel = path.relative_to(project.schemas_dir).as_posix()
            if rel not in expected:
                stale.append(rel)
    return stale
