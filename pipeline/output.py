"""Writing outputs safely and reproducibly: beside, then renamed; fixed PDF metadata."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

# Every PDF carries this date, so the same content always gives the same bytes.
FIXED_DATE = "2026-01-01T00:00:00+00:00"
FIXED_EPOCH = "1767225600"  # the same instant, for tools that read SOURCE_DATE_EPOCH


def atomic_write(path: Path, data: bytes) -> None:
    """Write `data` beside `path`, then rename: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        publish(Path(tmp), path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def publish(tmp: Path, path: Path) -> None:
    """Rename a finished temporary file into place, with ordinary file permissions
    (temporary files are created private)."""
    umask = os.umask(0)
    os.umask(umask)
    os.chmod(tmp, 0o666 & ~umask)
    os.replace(tmp, path)


def html_to_pdf(html: str, base_url: str, variant: str | None = None) -> bytes:
    """Render HTML with WeasyPrint into deterministic PDF bytes."""
    from weasyprint import HTML  # imported late: loading Pango is slow

    reproducible()
    identifier = hashlib.sha256(html.encode("utf-8")).hexdigest()[:32].encode()
    return HTML(string=html, base_url=base_url).write_pdf(
        pdf_identifier=identifier, pdf_variant=variant, pdf_tags=variant is not None
    )


def reproducible() -> None:
    """Font subsetting stamps the time into embedded fonts unless SOURCE_DATE_EPOCH is set."""
    os.environ["SOURCE_DATE_EPOCH"] = FIXED_EPOCH
