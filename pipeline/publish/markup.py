"""Markdown to HTML for rule text, with glossary terms linked to their definitions."""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

import markdown
from markupsafe import Markup

from pipeline.common.sanitize import sanitize_html, source_attributes
from pipeline.database.catalog import TermInfo

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


# "chiarimento *vuoto-in-cima*", "chiarimenti *a* e *b*": how sources cite a ruling by id.
_SLUG = r"\*?[a-z0-9]+(?:-[a-z0-9]+)+\*?"
_RULING_REF = re.compile(rf"\b(chiariment[oi]\s+)({_SLUG}(?:(?:,\s*|\s+e\s+){_SLUG})*)")
_ONE_SLUG = re.compile(_SLUG)
# A paragraph that starts "30. …" would become a numbered list (starting at 1).
_LIST_START = re.compile(r"^(\s*\d+)\.(?=\s)", re.MULTILINE)


def link_rulings(
    text: str,
    questions: Mapping[str, str],
    link: Callable[[str, str], str],
    escape: Callable[[str], str] = lambda part: part,
) -> str:
    """Every ruling the text cites by id ("chiarimento *segnalini-onore*") as its
    question, made by `link(code, question)`; the rest of the text goes through `escape`.
    An id that names no ruling of the game is left as written (validate reports it)."""

    def slugs(match: re.Match[str]) -> str:
        code = match.group(0).strip("*")
        question = questions.get(code)
        return escape(match.group(0)) if question is None else link(code, question)

    out, end = [], 0
    for match in _RULING_REF.finditer(text):
        out.append(escape(text[end : match.start()]) + escape(match.group(1)))
        cited = match.group(2)
        pieces, last = [], 0
        for one in _ONE_SLUG.finditer(cited):
            pieces.append(escape(cited[last : one.start()]) + slugs(one))
            last = one.end()
        out.append("".join(pieces) + escape(cited[last:]))
        end = match.end()
    out.append(escape(text[end:]))
    return "".join(out)


def markdown_ruling_link(href: str) -> Callable[[str, str], str]:
    """A cited ruling as a Markdown link to `href#chiarimento-<code>`, reading «question»."""

    def link(code: str, question: str) -> str:
        return f"«[{escape_markdown(escape_html(question))}]({href}#chiarimento-{code})»"

    return link


def html_ruling_link(code: str, question: str) -> str:
    """A cited ruling as an HTML link within the same document (the rulebook)."""
    return f'«<a href="#chiarimento-{code}">{html.escape(question)}</a>»'


def escape_markdown(text: str) -> str:
    """Plain text made literal inside Markdown (no emphasis, code, links or tables)."""
    return re.sub(r"([\\`*_\[\]|])", r"\\\1", text)


def not_a_list(text: str) -> str:
    """Markdown whose lines may start with a number and a dot ("30. Le fonti…") without
    turning into a numbered list."""
    return _LIST_START.sub(r"\1\\.", text)


_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)(?:\{[^}]*\})?")
_EMPHASIS = re.compile(r"(\*\*|__|\*|`)(?=\S)(.+?)(?<=\S)\1")


def terminal_text(text: str) -> str:
    """A line of narration Markdown as a terminal shows it: links as their words,
    no emphasis markers or code quotes ("**Turno 1** di …" -> "Turno 1 di …")."""
    return _EMPHASIS.sub(r"\2", _LINK.sub(r"\1", text))


def escape_html(text: str) -> str:
    """Make '<' and '&' literal, and attribute lists name only classes and ids: rule and
    card text is never raw HTML, nor an event handler or a style."""
    return source_attributes(text.replace("&", "&amp;").replace("<", "&lt;"))


def md_to_html(
    text: str, linker: TermLinker | None = None, rulings: Mapping[str, str] | None = None
) -> Markup:
    """Rule Markdown as HTML; with `rulings` (code -> question), cited rulings read as
    their question and link to it within the document."""
    source = escape_html(text)
    if rulings is not None:
        source = link_rulings(source, rulings, markdown_ruling_link(""))
    if linker is not None:
        source = linker.link(source)
    html = markdown.markdown(
        source, extensions=["tables", "sane_lists", "attr_list"], output_format="html"
    )
    return Markup(sanitize_html(html))
