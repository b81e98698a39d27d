"""The copy check: text that shares 8+ consecutive words with its seed is reported, with
file, line and the shared words; game terms and quotations do not count.

The unit tests use a seed of our own; the ones that plant the real seeds' text in a copy of
the project read it from $CARTIERA_SEEDS at run time, so this file holds none of it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from conftest import GAMES, edit

from pipeline.sources.formats import TermSource
from pipeline.sources.provenance import Passage, Seed, find_copies, protected_patterns
from pipeline.sources.rule_text import seed_paragraphs, words

OURS = (
    "Il drago dorme sotto la montagna grigia da mille anni e nessuno osa svegliarlo.\n"
    "Chi lo sveglia perde la Corona d'Ombra e tutto il suo oro.\n"
)


@pytest.fixture
def seed(tmp_path: Path) -> Seed:
    path = tmp_path / "seed.txt"
    path.write_text(OURS, encoding="utf-8")
    return Seed(path)


def _hits(seed: Seed, text: str, terms: list[str] = (), cards: list[str] = ()) -> list:
    protected = protected_patterns(
        [TermSource(term=t, kind="Termine", definition="-") for t in terms], cards
    )
    return list(find_copies([Passage("rules.md", 10, text)], seed, protected))


def test_eight_shared_words_are_a_copy_seven_are_not(seed: Seed) -> None:
    assert _hits(seed, "Si dice che il drago dorme sotto la montagna grigia.") == []
    (hit,) = _hits(seed, "Si dice che IL DRAGO dorme sotto la montagna grigia da secoli.")
    assert hit.words == ("il", "drago", "dorme", "sotto", "la", "montagna", "grigia", "da")
    assert (hit.file, hit.line, hit.seed_line) == ("rules.md", 10, 1)


def test_case_accents_punctuation_and_line_breaks_do_not_hide_a_copy(seed: Seed) -> None:
    text = "Premessa.\nChi lo svéglia — perde la Corona\nd’Ombra, e tutto il suo oro!"
    (hit,) = _hits(seed, text)
    assert hit.line == 11  # where the shared run starts
    assert " ".join(hit.words) == "chi lo sveglia perde la corona d ombra e tutto il suo oro"


def test_a_quotation_does_not_count(seed: Seed) -> None:
    assert (
        _hits(seed, "Il seed dice: «il drago dorme sotto la montagna grigia da mille anni».") == []
    )
    assert (
        _hits(seed, 'Il seed dice: "il drago dorme sotto la montagna grigia da mille anni".') == []
    )


def test_game_terms_and_card_names_do_not_count_but_do_not_break_a_run(seed: Seed) -> None:
    # 10 shared words, of which "Corona d'Ombra" (3 words) is a card name: 7 count.
    run = "Chi lo sveglia perde la Corona d'Ombra e tutto"
    assert _hits(seed, run + " resto.", cards=["Corona d'Ombra"]) == []
    (hit,) = _hits(seed, run + " il tesoro.", cards=["Corona d'Ombra"])
    assert len(hit.words) == 11
    # A glossary form counts only as the rules write it (capitalised), like term links.
    assert _hits(seed, run + " resto.", terms=["Corona"]) != []
    assert _hits(seed, run.lower() + " resto.", cards=["Corona d'Ombra"]) != []


def test_a_copy_that_crosses_lines_is_one_run_reported_once(seed: Seed) -> None:
    hits = _hits(seed, OURS)
    assert [(h.line, len(h.words), h.seed_line) for h in hits] == [(10, 27, 1)]


# The real seeds, planted in a copy of the project.


def _validate(cli, project: Path, game: str) -> tuple[int, list[dict]]:
    run = cli(project, "validate", game, "--no-layout", "--format", "json")
    problems = json.loads(run.stdout)["problems"]
    return run.exit_code, [p for p in problems if "consecutive words" in p["message"]]


def _seed_line(seeds: Path, number: int, name: str = "001_a280695654dff160.txt") -> str:
    return dict(seed_paragraphs(seeds / name))[number]


def _append(path: Path, text: str) -> int:
    """Add a paragraph at the end of rules.md; return its line."""
    old = path.read_text(encoding="utf-8").rstrip("\n")
    path.write_text(f"{old}\n\n{text}\n", encoding="utf-8")
    return old.count("\n") + 3


def test_a_planted_copied_sentence_is_reported_with_file_line_and_words(
    project: Path, seeds: Path, cli
) -> None:
    copied = _seed_line(seeds, 24)  # BLITZ's objective, two sentences of the seed
    line = _append(project / "games/blitz/rules.md", "Nota. " + copied)
    code, hits = _validate(cli, project, "blitz")
    assert code == 1
    assert [(h["file"], h["line"]) for h in hits] == [("games/blitz/rules.md", line)]
    assert f"'{' '.join(words(copied))}'" in hits[0]["message"]
    assert "001_a280695654dff160.txt:24" in hits[0]["message"]


def test_a_copy_in_a_ruling_is_reported_on_its_own_line(project: Path, seeds: Path, cli) -> None:
    rulings = project / "games/blitz/rulings.yaml"
    first = next(
        n
        for n, text in enumerate(rulings.read_text().splitlines(), 1)
        if text.strip() == "answer: >-"
    )
    edit(
        rulings,
        "    answer: >-\n",
        f"    answer: >-\n      Premessa nostra.\n      {_seed_line(seeds, 24)}\n",
    )
    code, hits = _validate(cli, project, "blitz")
    assert code == 1
    assert [(h["file"], h["line"]) for h in hits] == [("games/blitz/rulings.yaml", first + 2)]


def test_a_quoted_copy_and_a_line_of_card_names_are_not_reported(
    project: Path, seeds: Path, cli
) -> None:
    rules = project / "games/blitz/rules.md"
    _append(rules, f"Il regolamento dice: «{_seed_line(seeds, 24)}»")
    names = _seed_line(seeds, 15)  # the four action cards by name, with their copies
    assert len(words(names)) >= 8
    _append(rules, names)
    code, hits = _validate(cli, project, "blitz")
    assert (code, hits) == (0, [])
    # The same words not written as card names are a copy.
    _append(rules, names.lower())
    assert len(_validate(cli, project, "blitz")[1]) == 1


@pytest.mark.parametrize("slug", GAMES)
def test_no_game_shares_eight_words_with_its_seed(
    project: Path, seeds: Path, cli, slug: str
) -> None:
    code, hits = _validate(cli, project, slug)
    assert hits == []
    assert code == 0


def test_a_copy_in_a_worked_example_is_reported(project: Path, seeds: Path, cli) -> None:
    example = project / "games/bless/examples/01-scontro-base.yaml"
    line = example.read_text(encoding="utf-8").splitlines().index("description: >-") + 2
    copied = _seed_line(seeds, 5, "000_8fcc94d4a5842134.txt")
    edit(example, "description: >-\n", f"description: >-\n  {copied}\n")
    code, hits = _validate(cli, project, "bless")
    assert code == 1
    assert [(h["file"], h["line"]) for h in hits] == [
        ("games/bless/examples/01-scontro-base.yaml", line)
    ]


def test_without_the_seeds_nothing_is_compared(project: Path, seeds: Path, cli) -> None:
    _append(project / "games/blitz/rules.md", _seed_line(seeds, 24))
    run = cli(project, "validate", "blitz", "--no-layout", env={"CARTIERA_SEEDS": ""})
    assert run.exit_code == 0
    assert "consecutive words" not in run.stdout
    assert "CARTIERA_SEEDS is not set" in run.stdout
