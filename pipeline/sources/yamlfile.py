"""Reading YAML sources with line numbers, so every problem can point at its line."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import json
import pickle
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import ruamel.yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.resolver import VersionedResolver
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, SingleQuotedScalarString

from pipeline.common.output import atomic_write
from pipeline.common.problems import Problem, SourceError


class YamlDoc:
    """A parsed YAML file: plain data for validation, the tree for locating keys.

    A file read from the disk cache keeps the cache's entry (plain JSON with every key's
    and item's line) and makes the ruamel tree only when a caller asks for it: `locate`
    reads the lines from the entry, so checking a file that has no problem, or a few,
    never builds a tree."""

    def __init__(
        self,
        path: Path,
        display: str,
        tree: Any,
        data: Any,
        text: str = "",
        entry: Any = None,
    ):
        self.path = path
        self.display = display  # path as shown in messages (relative to the project)
        self.data = data  # the content as plain dicts and lists
        self.text = text  # the file's text
        self._tree = tree  # ruamel round-trip nodes, which remember their lines
        self._cached = entry  # or, until the tree is asked for, the cache entry (_to_json)

    @property
    def tree(self) -> Any:
        if self._cached is not None:
            self._tree, self._cached = _from_json(self._cached), None
        return self._tree

    def locate(self, loc: Sequence[str | int]) -> tuple[int | None, int | None]:
        """1-based line and column of the deepest node of `loc` present in the file."""
        if self._cached is not None:
            return _locate_entry(self._cached, loc)
        node = self._tree
        line, col = (1, 1) if node is not None else (None, None)
        for key in loc:
            if isinstance(node, CommentedMap) and key in node:
                found = _position(node.lc.key, key)
            elif isinstance(node, CommentedSeq) and isinstance(key, int) and 0 <= key < len(node):
                found = _position(node.lc.item, key)
            else:
                break
            if found is None:  # a node added in memory (see remember_tree) has no line
                break
            line, col = found[0] + 1, found[1] + 1
            node = node[key]
        return line, col

    def problem(self, loc: Sequence[str | int], message: str, **kw: Any) -> Problem:
        line, col = self.locate(loc)
        kw.setdefault("severity", "error")
        return Problem(message=message, file=self.display, line=line, column=col, **kw)


def _position(lookup: Any, key: Any) -> tuple[int, int] | None:
    """The 0-based line and column ruamel recorded for `key`, or None when it has none."""
    try:
        found = lookup(key)
    except KeyError:
        return None
    return (found[0], found[1]) if found else None


def round_trip_yaml() -> YAML:
    """The one YAML configuration used both to read and to rewrite sources."""
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


# Round-trip trees already parsed by this process, pickled, by source text (at most
# _PARSED_MAX, the oldest dropped first). Only this process writes them, so unpickling
# them runs no one else's code; the cache on disk holds plain data (see _entry).
_PARSED: dict[str, bytes] = {}
_PARSED_MAX = 512


class _Entry(NamedTuple):
    """A disk cache entry read back: its JSON (_to_json) and the plain data it holds."""

    value: Any
    data: Any


def _parse(text: str, cache: Path | None = None) -> tuple[Any, _Entry | None, bool]:
    """The round-trip tree of `text`. Parsing is most of the time it takes to read the
    sources (a `db build` reads every file of every game), and the same
    text is read again and again: by a process that runs several commands (`cartiera
    build` validates then builds, `preview` reads again on every edit), and by every
    new process. So a tree this process parsed is kept pickled in memory (each caller
    gets its own copy, with its lines, comments and quoting, to change and write back),
    and, when a `cache` folder is given, its data and lines are kept on disk as JSON
    (`keep_parsed`) under the digest of the text and of the parser that read it. A tree
    read from disk has its lines but no comments: a caller that writes the file back
    reads it without a cache, and an entry makes its tree only when asked (see YamlDoc).
    Returns the tree, or None and the entry, and whether the text was parsed now."""
    handed = _HANDED.pop(text, None)
    if handed is not None:
        return handed, None, False
    pickled = _PARSED.get(text)
    if pickled is not None:
        return pickle.loads(pickled), None, False
    if cache is not None:
        with contextlib.suppress(
            OSError, ValueError, TypeError, KeyError, IndexError, RecursionError
        ):  # not there yet, cut short, or not a tree this version wrote: parse instead
            value = json.loads((cache / _entry(text)).read_bytes())
            data = _plain_entry(value, [MAX_VALUES + len(text)] * 2, MAX_DEPTH)
            return None, _Entry(value, data), False
    tree = round_trip_yaml().load(io.StringIO(text))
    _remember(text, pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL))
    return tree, None, True


def keep_parsed(cache: Path, text: str, tree: Any) -> None:
    """Write the disk entry of `text`, once its tree passed the limits (plain() counted
    its values, so aliases cannot make the entry huge)."""
    entry = cache / _entry(text)
    try:
        data = json.dumps(_to_json(tree), ensure_ascii=False, separators=(",", ":"))
    except _NotPlain:
        return  # a date or a tagged value: this file is parsed every time
    with contextlib.suppress(OSError):  # a cache that cannot be written only costs time
        atomic_write(entry, data.encode("utf-8"))


class _NotPlain(TypeError):
    """A value JSON cannot hold as it is."""


def _to_json(node: Any) -> Any:
    """A tree as JSON: maps as {"m": [[key, lines, value], …]}, lists as {"s": [[lines,
    item], …]}, where lines are ruamel's [line, column, …] of the key or item (None when
    it has none), and scalars as plain() reads them."""
    if isinstance(node, CommentedMap):
        return {"m": [[_scalar(k), _lines(node, k), _to_json(v)] for k, v in node.items()]}
    if isinstance(node, CommentedSeq):
        return {"s": [[_lines(node, i), _to_json(v)] for i, v in enumerate(node)]}
    return _scalar(node)


def _lines(node: CommentedMap | CommentedSeq, key: Any) -> list[int] | None:
    data = node.lc.data
    return list(data[key]) if data is not None and key in data else None


def _scalar(value: Any) -> Any:
    for kind in (bool, int, float, str):
        if isinstance(value, kind):
            return kind(value)
    if value is None:
        return None
    raise _NotPlain(type(value).__name__)


def _locate_entry(value: Any, loc: Sequence[str | int]) -> tuple[int | None, int | None]:
    """YamlDoc.locate on a cache entry, which holds the tree's lines."""
    line, col = (1, 1) if value is not None else (None, None)
    for key in loc:
        if isinstance(value, dict) and "m" in value:
            found = next(([lines, item] for k, lines, item in value["m"] if k == key), None)
        elif isinstance(value, dict) and isinstance(key, int) and 0 <= key < len(value["s"]):
            found = value["s"][key]
        else:
            break
        if found is None or found[0] is None:  # absent, or a node with no line
            break
        line, col = found[0][0] + 1, found[0][1] + 1
        value = found[1]
    return line, col


