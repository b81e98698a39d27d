"""Rule text in the database: clauses, anchors, glossary, rulings, and the seeds' coverage."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from conftest import GAMES, ROOT, edit

from pipeline.sources.formats import SeedMapSource, SeedParagraph
from pipeline.sources.rule_text import check_coverage, fingerprint, parse_rules, seed_paragraphs
from pipeline.sources.yamlfile import read_yaml


def _seedmap(slug: str, root: Path) -> SeedMapSource:
    path = root / "games" / slug / "seedmap.yaml"
    return SeedMapSource.model_validate(read_yaml(path, path.name).data)


@pytest.mark.parametrize("slug", GAMES)
def test_every_seed_paragraph_is_mapped_to_clauses_in_the_database(
    shared_project: Path, seeds: Path, slug: str
) -> None:
    seedmap = _seedmap(slug, shared_project)
    seed = seeds / seedmap.seed
    assert seed.exists(), f"the seed document {seedmap.seed} must be in {seeds}"
    paragraphs = seed_paragraphs(seed)
    with sqlite3.connect(shared_project / "cards.db") as conn:
        anchors = {
            row[0]
            for row in conn.execute(
                "select s.anchor from rulesection s join game g on g.id = s.game_id "
                "where g.slug = ?",
                (slug,),
            )
        }
    assert anchors, "the rules are in the database"
    assert list(check_coverage(seedmap, paragraphs, anchors)) == []
    named = [
        [
            n
            for n, text in paragraphs
            if fingerprint(text) == (entry.fingerprint or fingerprint(entry.text or ""))
            and entry.line in (None, n)
        ]
        for entry in seedmap.paragraphs
    ]
    assert all(len(lines) == 1 for lines in named)
    assert sorted(n for lines in named for n in lines) == [n for n, _ in paragraphs]
    mapped = {a for entry in seedmap.paragraphs for a in entry.clauses}
    assert mapped <= anchors


def test_coverage_check_finds_an_unmapped_paragraph(shared_project: Path, seeds: Path) -> None:
    seedmap = _seedmap("mazzo", shared_project)
    paragraphs = seed_paragraphs(seeds / seedmap.seed)
    anchors = {
        c.anchor
        for c in parse_rules((shared_project / "games/mazzo/rules.md").read_text(encoding="utf-8"))[
            0
        ]
    }
    dropped = seedmap.model_copy(update={"paragraphs": seedmap.paragraphs[1:]})
    problems = list(check_coverage(dropped, paragraphs, anchors))
    assert any("is not mapped to any clause" in p.message for p in problems)


def test_clauses_keep_their_numbers_when_text_is_added_elsewhere(tmp_path: Path) -> None:
    text = (
        "## 1. Uno {#uno}\n\n### 1.1 A {#a}\n\nTesto.\n\n"
        "## 2. Due {#due}\n\n### 2.1 B {#b}\n\nAltro.\n"
    )
    before = {c.anchor: c.number for c in parse_rules(text)[0]}
    longer = text.replace("Testo.\n", "Testo.\n\nUn paragrafo nuovo.\n\n### 1.2 C {#c}\n\nX.\n")
    after = {c.anchor: c.number for c in parse_rules(longer)[0]}
    assert {k: after[k] for k in before} == before


def test_malformed_rules_are_reported(project: Path, cli) -> None:
    rules = project / "games/mazzo/rules.md"
    text = rules.read_text(encoding="utf-8")
    first_clause = next(line for line in text.splitlines() if line.startswith("### "))
    anchor = first_clause.rsplit("{#", 1)[1].rstrip("}")
    rules.write_text(
        text + f"\n### 1.99 Doppione {{#{anchor}}}\n\n#### Titolo libero\n", encoding="utf-8"
    )
    run = cli(project, "validate", "mazzo")
    assert run.exit_code == 1
    assert f"anchor '{anchor}' already used on line" in run.stdout
    assert "clause 1.99 is not in section" in run.stdout
    assert "heading '#### Titolo libero' is not a numbered section or clause" in run.stdout
    assert "games/mazzo/rules.md:" in run.stdout


def test_broken_glossary_link_and_ruling_clause(project: Path, cli) -> None:
    glossary = project / "games/bless/glossary.yaml"
    text = glossary.read_text(encoding="utf-8")
    clause_line = next(line for line in text.splitlines() if line.strip().startswith("clause:"))
    edit(glossary, clause_line, clause_line.split(":")[0] + ": clausola-inesistente")
    rulings = project / "games/blitz/rulings.yaml"
    text = rulings.read_text(encoding="utf-8")
    clauses = next(line for line in text.splitlines() if line.strip().startswith("clauses: ["))
    edit(rulings, clauses, clauses.replace("clauses: [", "clauses: [sparita, "))
    run = cli(project, "validate", "bless", "blitz")
    assert run.exit_code == 1
    assert "links to unknown clause 'clausola-inesistente'" in run.stdout
    assert "names unknown clause 'sparita'" in run.stdout


def test_seedmap_entry_that_matches_nothing(project: Path, seeds: Path, cli) -> None:
    seedmap = project / "games/mazzo/seedmap.yaml"
    text = seedmap.read_text(encoding="utf-8")
    entry = next(line for line in text.splitlines() if line.strip().startswith("- text:"))
    edit(seedmap, entry, entry.split(":")[0] + ': "Non è nel seed"')
    run = cli(project, "validate", "mazzo", "--no-layout")
    assert run.exit_code == 1
    assert "games/mazzo/seedmap.yaml:" in run.stdout
    assert "no paragraph of 003_e385d80ec961e911.txt is 'Non è nel seed'" in run.stdout


def test_seedmap_entry_matching_several_paragraphs_is_an_error(
    project: Path, seeds: Path, cli
) -> None:
    # BLITZ's seed has "x9" on lines 2 to 5: an entry must say which one it maps.
    edit(project / "games/blitz/seedmap.yaml", '- text: "x9"\n    line: 2\n', '- text: "x9"\n')
    run = cli(project, "validate", "blitz", "--no-layout")
    assert run.exit_code == 1
    assert "'x9' matches 4 paragraphs of 001_a280695654dff160.txt (lines 2, 3, 4, 5)" in run.stdout


def test_seedmap_entry_names_a_whole_paragraph_not_its_start(
    shared_project: Path, seeds: Path
) -> None:
    seedmap = _seedmap("blitz", shared_project)
    paragraphs = seed_paragraphs(seeds / seedmap.seed)
    rules = (shared_project / "games/blitz/rules.md").read_text(encoding="utf-8")
    anchors = {c.anchor for c in parse_rules(rules)[0]}
    # "x" is line 21 alone: it no longer covers "x9"; a long paragraph is no text of ours.
    lone = SeedParagraph(text="x", reason="segno isolato")
    long = SeedParagraph(text=paragraphs[-1][1], clauses=["composizione"])
    planted = seedmap.model_copy(update={"paragraphs": [lone, long]})
    problems = [p.message for p in check_coverage(planted, paragraphs, anchors)]
    assert f"{seedmap.seed}:2 is not mapped to any clause: 'x9'" in problems
    assert not any(m.startswith(f"{seedmap.seed}:21 ") for m in problems)
    assert any(m.startswith("text: holds") and "which are not ours" in m for m in problems)


def test_glossary_terms_and_their_uses_are_in_the_database(shared_project: Path) -> None:
    with sqlite3.connect(shared_project / "cards.db") as conn:
        kinds = dict(
            conn.execute(
                "select t.term, t.kind from glossaryterm t join game g on g.id = t.game_id "
                "where g.slug = 'bless'"
            )
        )
        uses = conn.execute(
            "select count(*) from glossaryuse u join glossaryterm t on t.id = u.term_id "
            "join rulesection s on s.id = u.section_id where t.term = 'Stasi'"
        ).fetchone()[0]
        stasi = conn.execute("select title from rulesection where anchor = 'stasi'").fetchone()
    for term, kind in {
        "Occhio": "Icona",
        "Vuoto": "Zona",
        "Stasi": "Stato",
        "Eco": "Preghiera",
        "Rivalità": "Abilità",
        "Blessare": "Azione",
    }.items():
        assert kinds.get(term) == kind, term
    assert uses >= 2
    assert stasi and "Stasi" in stasi[0]


@pytest.mark.parametrize(
    ("slug", "needles"),
    [
        ("blitz", ["collezioni", "due mazzi"]),
        ("mazzo", ["non ce l"]),
        ("bldng", ["quattro forme"]),
        ("bless", ["Eco", "Turni Finali", "limite"]),
    ],
)
def test_required_rulings_exist(shared_project: Path, slug: str, needles: list[str]) -> None:
    with sqlite3.connect(shared_project / "cards.db") as conn:
        texts = [
            " ".join(row).lower()
            for row in conn.execute(
                "select r.question, r.answer from ruling r join game g on g.id = r.game_id "
                "where g.slug = ?",
                (slug,),
            )
        ]
        linked = conn.execute(
            "select count(*) from rulingclause c join ruling r on r.id = c.ruling_id "
            "join game g on g.id = r.game_id where g.slug = ?",
            (slug,),
        ).fetchone()[0]
    for needle in needles:
        assert any(needle.lower() in text for text in texts), needle
    assert linked > 0


def test_seedmap_label_must_be_how_the_paragraph_starts(seeds: Path) -> None:
    seedmap = _seedmap("mazzo", ROOT)
    paragraphs = seed_paragraphs(seeds / seedmap.seed)
    entry = next(e for e in seedmap.paragraphs if e.starts)
    wrong = entry.model_copy(update={"starts": entry.starts.rsplit(" ", 1)[0] + " altro"})
    ok = list(check_coverage(seedmap, paragraphs, set()))
    bad = list(
        check_coverage(
            seedmap.model_copy(
                update={"paragraphs": [wrong if e is entry else e for e in seedmap.paragraphs]}
            ),
            paragraphs,
            set(),
        )
    )
    labels = [p.message for p in bad if p.message.startswith("label ")]
    assert not [p for p in ok if p.message.startswith("label ")]
    assert len(labels) == 1 and "is not how 003_e385d80ec961e911.txt:" in labels[0]
