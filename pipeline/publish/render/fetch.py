"""What WeasyPrint may read while it renders: the project's own files, never the network.

Rules, rulings and glossary are Markdown written by whoever sends a change, and Markdown
can name any URL (`![x](file:///etc/passwd)`, `![y](http://127.0.0.1:8080/)`, a `style`
with `background: url(…)`). WeasyPrint's default fetcher would read or fetch each of them
and embed the result in a PDF that CI publishes. Every WeasyPrint document of the project
is therefore given `ProjectFetcher`: it serves files under the folders the project renders
from (its templates and its caches) and small inline `data:` images or fonts, and refuses
everything else (other files, http, https, ftp, any other scheme) without opening it.
"""

from __future__ import annotations

import mimetypes
import re
from collections.abc import Iterable
from pathlib import Path
from urllib.parse import unquote, urlsplit
from urllib.request import url2pathname

from pipeline.common.output import load_weasyprint
from pipeline.common.project import Project

load_weasyprint()  # before WeasyPrint's first import anywhere: it finds its libraries quickly
from weasyprint.urls import URLFetcher, URLFetcherResponse  # noqa: E402

# Inline data WeasyPrint may decode: pictures and fonts, which carry no further address
# that is not itself sent through this fetcher.
_DATA_KINDS = re.compile(r"data:(image/[a-z0-9.+-]+|font/[a-z0-9.+-]+)[;,]", re.IGNORECASE)


class RefusedURL(ValueError):
    """A document named something outside the project; WeasyPrint warns and renders
    without it."""


class ProjectFetcher(URLFetcher):
    """A URL fetcher that reads only files under `roots`, and records what it was asked."""

    def __init__(self, roots: Iterable[Path]):
        super().__init__(allowed_protocols=("file", "data"), allow_redirects=False)
        self.roots = tuple(dict.fromkeys(Path(r).resolve() for r in roots))
        self.served: list[str] = []
        self.refused: list[str] = []

    def fetch(self, url: str, headers: dict[str, str] | None = None) -> URLFetcherResponse:
        scheme = url.partition(":")[0].lower()
        if scheme == "file":
            path = self.allowed_file(url)
            if path is not None:
                self.served.append(url)
                kind = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
                return URLFetcherResponse(url, path.read_bytes(), {"Content-Type": kind})
        elif scheme == "data" and _DATA_KINDS.match(url):
            self.served.append(url[:40])
            return super().fetch(url, headers)
        self.refused.append(url)
        raise RefusedURL(f"not a file of the project: {url[:120]}")

    def allowed_file(self, url: str) -> Path | None:
        """The file a file: URL names, when it lies under one of the roots (links
        resolved first, so a symlink cannot lead out)."""
        parts = urlsplit(url)
        if parts.netloc not in ("", "localhost"):
            return None  # file://host/… would be fetched over the network
        try:
            path = Path(url2pathname(unquote(parts.path))).resolve()
        except (OSError, RuntimeError):
            return None
        inside = any(path.is_relative_to(root) for root in self.roots)
        return path if inside and path.is_file() else None


def project_fetcher(project: Project) -> ProjectFetcher:
    """The fetcher for every document the project renders."""
    return ProjectFetcher(render_roots(project))


def render_roots(project: Project) -> tuple[Path, ...]:
    """The folders a rendered document may read: templates, and the caches it made."""
    return (project.templates_dir, project.cache_dir)
