"""Two designers, two clones, one PostgreSQL server: every output follows the sources of
the project that built it, or the command refuses with one line that names the conflict.

`cartiera build` here makes one step (Mazzo's card PDF) so the test stays quick; which steps
run does not change how the database is checked and refreshed before them.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from conftest import edit, invoke, pdf_text
from pgserver import Server

from pipeline.commands import build

DECK = "build/decks/mazzo-carte.pdf"


@pytest.fixture
def one_step(monkeypatch: pytest.MonkeyPatch) -> None:
    real = build.plan
    monkeypatch.setattr(
        build,
        "plan",
        lambda project, slugs, engines=None: [
            s for s in real(project, slugs, engines) if s.name == "deck mazzo cards"
        ],
    )


def _deck_text(project: Path) -> str:
    return " ".join(pdf_text(project / DECK))


def _refused(run_output: str, whose: Path) -> bool:
    lines = [line for line in run_output.splitlines() if "error:" in line]
    return len(lines) == 1 and str(whose) in lines[0] and "other sources" in lines[0]


def test_two_projects_share_a_server(
    postgres: Server, built_copy: Callable[[str], Path], one_step: None
) -> None:
    url = postgres.create_database("cartiera_team")
    alice, bruno = built_copy("alice"), built_copy("bruno")
    a = ("--db", url)

    # Alice builds the server, edits a card: her next build rebuilds it and the deck shows it.
    assert invoke(alice, *a, "db", "build").exit_code == 0
    edit(alice / "games/mazzo/cards.yaml", "name: Spia", "name: Spia di Alice")
    run = invoke(alice, *a, "build", "-j", "1")
    assert run.exit_code == 0, run.output
    assert "rebuilt it from them" in run.stdout
    assert "Spia di Alice" in _deck_text(alice)
    again = invoke(alice, *a, "build", "-j", "1")
    assert "holds this project's sources" in again.stdout and "nothing changed" in again.stdout

    # Bruno's clone holds other sources: he overwrites nothing and renders nothing from hers.
    refused = invoke(bruno, *a, "db", "build")
    assert refused.exit_code == 1 and _refused(refused.output, alice), refused.output
    refused = invoke(bruno, *a, "build", "-j", "1")
    assert refused.exit_code == 1 and _refused(refused.output, alice), refused.output
    assert not (bruno / DECK).exists()
    assert "Spia di Alice" in invoke(alice, *a, "db", "dump").stdout  # hers, untouched

    # With --force the server is his; his deck shows his cards, and Alice is told.
    assert invoke(bruno, *a, "db", "build", "--force").exit_code == 0
    run = invoke(bruno, *a, "build", "-j", "1")
    assert run.exit_code == 0, run.output
    assert "Spia di Alice" not in _deck_text(bruno) and "Spia" in _deck_text(bruno)
    refused = invoke(alice, *a, "build", "-j", "1")
    assert refused.exit_code == 1 and _refused(refused.output, bruno), refused.output
    assert "Spia di Alice" in _deck_text(alice)  # her last deck, from her sources

    # Bruno edits too: his own server follows him.
    edit(bruno / "games/mazzo/cards.yaml", "name: Spia", "name: Spia di Bruno")
    run = invoke(bruno, *a, "build", "-j", "1")
    assert run.exit_code == 0, run.output
    assert "Spia di Bruno" in _deck_text(bruno)
