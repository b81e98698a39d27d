"""Reading YAML sources with line numbers, so every problem can point at its line."""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import json
import pickle
import re
import warnings
from collections import OrderedDict
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

from pipeline.common.output import atomic_write
from pipeline.common.problems import Problem, SourceError

if TYPE_CHECKING:
    from ruamel.yaml import YAML


class YamlDoc:
    """A parsed YAML file: plain data for validation, the tree for locating keys.

    A file read from the disk cache has its data from the entry's first line; the lines of
    its keys and items, the entry's second line, are decoded when a problem is first
    located, and the ruamel tree is made only when a caller asks for it. So checking a file
    that has no problem decodes only its data, and a process that only reads sources from
    the cache never imports ruamel."""

    def __init__(
        self,
        path: Path,
        display: str,
        tree: Any,
        data: Any,
        text: str = "",
        lines: bytes | None = None,
    ):
        self.path = path
        self.display = display  # path as shown in messages (relative to the project)
        self.data = data  # the content as plain dicts and lists
        self.text = text  # the file's text
        self._tree = tree  # ruamel round-trip nodes, which remember their lines
        self._lines = lines  # or the cache entry's lines, as written (_to_json), undecoded
        self._cached: Any = None  # ... and decoded, until the tree is asked for

    def _entry(self) -> Any:
        """The cache entry's tree of lines, decoded on first use; None when the file was
        parsed, or once its tree is made. Lines that do not hold this file's data (a
        damaged entry) are not trusted: the text is parsed instead."""
        if self._lines is not None:
            raw, self._lines = self._lines, None
            try:
                value = json.loads(raw)
                if _plain_entry(value, [MAX_VALUES + len(self.text)] * 2, MAX_DEPTH) != self.data:
                    raise ValueError("lines of other data")
                self._cached = value
            except (ValueError, TypeError, KeyError, IndexError, RecursionError):
                with contextlib.suppress(_BadYaml, RecursionError):  # no lines, then
                    self._tree = _parse_text(self.text)
        return self._cached

    @property
    def tree(self) -> Any:
        if self._entry() is not None:
            self._tree, self._cached = _from_json(self._cached), None
        return self._tree

    def locate(self, loc: Sequence[str | int]) -> tuple[int | None, int | None]:
        """1-based line and column of the deepest node of `loc` present in the file."""
        if self._entry() is not None:
            return _locate_entry(self._cached, loc)
        from ruamel.yaml.comments import CommentedMap, CommentedSeq

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
    from ruamel.yaml import YAML

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
    """A disk cache entry read back: the plain data it holds, and its lines undecoded."""

    data: Any
    lines: bytes


class _BadYaml(Exception):
    """The parser refused the text: what, and where (0-based), if it said."""

    def __init__(self, what: str, line: int | None = None, column: int | None = None):
        super().__init__(what)
        self.what, self.line, self.column = what, line, column


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
    A caller that gives a cache gets the entry even when the pickled tree is in memory:
    decoding the entry's JSON is ten to twenty times faster than unpickling the tree.
    Returns the tree, or None and the entry, and whether the text was parsed now; raises
    _BadYaml for a text that is not YAML."""
    handed = _HANDED.pop(text, None)
    if handed is not None:
        return handed, None, False
    if cache is not None:  # before the pickled tree: 1 ms for Bless's cards, not 17
        with contextlib.suppress(
            OSError, ValueError, TypeError, KeyError, IndexError, RecursionError
        ):  # not there yet, cut short, or not a tree this version wrote: parse instead
            raw = (cache / _entry(text)).read_bytes()
            cut = raw.index(b"\n")  # the data, then the lines (keep_parsed)
            return None, _Entry(json.loads(raw[:cut]), raw[cut + 1 :]), False
    pickled = _PARSED.get(text)
    if pickled is not None:
        return pickle.loads(pickled), None, False
    tree = _parse_text(text)
    _remember(text, pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL))
    return tree, None, True


_REUSED_ANCHOR = re.compile(
    r"duplicate anchor '(.*?)'\n.*second occurrence.* line (\d+), column (\d+)", re.S
)


def _parse_text(text: str) -> Any:
    """The round-trip tree of `text`, by ruamel; _BadYaml when it is not YAML, or when it
    names an anchor twice: valid YAML (the later one wins), but in card data a slip that
    silently changes what the aliases after it copy (and ruamel would print a warning)."""
    from ruamel.yaml.error import MarkedYAMLError, ReusedAnchorWarning, YAMLError

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", ReusedAnchorWarning)
            return round_trip_yaml().load(io.StringIO(text))
    except ReusedAnchorWarning as exc:
        found = _REUSED_ANCHOR.search(str(exc))
        if found is None:
            raise _BadYaml("YAML: an anchor is named twice") from None
        raise _BadYaml(
            f"YAML: the anchor '{found[1]}' is named a second time",
            int(found[2]) - 1,
            int(found[3]) - 1,
        ) from None
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        what = (exc.problem or exc.context or "invalid YAML").strip()
        raise _BadYaml(
            f"YAML syntax: {what}", mark.line if mark else None, mark.column if mark else None
        ) from None
    except YAMLError as exc:
        raise _BadYaml(f"YAML: {str(exc).splitlines()[0]}") from None
    except TypeError:  # ruamel cannot hash a key that holds a mapping (`? {a: {b: 1}}`)
        raise _BadYaml("YAML: a key made of a mapping or a list; keys are plain names") from None


def keep_parsed(cache: Path, text: str, tree: Any, data: Any) -> None:
    """Write the disk entry of `text`, once its tree passed the limits (plain() counted
    its values, so aliases cannot make the entry huge): on its first line the plain data,
    on its second the tree's keys and items with their lines (_to_json), which only a
    problem to locate needs (compact JSON escapes every newline in a string)."""
    entry = cache / _entry(text)
    try:
        lines = json.dumps(_to_json(tree), ensure_ascii=False, separators=(",", ":"))
        plain_data = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError):  # _NotPlain among them
        return  # a date or a tagged value: this file is parsed every time
    with contextlib.suppress(OSError):  # a cache that cannot be written only costs time
        atomic_write(entry, f"{plain_data}\n{lines}".encode())


class _NotPlain(TypeError):
    """A value JSON cannot hold as it is."""


def _to_json(node: Any) -> Any:
    """A tree as JSON: maps as {"m": [[key, lines, value], …]}, lists as {"s": [[lines,
    item], …]}, where lines are ruamel's [line, column, …] of the key or item (None when
    it has none), and scalars as plain() reads them."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    def to_json(node: Any) -> Any:
        if isinstance(node, CommentedMap):
            return {"m": [[_scalar(k), _lines(node, k), to_json(v)] for k, v in node.items()]}
        if isinstance(node, CommentedSeq):
            return {"s": [[_lines(node, i), to_json(v)] for i, v in enumerate(node)]}
        return _scalar(node)

    return to_json(node)


