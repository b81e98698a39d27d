"""MkDocs hooks for the rules site (mkdocs.yml `hooks:`), run inside `mkdocs build`.

MkDocs resolves Markdown links but leaves raw HTML alone, and the generated gallery, table
and rule paragraphs are raw HTML. Pages therefore write `href="carte.md#…"` and
`src="img/…"` relative to their source file, and `on_page_content` turns each into the
URL of the built file, so the same pages work with folder URLs (served) and with file URLs
(the offline variant). `on_page_markdown` keeps the parts of a page written for the variant
being built; `on_post_build` makes 404.html work under any base path.
"""

from __future__ import annotations

import json
import logging
import os
import posixpath
import re
from pathlib import Path
from typing import Any

from pipeline.common.sanitize import sanitize_html

log = logging.getLogger("mkdocs.plugins.cartiera")

_RAW_LINK = re.compile(r'(?P<attr>\b(?:href|src))="(?P<path>[^":#?]+)(?P<frag>#[^"]*)?"')
# The 404 page's base: the site's folder in the path (the part before the first top-level
# name of the site), else site_url's path when the path starts with it, else "/"; from
# file:// the page's own folder.
_BASE_SCRIPT = (
    "<script>(function(){var p=location.pathname,b=BASE,r=ROOTS,s=p.split('/'),i;"
    "for(i=1;i<s.length-1;i++){if(r.indexOf(s[i])>=0){b=s.slice(0,i).join('/')+'/';break}}"
    "if(i>=s.length-1&&p.indexOf(b)!==0){b='/'}"
    # Opened from file:// (the offline copy), the page is 404.html at the site's root.
    "if(location.protocol==='file:'){b=p.slice(0,p.lastIndexOf('/')+1)}"
    "window.__cartiera_base=b;document.write('<base href='+JSON.stringify(b)+'>')})()</script>"
)
# Material reads its base (for search) from the page's JSON config: give it the same one.
_CONFIG_SCRIPT = (
    "<script>(function(){var c=document.getElementById('__config'),d=JSON.parse(c.textContent);"
    "d.base=__cartiera_base;if(d.search.indexOf(BASE)===0){d.search=__cartiera_base+"
    "d.search.slice(BASE.length)}c.textContent=JSON.stringify(d)})()</script>"
)
_ABSOLUTE = re.compile(r'(?P<attr>\b(?:href|src|content))="(?P<base>/[^"]*)"')


# A part of a page for one variant of the site only: "<!-- cartiera:offline -->" (or
# "served") on a line of its own, up to "<!-- cartiera:end -->".
_VARIANT = re.compile(
    r"^<!-- cartiera:(offline|served) -->\n(.*?)^<!-- cartiera:end -->\n?", re.M | re.S
)


def on_env(env: Any, config: Any, files: Any) -> Any:
    """The theme's templates in Jinja2's sandbox, as ours are (pipeline.publish.templating):
    the overrides under templates/site/theme are sources a pull request may change, and
    MkDocs renders them with a plain Environment, where a template can reach os."""
    from jinja2.sandbox import SandboxedEnvironment

    safe = SandboxedEnvironment(loader=env.loader, auto_reload=False)
    for name in env.extensions:  # MkDocs' i18n: {% trans %} and the theme's translations
        safe.add_extension(name)
    safe.filters.update(env.filters)
    safe.tests.update(env.tests)
    safe.policies.update(env.policies)
    safe.globals.update({k: v for k, v in env.globals.items() if k != "range"})
    if hasattr(env, "newstyle_gettext"):
        safe.newstyle_gettext = env.newstyle_gettext  # type: ignore[attr-defined]
    return safe


def on_page_markdown(markdown: str, page: Any, config: Any, files: Any) -> str:
    """Keep the parts written for this variant (the offline plugin's switch, CARTIERA_OFFLINE),
    and drop the other's, before their links are checked."""
    here = "offline" if os.environ.get("CARTIERA_OFFLINE", "false") == "true" else "served"
    return _VARIANT.sub(lambda part: part[2] if part[1] == here else "", markdown)


def on_page_content(html: str, page: Any, config: Any, files: Any) -> str:
    """Resolve raw-HTML links to pages and files the way MkDocs resolves Markdown ones,
    then keep only the tags and attributes of the allow-list (pipeline.common.sanitize)."""
    here = posixpath.dirname(page.file.src_uri)

    def resolve(match: re.Match[str]) -> str:
        path = match["path"]
        if path.startswith(("/", "data", "mailto")) or "//" in path:
            return match[0]
        target = files.get_file_from_path(posixpath.normpath(posixpath.join(here, path)))
        if target is None:
            if path.endswith(".md") or "." in posixpath.basename(path):
                log.warning(
                    "%s: raw link to '%s' names no file of the site", page.file.src_uri, path
                )
            return match[0]
        url = target.url_relative_to(page.file)
        return f'{match["attr"]}="{url}{match["frag"] or ""}"'

    # Last, so no page carries active content from the sources, whatever path it came by.
    return sanitize_html(_RAW_LINK.sub(resolve, html))


def on_post_build(config: Any) -> None:
    """404.html is served for any missing path, at any depth: make its links relative to a
    base that a small inline script finds, instead of the absolute path of site_url.
    Without site_url there is no sitemap: its addresses would not be absolute."""
    if not config.get("site_url"):
        for name in ("sitemap.xml", "sitemap.xml.gz"):
            (Path(config["site_dir"]) / name).unlink(missing_ok=True)
    page = Path(config["site_dir"]) / "404.html"
    if not page.exists():
        return
    html = page.read_text(encoding="utf-8")
    prefix = re.search(r'href="(/[^"]*?)assets/', html)
    if prefix is None:
        return
    base = prefix.group(1)
    roots = sorted(
        p.name for p in Path(config["site_dir"]).iterdir() if p.name not in ("404.html",)
    )

    def relative(match: re.Match[str]) -> str:
        value = match["base"]
        if not value.startswith(base):
            return match[0]
        return f'{match["attr"]}="{value[len(base) :] or "./"}"'

    html = _ABSOLUTE.sub(relative, html)
    script = _BASE_SCRIPT.replace("BASE", json.dumps(base)).replace("ROOTS", json.dumps(roots))
    html = html.replace("<head>", "<head>" + script, 1)
    html = html.replace(
        f'__md_scope=new URL("{base}",location)', "__md_scope=new URL(__cartiera_base,location)"
    )
    bundle = html.find('<script src="assets/javascripts/bundle.')
    if bundle >= 0:
        config_script = _CONFIG_SCRIPT.replace("BASE", json.dumps(base))
        html = html[:bundle] + config_script + html[bundle:]
    page.write_text(html, encoding="utf-8")
