"""The rules reference's text pieces: paragraphs, their numbers, cross-references and terms."""

from __future__ import annotations

from pipeline.database.catalog import SectionInfo, TermInfo
from pipeline.publish.site.rules import (
    TermLinks,
    anchors_of,
    blocks,
    link_references,
    paragraph_letter,
    paragraphs_html,
    tooltip,
)

BODY = """Per giocare bastano tre cose:

- un mazzo;
- un foglio
  per i punti;

Non occorre altro (vedi 2.2).

Un ultimo paragrafo, come dice la regola 2.1 e la sezione 9."""


def test_a_lead_in_and_its_list_are_one_paragraph() -> None:
    parts = blocks(BODY)
    assert len(parts) == 3
    assert parts[0].startswith("Per giocare") and "per i punti;" in parts[0]
    assert parts[1] == "Non occorre altro (vedi 2.2)."


def test_paragraph_letters_go_past_z() -> None:
    assert [paragraph_letter(i) for i in (0, 1, 25, 26, 27)] == ["a", "b", "z", "aa", "ab"]


def test_numbers_name_clauses_and_paragraphs() -> None:
    sections = [
        SectionInfo("2", "materiale-e-campo", "Materiale", 2, ""),
        SectionInfo("2.1", "materiale", "Che cosa serve", 3, BODY),
        SectionInfo("2.2", "campo", "Il campo", 3, "Il campo è diviso in due."),
    ]
    anchors = anchors_of(sections)
    assert anchors["2.1"] == "materiale" and anchors["2.1c"] == "r2.1c"
    assert "2.1d" not in anchors and anchors["2.2a"] == "r2.2a"
    text = link_references(BODY, anchors, "regole.md")
    assert "(vedi [2.2](regole.md#campo))" in text
    assert "regola [2.1](regole.md#materiale)" in text
    assert "sezione 9" in text  # no such section: left as it is
    html = paragraphs_html(sections[1], lambda markdown: markdown)
    assert html.count('class="cartiera-par"') == 3
    assert 'id="r2.1b"' in html and 'data-ancora="r2.1b"' in html


def test_terms_are_linked_once_per_block_with_a_plain_tooltip() -> None:
    stasi = TermInfo(
        "Stasi", "stasi", "Stato", 'Una carta in *Stasi* non "attacca" {mai}.', None, ["Stasi"]
    )
    links = TermLinks.build([stasi], "../glossario.md")
    text = links.link("Stasi e ancora Stasi, ma non [Stasi](x.md) né `Stasi`.")
    assert text.count("../glossario.md#stasi") == 1
    assert "[Stasi](x.md)" in text and "`Stasi`" in text
    assert tooltip(stasi) == "Stasi: Una carta in Stasi non attacca mai."
    assert links.link("Stasi", skip="stasi") == "Stasi"
