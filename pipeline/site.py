"""`cartiera site`: the rules website, generated from cards.db and built with MkDocs.

Pages are written into the generated part of site/ (site/index.md and site/giochi/,
git-ignored); hand-written pages and assets stay beside them. The navigation is added to
a copy of mkdocs.yml under build/, and `mkdocs build --strict` makes build/site.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml
from markupsafe import Markup

from . import gamespec
from .artifacts import artifacts
from .catalog import AttributeInfo, CardInfo, GameInfo, game_slugs, read_game
from .database import open_engine
from .markup import TermLinker, escape_html
from .problems import Problem, SourceError
from .project import Project
from .render.images import ImageOptions, build_images
from .render.paper import CARD_SIZES
from .rulebook import (
    SOURCE_LABELS,
    STATUS_LABELS,
    clause_refs,
    deck_view,
    format_value,
    ruling_views,
    term_anchors,
)
from .settings import _LenientLoader
from .templating import environment

GENERATED = ("index.md", "giochi")
IMAGE_DPI = 150
PAGES = [
    ("index.md", "Panoramica"),
    ("regole.md", "Regole"),
    ("glossario.md", "Glossario"),
    ("chiarimenti.md", "Chiarimenti"),
    ("carte.md", "Carte"),
    ("tabella.md", "Tabella delle carte"),
    ("esempi.md", "Esempi"),
    ("scarica.md", "Scarica"),
]


@dataclass(frozen=True)
class Download:
    name: str
    label: str
    size: str


def md(text: Any) -> Markup:
    """Plain text made safe inside Markdown: literal HTML characters and no markup."""
    escaped = escape_html(str(text))
    return Markup(re.sub(r"([\\`*_\[\]|])", r"\\\1", escaped))


def site_dir(project: Project) -> Path:
    return project.root / "site"


def generate(project: Project, with_images: bool = True) -> list[str]:
    """Write every generated page; return the slugs of the games published."""
    docs = site_dir(project)
    for name in GENERATED:
        target = docs / name
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    env = environment(project.templates_dir)
    env.filters["md"] = md
    with open_engine(project) as engine:
        slugs = game_slugs(engine)
        games = [read_game(engine, slug) for slug in slugs]
    for game in games:
        _game_pages(project, env, game, with_images)
    home = env.get_template("site/home.md.j2").render(
        games=[
            {
                "slug": g.slug,
                "name": g.name,
                "subtitle": g.subtitle,
                "players": g.players,
                "duration": g.duration,
                "status": g.status,
                "description": g.description,
                "cards": g.decks[0].total,
            }
            for g in games
        ],
        status_labels=STATUS_LABELS,
    )
    _write(docs / "index.md", home)
    return slugs


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _game_pages(project: Project, env: Any, game: GameInfo, with_images: bool) -> None:
    folder = site_dir(project) / "giochi" / game.slug
    refs = clause_refs(game)

    rulings = ruling_views(game)
    by_clause: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for ruling in rulings:
        for ref in ruling["clause_refs"]:
            by_clause[ref.anchor].append(ruling)
    linker = TermLinker.build(game.terms, lambda t: f"glossario.md#{t.anchor}")
    sections = [
        {
            "number": s.number,
            "title": s.title,
            "anchor": s.anchor,
            "level": s.level,
            "body": Markup(linker.link(escape_html(s.body_md))),
        }
        for s in game.sections
    ]
    terms = []
    for term in game.terms:
        anchors = term_anchors(term, 8)
        terms.append(
            {
                "term": term.term,
                "anchor": term.anchor,
                "kind": term.kind,
                "definition": Markup(escape_html(term.definition_md)),
                "refs": refs(anchors),
            }
        )
    examples = _examples(game)
    examples_by_clause: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for example in examples:
        for ref in example["refs"][:1]:
            examples_by_clause[ref.anchor].append(example)
    images, size = _images(project, game, folder / "img") if with_images else ({}, (0, 0))
    decks = []
    for deck in game.decks:
        view = deck_view(game, deck)
        view["code"] = deck.code
        view["cards"] = [_with_image(card, images) for card in deck.cards]
        decks.append(view)
    trim = CARD_SIZES[game.card_size]
    common = {"game": game, "status_labels": STATUS_LABELS, "source_labels": SOURCE_LABELS}
    pages = {
        "index.md": (
            "site/overview.md.j2",
            {
                "decks": decks,
                "examples": examples,
                "incomplete_decks": [d for d in decks if d["status"] == "incomplete"],
                "card_size": f"{game.card_size} ({trim.width:g} × {trim.height:g} mm)".replace(
                    ".", ","
                ),
            },
        ),
        "regole.md": (
            "site/rules.md.j2",
            {"sections": sections, "rulings_by_clause": by_clause, "examples": examples_by_clause},
        ),
        "glossario.md": ("site/glossary.md.j2", {"terms": terms}),
        "chiarimenti.md": ("site/rulings.md.j2", {"rulings": rulings}),
        "carte.md": (
            "site/cards.md.j2",
            {
                "decks": decks,
                "attributes": game.attributes,
                "format_value": format_value,
                "text_labels": game.texts,
                "image_size": size,
            },
        ),
        "tabella.md": (
            "site/table.md.j2",
            {
                "cards": game.cards,
                "columns": game.attributes,
                "kinds": game.kinds,
                "filters": [a for a in game.attributes if a.type in ("int", "enum")],
                "format_value": format_value,
                "cell": _cell,
                "view": gamespec.view_name(game.slug),
            },
        ),
        "scarica.md": (
            "site/downloads.md.j2",
            {"downloads": _downloads(project, game, folder / "scarica")},
        ),
    }
    if examples:
        pages["esempi.md"] = ("site/examples.md.j2", {"examples": examples})
    for name, (template, context) in pages.items():
        _write(folder / name, env.get_template(template).render(**common, **context))


def _with_image(card: CardInfo, images: dict[str, str]) -> CardInfo:
    card.image = images.get(card.code)  # type: ignore[attr-defined]
    return card


def _cell(card: CardInfo, attr: AttributeInfo) -> str:
    value = card.attributes.get(attr.key)
    if value is None:
        return ""
    if isinstance(value, list):
        return "|".join(value)
    if isinstance(value, bool):
        return "1" if value else "0"
    return str(value)


def _images(project: Project, game: GameInfo, folder: Path) -> tuple[dict[str, str], tuple]:
    """Each card's front as a web-sized PNG (cropped to the card's edge)."""
    result = build_images(project, game.slug, ImageOptions(dpi=IMAGE_DPI, bleed=False), folder)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    return {card["code"]: card["front"] for card in manifest["cards"]}, result.size


def _downloads(project: Project, game: GameInfo, folder: Path) -> list[Download]:
    """The files `cartiera build` made for this game, copied next to the page."""
    items = []
    for artifact in artifacts(game.slug):
        path, label = artifact.file(project), artifact.label
        if not path.exists():
            continue
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, folder / path.name)
        items.append(Download(path.name, label, _size(path.stat().st_size)))
    return items


def _size(count: int) -> str:
    if count >= 1_000_000:
        return f"{count / 1_000_000:.1f} MB".replace(".", ",")
    return f"{max(1, round(count / 1000))} kB"


def _examples(game: GameInfo) -> list[dict[str, Any]]:
    """Worked examples from the database, narrated (games with a rules engine)."""
    refs = clause_refs(game)
    return [
        {
            "code": e.code,
            "title": e.title,
            "narration": Markup(escape_html(e.narration_md)),
            "refs": refs(e.clauses),
        }
        for e in game.examples
    ]


def mkdocs_config(project: Project, slugs: list[str], offline: bool) -> Path:
    """mkdocs.yml with the generated navigation and absolute paths, under build/."""
    source = project.root / "mkdocs.yml"
    if not source.exists():
        raise SourceError(Problem("error", "mkdocs.yml is missing", file="mkdocs.yml"))
    config = yaml.load(source.read_text(encoding="utf-8"), Loader=_LenientLoader) or {}
    docs = site_dir(project)
    nav: list[Any] = [{"Home": "index.md"}]
    for slug in slugs:
        folder = docs / "giochi" / slug
        title = _title(folder / "index.md")
        entries = [
            {label: f"giochi/{slug}/{name}"} for name, label in PAGES if (folder / name).exists()
        ]
        nav.append({title: entries})
    nav += [
        {_title(p): p.relative_to(docs).as_posix()}
        for p in sorted(docs.glob("*.md"))
        if p.name != "index.md"
    ]
    config.update(
        docs_dir=str(docs),
        site_dir=str(project.build_dir / ("site-offline" if offline else "site")),
        nav=nav,
    )
    for plugin in config.get("plugins", []):
        if isinstance(plugin, dict) and "offline" in plugin:
            plugin["offline"] = {"enabled": offline}
    target = project.build_dir / ("mkdocs-offline.yml" if offline else "mkdocs.yml")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return target


def _title(page: Path) -> str:
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("title: "):
            return line[len("title: ") :].strip()
        if line.startswith("# "):
            return line[2:].strip()
    return page.stem.capitalize()


def build_site(project: Project, offline: bool = False, with_images: bool = True) -> Path:
    """Generate the pages and run `mkdocs build --strict`; return the site folder."""
    slugs = generate(project, with_images)
    config = mkdocs_config(project, slugs, offline)
    env = {**os.environ, "CARTIERA_OFFLINE": "true" if offline else "false"}
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "-f", str(config)],
        cwd=project.root,
        capture_output=True,
        text=True,
        env=env,
    )
    if result.returncode != 0:
        lines = [line for line in (result.stderr + result.stdout).splitlines() if line.strip()]
        first = next(
            (line for line in lines if "WARNING" in line or "ERROR" in line),
            lines[-1] if lines else "mkdocs failed",
        )
        raise SourceError(
            Problem(
                "error",
                f"mkdocs build --strict: {first.strip()}",
                hint="fix the page or template it names",
            )
        )
    return project.build_dir / ("site-offline" if offline else "site")


def serve(folder: Path, port: int) -> None:
    """Serve a built site on localhost until interrupted."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        print(f"serving {folder} at http://127.0.0.1:{port}/ (Ctrl-C to stop)")
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever()
