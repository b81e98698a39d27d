"""`cartiera rulebook`: a printable, accessible rulebook PDF per game, from cards.db."""

from __future__ import annotations

import html
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pikepdf
from markupsafe import Markup

from pipeline.common.output import FIXED_DATE, atomic_write
from pipeline.common.project import Project
from pipeline.common.words import decimal
from pipeline.database.catalog import (
    AttributeInfo,
    CardInfo,
    DeckInfo,
    GameInfo,
    TermInfo,
    read_game,
)
from pipeline.database.connection import open_project_db
from pipeline.publish.render.cache import cached_pdf
from pipeline.publish.render.imposition import Imposer
from pipeline.publish.render.layout import SheetLayout
from pipeline.publish.render.paper import (
    BLEED_MM,
    CARD_SIZES,
    PAPERS,
    PRINTABLE_MM,
    PT_PER_MM,
    Size,
)

from .markup import TermLinker, html_ruling_link, link_rulings, md_to_html
from .templating import environment

Paper = Literal["a5", "a4"]
STATUS_LABELS = {
    "official": "ufficiali",
    "reconstructed": "ricostruiti",
    "incomplete": "incompleti",
}
SOURCE_LABELS = {
    "seed": "regolamento",
    "publisher": "editore",
    "interpretation": "interpretazione",
}


@dataclass(frozen=True)
class Ref:
    anchor: str
    number: str


def rulebook_html(game: GameInfo, templates: Path, paper: Paper = "a5") -> str:
    """The rulebook as one HTML document (WeasyPrint renders it)."""
    css = (templates / "rulebook" / "rulebook.css").read_text(encoding="utf-8")
    if paper == "a4":
        css += "\n@page { size: A4; }\n"
    linker = TermLinker.build(game.terms, lambda t: f"#{t.anchor}")
    refs = clause_refs(game)
    questions = {r.code: r.question for r in game.rulings}

    def plain(text: str | None) -> Markup:
        """Plain text (answers, notes) with the rulings it cites by id as their question."""
        return Markup(link_rulings(text or "", questions, html_ruling_link, html.escape))

    sections = [
        {
            "number": s.number,
            "anchor": s.anchor,
            "title": s.title,
            "level": s.level,
            "html": md_to_html(s.body_md, linker, questions) if s.body_md.strip() else Markup(""),
        }
        for s in game.sections
    ]
    terms = []
    for term in game.terms:
        anchors = term_anchors(term, 6)
        terms.append(
            {
                "term": term.term,
                "anchor": term.anchor,
                "kind": term.kind,
                "html": md_to_html(term.definition_md, rulings=questions),
                "refs": refs(anchors),
            }
        )
    trim = CARD_SIZES[game.card_size]
    # the sheets `cartiera deck` lays out on A4: the orientation that holds more cards
    a4 = PAPERS["a4"]
    per_sheet = SheetLayout.best_fit(a4, trim, BLEED_MM, 0.0, PRINTABLE_MM["a4"]).per_sheet
    total = game.decks[0].total
    print_info = {
        "per_sheet": per_sheet,
        "total": total,
        "sheets": math.ceil(total / per_sheet),
        "card_size": f"{decimal(trim.width)} × {decimal(trim.height)} mm",
    }
    back_matter = [
        {"anchor": "glossario", "title": "Glossario"},
        {"anchor": "chiarimenti", "title": "Chiarimenti"},
        {"anchor": "componenti", "title": "Componenti e composizione"},
        {"anchor": "elenco-carte", "title": "Elenco delle carte"},
        {"anchor": "stampa", "title": "Stampare il mazzo a casa"},
    ]
    env = environment(templates)
    env.filters["plain"] = plain
    return env.get_template("rulebook/rulebook.html.j2").render(
        game=game,
        sections=sections,
        terms=terms,
        rulings=ruling_views(game),
        decks=[deck_view(game, deck) for deck in game.decks],
        paper=paper,
        css=Markup(css),
        date=FIXED_DATE,
        status_labels=STATUS_LABELS,
        source_labels=SOURCE_LABELS,
        back_matter=back_matter,
        card_columns=game.attributes,
        format_value=format_value,
        print=print_info,
        examples=_examples_by_clause(game, linker),
    )


def deck_view(game: GameInfo, deck: DeckInfo) -> dict[str, Any]:
    """A deck with its composition per kind: distinct cards, copies, expected copies."""
    distinct: Counter[str] = Counter(c.kind for c in deck.cards)
    copies: Counter[str] = Counter()
    for card in deck.cards:
        copies[card.kind] += card.copies
    kinds = [k for k in game.kinds if k in distinct or k in deck.expected_kinds]
    rows = [
        {
            "label": game.kinds[k],
            "distinct": distinct.get(k, 0),
            "copies": copies.get(k, 0),
            "expected": deck.expected_kinds.get(k),
        }
        for k in kinds
    ]
    return {
        "name": deck.name,
        "status": deck.status,
        "note": deck.note,
        "cards": deck.cards,
        "total": deck.total,
        "expected_total": deck.expected_total,
        "expected_kinds": deck.expected_kinds,
        "rows": rows,
    }


