"""A game's rule text: numbered sections and clauses with stable anchors, its glossary,
and the map from the seed document's paragraphs to the clauses that carry them."""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .formats import SeedMapSource, SeedParagraph, TermSource

HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*$")
NUMBERED = re.compile(
    r"^(?P<number>\d+(?:\.\d+)?)\.?\s+(?P<title>.+?)\s*\{#(?P<anchor>[a-z0-9]+(?:-[a-z0-9]+)*)\}$"
)
FENCE = re.compile(r"^\s*(```|~~~)")
WORD = re.compile(r"[^\W_]+")


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


def fold(text: str) -> str:
    """Lowercase without accents: 'Perché È' -> 'perché è' -> 'perche e'."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if not unicodedata.combining(c)).casefold()


def words(text: str) -> list[str]:
    """The normalised words of a text: what seed paragraphs and copied runs are counted in."""
    return WORD.findall(fold(text))


def paragraph_key(text: str) -> str:
    """A paragraph as compared: folded, spaces collapsed; punctuation kept, so '-' is not '|'."""
    return " ".join(fold(text).split())


def fingerprint(text: str) -> str:
    """What seedmap.yaml writes for a long paragraph, whose text is not ours to copy."""
    return hashlib.sha256(paragraph_key(text).encode("utf-8")).hexdigest()[:12]


# A paragraph of this many words or more is named by fingerprint, never by its text.
LONG_PARAGRAPH = 8


@dataclass(frozen=True)
class CoverageProblem:
    entry: int | None  # index in seedmap.paragraphs, None for an uncovered seed line
    message: str
    hint: str | None = None


def check_coverage(
    seedmap: SeedMapSource, paragraphs: list[tuple[int, str]], anchors: set[str]
) -> Iterator[CoverageProblem]:
    """Every seed paragraph is mapped by exactly one entry, and every entry names exactly
    one whole paragraph and real clauses (or says why no clause carries it)."""
    by_print: dict[str, list[int]] = {}
    for number, text in paragraphs:
        by_print.setdefault(fingerprint(text), []).append(number)
    text_at = dict(paragraphs)
    covered: dict[int, int] = {}  # seed line -> entry index
    for index, entry in enumerate(seedmap.paragraphs):
        found = _entry_line(seedmap.seed, entry, by_print, text_at)
        if isinstance(found, CoverageProblem):
            yield CoverageProblem(index, found.message, found.hint)
        elif found in covered:
            yield CoverageProblem(
                index,
                f"{seedmap.seed}:{found} is already mapped by entry {covered[found] + 1}",
                "map each paragraph once: merge the two entries",
            )
        else:
            covered[found] = index
            label = paragraph_key(entry.starts or "").split()
            if label and paragraph_key(text_at[found]).split()[: len(label)] != label:
                yield CoverageProblem(
                    index,
                    f"label '{entry.starts}' is not how {seedmap.seed}:{found} starts",
                    "copy the paragraph's first few words, or drop starts:",
                )
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
            how = (
                f"text: {text!r}"
                if len(words(text)) < LONG_PARAGRAPH
                else f"fingerprint: {fingerprint(text)}"
            )
            yield CoverageProblem(
                None,
                f"{seedmap.seed}:{number} is not mapped to any clause: '{text[:60]}'",
                f"add an entry with {how}"
                + (f" and line: {number}" if len(by_print[fingerprint(text)]) > 1 else ""),
            )


def _entry_line(
    seed: str, entry: SeedParagraph, by_print: dict[str, list[int]], text_at: dict[int, str]
) -> int | CoverageProblem:
    """The one seed line an entry names, or why it names none or several."""
    if (entry.text is None) == (entry.fingerprint is None):
        return CoverageProblem(None, "an entry needs either text: or fingerprint:")
    if entry.text is not None and len(words(entry.text)) >= LONG_PARAGRAPH:
        return CoverageProblem(
            None,
            f"text: holds {len(words(entry.text))} words of the seed, which are not ours",
            f"write fingerprint: {fingerprint(entry.text)} and a short starts: label",
        )
    wanted = entry.fingerprint or fingerprint(entry.text or "")
    shown = f"'{entry.text}'" if entry.text is not None else f"fingerprint {wanted}"
    hits = by_print.get(wanted, [])
    if entry.line is not None:
        if entry.line in hits:
            return entry.line
        return CoverageProblem(
            None,
            f"{seed}:{entry.line} is not the paragraph {shown}"
            + (f" (that is on lines {_lines(hits)})" if hits else ""),
            "correct line:",
        )
    if not hits:
        return CoverageProblem(
            None,
            f"no paragraph of {seed} is {shown}",
            "name the whole paragraph: its text when short, else the fingerprint "
            "that validate prints for an unmapped line",
        )
    if len(hits) > 1:
        return CoverageProblem(
            None,
            f"{shown} matches {len(hits)} paragraphs of {seed} (lines {_lines(hits)})",
            "an entry maps one paragraph: add line: to say which, one entry per line",
        )
    return hits[0]


def _lines(numbers: list[int]) -> str:
    return ", ".join(map(str, numbers))


def slugify(text: str) -> str:
    """Lowercase ASCII words joined by hyphens: 'Attacco Diretto' -> 'attacco-diretto'."""
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    return re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")


def term_anchor(term: str) -> str:
    return f"glossario-{slugify(term)}"