def _plain_entry(value: Any, budget: list[int], depth: int) -> Any:
    """plain() of the tree a cache entry holds, without making the tree, and within the
    same limits. ValueError or TypeError for an entry _to_json did not write (an entry
    over the limits cannot have been written either: reading the text says why)."""
    budget[0] -= 1
    if budget[0] < 0:
        raise YamlTooLarge(f"more than {budget[1]:,} values")
    if isinstance(value, dict):
        if depth <= 0:
            raise YamlTooLarge(f"nested more than {MAX_DEPTH} levels deep")
        if "m" in value:
            found = {}
            for key, lines, item in value["m"]:
                if isinstance(key, (dict, list)) or not _are_lines(lines):
                    raise ValueError("not an entry of this version")
                found[str(key)] = _plain_entry(item, budget, depth - 1)
            return found
        items = []
        for lines, item in value["s"]:
            if not _are_lines(lines):
                raise ValueError("not an entry of this version")
            items.append(_plain_entry(item, budget, depth - 1))
        return items
    if isinstance(value, list):
        raise ValueError("not an entry of this version")
    return value


def _are_lines(lines: Any) -> bool:
    """None, or ruamel's [line, column, …] of a key or item."""
    return lines is None or (
        type(lines) is list and len(lines) >= 2 and all(type(n) is int for n in lines)
    )


def _from_json(value: Any) -> Any:
    if isinstance(value, dict) and "m" in value:
        node: CommentedMap | CommentedSeq = CommentedMap()
        for key, lines, item in value["m"]:
            node[key] = _from_json(item)
            if lines is not None:
                node.lc.add_kv_line_col(key, lines)
        return node
    if isinstance(value, dict):
        node = CommentedSeq()
        for index, (lines, item) in enumerate(value["s"]):
            node.append(_from_json(item))
            if lines is not None:
                node.lc.add_kv_line_col(index, lines)
        return node
    return value