def _lines(node: Any, key: Any) -> list[int] | None:
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
    """The ruamel tree of a cache entry's lines, comments aside."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    def from_json(value: Any) -> Any:
        if isinstance(value, dict) and "m" in value:
            node: CommentedMap | CommentedSeq = CommentedMap()
            for key, lines, item in value["m"]:
                node[key] = from_json(item)
                if lines is not None:
                    node.lc.add_kv_line_col(key, lines)
            return node
        if isinstance(value, dict):
            node = CommentedSeq()
            for index, (lines, item) in enumerate(value["s"]):
                node.append(from_json(item))
                if lines is not None:
                    node.lc.add_kv_line_col(index, lines)
            return node
        return value

    return from_json(value)


def remember_tree(text: str, tree: Any) -> None:
    """Let the next read of `text` in this process take `tree`, which dumps to it, instead
    of parsing it again (an import validates the cards.yaml it has just made: parsing it
    was two thirds of a 5,000-row import). The tree itself is handed over, once, not a
    copy (pickling a 100,000-card tree and back took half a minute): the caller must not
    use it again. Nodes added in memory have no line numbers."""
    _HANDED.clear()
    _HANDED[text] = tree


_HANDED: dict[str, Any] = {}  # remember_tree's tree, for the next read of its text


_CACHE_FORMAT = 4  # 4: a text that names an anchor twice is no longer read


def _entry(text: str) -> str:
    """The name of the disk entry of `text`: the digest of the text and of everything
    that shapes its tree (the parser's version, the entry's format)."""
    salt = f"{_CACHE_FORMAT}|{_parser_version()}|"
    return hashlib.sha256((salt + text).encode("utf-8")).hexdigest()[:32] + ".json"


@functools.cache
def _parser_version() -> str:
    """ruamel's version, from its metadata: importing ruamel to read it would cost a
    command that finds every source in the cache more than the rest of its reading."""
    from importlib import metadata

    try:
        return metadata.version("ruamel.yaml")
    except metadata.PackageNotFoundError:  # not installed as a distribution: ask it
        import ruamel.yaml

        return str(ruamel.yaml.__version__)


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
    except _BadYaml as exc:
        marked = exc.line is not None
        raise SourceError(
            Problem(
                "error",
                exc.what,
                file=display,
                line=exc.line + 1 if exc.line is not None else None,
                column=exc.column + 1 if exc.column is not None else None,
                game=game,
                hint="fix the YAML at this position" if marked else None,
            )
        ) from None
    except RecursionError:  # the parser recurses once per level, before plain() can count
        raise _too_large(display, game, f"nested more than {MAX_DEPTH} levels deep") from None
    if entry is not None:
        return YamlDoc(path, display, None, entry.data, text, entry.lines)
    try:
        data = plain(tree, MAX_VALUES + len(text))  # aliases: a few values more than the text
    except YamlTooLarge as exc:
        raise _too_large(display, game, str(exc)) from None
    if cache is not None and parsed:
        keep_parsed(cache, text, tree, data)
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