def ruling_views(game: GameInfo) -> list[dict[str, Any]]:
    """Rulings with their clauses as numbered references and their cards as cards."""
    refs = clause_refs(game)
    cards = {card.code: card for card in game.cards}
    return [
        {
            "code": r.code,
            "question": r.question,
            "answer": r.answer,
            "source": r.source,
            "clause_refs": refs(r.clauses),
            "cards": [cards[c] for c in r.cards],
        }
        for r in game.rulings
    ]


def clause_refs(game: GameInfo) -> Callable[[list[str]], list[Ref]]:
    """Turns clause anchors into (anchor, number) references, dropping unknown ones."""
    numbers = {s.anchor: s.number for s in game.sections}
    return lambda anchors: [Ref(a, numbers[a]) for a in anchors if a in numbers]


def term_anchors(term: TermInfo, limit: int) -> list[str]:
    """Where to read about a term: its defining clause first, then where it is used."""
    anchors = [term.clause] if term.clause else []
    return anchors + [a for a in term.used_in if a not in anchors][:limit]


def _examples_by_clause(game: GameInfo, linker: TermLinker) -> dict[str, list[dict[str, Any]]]:
    """Worked examples, shown after the first clause each illustrates."""
    placed: dict[str, list[dict[str, Any]]] = {}
    anchors = {s.anchor for s in game.sections}
    for example in game.examples:
        where = next((a for a in example.clauses if a in anchors), None)
        if where is not None:
            placed.setdefault(where, []).append(
                {
                    "code": example.code,
                    "title": example.title,
                    "html": md_to_html(example.narration_md, linker),
                }
            )
    return placed


def format_value(card: CardInfo, attr: AttributeInfo) -> str:
    value = card.attributes.get(attr.key)
    if value is None:
        return "—"
    if isinstance(value, bool):
        return "sì" if value else "no"
    if isinstance(value, list):
        return ", ".join(value)
    return str(value)


def build_rulebook(
    project: Project, slug: str, paper: Paper = "a5", out: Path | None = None
) -> Path:
    with open_project_db(project) as engine:
        game = read_game(engine, slug)
    html = rulebook_html(game, project.templates_dir, paper)
    target = out or project.build_dir / "rulebooks" / f"{slug}-regolamento-{paper}.pdf"
    base_url = str(project.templates_dir / "rulebook")
    atomic_write(target, cached_pdf(project, html, base_url, variant="pdf/ua-1").read_bytes())
    return target


def booklet_sides(pages: int) -> list[tuple[int | None, int | None]]:
    """The (left, right) page indexes of each side of a saddle-stitched booklet, sheet by
    sheet, front then back: the outer sheet carries the last page and the first, the next
    one in, and so on. The pages are made up to a multiple of four with blanks (None)."""
    total = -(-pages // 4) * 4

    def page(index: int) -> int | None:
        return index if index < pages else None

    sides: list[tuple[int | None, int | None]] = []
    for sheet in range(total // 4):
        sides.append((page(total - 1 - 2 * sheet), page(2 * sheet)))
        sides.append((page(2 * sheet + 1), page(total - 2 - 2 * sheet)))
    return sides


def build_booklet(project: Project, slug: str, a5: Path, out: Path | None = None) -> Path:
    """The A5 rulebook `a5` as a booklet to print at home: two pages to each side of a
    landscape A4 sheet, in the order that, printed on both sides (flipped on the short edge)
    and folded in half, reads from the cover on. Imposed from the A5 PDF's own pages, so the
    text is laid out once, and the two files cannot disagree."""
    target = out or project.build_dir / "rulebooks" / f"{slug}-regolamento-libretto-a4.pdf"
    with pikepdf.open(a5) as source:
        count = len(source.pages)
        width = float(source.pages[0].mediabox[2]) / PT_PER_MM if count else 0.0
        title = str(source.docinfo.get("/Title", slug))
    sheet = Size(PAPERS["a4"].height, PAPERS["a4"].width)  # landscape
    margin = (sheet.width - 2 * width) / 2
    imposer = Imposer(f"{title} (libretto A4)", {})
    for left, right in booklet_sides(count):
        imposer.add_pages_of(
            sheet,
            [
                (a5, number, margin + slot * width)
                for slot, number in enumerate((left, right))
                if number is not None
            ],
        )
    atomic_write(target, imposer.save())
    return target
