"""`cartiera build` stamps: a step is made again when anything that shapes its outputs
changes, the renderers and the site's tools included, and only then."""

from __future__ import annotations

from pathlib import Path

import pytest

from pipeline.commands import build
from pipeline.common.project import open_project
from pipeline.database.store import database_digest
from pipeline.publish.render import cache


def _stamps(project_dir: Path) -> dict[str, str]:
    project = open_project(project_dir)
    steps = build.plan(project, project.game_slugs())
    return build.stamps(project, steps, database_digest(project))


def _changed(before: dict[str, str], after: dict[str, str]) -> set[str]:
    return {name.split()[0] for name in before if before[name] != after[name]}


def test_a_renderer_upgrade_makes_the_rendered_steps_again(
    shared_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _stamps(shared_project)
    assert _stamps(shared_project) == before  # nothing changed, nothing to do
    # A new WeasyPrint, PDFium or font: renderer_tag() names another environment.
    monkeypatch.setattr(cache, "renderer_tag", lambda: "another-renderer")
    after = _stamps(shared_project)
    assert _changed(before, after) == {"deck", "images", "rulebook", "site"}  # not balance


def test_a_mkdocs_upgrade_makes_the_site_again(
    shared_project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    before = _stamps(shared_project)
    monkeypatch.setattr(build, "site_tools", lambda: "mkdocs=99.0 mkdocs-material=99.0")
    after = _stamps(shared_project)
    assert _changed(before, after) == {"site"}
