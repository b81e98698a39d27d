"""The stale-database warning of `cartiera deck`: by content, not by file times."""

from __future__ import annotations

import os
import time
from pathlib import Path

from conftest import edit, invoke

from pipeline.common.project import open_project
from pipeline.publish.render.deck import stale_database_warning


def test_a_fresh_clone_is_not_stale(built: Path) -> None:
    """A clone writes every source after the committed cards.db: newer, yet the same."""
    later = time.time() + 60
    for path in (built / "games").rglob("*"):
        os.utime(path, (later, later))
    assert stale_database_warning(open_project(built), "blitz") is None


def test_an_edit_is_named_and_undoing_it_clears_the_warning(built: Path) -> None:
    project = open_project(built)
    cards = built / "games/blitz/cards.yaml"
    edit(cards, "name: Fuoco", "name: Fuoco vivo")
    warning = stale_database_warning(project, "blitz")
    assert warning is not None and warning.startswith("warning: games/blitz/cards.yaml changed")
    edit(cards, "name: Fuoco vivo", "name: Fuoco")
    assert stale_database_warning(project, "blitz") is None
    (built / "games/blitz/examples/99-nuovo.yaml").write_text("{}\n", encoding="utf-8")
    assert "games/blitz/examples/99-nuovo.yaml" in (stale_database_warning(project, "blitz") or "")


def test_deck_prints_no_warning_after_a_clone(built: Path, tmp_path: Path) -> None:
    later = time.time() + 60
    os.utime(built / "games/blitz/cards.yaml", (later, later))
    run = invoke(built, "deck", "blitz", "--out", str(tmp_path / "deck.pdf"))
    assert run.exit_code == 0 and "changed after" not in run.stderr
