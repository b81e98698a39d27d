"""Markdown to HTML for rule text, with glossary terms linked to their definitions."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import markdown
from markupsafe import Markup

from .catalog import TermInfo
from .sanitize import sanitize_html, source_attributes

# Links and code spans are left alone when terms are linked.
_PROTECTED = re.compile(r"(\[[^\]]*\]\([^)]*\)|`[^`]*`)")


@dataclass(frozen=True)
class TermLinker:
    """Finds every form of every term in one pass; links a term's first mention only."""

    pattern: re.Pattern[str] | None
    href_of: dict[str, str]  # word form -> link target

    @classmethod
    def build(cls, terms: Sequence[TermInfo], href: Callable[[TermInfo], str]) -> TermLinker:
        href_of = {form: href(term) for term in terms for form in (term.forms or [term.term])}
        if not href_of:
            return cls(None, {})
        words = sorted(href_of, key=len, reverse=True)  # 'Attacco Diretto' before 'Attacco'
        pattern = re.compile(r"(?<!\w)(" + "|".join(map(re.escape, words)) + r")(?!\w)")
        return cls(pattern, href_of)

    def link(self, text: str) -> str:
        if self.pattern is None:
            return text
        done: set[str] = set()

        def replace(match: re.Match[str]) -> str:
            href = self.href_of[match.group(0)]
            if href in done:
                return match.group(0)
            done.add(href)
            return f"[{match.group(0)}]({href}){{: .term }}"

        parts = _PROTECTED.split(text)
        for index in range(0, len(parts), 2):  # even parts lie outside links and code
            parts[index] = self.pattern.sub(replace, parts[index])
        return "".join(parts)


def escape_html(text: str) -> str:
    """Make '<' and '&' literal, and attribute lists name only classes and ids: rule and
    card text is never raw HTML, nor an event handler or a style."""
    return source_attributes(text.replace("&", "&amp;").replace("<", "&lt;"))


def md_to_html(text: str, linker: TermLinker | None = None) -> Markup:
    source = escape_html(text)
    if linker is not None:
        source = linker.link(source)
    html = markdown.markdown(
        source, extensions=["tables", "sane_lists", "attr_list"], output_format="html"
    )
    return Markup(sanitize_html(html))
