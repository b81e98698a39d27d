"""The card query language: parsing a query and resolving its words against a game's vocabulary.

One language for the CLI (`cartiera search`), the Python API (pipeline.search.sql) and the site's
query box (site/assets/query.js, which implements this same grammar). Examples::

    forma:ombra occhio>=5 preghiera:legame
    gioco:samurai-sword t:arma difficolta>=3 -nome:daikyu
    o:"due carte" or (copie>1 is:ricostruito) ordina:-karma
    re  !"Re Luce"  nome~re  maledizione:vince

Names and texts match whole words (`*` ends a word's beginning); `!` asks for a whole name,
`~` for a piece of a name or text. The keys Scryfall users know mean the same here where the
game has the same idea (`t:` kind, `o:` text, `is:`); README, "Searching cards", lists what
differs.

Attribute names and enum values come from each game's declarations (keys and labels, case
and accents folded), so a new game gets the language without code. Nothing here touches the
database: pipeline.search.sql compiles the parsed query to SQL.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

# Folding, shared with the SQL side and the browser (exported in the site's search index), so
# the three agree to the character: accented letters to their base letter, then ASCII lower
# case (SQLite's lower() folds ASCII only).
ACCENTS = {
    **{ch: "a" for ch in "àáâäãÀÁÂÄÃ"},
    **{ch: "e" for ch in "èéêëÈÉÊË"},
    **{ch: "i" for ch in "ìíîïÌÍÎÏ"},
    **{ch: "o" for ch in "òóôöõÒÓÔÖÕ"},
    **{ch: "u" for ch in "ùúûüÙÚÛÜ"},
    "ç": "c",
    "Ç": "c",
    "ñ": "n",
    "Ñ": "n",
}
# In texts, word-joining marks become spaces and other punctuation vanishes.
SPACES = "'’‘-–—/\n\t"
DROPPED = ',.;:!?()[]«»"“”…*'

GENERIC = {
    "nome": "name",
    "name": "name",
    "testo": "text",
    "text": "text",
    "o": "text",  # Scryfall's oracle text
    "oracle": "text",
    "tipo": "kind",
    "kind": "kind",
    "type": "kind",
    "t": "kind",  # Scryfall's type (it meant text in Cartiera 0.1)
    "is": "is",
    "mazzo": "deck",
    "deck": "deck",
    "stato": "status",
    "status": "status",
    "copie": "copies",
    "copies": "copies",
    "numero": "number",
    "number": "number",
    "n": "number",
    "gioco": "game",
    "game": "game",
    "ordina": "sort",
    "sort": "sort",
    "order": "sort",
}
STATUS = {
    "ufficiale": "official",
    "ufficiali": "official",
    "official": "official",
    "ricostruito": "reconstructed",
    "ricostruita": "reconstructed",
    "ricostruiti": "reconstructed",
    "ricostruite": "reconstructed",
    "reconstructed": "reconstructed",
    "incompleto": "incomplete",
    "incompleta": "incomplete",
    "incompleti": "incomplete",
    "incomplete": "incomplete",
}
BOOLEAN = {
    "si": True,
    "yes": True,
    "true": True,
    "1": True,
    "no": False,
    "false": False,
    "0": False,
}

# Limits on what one query may ask, so that any text gives results or one QueryError: a
# recursive parser and the databases' expression trees are bounded by them. The browser's
# parser (site/assets/query.js) reads the same numbers from the search index.
LIMITS = {
    "length": 2000,  # characters in the query
    "word": 200,  # characters in one word, phrase or condition
    "terms": 100,  # conditions in the query
    "depth": 20,  # parentheses and '-' inside one another
    "number": 9,  # digits in a number (the columns hold 32-bit integers)
}


def fold(text: str) -> str:
    """Case and accents folded, exactly as the SQL and the browser fold them."""
    return "".join(ACCENTS.get(ch, ch) for ch in text).translate(_ASCII_LOWER)


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def words_of(text: str) -> str:
    """A text folded for whole-word matching: punctuation gone, single spaces."""
    out = fold(text)
    for ch in SPACES:
        out = out.replace(ch, " ")
    for ch in DROPPED:
        out = out.replace(ch, "")
    return " ".join(out.split())


def name_key(text: str) -> str:
    """How a field or value name is looked up: folded, spaces and dashes as underscores."""
    return re.sub(r"[\s\-]+", "_", fold(text).strip())


class QueryError(ValueError):
    """A query that cannot be read: the column (1-based) and what was expected there."""

    def __init__(self, message: str, column: int, query: str):
        super().__init__(message)
        self.message = message
        self.column = column
        self.query = query

    def caret(self) -> str:
        """The query and a caret under the column, for a terminal: a long query is cut to
        the part around the column, and control characters shown as spaces."""
        start = max(0, self.column - 1 - _CARET_BEFORE)
        shown = self.query[start : self.column - 1 + _CARET_AFTER]
        shown = "".join(ch if ch.isprintable() else " " for ch in shown)
        before = "…" if start else ""
        after = "…" if len(self.query) > self.column - 1 + _CARET_AFTER else ""
        pad = " " * (len(before) + self.column - 1 - start)
        return f"  {before}{shown}{after}\n  {pad}^"

    def one_line(self) -> str:
        return f"query:{self.column}: error: {self.message}"


_CARET_BEFORE, _CARET_AFTER = 50, 20  # characters of a long query shown around the caret


def limit_error(name: str, column: int, text: str) -> QueryError:
    """The error for a query that passes one of LIMITS."""
    title, what = {
        "length": ("query length", "characters"),
        "word": ("word length", "characters in one word or condition"),
        "terms": ("condition count", "conditions"),
        "depth": ("nesting depth", "parentheses and '-' inside one another"),
        "number": ("number size", "digits"),
    }[name]
    return QueryError(f"{title} limit passed: at most {LIMITS[name]} {what}", column, text)


# --- syntax -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Term:
    """`field op value`, or a bare word/phrase (field "")."""

    field: str
    op: str
    value: str
    column: int  # where the term starts
    value_column: int
    phrase: bool = False


@dataclass(frozen=True)
class Not:
    node: Node


@dataclass(frozen=True)
class All:
    nodes: tuple[Node, ...]


@dataclass(frozen=True)
class Any_:
    nodes: tuple[Node, ...]


Node = Term | Not | All | Any_


@dataclass(frozen=True)
class SortKey:
    field: str
    descending: bool
    column: int


@dataclass(frozen=True)
class Query:
    text: str
    where: Node | None
    sort: tuple[SortKey, ...] = ()


_TOKEN = re.compile(
    r"""(?P<space>\s+)
      | (?P<open>\()
      | (?P<close>\))
      | (?P<term>(?P<field>[^\W\d]\w*)(?P<op>>=|<=|!=|>|<|=|~|:)(?P<value>"[^"]*"?|[^\s()"]*))
      | (?P<exact>!(?P<name>"[^"]*"?|[^\s()"]*))
      | (?P<phrase>"[^"]*"?)
      | (?P<neg>-(?=[^\s)]))
      | (?P<word>[^\s()"]+)
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class _Token:
    kind: str  # open, close, neg, or, and, term, end
    column: int
    term: Term | None = None


def _tokens(text: str) -> Iterator[_Token]:
    if len(text) > LIMITS["length"]:
        raise limit_error("length", LIMITS["length"] + 1, text)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:  # a lone surrogate, from bytes that are not UTF-8
        raise QueryError("this character is not text (UTF-8)", exc.start + 1, text) from None
    pos = terms = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        assert m is not None  # the last alternative matches any non-space run
        col = pos + 1
        pos = m.end()
        kind = m.lastgroup
        if kind == "space":
            continue
        if m.end() - m.start() > LIMITS["word"]:
            raise limit_error("word", col, text)
        if kind in ("term", "exact", "phrase", "word"):
            terms += 1
            if terms > LIMITS["terms"]:
                raise limit_error("terms", col, text)
        if kind in ("open", "close", "neg"):
            yield _Token(kind, col)
        elif kind == "term":
            raw = m.group("value")
            vcol = m.start("value") + 1
            if raw.startswith('"'):
                if len(raw) < 2 or not raw.endswith('"'):
                    raise QueryError("this quotation is never closed", vcol, text)
                raw, phrase = raw[1:-1], True
            else:
                phrase = False
            if not raw.strip():
                raise QueryError(
                    f"expected a value after '{m.group('field')}{m.group('op')}'", vcol, text
                )
            yield _Token("term", col, Term(m.group("field"), m.group("op"), raw, col, vcol, phrase))
        elif kind == "exact":
            raw, phrase = m.group("name"), m.group("name").startswith('"')
            if phrase:
                if len(raw) < 2 or not raw.endswith('"'):
                    raise QueryError("this quotation is never closed", col + 1, text)
                raw = raw[1:-1]
            if not raw.strip():
                raise QueryError("expected a card's name after '!'", col + 1, text)
            yield _Token("term", col, Term("", "!", raw, col, col + 1, phrase))
        elif kind == "phrase":
            raw = m.group("phrase")
            if len(raw) < 2 or not raw.endswith('"'):
                raise QueryError("this quotation is never closed", col, text)
            if raw[1:-1].strip():
                yield _Token("term", col, Term("", ":", raw[1:-1], col, col + 1, True))
        else:
            word = m.group("word")
            lowered = word.lower()
            if lowered == "or":
                yield _Token("or", col)
            elif lowered == "and":
                yield _Token("and", col)
            else:
                yield _Token("term", col, Term("", ":", word, col, col))
    yield _Token("end", len(text) + 1)


class _Parser:
    """Recursive descent: or < and (juxtaposition) < negation < parentheses."""

    def __init__(self, text: str):
        self.text = text
        self.tokens = list(_tokens(text))
        self.i = 0
        self.depth = 0  # parentheses and negations open around the current token
        self.sort: list[SortKey] = []

    def peek(self) -> _Token:
        return self.tokens[self.i]

    def take(self) -> _Token:
        token = self.tokens[self.i]
        self.i += 1
        return token

    def error(self, message: str, token: _Token) -> QueryError:
        return QueryError(message, token.column, self.text)

    def parse(self) -> Query:
        where = None if self.peek().kind == "end" else self.disjunction(top=True)
        end = self.peek()
        if end.kind == "close":
            raise self.error("this parenthesis closes nothing", end)
        return Query(self.text, where, tuple(self.sort))

    def disjunction(self, top: bool = False) -> Node | None:
        parts = [self.conjunction(top)]
        while self.peek().kind == "or":
            token = self.take()
            if self.peek().kind in ("end", "close", "or"):
                raise self.error("expected a condition after 'or'", self.peek())
            part = self.conjunction(top)
            if parts[-1] is None or part is None:
                raise self.error("'or' needs a condition on each side (not ordina:)", token)
            parts.append(part)
        kept = [p for p in parts if p is not None]
        if not kept:
            return None
        return kept[0] if len(kept) == 1 else Any_(tuple(kept))

    def conjunction(self, top: bool) -> Node | None:
        parts: list[Node] = []
        first = self.peek()
        if first.kind == "or":
            raise self.error("expected a condition before 'or'", first)
        while self.peek().kind not in ("end", "close", "or"):
            if self.peek().kind == "and":
                self.take()
                if self.peek().kind in ("end", "close", "or", "and"):
                    raise self.error("expected a condition after 'and'", self.peek())
                continue
            node = self.unary(top)
            if node is not None:
                parts.append(node)
        if not parts:
            return None
        return parts[0] if len(parts) == 1 else All(tuple(parts))

    def unary(self, top: bool) -> Node | None:
        token = self.take()
        if token.kind not in ("neg", "open"):
            return self.leaf(token, top)
        if self.depth == LIMITS["depth"]:
            raise limit_error("depth", token.column, self.text)
        self.depth += 1
        node = self.negation(token) if token.kind == "neg" else self.group(token)
        self.depth -= 1
        return node

    def negation(self, token: _Token) -> Node:
        if self.peek().kind in ("end", "close", "or", "and"):
            raise self.error("expected a condition after '-'", self.peek())
        inner = self.unary(top=False)
        if inner is None:
            raise self.error("ordina: cannot be negated", token)
        return Not(inner)

    def group(self, token: _Token) -> Node:
        if self.peek().kind == "close":
            raise self.error("expected a condition inside the parentheses", self.peek())
        inner = self.disjunction(top=False)
        close = self.take()
        if close.kind != "close":
            raise self.error("expected ')' to close the parenthesis", close)
        if inner is None:
            raise self.error("expected a condition inside the parentheses", close)
        return inner

    def leaf(self, token: _Token, top: bool) -> Node | None:
        if token.kind == "close":
            raise self.error("this parenthesis closes nothing", token)
        term = token.term
        assert term is not None
        if GENERIC.get(name_key(term.field)) == "sort":
            if not top:
                raise self.error("ordina: belongs at the top level of the query", token)
            value = term.value
            descending = value.startswith("-")
            self.sort.append(SortKey(value.lstrip("-"), descending, term.value_column))
            return None
        return term


def parse(text: str) -> Query:
    """The query's syntax tree; QueryError (with the column) when it cannot be read."""
    return _Parser(text).parse()


# --- vocabulary -------------------------------------------------------------------------


@dataclass(frozen=True)
class Attribute:
    key: str
    label: str
    type: str  # int, enum, str, bool
    values: tuple[str, ...] = ()
    multiple: bool = False

    def value(self, raw: str) -> str | None:
        """The declared enum value that `raw` names (folded), or None."""
        wanted = name_key(raw)
        for v in self.values:
            if name_key(v) == wanted:
                return v
        return None


@dataclass
class Vocabulary:
    """One game's words: its attributes, kinds and decks, found by folded key or label."""

    slug: str
    name: str
    attributes: dict[str, Attribute]  # key -> attribute
    kinds: dict[str, str]  # key -> label
    decks: dict[str, str]  # code -> name
    texts: tuple[str, ...]  # text keys
    text_labels: dict[str, str] = field(default_factory=dict)  # text key -> label
    names: dict[str, str] = field(default_factory=dict)  # folded name -> attribute key
    text_names: dict[str, str] = field(default_factory=dict)  # folded name -> text key

    def __post_init__(self) -> None:
        for key, attr in self.attributes.items():
            self.names.setdefault(name_key(key), key)
            self.names.setdefault(name_key(attr.label), key)
        for key in self.texts:
            self.text_names.setdefault(name_key(key), key)
            self.text_names.setdefault(name_key(self.text_labels.get(key, key)), key)

    def attribute(self, field_name: str) -> Attribute | None:
        key = self.names.get(name_key(field_name))
        return self.attributes[key] if key else None

    def text(self, field_name: str) -> str | None:
        """The key of the text that `field_name` names (by key or label), or None."""
        return self.text_names.get(name_key(field_name))

    def bool_attribute(self, raw: str) -> Attribute | None:
        """The yes/no attribute that `raw` names, for `is:`."""
        attribute = self.attribute(raw)
        return attribute if attribute is not None and attribute.type == "bool" else None

    def kind(self, raw: str) -> str | None:
        return _named(raw, self.kinds)

    def deck(self, raw: str) -> str | None:
        return _named(raw, self.decks)

    def matches_game(self, raw: str) -> bool:
        wanted = name_key(raw).replace("_", "")
        return wanted in (
            name_key(self.slug).replace("_", ""),
            name_key(self.name).replace("_", ""),
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "slug": self.slug,
            "name": self.name,
            "attributes": {
                k: {"label": a.label, "type": a.type, "values": a.values, "multiple": a.multiple}
                for k, a in self.attributes.items()
            },
            "names": self.names,
            "kinds": self.kinds,
            "decks": self.decks,
            "texts": list(self.texts),
            "text_names": self.text_names,
        }


def _named(raw: str, table: Mapping[str, str]) -> str | None:
    wanted = name_key(raw)
    for key, label in table.items():
        if wanted in (name_key(key), name_key(label)):
            return key
    return None


def closest(word: str, candidates: Iterable[str]) -> str | None:
    """The candidate nearest to `word`, for 'did you mean …?'."""
    options = sorted(set(candidates))
    found = difflib.get_close_matches(name_key(word), [name_key(c) for c in options], 1, 0.6)
    if not found:
        return None
    return next(c for c in options if name_key(c) == found[0])


def field_names(vocabularies: Iterable[Vocabulary]) -> list[str]:
    """Every field a query may name over these games: generic ones and declared attributes."""
    names = {k for k in GENERIC if len(k) > 1}
    for vocab in vocabularies:
        names.update(vocab.attributes)
        names.update(name_key(a.label) for a in vocab.attributes.values())
        names.update(vocab.text_names)
    return sorted(names)
