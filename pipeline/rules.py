"""A game's rule text: numbered sections and clauses with stable anchors, its glossary,
and the map from the seed document's paragraphs to the clauses that carry them."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .sources import SeedMapSource, TermSource

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
NUMBERED = re.compile(
    r"^(?P<number>\d+(?:\.\d+)?)\.?\s+(?P<title>.+?)\s*\{#(?P<anchor>[a-z0-9]+(?:-[a-z0-9]+)*)\}$"
)
FENCE = re.compile(r"^\s*(```|~~~)")


@dataclass
class Clause:
    """A section (level 2, number "N") or a clause (level 3, number "N.M")."""

    number: str
    title: str
    anchor: str
    level: int
    line: int
    body: list[str] = field(default_factory=list)

    @property
    def body_md(self) -> str:
        return "\n".join(self.body).strip("\n")

    @property
    def parent_number(self) -> str | None:
        return self.number.rsplit(".", 1)[0] if "." in self.number else None


@dataclass(frozen=True)
class RulesProblem:
    line: int
    message: str
    hint: str | None = None


def parse_rules(text: str) -> tuple[list[Clause], list[RulesProblem]]:
    """Split rules.md into sections and clauses; report malformed or duplicate headings."""
    clauses: list[Clause] = []
    problems: list[RulesProblem] = []
    in_fence = False
    preamble: list[str] = []
    for number, line in enumerate(text.splitlines(), start=1):
        if FENCE.match(line):
            in_fence = not in_fence
        match = None if in_fence else HEADING.match(line)
        if match is None:
            (clauses[-1].body if clauses else preamble).append(line)
            continue
        level = len(match.group(1))
        numbered = NUMBERED.match(match.group(2))
        if level not in (2, 3) or numbered is None:
            problems.append(
                RulesProblem(
                    number,
                    f"heading '{line.strip()}' is not a numbered section or clause",
                    "write '## N. Titolo {#anchor}' or '### N.M Titolo {#anchor}'",
                )
            )
            continue
        clause = Clause(numbered["number"], numbered["title"], numbered["anchor"], level, number)
        depth = clause.number.count(".") + 2
        if depth != level:
            problems.append(
                RulesProblem(
                    number,
                    f"{clause.number} is numbered as a "
                    f"{'clause' if depth == 3 else 'section'} but its "
                    f"heading has level {level}",
                )
            )
        clauses.append(clause)
    if any(line.strip() for line in preamble):
        problems.append(
            RulesProblem(1, "text before the first section", "start rules.md with '## 1. …'")
        )
    problems += _check_numbering(clauses)
    return clauses, problems


def _check_numbering(clauses: list[Clause]) -> Iterator[RulesProblem]:
    anchors: dict[str, int] = {}
    numbers: dict[str, int] = {}
    section: str | None = None
    for clause in clauses:
        if clause.anchor in anchors:
            yield RulesProblem(
                clause.line,
                f"anchor '{clause.anchor}' already used on line {anchors[clause.anchor]}",
                "anchors must be unique",
            )
        anchors.setdefault(clause.anchor, clause.line)
        if clause.number in numbers:
            yield RulesProblem(
                clause.line, f"number {clause.number} already used on line {numbers[clause.number]}"
            )
        numbers.setdefault(clause.number, clause.line)
        if clause.level == 2:
            section = clause.number
        elif clause.parent_number != section:
            yield RulesProblem(
                clause.line,
                f"clause {clause.number} is not in section {section}",
                f"number it {section}.M or move it",
            )


def term_pattern(term: TermSource) -> re.Pattern[str]:
    """Whole-word, case-sensitive match of any of the term's forms (longest first)."""
    words = sorted(term.words, key=len, reverse=True)
    return re.compile(r"(?<![\w])(" + "|".join(re.escape(w) for w in words) + r")(?![\w])")


def seed_paragraphs(path: Path) -> list[tuple[int, str]]:
    """The seed's paragraphs: each non-empty line, trimmed, with its line number."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [(n, line.strip()) for n, line in enumerate(lines, start=1) if line.strip()]


@dataclass(frozen=True)
class CoverageProblem:
    entry: int | None  # index in seedmap.paragraphs, None for an uncovered seed line
    message: str
    hint: str | None = None


def check_coverage(
    seedmap: SeedMapSource, paragraphs: list[tuple[int, str]], anchors: set[str]
) -> Iterator[CoverageProblem]:
    """Every seed paragraph is covered; every entry covers one and names real clauses."""
    covered: set[int] = set()
    for index, entry in enumerate(seedmap.paragraphs):
        starts = entry.starts.strip()
        hits = [n for n, text in paragraphs if text.startswith(starts)]
        if not hits:
            yield CoverageProblem(
                index,
                f"no paragraph of {seedmap.seed} starts with '{starts[:60]}'",
                "copy the paragraph's opening words",
            )
        covered.update(hits)
        if not entry.clauses and not entry.reason:
            yield CoverageProblem(
                index,
                "an entry without clauses needs a reason",
                "name the clauses that carry it, or say why none does",
            )
        for anchor in entry.clauses:
            if anchor not in anchors:
                yield CoverageProblem(
                    index, f"unknown clause '{anchor}'", "use an anchor from rules.md"
                )
    for number, text in paragraphs:
        if number not in covered:
            yield CoverageProblem(
                None,
                f"{seedmap.seed}:{number} is not mapped to any clause: '{text[:60]}'",
                "add an entry to seedmap.yaml",
            )


def slugify(text: str) -> str:
    """Lowercase ASCII words joined by hyphens: 'Attacco Diretto' -> 'attacco-diretto'."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def term_anchor(term: str) -> str:
    return f"glossario-{slugify(term)}"
