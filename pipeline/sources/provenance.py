"""The copy check: every sentence of a game's text must be ours, not its seed's.

A sentence is flagged when it shares a run of 8 or more consecutive words with the seed,
compared after folding case, accents and punctuation. Game terms (glossary forms, card
names) and quotations marked as such («…», “…”, "…") may be shared: their words neither
count toward the 8 nor break a run, so a copied clause with a term in the middle is still
caught. Quoting the seed is how a ruling cites it; naming a card is not copying.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pipeline.common.problems import Problem, SourceError
from pipeline.common.project import Project

from .formats import TermSource
from .load import LoadedGame
from .rule_text import WORD, fold, term_pattern, words
from .yamlfile import YamlDoc, read_yaml

MIN_WORDS = 8
QUOTED = re.compile(r"«[^»]*»|“[^”]*”|\"[^\"\n]*\n?[^\"\n]*\"")
# Markdown that is not text: heading anchors and link targets.
MARKUP = re.compile(r"\{#[^}]*\}|\]\([^)]*\)")


@dataclass(frozen=True)
class Token:
    word: str
    line: int
    counts: bool  # False for a word of a game term or of a quotation


@dataclass(frozen=True)
class Passage:
    """One stretch of our text to check: a rules.md file or one YAML text value."""

    file: str
    line: int
    text: str
    card: str | None = None
    source: str | None = None  # the value as written in the file, from `line`, if known


@dataclass(frozen=True)
class Hit:
    file: str
    line: int
    words: tuple[str, ...]
    seed_line: int
    card: str | None = None


class Seed:
    """A seed document as a word stream, indexed for finding shared runs."""

    def __init__(self, path: Path) -> None:
        self.name = path.name
        self.words: list[str] = []
        self.lines: list[int] = []
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            found = words(line)
            self.words += found
            self.lines += [number] * len(found)
        self.where: dict[str, list[int]] = {}
        for position, word in enumerate(self.words):
            self.where.setdefault(word, []).append(position)
        # Every run of MIN_WORDS words: a copy has at least that many counting words in a
        # row, so a text that shares none of these with the seed holds no copy (most texts).
        self.shingles = set(_windows(self.words))

    def may_share(self, words: Sequence[str]) -> bool:
        """Whether `words` share a run of MIN_WORDS words with the seed (terms included)."""
        return not self.shingles.isdisjoint(_windows(words))

    def shared_runs(self, tokens: Sequence[Token]) -> Iterator[tuple[int, int, int]]:
        """Maximal runs (start, end, seed start) of `tokens` that occur in the seed as is,
        MIN_WORDS words or longer (a shorter one cannot hold MIN_WORDS counting words)."""
        previous: dict[int, int] = {}  # seed position -> length of the run ending there
        for i, token in enumerate(tokens):
            current = {p: previous.get(p - 1, 0) + 1 for p in self.where.get(token.word, ())}
            for p, length in previous.items():
                if p + 1 not in current and length >= MIN_WORDS:
                    yield i - length, i, p - length + 1
            previous = current
        for p, length in previous.items():
            if length >= MIN_WORDS:
                yield len(tokens) - length, len(tokens), p - length + 1


def _windows(words: Sequence[str]) -> Iterator[tuple[str, ...]]:
    return (tuple(words[i : i + MIN_WORDS]) for i in range(len(words) - MIN_WORDS + 1))


@functools.lru_cache(maxsize=65536)
def _folded(word: str) -> tuple[str, ...]:
    """A word as written, folded into the words it counts as (most often itself)."""
    return tuple(WORD.findall(fold(word)))


def tokens(text: str, first_line: int, protected: Sequence[re.Pattern[str]]) -> list[Token]:
    """The words of `text` with their line, each marked whether it counts toward a copy."""
    text = _unmarked(text)
    free = [True] * len(text)
    for pattern in (QUOTED, *protected):
        for match in pattern.finditer(text):
            free[match.start() : match.end()] = [False] * (match.end() - match.start())
    found = []
    line, counted = first_line, 0  # the line of position `counted`
    for match in WORD.finditer(text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        for word in _folded(match.group()):
            found.append(Token(word, line, free[counted]))
    return found


def plain_words(text: str) -> list[str]:
    """The words `tokens` finds in `text`, without their lines and marks (quicker)."""
    return [word for match in WORD.findall(_unmarked(text)) for word in _folded(match)]


def _unmarked(text: str) -> str:
    """`text` with its Markdown markup blanked out, every character kept in place."""
    return MARKUP.sub(lambda m: " " * len(m.group()), text)


def find_copies(
    passages: Iterable[Passage], seed: Seed, protected: Sequence[re.Pattern[str]]
) -> Iterator[Hit]:
    """Every run of MIN_WORDS or more counting words that a passage shares with the seed."""
    for passage in passages:
        if not seed.may_share(plain_words(passage.text)):
            continue
        found = _located(tokens(passage.text, passage.line, protected), passage)
        runs = [
            run
            for run in seed.shared_runs(found)
            if sum(t.counts for t in found[run[0] : run[1]]) >= MIN_WORDS
        ]
        reached = -1  # a run inside one already reported is the same copy
        for start, end, seed_start in sorted(runs, key=lambda r: (r[0], -r[1])):
            if end <= reached:
                continue
            reached = end
            yield Hit(
                passage.file,
                found[start].line,
                tuple(t.word for t in found[start:end]),
                seed.lines[seed_start],
                passage.card,
            )


def protected_patterns(
    terms: Iterable[TermSource], card_names: Iterable[str]
) -> list[re.Pattern[str]]:
    """Glossary forms (case-sensitive, as the rule text writes them) and card names."""
    patterns = [term_pattern(term) for term in terms]
    names = sorted({n for n in card_names if n.strip()}, key=len, reverse=True)
    if names:
        patterns.append(re.compile(r"(?<!\w)(" + "|".join(map(re.escape, names)) + r")(?!\w)"))
    return patterns


def rules_passage(path: Path, shown: str) -> list[Passage]:
    """rules.md as one passage, so runs that cross a wrapped line are found."""
    return [Passage(shown, 1, path.read_text(encoding="utf-8"))] if path.exists() else []


def _located(found: list[Token], passage: Passage) -> list[Token]:
    """Give each word the line it is written on, when the value's source has the same words
    (a folded block scalar spreads one value over many lines)."""
    if passage.source is None:
        return found
    written = tokens(passage.source, passage.line, ())
    if [t.word for t in written] != [t.word for t in found]:
        return found
    return [Token(t.word, w.line, t.counts) for t, w in zip(found, written, strict=True)]


def yaml_passages(doc: YamlDoc, items: str | None, fields: Sequence[str]) -> Iterator[Passage]:
    """The text values `fields` of each entry of the list `items` (or of the document itself
    when `items` is None), located at their line."""
    if items is None:
        entries = [doc.data]
    else:
        found = doc.data.get(items) if isinstance(doc.data, dict) else None
        entries = found if isinstance(found, list) else []
    lines = doc.path.read_text(encoding="utf-8").splitlines()
    for index, entry in enumerate(entries):
        if not isinstance(entry, dict):
            continue
        prefix: tuple[str | int, ...] = () if items is None else (items, index)
        card = entry.get("id") if items == "cards" else None
        for path, value in _texts(entry, fields):
            line, column = doc.locate((*prefix, *path))
            line = line or 1
            yield Passage(doc.display, line, value, card, _source(lines, line, column or 1))


def _source(lines: list[str], line: int, column: int) -> str:
    """The text of the value whose key is at `line`/`column`: the rest of the key's line
    and every following line indented deeper than the key."""
    first = lines[line - 1][column - 1 :].split(":", 1)[-1] if line <= len(lines) else ""
    rest = []
    for text in lines[line:]:
        if text.strip() and len(text) - len(text.lstrip()) < column:
            break
        rest.append(text)
    return "\n".join([first, *rest])


def _texts(entry: dict[str, Any], fields: Sequence[str]) -> Iterator[tuple[tuple[str, ...], str]]:
    for name in fields:
        value = entry.get(name)
        if isinstance(value, str):
            yield (name,), value
        elif isinstance(value, dict):
            for key, text in value.items():
                if isinstance(text, str):
                    yield (name, key), text


def as_problem(hit: Hit, seed: Seed, game: str) -> Problem:
    """One validate line per copy: where it is, which seed line, and the shared words."""
    return Problem(
        "error",
        f"{len(hit.words)} consecutive words are the seed's ({seed.name}:{hit.seed_line}): "
        f"'{' '.join(hit.words)}'",
        file=hit.file,
        line=hit.line,
        game=game,
        card=hit.card,
        hint="rewrite the sentence in our own words, or quote it as such with «…»",
    )


# What each source file holds of our text: (list key, text fields of its entries).
YAML_TEXTS = {
    "glossary.yaml": ("terms", ("definition",)),
    "rulings.yaml": ("rulings", ("question", "answer")),
    "cards.yaml": ("cards", ("text", "note")),
    "seedmap.yaml": ("paragraphs", ("starts", "reason")),
}  # and the title and description of each worked example in examples/


def game_passages(project: Project, game: LoadedGame) -> list[Passage]:
    """Every text of a game that is ours: rules, definitions, rulings, card texts, examples."""
    path = project.games_dir / game.slug / "rules.md"
    passages = rules_passage(path, project.rel(path))
    for name, (items, fields) in YAML_TEXTS.items():
        if name in game.docs:
            passages += yaml_passages(game.docs[name], items, fields)
    for example in sorted((project.games_dir / game.slug / "examples").glob("*.yaml")):
        try:
            doc = read_yaml(example, project.rel(example), game.slug, project.yaml_cache)
        except SourceError:
            continue  # `cartiera example` and db build report a broken example
        passages += yaml_passages(doc, None, ("title", "description"))
    return passages


def check_game(project: Project, game: LoadedGame, seeds: Path) -> list[Problem]:
    """The copy check of one game against the seed its seedmap.yaml names."""
    doc = game.docs.get("seedmap.yaml")
    name = doc.data.get("seed") if doc is not None and isinstance(doc.data, dict) else None
    if not isinstance(name, str) or not (seeds / name).is_file():
        return []  # the seed map check already says that the seed is missing
    seed = Seed(seeds / name)
    protected = protected_patterns(game.terms, (card.name for card in game.cards))
    return [
        as_problem(hit, seed, game.slug)
        for hit in find_copies(game_passages(project, game), seed, protected)
    ]
