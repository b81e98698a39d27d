"""Writing the list of a YAML source back fast, as ruamel writes it.

ruamel's emitter takes about a millisecond per card: a 100,000-row import spent minutes
writing cards.yaml. replace_items() writes the list of a file instead as the file's own
text for every item that did not change (comments, quotes and layout as they were), a
fast emitter for changed and new items made of plain keys and scalars (the same bytes
ruamel writes for them, see tests/test_spreadsheet.py), and ruamel for the rest (an item
with comments, anchors, tags or scalars it writes in its own way).

Apart from yamlfile, which reads: a command that only reads sources, such as `validate`
with its cache warm, never imports ruamel.
"""

from __future__ import annotations

import functools
import io
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.nodes import ScalarNode
from ruamel.yaml.resolver import VersionedResolver
from ruamel.yaml.scalarstring import DoubleQuotedScalarString, SingleQuotedScalarString

from .yamlfile import _position, round_trip_yaml

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
