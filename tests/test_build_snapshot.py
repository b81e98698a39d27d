"""`cartiera build` reads one snapshot of the database (issue 37): a `db build` during the
build (a team mate's, or a designer's edit) cannot give outputs of two versions of a card."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import edit

from pipeline.commands import build
from pipeline.commands.validate import validate
from pipeline.common.project import open_project
from pipeline.database.store import build_database


def test_every_output_shows_the_database_as_the_build_started(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here = open_project(project)
    build_database(here, validate(here, layout=False).games)
    wanted = {"images mazzo", "balance mazzo"}
    real_plan, real_run = build.plan, build.run_step
    monkeypatch.setattr(
        build, "plan", lambda p, s, e=None: [x for x in real_plan(p, s, e) if x.name in wanted]
    )
    seen: list[str] = []

    def run_step(root: str, db_url: str, step: build.Step) -> build.Timing:
        if not seen:  # the database changes between two steps of the build
            edit(project / "games/mazzo/cards.yaml", "name: Spia", "name: Spia Astuta")
            build_database(here, validate(here, layout=False).games)
        seen.append(db_url)
        return real_run(root, db_url, step)

    monkeypatch.setattr(build, "run_step", run_step)
    report = build.build(here, jobs=1)

    assert sorted(report.ran) == sorted(wanted) and len(set(seen)) == 1
    assert ".snapshot-" in seen[0]  # every step read the snapshot, not the live file
    manifest = json.loads((project / "build/images/mazzo/300dpi/manifest.json").read_text())
    names = {card["name"] for card in manifest["cards"]}
    assert "Spia" in names and "Spia Astuta" not in names
    figures = json.loads((project / "build/balance/mazzo/figures.json").read_text())
    assert "Spia Astuta" not in json.dumps(figures, ensure_ascii=False)
    assert report.database is not None and "changed during the build" in report.database
    assert not list((project / "build").glob(".snapshot-*"))  # the copy is gone

    # The next build sees the new card and makes those steps again from it.
    monkeypatch.setattr(build, "run_step", real_run)
    again = build.build(here, jobs=1)
    assert sorted(again.ran) == sorted(wanted)
    manifest = json.loads((project / "build/images/mazzo/300dpi/manifest.json").read_text())
    assert "Spia Astuta" in {card["name"] for card in manifest["cards"]}
