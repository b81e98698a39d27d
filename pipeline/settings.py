"""Project settings that live outside the game data: where the rules site is published."""

from __future__ import annotations

import os

import yaml

from .project import Project

SITE_URL_ENV = "CARTIERA_SITE_URL"
DEFAULT_SITE_URL = "https://example.org/cartiera/"


class _LenientLoader(yaml.SafeLoader):
    """mkdocs.yml may hold tags such as !!python/name:…; we only read plain keys."""


_LenientLoader.add_multi_constructor("", lambda loader, suffix, node: None)
_LenientLoader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, s, n: None)


def site_url(project: Project) -> str:
    """The rules site's base URL, for QR codes and links: $CARTIERA_SITE_URL, else
    mkdocs.yml's site_url, else a placeholder."""
    if os.environ.get(SITE_URL_ENV):
        return os.environ[SITE_URL_ENV]
    config = project.root / "mkdocs.yml"
    if config.exists():
        data = yaml.load(config.read_text(encoding="utf-8"), Loader=_LenientLoader) or {}
        if isinstance(data, dict) and data.get("site_url"):
            return str(data["site_url"])
    return DEFAULT_SITE_URL


def placeholder_site_url_warning(project: Project) -> str | None:
    """A one-line warning while the site URL is still the placeholder: QR codes, canonical
    links and the sitemap would all point at a site that is not ours."""
    if site_url(project).rstrip("/") != DEFAULT_SITE_URL.rstrip("/"):
        return None
    return (
        f"warning: site_url is the placeholder {DEFAULT_SITE_URL}: QR codes, canonical links "
        f"and the sitemap point there (set site_url in mkdocs.yml or {SITE_URL_ENV})"
    )
