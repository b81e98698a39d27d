"""The render cache: what WeasyPrint and PDFium made, kept by the digest of its input.

Faces, their images, instruction pages, rulebooks and font subsets are named by a digest
of their content only, so the same sources give the same names and the same PDFs on
every machine. What else shapes their bytes (the renderers' versions, the installed
fonts) names the folder they live in instead: a cache kept across an upgrade, or shared
by machines, never serves a file another renderer made, it only misses.
"""

from __future__ import annotations

import hashlib
from functools import cache
from pathlib import Path

from pipeline.common.output import atomic_write, html_to_pdf
from pipeline.common.project import Project

# What turns HTML into a PDF and a PDF into pixels, besides the fonts.
RENDERERS = ("weasyprint", "pydyf", "tinycss2", "pypdfium2", "pillow", "fonttools", "pikepdf")


@cache
def renderer_tag() -> str:
    """A short digest of the rendering environment: the renderers' versions and every
    font file fontconfig offers (name, path, size, time)."""
    from importlib.metadata import PackageNotFoundError, version

    from .fonts import installed_fonts

    digest = hashlib.sha256()
    for name in RENDERERS:
        try:
            digest.update(f"{name}={version(name)}\n".encode())
        except PackageNotFoundError:
            digest.update(f"{name}=-\n".encode())
    for name, path in sorted(installed_fonts().items()):
        try:
            stat = path.stat()
        except OSError:
            continue
        digest.update(f"{name}\t{path}\t{stat.st_size}\t{stat.st_mtime_ns}\n".encode())
    return digest.hexdigest()[:12]


def render_cache(project: Project) -> Path:
    """The project's render cache for this rendering environment."""
    return project.cache_dir / f"render-{renderer_tag()}"


def cached_pdf(project: Project, html: str, base_url: str, variant: str | None = None) -> Path:
    """The cached `html_to_pdf` of a document, rendered only if it is not there yet.

    Only for documents that name no other file: their HTML is all that shapes the PDF,
    so the key holds `base_url` as the project names it, and a copy of the project (a
    clone, a test's) finds what the original rendered."""
    where = project.rel(Path(base_url))
    key = hashlib.sha256(f"{where}|{variant}|{html}".encode()).hexdigest()[:32]
    path = render_cache(project) / "pdf" / f"{key}.pdf"
    if not path.exists():
        from .fetch import project_fetcher  # imports WeasyPrint, which is slow to load

        pdf = html_to_pdf(html, base_url, project_fetcher(project), variant=variant)
        atomic_write(path, pdf)
    return path
