"""Reading YAML sources with line numbers, so every problem can point at its line."""

from __future__ import annotations

import contextlib
import hashlib
import io
import pickle
import sys
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
            try:
                if isinstance(node, CommentedMap) and key in node:
                    kl, kc = node.lc.key(key)
                    node = node[key]
                elif (
                    isinstance(node, CommentedSeq) and isinstance(key, int) and 0 <= key < len(node)
                ):
                    kl, kc = node.lc.item(key)
                    node = node[key]
                else:
                    break
            except KeyError:  # a node added in memory (see remember_tree) has no line
                break
            line, col = kl + 1, kc + 1
        return line, col

    def problem(self, loc: Sequence[str | int], message: str, **kw: Any) -> Problem:
        line, col = self.locate(loc)
        kw.setdefault("severity", "error")
        return Problem(message=message, file=self.display, line=line, column=col, **kw)


def round_trip_yaml() -> YAML:
    """The one YAML configuration used both to read and to rewrite sources."""
    yaml = YAML(typ="rt")
    yaml.preserve_quotes = True
    yaml.width = 4096
    yaml.indent(mapping=2, sequence=4, offset=2)
    return yaml


# Round-trip trees already parsed in this process, pickled, by source text (at most
# _PARSED_MAX, the oldest dropped first).
_PARSED: dict[str, bytes] = {}
_PARSED_MAX = 512


def _parse(text: str, cache: Path | None = None) -> Any:
    """The round-trip tree of `text`. Parsing is most of the time it takes to read the
    sources (a `db build` reads about a hundred files, 1.8 s of parsing), and the same
    text is read again and again: by a process that runs several commands (`cartiera
    build` validates then builds, `preview` reads again on every edit), and by every
    new process. So the tree is kept pickled, in this process and, when a `cache` folder
    is given, on disk under the digest of the text and of the parser that read it (a
    pickle loads about twenty times faster than the text parses). Each caller gets its
    own copy, with its lines, comments and quoting, to change and write back."""
    pickled = _PARSED.get(text)
    if pickled is not None:
        return pickle.loads(pickled)
    entry = cache / f"{_digest(text)}.pickle" if cache is not None else None
    if entry is not None:
        try:
            pickled = entry.read_bytes()
            tree = pickle.loads(pickled)
        except Exception:  # not there yet, cut short, or written by another version
            pass
        else:
            _remember(text, pickled)
            return tree
    tree = round_trip_yaml().load(io.StringIO(text))
    pickled = pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL)
    _remember(text, pickled)
    if entry is not None:
        with contextlib.suppress(OSError):  # a cache that cannot be written only costs time
            atomic_write(entry, pickled)
    return tree


def remember_tree(text: str, tree: Any) -> None:
    """Let the next read of `text` in this process take `tree`, which dumps to it, instead
    of parsing it again (an import validates the cards.yaml it has just made: parsing it
    was two thirds of a 5,000-row import). Nodes added in memory have no line numbers."""
    _remember(text, pickle.dumps(tree, protocol=pickle.HIGHEST_PROTOCOL))


_CACHE_FORMAT = 1


def _digest(text: str) -> str:
    """The name of the disk entry of `text`: the text and everything that shapes its
    tree (the parser's version and the pickle format of this Python)."""
    salt = f"{_CACHE_FORMAT}|{ruamel.yaml.__version__}|{sys.version_info[:2]}|"
    return hashlib.sha256((salt + text).encode("utf-8")).hexdigest()[:32]


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
        tree = _parse(text, cache)
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
