"""The rules as a hyperlinked reference: numbered paragraphs, linked cross-references and
glossary terms with their definition on hover.

A clause "4.1" holds paragraphs "4.1a", "4.1b", … in the order of its text; each has the
anchor "r4.1a" (and every section and clause "r4", "r4.1"), so a paragraph can be cited and
linked, and a number typed in the search box finds its place without a lookup table.
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pipeline.database.catalog import SectionInfo, TermInfo
from pipeline.publish.markup import escape_html

# Links, code spans and raw HTML are left alone when terms and references are linked.
_PROTECTED = re.compile(r"(\[[^\]]*\]\([^)]*\)(?:\{[^}]*\})?|`[^`]*`|<[^>]*>)")
_NUMBER = r"\d+(?:\.\d+)*[a-z]?"
# "vedi 4.1", "regola 4.2", "sezione 6", "punti 3.1 e 3.2": the words that cite a rule.
_SEE = re.compile(
    rf"\b([Vv]edi|[Rr]egol[ae]|[Ss]ezion[ei]|[Pp]unt[oi])(\s+)"
    rf"({_NUMBER}(?:(?:,\s*|\s+e\s+){_NUMBER})*)"
)
_ONE = re.compile(_NUMBER)
_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+\.)\s")


def number_anchor(number: str) -> str:
    """The anchor of a rule number: "4.1a" -> "r4.1a"."""
    return "r" + number.rstrip(".")


def paragraph_letter(index: int) -> str:
    letters = string.ascii_lowercase
    return letters[index] if index < 26 else letters[index // 26 - 1] + letters[index % 26]


def blocks(body: str) -> list[str]:
    """A clause's text as its paragraphs: a list, or a lead-in ending in ':' with the list
    that follows it, counts as one."""
    raw: list[list[str]] = []
    for line in body.splitlines():
        if not line.strip():
            if raw and raw[-1]:
                raw.append([])
            continue
        if not raw:
            raw.append([])
        raw[-1].append(line)
    parts = ["\n".join(b) for b in raw if b]
    merged: list[str] = []
    for part in parts:
        first = part.splitlines()[0]
        continues = _LIST_ITEM.match(first) or first.startswith(("    ", "\t"))
        if (
            merged
            and continues
            and (
                merged[-1].rstrip().endswith(":")
                or _LIST_ITEM.match(merged[-1].splitlines()[-1])
                or merged[-1].splitlines()[-1].startswith(" ")
            )
        ):
            merged[-1] += "\n\n" + part
        else:
            merged.append(part)
    return merged


@dataclass(frozen=True)
class TermLinks:
    """Every form of every glossary term, linked once per block with its definition as the
    link's title (Material shows it as a tooltip)."""

    pattern: re.Pattern[str] | None
    term_of: dict[str, TermInfo]
    href: str  # path of the glossary page from the page being written

    @classmethod
    def build(cls, terms: Sequence[TermInfo], href: str) -> TermLinks:
        term_of = {form: term for term in terms for form in (term.forms or [term.term])}
        if not term_of:
            return cls(None, {}, href)
        words = sorted(term_of, key=len, reverse=True)  # 'Attacco Diretto' before 'Attacco'
        pattern = re.compile(r"(?<![\w\[#])(" + "|".join(map(re.escape, words)) + r")(?!\w)")
        return cls(pattern, term_of, href)

    def link(self, text: str, skip: str | None = None) -> str:
        """`text` (Markdown, already HTML-escaped) with terms linked; never `skip`."""
        if self.pattern is None:
            return text
        done: set[str] = set() if skip is None else {skip}

        def replace(match: re.Match[str]) -> str:
            term = self.term_of[match.group(0)]
            if term.anchor in done:
                return match.group(0)
            done.add(term.anchor)
            target = f"{self.href}#{term.anchor}"
            return f'[{match.group(0)}]({target}){{: .cartiera-termine title="{tooltip(term)}" }}'

        pattern = self.pattern
        return _outside_protected(text, lambda part: pattern.sub(replace, part))


def tooltip(term: TermInfo) -> str:
    """A term's definition as plain text that fits a title attribute."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", term.definition_md)
    text = re.sub(r"[*_`\"{}<>&\\]", "", " ".join(text.split()))
    if len(text) > 240:
        text = text[:240].rsplit(" ", 1)[0] + "…"
    return f"{term.term}: {text}"


def link_references(text: str, anchors: dict[str, str], href: str) -> str:
    """Every "vedi 4.1" (and "regola 4.2", "sezione 6", "vedi 4.1 e 4.2") as links to the
    rules, where the number exists in this game."""

    def numbers(match: re.Match[str]) -> str:
        def one(found: re.Match[str]) -> str:
            number = found.group(0)
            anchor = anchors.get(number)
            return f"[{number}]({href}#{anchor})" if anchor else number

        return match.group(1) + match.group(2) + _ONE.sub(one, match.group(3))

    return _outside_protected(text, lambda part: _SEE.sub(numbers, part))


def _outside_protected(text: str, change: Callable[[str], str]) -> str:
    parts = _PROTECTED.split(text)
    for index in range(0, len(parts), 2):  # even parts lie outside links, code and tags
        parts[index] = change(parts[index])
    return "".join(parts)


def anchors_of(sections: Sequence[SectionInfo]) -> dict[str, str]:
    """Rule number -> anchor on the rules page: clauses keep their named anchors, paragraphs
    get "r<number>"."""
    result: dict[str, str] = {}
    for section in sections:
        result[section.number] = section.anchor
        for index, _ in enumerate(blocks(section.body_md)):
            number = f"{section.number}{paragraph_letter(index)}"
            result[number] = number_anchor(number)
    return result


def paragraphs_html(section: SectionInfo, text_of: Callable[[str], str]) -> str:
    """A clause's paragraphs, each numbered, with its anchor, a link and a copy-link button.

    `text_of(markdown)` returns the paragraph's Markdown with terms and references linked.
    """
    out = []
    for index, block in enumerate(blocks(section.body_md)):
        number = f"{section.number}{paragraph_letter(index)}"
        anchor = number_anchor(number)
        out.append(
            f'<div class="cartiera-par" id="{anchor}" markdown>\n'
            f'<div class="cartiera-num"><a href="#{anchor}" title="Link al punto {number}">'
            f"{number}</a>"
            f'<button type="button" class="cartiera-copia" data-ancora="{anchor}" '
            f'title="Copia il link al punto {number}" aria-label="Copia il link al punto '
            f'{number}"></button></div>\n'
            f'<div class="cartiera-par-testo" markdown>\n\n{text_of(escape_html(block))}\n\n'
            "</div>\n</div>"
        )
    return "\n\n".join(out)
