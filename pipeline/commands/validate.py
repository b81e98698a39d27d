"""`cartiera validate`: every problem of every game in one run, for people and for CI."""

from __future__ import annotations

import re
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from pipeline.common.problems import Problem, as_json, as_sarif, count, github_annotation
from pipeline.common.project import Project
from pipeline.common.words import plural
from pipeline.sources.load import LoadedGame, load_games

Format = Literal["text", "json", "github", "sarif"]


@dataclass
class Report:
    games: list[LoadedGame]
    problems: list[Problem]

    @property
    def ok(self) -> bool:
        return count(self.problems)[0] == 0

    def summaries(self) -> list[dict]:
        return [row for game in self.games for row in game.summaries()]


def validate(project: Project, slugs: Sequence[str] | None = None, layout: bool = True) -> Report:
    """Load and check every game; with `layout`, also lay out every card face and report
    text that does not fit its box; with the seeds at hand, report text copied from them."""
    games = load_games(project, slugs)
    for game in games:
        game.problems += unsafe_references(project, game.slug)
    if layout:
        check_text_fit(project, games)
    if project.seeds_dir is not None:
        from pipeline.sources import provenance  # only with the seeds: its patterns cost 5 ms

        for game in games:
            game.problems += provenance.check_game(project, game, project.seeds_dir)
    problems = [p for game in games for p in game.problems]
    return Report(games=games, problems=problems)


# The sources whose text is Markdown: what they name is shown on the site and in PDFs.
MARKDOWN_SOURCES = ("rules.md", "rulings.yaml", "glossary.yaml", "cards.yaml")


def unsafe_references(project: Project, slug: str) -> list[Problem]:
    """Links, pictures and attribute lists in the game's Markdown that the site and the
    PDFs drop (pipeline.common.sanitize): warnings where they are written, so the author knows
    what readers will not see (the outputs are safe either way). Also words that mix Latin
    letters with look-alikes of another script, outside cards.yaml (its cards are checked
    one by one, with their names)."""
    from pipeline.common.sanitize import unsafe_markdown
    from pipeline.sources.gamespec import LOOK_ALIKE_HINT, look_alike, look_alike_message

    problems = []
    for name in MARKDOWN_SOURCES:
        path = project.games_dir / slug / name
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue  # the loader reports a missing or unreadable file
        where = {"file": project.rel(path), "game": slug}
        for line, column, what in unsafe_markdown(text):
            hint = (
                "say it in words: the rules have no pictures"
                if what.startswith("picture")
                else "link to web pages only; no scripts or styles"
            )
            problems.append(Problem("warning", what, line=line, column=column, hint=hint, **where))
        if name == "cards.yaml" or look_alike(text) is None:  # none in the whole file
            continue
        for number, line_text in enumerate(text.splitlines(), start=1):
            if (mixed := look_alike(line_text)) is not None:
                at = re.search(rf"(?<!\w){re.escape(mixed[0])}(?!\w)", line_text)
                place = at.start() + 1 if at else None
                message = look_alike_message(*mixed)
                problems.append(
                    Problem(
                        "warning", message, line=number, column=place, hint=LOOK_ALIKE_HINT, **where
                    )
                )
    return problems


def check_text_fit(project: Project, games: Sequence[LoadedGame]) -> None:
    """Render each valid game's faces (cached by content) and record every overflow.

    Faces are drawn from a scratch database built from the sources being checked, so
    what is measured is exactly what `cartiera deck` would print.
    """
    from sqlmodel import create_engine

    from pipeline.common.settings import site_url
    from pipeline.database.catalog import read_game
    from pipeline.database.store import write_sqlite
    from pipeline.publish.render.deck import face_cache
    from pipeline.publish.render.faces import deck_faces, overflows

    ready = []
    for game in games:
        if not game.ok or game.game is None:
            continue
        if not (project.templates_dir / "cards" / game.slug / "front.html.j2").exists():
            game.problems.append(
                Problem(
                    "warning",
                    "no card templates: faces not laid out",
                    file=project.rel(project.templates_dir / "cards" / game.slug),
                    game=game.slug,
                    hint="add front.html.j2, back.html.j2 and card.css",
                )
            )
            continue
        ready.append(game)
    if not ready:
        return
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "layout.db"
        write_sqlite(db, ready)
        engine = create_engine(f"sqlite:///{db}")
        try:
            for game in ready:
                faces = deck_faces(
                    read_game(engine, game.slug), project.templates_dir, site_url(project)
                )
                for found in overflows(faces, face_cache(project)):
                    game.problems.append(_overflow_problem(project, game, found))
        finally:
            engine.dispose()


def _overflow_problem(project: Project, game: LoadedGame, found) -> Problem:
    doc = game.docs["cards.yaml"]
    assert game.game is not None
    found = replace(found, field=_edited_field(game, found.card, found.field))
    loc: tuple[str | int, ...] = ("cards", game.card_index[found.card])
    loc += (
        ("text", found.field)
        if found.field in game.game.texts
        else (("name",) if found.field == "name" else ())
    )
    return doc.problem(
        loc,
        found.message(),
        game=game.slug,
        card=found.card,
        hint=f"shorten it, or give it a larger box in templates/cards/{game.slug}/",
    )


def _edited_field(game: LoadedGame, code: str, box: str) -> str:
    """The card field a designer shortens when a box overflows: a box that holds several
    texts (`data-fit="maledizione preghiera"`, as the face `cartiera new` writes) names the
    card's longest of them."""
    texts = next((c.text for c in game.cards if c.id == code), {})
    held = [name for name in box.split() if name in texts]
    return max(held, key=lambda name: len(texts[name])) if held else box


def render(report: Report, fmt: Format) -> str:
    if fmt == "json":
        return as_json(report.problems, report.summaries())
    if fmt == "sarif":
        return as_sarif(report.problems, _version())
    lines = [github_annotation(p) if fmt == "github" else p.one_line() for p in report.problems]
    if lines:
        lines.append("")
    lines += summary_lines(report.summaries())
    return "\n".join(lines)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("cartiera")
    except PackageNotFoundError:
        return "0"


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
            f"{plural(row['errors'], 'error')}, {plural(row['warnings'], 'warning')}"
        )
    return out
