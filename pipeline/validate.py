"""`cartiera validate`: every problem of every game in one run, for people and for CI."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from .load import LoadedGame, load_games
from .problems import Problem, as_json, count, github_annotation
from .project import Project

Format = Literal["text", "json", "github"]


@dataclass
class Report:
    games: list[LoadedGame]
    problems: list[Problem]

    @property
    def ok(self) -> bool:
        return count(self.problems)[0] == 0

    def summaries(self) -> list[dict]:
        return [row for game in self.games for row in game.summaries()]


def validate(project: Project, slugs: Sequence[str] | None = None) -> Report:
    games = load_games(project, slugs)
    problems = [p for game in games for p in game.problems]
    return Report(games=games, problems=problems)


def render(report: Report, fmt: Format) -> str:
    if fmt == "json":
        return as_json(report.problems, report.summaries())
    lines = [github_annotation(p) if fmt == "github" else p.one_line() for p in report.problems]
    if lines:
        lines.append("")
    lines += summary_lines(report.summaries())
    return "\n".join(lines)


def summary_lines(rows: Sequence[dict]) -> list[str]:
    """One line per game and deck: counted / expected, errors, warnings."""
    out = []
    for row in rows:
        expected = row.get("expected")
        counted = row.get("cards")
        if counted is None:
            tally = "not loaded"
        else:
            tally = f"{counted}/{expected if expected is not None else counted} cards"
            if row.get("status") == "incomplete":
                tally += " (incomplete)"
        deck = row.get("deck") or "-"
        out.append(
            f"{row['game']:<14} {deck:<24} {tally:<28} "
            f"{row['errors']} errors, {row['warnings']} warnings"
        )
    return out
