"""Writing outputs safely and reproducibly: beside, then renamed; fixed PDF metadata."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

# Every PDF carries this date, so the same content always gives the same bytes.
FIXED_DATE = "2026-01-01T00:00:00+00:00"


def atomic_write(path: Path, data: bytes) -> None:
    """Write `data` beside `path`, then rename: readers never see half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(tmp, path)
    finally:
        Path(tmp).unlink(missing_ok=True)


def html_to_pdf(html: str, base_url: str, variant: str | None = None) -> bytes:
    """Render HTML with WeasyPrint into deterministic PDF bytes."""
    from weasyprint import HTML  # imported late: loading Pango is slow

    identifier = hashlib.sha256(html.encode("utf-8")).hexdigest()[:32].encode()
    return HTML(string=html, base_url=base_url).write_pdf(
        pdf_identifier=identifier, pdf_variant=variant, pdf_tags=variant is not None
    )