def remember_tree(text: str, tree: Any) -> None:
    """Let the next read of `text` in this process take `tree`, which dumps to it, instead
    of parsing it again (an import validates the cards.yaml it has just made: parsing it
    was two thirds of a 5,000-row import). The tree itself is handed over, once, not a
    copy (pickling a 100,000-card tree and back took half a minute): the caller must not
    use it again. Nodes added in memory have no line numbers."""
    _HANDED.clear()
    _HANDED[text] = tree


_HANDED: dict[str, Any] = {}  # remember_tree's tree, for the next read of its text


_CACHE_FORMAT = 2


def _entry(text: str) -> str:
    """The name of the disk entry of `text`: the digest of the text and of everything
    that shapes its tree (the parser's version, the entry's format)."""
    salt = f"{_CACHE_FORMAT}|{ruamel.yaml.__version__}|"
    return hashlib.sha256((salt + text).encode("utf-8")).hexdigest()[:32] + ".json"


def _remember(text: str, pickled: bytes) -> None:
    if len(_PARSED) >= _PARSED_MAX:
        del _PARSED[next(iter(_PARSED))]
    _PARSED[text] = pickled


def read_yaml(
    path: Path, display: str, game: str | None = None, cache: Path | None = None
) -> YamlDoc:
    """Parse one file; raise SourceError with file, line and column for bad input.
    `cache` is a folder where parsed trees are kept by content (see _parse)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise SourceError(
            Problem(
                "error",
                "file is missing",
                file=display,
                game=game,
                hint=f"create {display} (see games/README.md)",
            )
        ) from None
    except OSError as exc:  # a folder, a symlink loop, no permission
        raise SourceError(
            Problem("error", f"cannot read it: {exc.strerror or exc}", file=display, game=game)
        ) from None
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise SourceError(
            Problem(
                "error",
                f"not UTF-8 (byte 0x{raw[exc.start]:02x})",
                file=display,
                line=line,
                column=column,
                game=game,
                hint="save the file as UTF-8",
            )
        ) from None
    try:
        tree, entry, parsed = _parse(text, cache)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = (exc.problem or exc.context or "invalid YAML").strip()
        raise SourceError(
            Problem(
                "error",
                f"YAML syntax: {what}",
                file=display,
                line=mark.line + 1 if mark else None,
                column=mark.column + 1 if mark else None,
                game=game,
                hint="fix the YAML at this position",
            )
        ) from None
    except YAMLError as exc:
        raise SourceError(
            Problem("error", f"YAML: {str(exc).splitlines()[0]}", file=display, game=game)
        ) from None
    except RecursionError:  # the parser recurses once per level, before plain() can count
        raise _too_large(display, game, f"nested more than {MAX_DEPTH} levels deep") from None
    if entry is not None:
        return YamlDoc(path, display, None, entry.data, text, entry.value)
    try:
        data = plain(tree, MAX_VALUES + len(text))  # aliases: a few values more than the text
    except YamlTooLarge as exc:
        raise _too_large(display, game, str(exc)) from None
    if cache is not None and parsed:
        keep_parsed(cache, text, tree)
    return YamlDoc(path, display, tree, data, text)


def _too_large(display: str, game: str | None, what: str) -> SourceError:
    return SourceError(
        Problem(
            "error",
            f"YAML: {what}",
            file=display,
            game=game,
            hint="write the data out plainly; sources need no deep nesting or aliases",
        )
    )


# A source is a few thousand values at most (the largest, 2,575) and 13 levels deep.
# Aliases are shared in the tree but copied into the plain data, so a 1 KB file of
# aliases of aliases ("billion laughs") would expand to billions of values: the limits
# stop it, and a nesting that would exhaust the stack, with one line. A file is allowed
# MAX_VALUES more values than it has characters (a 100,000-card import has a million).
MAX_VALUES = 200_000
MAX_DEPTH = 64


class YamlTooLarge(ValueError):
    """The data of a file passes MAX_VALUES or MAX_DEPTH."""


def plain(node: Any, values: int = MAX_VALUES) -> Any:
    """ruamel nodes to builtin dicts, lists and scalars (within `values` values and
    MAX_DEPTH levels)."""
    return _plain(node, [values, values], MAX_DEPTH)


def _plain(node: Any, budget: list[int], depth: int) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        raise YamlTooLarge(f"more than {budget[1]:,} values once its aliases are expanded")
    kind = type(node)
    if kind is str or kind is int or kind is bool or node is None:
        return node
    if isinstance(node, (dict, list)) and depth <= 0:
        raise YamlTooLarge(f"nested more than {MAX_DEPTH} levels deep")
    if isinstance(node, dict):
        # a CommentedMap's own items() is ten times slower than its OrderedDict's, which
        # it iterates anyway
        pairs = OrderedDict.items(node) if isinstance(node, OrderedDict) else node.items()
        return {str(k): _plain(v, budget, depth - 1) for k, v in pairs}
    if isinstance(node, list):
        return [_plain(v, budget, depth - 1) for v in node]
    if isinstance(node, bool):
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, str):
        return str(node)
    return node


# --- writing a list back fast ----------------------------------------------------------
#
# ruamel's emitter takes about a millisecond per card: a 100,000-row import spent minutes
# writing cards.yaml. replace_items() writes the list of a file instead as the file's own
# text for every item that did not change (comments, quotes and layout as they were), a
# fast emitter for changed and new items made of plain keys and scalars (the same bytes
# ruamel writes for them, see tests/test_spreadsheet.py), and ruamel for the rest (an item
# with comments, anchors, tags or scalars it writes in its own way).

_STR_TAG = "tag:yaml.org,2002:str"
_FLOW_CHARS = frozenset(",[]{}")
_FIRST_NOT_PLAIN = frozenset("-?:,[]{}#&*!|>'\"%@` \t")
_LONGEST = 2000  # longer scalars and flow collections: ruamel (it folds lines at its width)


class _NotFast(Exception):
    """An item the fast emitter does not write exactly as ruamel does."""


@functools.lru_cache(maxsize=65536)
def _plain_ok(value: str, flow: bool) -> bool:
    """Whether ruamel writes `value` as a plain scalar (an over-strict test: a string it
    would write plainly may still be refused here, never the other way round)."""
    if not value or len(value) > _LONGEST or not value.isprintable():
        return False
    if value[0] in _FIRST_NOT_PLAIN or value[-1] == " " or ":" in value or "#" in value:
        return False
    if value.startswith(("---", "...")) or (flow and not _FLOW_CHARS.isdisjoint(value)):
        return False
    if value[0] not in _RESOLVED_FIRST:
        return True  # no implicit type (number, bool, null, date…) starts with it
    tag = _RESOLVER.resolve(ScalarNode, value, (True, False))
    return str(getattr(tag, "value", tag)) == _STR_TAG


_RESOLVER = VersionedResolver()
_RESOLVED_FIRST = frozenset(char for char in _RESOLVER.versioned_resolver if char)


def _scalar_text(value: Any, flow: bool) -> str:
    kind = type(value)
    if kind is bool:
        return "true" if value else "false"
    if kind is int:
        return str(value)
    if kind is str:
        if _plain_ok(value, flow):
            return value
        raise _NotFast
    if kind is DoubleQuotedScalarString:
        simple = value.isprintable() and '"' not in value and "\\" not in value
        if simple and len(value) <= _LONGEST:
            return f'"{value}"'
        raise _NotFast
    if kind is SingleQuotedScalarString:
        if len(value) <= _LONGEST and value.isprintable():
            return "'" + value.replace("'", "''") + "'"
        raise _NotFast
    raise _NotFast  # None, floats, formatted ints, block scalars, dates…


def _bare(node: Any) -> None:
    """Raise _NotFast unless `node` carries nothing but its content (no comment, anchor,
    tag or merge key)."""
    ca = getattr(node, "ca", None)
    if ca is not None and (ca.items or ca.comment or ca.end):
        raise _NotFast
    anchor = getattr(node, "anchor", None)
    if anchor is not None and anchor.value is not None:
        raise _NotFast
    tag = getattr(node, "tag", None)
    if tag is not None and getattr(tag, "value", tag) is not None:
        raise _NotFast
    if getattr(node, "merge", None):
        raise _NotFast


def _is_flow(node: Any) -> bool:
    fa = getattr(node, "fa", None)
    return bool(fa is not None and fa.flow_style())


def _flow(node: Any) -> str:
    if isinstance(node, dict):
        _bare(node)
        if not node:
            return "{}"
        parts = [f"{_key(k, True)}: {_flow(v)}" for k, v in node.items()]
        text = "{" + ", ".join(parts) + "}"
    elif isinstance(node, list):
        _bare(node)
        text = "[" + ", ".join(_flow(v) for v in node) + "]"
    else:
        return _scalar_text(node, True)
    if len(text) > _LONGEST:
        raise _NotFast
    return text


def _key(key: Any, flow: bool) -> str:
    if type(key) is not str or not _plain_ok(key, flow) or len(key) > 100:
        raise _NotFast
    return key


def _block_map(node: dict[Any, Any], indent: int, out: list[str], first: str | None) -> None:
    """`node` as block mapping lines at `indent`; the first line starts with `first`
    instead of the indentation (the "- " of a sequence item)."""
    _bare(node)
    pad = " " * indent
    for key, value in node.items():
        lead = pad if first is None else first
        first = None
        name = _key(key, False)
        if isinstance(value, (dict, list)) and value and not _is_flow(value):
            out.append(f"{lead}{name}:\n")
            if isinstance(value, dict):
                _block_map(value, indent + 2, out, None)
            else:
                _block_seq(value, indent + 2, out)
        else:
            out.append(f"{lead}{name}: {_flow(value)}\n")


def _block_seq(node: list[Any], dash: int, out: list[str]) -> None:
    _bare(node)
    pad = " " * dash
    for item in node:
        if isinstance(item, dict) and item and not _is_flow(item):
            _block_map(item, dash + 2, out, pad + "- ")
        elif isinstance(item, list) and item and not _is_flow(item):
            raise _NotFast  # a list in a list: ruamel writes "- - "
        else:
            out.append(f"{pad}- {_flow(item)}\n")


def _item_by_ruamel(yaml: YAML, key: str, item: Any) -> str:
    """What ruamel writes for `item` as the one item of the top-level list `key`."""
    stream = io.StringIO()
    yaml.dump({key: [item]}, stream)
    return stream.getvalue().split("\n", 1)[1]


@dataclass
class Item:
    """One item of the list replace_items() writes: `node`, and where it comes from (its
    index in the file's list, None for a new one) and whether it changed."""

    node: Any
    origin: int | None
    changed: bool


def replace_items(text: str, tree: Any, key: str, items: list[Item]) -> str:
    """The text of the file `text` (whose round-trip tree is `tree`) with the block list
    under its last top-level `key` made of `items`; `tree` is updated to match. Falls back
    to ruamel for the whole file when the list is not laid out as one block list at the
    end of the file."""
    seq = tree[key]
    spans = _item_spans(text, tree, key)
    # list's own slice assignment: ruamel's inserts one by one, shifting its comment
    # indices each time (12 s for 100,000 items); they are the file's old ones anyway
    list.__setitem__(seq, slice(None), [item.node for item in items])
    yaml = round_trip_yaml()
    if spans is None:
        stream = io.StringIO()
        yaml.dump(tree, stream)
        return stream.getvalue()
    lines, head, starts, tails = spans
    out = ["".join(lines[:head])]
    for item in items:
        if item.origin is not None and not item.changed:
            piece = "".join(lines[starts[item.origin] : starts[item.origin + 1]])
            out.append(piece if piece.endswith("\n") else piece + "\n")
            continue
        pieces: list[str] = []
        try:
            _block_map(item.node, 4, pieces, "  - ")
        except _NotFast:
            pieces = [_item_by_ruamel(yaml, key, item.node)]
        out.extend(pieces)
        if item.origin is not None:  # the comment lines before the next item stay here
            out.append("".join(lines[tails[item.origin] : starts[item.origin + 1]]))
    return "".join(out)


def _item_spans(
    text: str, tree: Any, key: str
) -> tuple[list[str], int, list[int], list[int]] | None:
    """The file's lines; the first line of the list's first item; the first line of each
    item and, last, the number of lines; the first line of the comment lines that end each
    item's span and belong to the next item (ruamel keeps them with the list, not the item).
    None when the list is not a block list of mappings, one per line, ending the file."""
    if not isinstance(tree, CommentedMap) or list(tree)[-1:] != [key] or tree.ca.end:
        return None
    seq = tree[key]
    if not isinstance(seq, CommentedSeq) or not seq or _is_flow(seq):
        return None
    lines = text.splitlines(keepends=True)
    starts: list[int] = []
    for index, node in enumerate(seq):
        found = _position(seq.lc.item, index)
        if not isinstance(node, CommentedMap) or _is_flow(node) or found is None:
            return None
        line, column = found
        if column < 2 or line >= len(lines) or (starts and line <= starts[-1]):
            return None
        if not lines[line].startswith(" " * (column - 2) + "- "):
            return None
        starts.append(line)
    starts.append(len(lines))
    tails = []
    for index in range(len(seq)):
        tail = starts[index + 1]
        comment = seq.ca.items.get(index + 1)
        tokens = comment[1] if comment and len(comment) > 1 and comment[1] else []
        if tokens:
            first = tokens[0].start_mark.line if tokens[0].start_mark else tail
            tail = max(starts[index] + 1, min(first, tail))
        tails.append(tail)
    return lines, starts[0], starts, tails
