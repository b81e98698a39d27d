"""Writing outputs safely and reproducibly: beside, then renamed; fixed PDF metadata."""

from __future__ import annotations

import contextlib
import errno
import hashlib
import io
import os
import re
import shutil
import stat
import sys
import tempfile
import zipfile
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

# Every PDF carries this date, so the same content always gives the same bytes.
FIXED_DATE = "2026-01-01T00:00:00+00:00"
FIXED_EPOCH = "1767225600"  # the same instant, for tools that read SOURCE_DATE_EPOCH


def atomic_write(path: Path, data: bytes) -> None:
    """Write `data` beside `path`, then rename: readers never see half a file. Through a
    symlink, the file it leads to is written (beside it), and the link stays."""
    path = output_target(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        publish(Path(tmp), path)
    finally:
        Path(tmp).unlink(missing_ok=True)


# Files compressed already: a zip stores them as they are. Deflating them again costs time
# for 1-4% (PDFs are deflated: their fonts and page streams still shrink by a third).
STORED = frozenset({".png", ".jpg", ".jpeg", ".zip", ".gz", ".woff", ".woff2"})


def zip_bytes(entries: Iterable[tuple[str, Path]]) -> bytes:
    """A zip of (name in the archive, file) pairs, in name order, whose bytes depend only on
    the names and the files' content: one fixed date, one mode."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as archive:
        for name, path in sorted(entries):
            info = zipfile.ZipInfo(name, (2026, 1, 1, 0, 0, 0))
            stored = path.suffix.lower() in STORED
            info.compress_type = zipfile.ZIP_STORED if stored else zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes())
    return out.getvalue()


def publish(tmp: Path, path: Path) -> None:
    """Rename a finished temporary file into place, with ordinary file permissions
    (temporary files are created private)."""
    _ordinary_mode(tmp, 0o666)
    os.replace(tmp, output_target(path))


def _ordinary_mode(path: Path, mode: int) -> None:
    """`mode` less the umask: what the file or folder would have had if made in place."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(path, mode & ~umask)


def publish_folder(built: Path, target: Path) -> None:
    """Put a finished folder in place of `target` (the old one moved aside, then removed),
    with ordinary folder permissions (temporary folders are created private)."""
    _ordinary_mode(built, 0o777)
    old = target.with_name(f".{target.name}.old.tmp")
    shutil.rmtree(old, ignore_errors=True)
    if target.exists():
        target.rename(old)
    built.rename(target)
    shutil.rmtree(old, ignore_errors=True)


class NotAFile(OSError):
    """An output named something a rename would destroy: a FIFO, a device, a folder."""


def output_target(path: Path) -> Path:
    """The file that writing `path` replaces: `path` itself when it is a regular file or a
    new name, the file a symlink leads to (so the link is kept); anything else is refused,
    since renaming a new file over a FIFO or a device node (/dev/full as root) would
    delete it."""
    target = path.resolve() if path.is_symlink() else path
    try:
        mode = target.stat().st_mode
    except FileNotFoundError:
        return target  # a new name
    if not stat.S_ISREG(mode):
        raise NotAFile(
            errno.EEXIST, f"not a regular file ({_kind(mode)}): not replacing it", str(path)
        )
    return target


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISCHR, "a device"),
    (stat.S_ISBLK, "a device"),
    (stat.S_ISSOCK, "a socket"),
)


def _kind(mode: int) -> str:
    return next((name for test, name in _KINDS if test(mode)), "not a file")


def html_to_pdf(html: str, base_url: str, fetcher: Any, variant: str | None = None) -> bytes:
    """Render HTML with WeasyPrint into deterministic PDF bytes; `fetcher` (a
    render.fetch.ProjectFetcher) decides what the document may read."""
    load_weasyprint()
    from weasyprint import HTML

    prepare_weasyprint()
    identifier = hashlib.sha256(html.encode("utf-8")).hexdigest()[:32].encode()
    return HTML(string=html, base_url=base_url, url_fetcher=fetcher).write_pdf(
        pdf_identifier=identifier, pdf_variant=variant, pdf_tags=variant is not None
    )


def load_weasyprint() -> None:
    """Import WeasyPrint (late: loading Pango is slow), its libraries found in one reading of
    the linker's cache.

    WeasyPrint asks for each of its seven libraries under several names, the right one
    rarely first, and for a name without a path `ctypes.util.find_library` runs `ldconfig
    -p`, then gcc and ld when the name is not there: 22 lookups and 54 processes, 0.3 s of
    the 0.6 s every process that renders spent importing it. While it is imported, a name
    is looked up in one listing of the cache instead, as Python's own first step does; a
    name not there is not found, and WeasyPrint goes on to the next, down to the file
    names it opens directly (a library outside the cache, on LD_LIBRARY_PATH, is still
    found that way)."""
    if "weasyprint" in sys.modules:
        return
    with _libraries_from_the_linker_cache():
        import weasyprint  # noqa: F401


@contextlib.contextmanager
def _libraries_from_the_linker_cache() -> Iterator[None]:
    import ctypes.util
    import shutil
    import subprocess

    listing = ""
    if sys.platform.startswith("linux"):
        ldconfig = shutil.which("ldconfig") or "/sbin/ldconfig"
        with contextlib.suppress(OSError, subprocess.CalledProcessError):
            listing = subprocess.run(
                [ldconfig, "-p"],
                capture_output=True,
                text=True,
                check=True,
                env={**os.environ, "LC_ALL": "C", "LANG": "C"},
            ).stdout
    if not listing:
        yield  # not Linux, or no cache to read: ctypes as it is
        return

    def find_library(name: str) -> str | None:
        found = re.search(rf"\s(lib{re.escape(name)}\.\S+)\s+\(", listing)
        return found.group(1) if found else None

    original = ctypes.util.find_library
    ctypes.util.find_library = find_library
    try:
        yield
    finally:
        ctypes.util.find_library = original


def prepare_weasyprint() -> None:
    """What every WeasyPrint run needs first: reproducible fonts and a quick HTML parser."""
    reproducible()
    _cache_scan_patterns()


def reproducible() -> None:
    """Font subsetting stamps the time into embedded fonts unless SOURCE_DATE_EPOCH is set."""
    os.environ["SOURCE_DATE_EPOCH"] = FIXED_EPOCH


class _ScanPatterns(dict[tuple[Any, bool], "re.Pattern[str]"]):
    """tinyhtml5's table of the patterns `chars_until` scans with, filled on a miss exactly
    as tinyhtml5 does it itself (a run of characters in the set, or not in it)."""

    def __missing__(self, key: tuple[Any, bool]) -> re.Pattern[str]:
        characters, opposite = key
        regex = "".join(f"\\x{ord(c):02x}" for c in characters)
        pattern = self[key] = re.compile(f"[{regex if opposite else '^' + regex}]+")
        return pattern


def _cache_scan_patterns() -> None:
    """tinyhtml5 2.1 (WeasyPrint's HTML parser) keeps the pattern of each character set that
    its tokenizer scans up to, but files it under the compiled pattern instead of the set,
    so it never finds it and builds it again on every call: half the time a deck's faces
    take to parse. A table that fills itself on a miss is never missed and holds the same
    patterns, so the parse, and the PDF, are the same."""
    from tinyhtml5 import inputstream

    if isinstance(inputstream.characters_until_regex, dict) and not isinstance(
        inputstream.characters_until_regex, _ScanPatterns
    ):
        inputstream.characters_until_regex = _ScanPatterns()
