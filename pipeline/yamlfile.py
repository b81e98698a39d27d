"""Reading YAML sources with line numbers, so every problem can point at its line."""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import pickle
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ruamel.yaml
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.error import MarkedYAMLError, YAMLError

from .output import atomic_write
from .problems import Problem, SourceError


@dataclass
class YamlDoc:
    """A parsed YAML file: plain data for validation, the tree for locating keys."""

    path: Path
    display: str  # path as shown in messages (relative to the project)
    tree: Any  # ruamel round-trip nodes, which remember their lines
    data: Any  # the same content as plain dicts and lists

    def locate(self, loc: Sequence[str | int]) -> tuple[int | None, int | None]:
        """1-based line and column of the deepest node of `loc` present in the file."""
        node = self.tree
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


def _parse(text: str, cache: Path | None = None) -> tuple[Any, bool]:
    """The round-trip tree of `text`. Parsing is most of the time it takes to read the
    sources (a `db build` reads about a hundred files, 1.8 s of parsing), and the same
    text is read again and again: by a process that runs several commands (`cartiera
    build` validates then builds, `preview` reads again on every edit), and by every
    new process. So a tree this process parsed is kept pickled in memory (each caller
    gets its own copy, with its lines, comments and quoting, to change and write back),
    and, when a `cache` folder is given, its data and lines are kept on disk as JSON
    (`keep_parsed`) under the digest of the text and of the parser that read it. A tree
    read from disk has its lines but no comments: a caller that writes the file back
    reads it without a cache. Returns the tree and whether the text was parsed now."""
    pickled = _PARSED.get(text)
    if pickled is not None:
        return pickle.loads(pickled), False
    if cache is not None:
        with contextlib.suppress(OSError, ValueError, TypeError, KeyError, IndexError):
            # not there yet, cut short, or not a tree this version wrote: parse instead
            return _from_json(json.loads((cache / _entry(text)).read_bytes())), False
    tree = round_trip_yaml().load(io.StringIO(text))
    _remember(text, pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL))
    return tree, True


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
    was two thirds of a 5,000-row import). Nodes added in memory have no line numbers."""
    _remember(text, pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL))


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
        tree, parsed = _parse(text, cache)
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
    try:
        data = plain(tree)
    except YamlTooLarge as exc:
        raise _too_large(display, game, str(exc)) from None
    if cache is not None and parsed:
        keep_parsed(cache, text, tree)
    return YamlDoc(path=path, display=display, tree=tree, data=data)


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
# stop it, and a nesting that would exhaust the stack, with one line.
MAX_VALUES = 200_000
MAX_DEPTH = 64


class YamlTooLarge(ValueError):
    """The data of a file passes MAX_VALUES or MAX_DEPTH."""


def plain(node: Any) -> Any:
    """ruamel nodes to builtin dicts, lists and scalars (within MAX_VALUES and MAX_DEPTH)."""
    return _plain(node, [MAX_VALUES], MAX_DEPTH)


def _plain(node: Any, budget: list[int], depth: int) -> Any:
    budget[0] -= 1
    if budget[0] < 0:
        raise YamlTooLarge(f"more than {MAX_VALUES:,} values once its aliases are expanded")
    if isinstance(node, (dict, list)) and depth <= 0:
        raise YamlTooLarge(f"nested more than {MAX_DEPTH} levels deep")
    if isinstance(node, dict):
        return {str(k): _plain(v, budget, depth - 1) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v, budget, depth - 1) for v in node]
    if isinstance(node, bool) or node is None:
        return node
    if isinstance(node, int):
        return int(node)
    if isinstance(node, float):
        return float(node)
    if isinstance(node, str):
        return str(node)
    return node
