"""Project settings that live outside the game data: where the rules site is published."""

from __future__ import annotations

import os

import yaml

from .project import Project

SITE_URL_ENV = "CARTIERA_SITE_URL"


class _LenientLoader(yaml.SafeLoader):
    """mkdocs.yml may hold tags such as !!python/name:…; we only read plain keys."""


_LenientLoader.add_multi_constructor("", lambda loader, suffix, node: None)
_LenientLoader.add_multi_constructor("tag:yaml.org,2002:python/", lambda loader, s, n: None)


def site_url(project: Project) -> str | None:
    """Where the rules site is published, for QR codes, canonical links and the sitemap:
    $CARTIERA_SITE_URL, else mkdocs.yml's site_url; None while the project has not said
    (there is no default: a made-up address printed on cards would lead nowhere)."""
    if os.environ.get(SITE_URL_ENV):
        return os.environ[SITE_URL_ENV]
    config = project.root / "mkdocs.yml"
    if config.exists():
        data = yaml.load(config.read_text(encoding="utf-8"), Loader=_LenientLoader) or {}
        if isinstance(data, dict) and data.get("site_url"):
            return str(data["site_url"])
    return None


def missing_site_url_note(project: Project) -> str | None:
    """One line saying what the outputs leave out while the site's address is not set."""
    if site_url(project) is not None:
        return None
    return (
        "note: site_url is not set, so the site has no canonical links and no sitemap, and the "
        "rules cards print how to set it instead of a QR code (set site_url in mkdocs.yml, "
        f"or {SITE_URL_ENV})"
    )
