"""No active content from the sources: an allow-list for the HTML that Markdown makes.

Rules, rulings, glossary and card texts are written by whoever sends a change, and
Markdown lets them write links (`[x](javascript:…)`), pictures (`![x](file:///…)`) and,
through attribute lists, any attribute (`{: onclick="…" style="…" }`). Every page and
document made from them passes through `sanitize_html`, which keeps only the tags and
attributes that Markdown and the project's own templates write, and URLs that are
relative or http(s)/mailto: no script, no event attribute, no `javascript:`, `data:` or
`file:` URL, no style beyond a table cell's alignment. Attribute lists in the sources
themselves are cut down to classes and ids first (`source_attributes`), so a source
cannot borrow the attributes the templates need (titles, data-…, hidden).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import nh3

# What Python-Markdown (tables, lists, admonitions, attr_list, md_in_html, toc) writes.
_MARKDOWN_TAGS = {
    "a", "abbr", "blockquote", "br", "code", "dd", "del", "details", "div", "dl", "dt",
    "em", "figcaption", "figure", "h1", "h2", "h3", "h4", "h5", "h6", "hr", "img", "ins",
    "kbd", "li", "mark", "ol", "p", "pre", "s", "small", "span", "strong", "sub",
    "summary", "sup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
}  # fmt: skip
# What the site's templates add: the card table's filter form (templates/site/table.md.j2).
_TEMPLATE_TAGS = {"button", "fieldset", "form", "input", "label", "legend", "option", "output",
                  "select"}  # fmt: skip
TAGS = _MARKDOWN_TAGS | _TEMPLATE_TAGS
ATTRIBUTES = {
    "*": {"class", "id", "title", "lang", "hidden", "role", "tabindex", "aria-label",
          "aria-live", "aria-hidden"},
    "a": {"href"},
    "img": {"src", "alt", "width", "height", "loading"},
    "th": {"scope", "colspan", "rowspan", "align", "style"},
    "td": {"colspan", "rowspan", "align", "style"},
    "ol": {"start"},
    "details": {"open"},
    "button": {"type"},
    "input": {"type", "min", "max", "step", "inputmode", "value", "placeholder"},
    "option": {"value", "selected"},
    "label": {"for"},
}  # fmt: skip
URL_SCHEMES = {"http", "https", "mailto"}

# An attribute list as attr_list reads one: `{: … }` or `{ … }` (quoted values may hold
# braces), and one of its items.
_ATTR_LIST = re.compile(r"(?<!\\)\{(:?)[ ]*((?:\"[^\"\n]*\"|'[^'\n]*'|[^}\n\"'])+?)[ ]*\}")
_ITEM = re.compile(r"[^\s=]+(?:=(?:\"[^\"]*\"|'[^']*'|\S+))?")
_CLASS_OR_ID = re.compile(r"[.#][\w-]+")


def sanitize_html(html: str) -> str:
    """`html` with only the allowed tags, attributes and URL schemes; what is not allowed
    is dropped (a script with its content, a tag keeping its text)."""
    return nh3.clean(
        html,
        tags=TAGS,
        attributes=ATTRIBUTES,
        generic_attribute_prefixes={"data-"},
        url_schemes=URL_SCHEMES,
        filter_style_properties={"text-align"},  # the tables extension aligns cells so
        attribute_filter=_local_pictures,
        link_rel=None,
    )


def _local_pictures(tag: str, attribute: str, value: str) -> str | None:
    """A picture shows a file of the site or of the document, never one from elsewhere:
    opening a page, or rendering a PDF, fetches nothing a source chose."""
    if tag == "img" and attribute == "src" and (":" in value.split("/")[0] or "//" in value):
        return None
    return value


def source_attributes(text: str) -> str:
    """Markdown from the sources with every attribute list cut down to its classes and
    ids (`{: #a .b onclick="…" }` -> `{: #a .b }`). Braces that hold no attribute (a set
    written in a rule, "{1, 2}") are left as they are."""

    def keep(match: re.Match[str]) -> str:
        items = _attribute_items(match)
        if items is None:
            return match[0]
        kept = [i for i in items if _CLASS_OR_ID.fullmatch(i)]
        return "{: " + " ".join(kept) + " }" if kept else ""

    return _ATTR_LIST.sub(keep, text)


def _attribute_items(match: re.Match[str]) -> list[str] | None:
    """The items of an attribute list, or None when the braces are not one."""
    items = _ITEM.findall(match[2])
    if match[1] or any("=" in i or _CLASS_OR_ID.fullmatch(i) for i in items):
        return items
    return None


# A Markdown link or picture and its target, written inline: [text](url) or ![alt](<url>).
_MD_TARGET = re.compile(r"(!?)\[[^\]\n]*\]\(\s*<?([^)\s>]*)")
_SCHEME = re.compile(r"([a-zA-Z][a-zA-Z0-9+.-]*):")


def unsafe_markdown(text: str) -> list[tuple[int, int, str]]:
    """(line, column, what) for each thing in source Markdown that the outputs drop: a
    link whose scheme is not http(s)/mailto, a picture (a path outside the project is
    never fetched; the site and the rulebook do not carry the game's own files either),
    an attribute list that sets more than classes and ids."""
    found: list[tuple[int, int, str]] = []
    if "](" not in text and "{" not in text:
        return found
    for number, line in enumerate(text.splitlines(), start=1):
        if "](" not in line and "{" not in line:  # neither a link's target nor an attr list
            continue
        for match in _MD_TARGET.finditer(line):
            what = _unsafe_target(match[2], picture=bool(match[1]))
            if what:
                found.append((number, match.start() + 1, what))
        for match in _ATTR_LIST.finditer(line):
            if any(not _CLASS_OR_ID.fullmatch(i) for i in _attribute_items(match) or []):
                what = f"attribute list '{match[0][:60]}' sets more than classes and ids"
                found.append((number, match.start() + 1, what + " (the rest is dropped)"))
    return found


def _unsafe_target(target: str, picture: bool) -> str | None:
    scheme = _SCHEME.match(target)
    if picture:  # neither the site nor the rulebook carries a file of the game's folder
        return f"picture '{target[:60]}' is not shown: the outputs carry no pictures of a game"
    if scheme and scheme[1].lower() not in URL_SCHEMES:
        return f"link to '{target[:60]}': only http, https and mailto links are kept"
    return None


# What Markdown (with attr_list) reads as markup inside a line of text.
_MARKUP_CHARS = re.compile(r"([\\`*_{}\[\]()#+!|<>.-])")
_MARKUP_IN_NAME = re.compile(r"[\\`*_{}\[\]|<>]")


def literal_names(markdown_text: str, names: Iterable[str]) -> str:
    """Markdown made by our own code (a narration, with its **bold**) in which the given
    card names, written by designers, read as plain text: a name with `*`, `{…}` or `[…]`
    is neither emphasis, an attribute list nor a link. Names without such characters are
    left as they are."""
    marked = sorted({n for n in names if _MARKUP_IN_NAME.search(n)}, key=len, reverse=True)
    for name in marked:
        markdown_text = markdown_text.replace(name, _MARKUP_CHARS.sub(r"\\\1", name))
    return markdown_text
