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
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from collections import defaultdict
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

import yaml
from jinja2 import pass_context
from jinja2.runtime import Context
from markupsafe import Markup

from pipeline.common.lock import die_with_parent, holding_lock
from pipeline.common.output import FIXED_DATE, atomic_write, publish_folder, zip_bytes
from pipeline.common.problems import Problem, SourceError
from pipeline.common.project import Project
from pipeline.common.settings import _LenientLoader, missing_site_url_note, site_url
from pipeline.common.words import decimal
from pipeline.database.catalog import GameInfo, game_slugs, read_game
from pipeline.database.connection import open_project_db
from pipeline.publish import board
from pipeline.publish.artifacts import OFFLINE_ZIP, SITE_GENERATED, artifacts
from pipeline.publish.markup import (
    escape_html,
    escape_markdown,
    link_rulings,
    markdown_ruling_link,
    not_a_list,
)
from pipeline.publish.render.paper import CARD_SIZES
from pipeline.publish.rulebook import (
    SOURCE_LABELS,
    STATUS_LABELS,
    clause_refs,
    deck_view,
    format_value,
    ruling_views,
    term_anchors,
)
from pipeline.publish.templating import environment
from pipeline.search.sql import browser_index
from pipeline.sources import gamespec

from .balance import balance_page
from .cards import CardContext, card_images, card_pages, cell, with_image
from .rules import TermLinks, anchors_of, link_references, number_anchor, paragraphs_html

# How mkdocs.yml names our hooks: today's path, and the one projects made before the
# regrouping of pipeline/ still carry.
OUR_HOOKS = ("pipeline/publish/site/hooks.py", "pipeline/site_hooks.py")
QUERY_SCRIPT = "assets/query.js"
# The cards the query box searches, as a script (a page opened from file:// may not fetch a
# JSON file): the same folding, vocabularies and values as pipeline.search.sql.
QUERY_INDEX = "giochi/indice-carte.js"
PAGES = [
    ("index.md", "Panoramica"),
    ("regole.md", "Regole"),
    ("glossario.md", "Glossario"),
    ("chiarimenti.md", "Chiarimenti"),
    ("carte.md", "Carte"),
    ("tabella.md", "Tabella delle carte"),
    ("esempi.md", "Esempi"),
    ("partita.md", "Partite di esempio"),
    ("bilanciamento.md", "Bilanciamento"),
    ("scarica.md", "Scarica"),
]


@dataclass(frozen=True)
class Download:
    name: str
    label: str
    size: str


def md(text: Any) -> Markup:
    """Plain text made safe inside Markdown: literal HTML characters and no markup."""
    return Markup(escape_markdown(escape_html(str(text))))


@pass_context
def md_filter(context: Context, text: Any) -> Markup:
    """`md` for templates: on a game's pages (context `ruling_questions`, `depth`), a
    ruling cited by id ("vedi il chiarimento formato-carte") reads as its question and
    links to it."""
    questions = context.get("ruling_questions") or {}
    link = markdown_ruling_link(f"{context.get('depth', '')}chiarimenti.md")
    return Markup(link_rulings(escape_html(str(text)), questions, link, escape_markdown))


def site_dir(project: Project) -> Path:
    return project.root / "site"


def generate(
    project: Project,
    with_images: bool = True,
    warn: Callable[[str], None] | None = None,
    offer_zip: bool | None = None,
) -> list[str]:
    """Write every generated page; return the slugs of the games published.

    The pages serve both variants of the site: the home page holds each variant's paragraph
    on the offline copy, and the hooks keep the one for the site being built. The served
    one offers the offline zip when `offer_zip` (by default: when `cartiera build` made it)."""
    return [game.slug for game in _generate(project, with_images, warn, offer_zip)]


def _generate(
    project: Project,
    with_images: bool,
    warn: Callable[[str], None] | None,
    offer_zip: bool | None = None,
) -> list[GameInfo]:
    docs = site_dir(project)
    for name in SITE_GENERATED:
        target = docs / name
        if target.is_dir():
            shutil.rmtree(target)
        elif target.exists():
            target.unlink()
    env = _environment(project)
    with open_project_db(project) as engine:
        slugs = game_slugs(engine)
        games = [read_game(engine, slug) for slug in slugs]
        index = json.dumps(browser_index(engine), ensure_ascii=False, sort_keys=True)
    # The pictures and boards (PDFium, PNG and games played by the engines: seconds) are
    # made in two other processes while this one writes the pages, a game at a time.
    with ProcessPoolExecutor(
        max_workers=2, initializer=die_with_parent, initargs=(os.getpid(),)
    ) as pool:
        biggest_first = sorted(games, key=lambda game: -len(game.cards))
        media = {g.slug: pool.submit(_media, project, g, with_images) for g in biggest_first}
        for game in games:
            _game_pages(project, env, game, media[game.slug].result(), warn)
    offered = offline_zip_path(project).exists() if offer_zip is None else offer_zip
    _write(docs / "index.md", _home_page(env, games, offered))
    if offered:  # what the link names while the site is built (see offer_offline_zip)
        _write(docs / ZIP_LINK, "")
    _write(docs / QUERY_INDEX, f"window.CARTIERA_INDEX = {index};\n")
    board.write_site_assets(project, docs)  # the step-through board's script and style
    return games


def _environment(project: Project) -> Any:
    env = environment(project.templates_dir)
    env.filters["md"] = md_filter
    return env


def _home_page(env: Any, games: list[GameInfo], offer_zip: bool) -> str:
    """The home page: the games, and where the offline variant is (this one, or a zip)."""
    return str(
        env.get_template("site/home.md.j2").render(
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
            offline_zip=OFFLINE_ZIP if offer_zip else None,
            zip_size=Markup(ZIP_SIZE),
        )
    )


def offline_zip_path(project: Project) -> Path:
    return project.build_dir / "downloads" / OFFLINE_ZIP


# The served home page links the offline zip and gives its size, but the two variants are
# built side by side, before the zip exists: the page links an empty file and leaves its
# size blank, and offer_offline_zip puts both in once the zip is made.
ZIP_LINK = f"scarica/{OFFLINE_ZIP}"
ZIP_SIZE = '<span class="cartiera-zip-size"></span>'


def offer_offline_zip(project: Project, site: Path) -> None:
    """Put the offline zip and its size into the served site whose home page offers it."""
    source, target, page = offline_zip_path(project), site / ZIP_LINK, site / "index.html"
    if not (source.is_file() and target.is_file() and page.is_file()):
        return  # not offered (no zip yet), or a site built before
    shutil.copyfile(source, target)
    html = page.read_text(encoding="utf-8")
    size = ZIP_SIZE.replace("></", f">{_size(source.stat().st_size)}</")
    page.write_text(html.replace(ZIP_SIZE, size), encoding="utf-8")


def _write(path: Path, text: str) -> None:
    _check_front_matter(path, text)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def _check_front_matter(path: Path, text: str) -> None:
    """A page's front matter must read as YAML with a title: MkDocs drops a broken one
    without a word (the page loses its title and search boost), so the build says so."""
    if not text.startswith("---\n"):
        return
    head = text[4 : text.find("\n---\n", 3) + 1]
    try:
        meta = yaml.safe_load(head)
    except yaml.YAMLError as exc:
        meta = str(exc).splitlines()[0]
    if not isinstance(meta, dict) or not isinstance(meta.get("title"), str):
        raise SourceError(
            Problem(
                "error",
                f"the generated page {path.name} has broken front matter ({meta!r:.80})",
                hint="quote template values in front matter with `| yaml_str`",
            )
        )


def _game_dir(project: Project, game: GameInfo) -> Path:
    return site_dir(project) / "giochi" / game.slug


@dataclass(frozen=True)
class Media:
    """What a game's pages show that takes seconds to make."""

    pictures: tuple[dict[str, str], tuple[int, int]]  # card_images, or none
    boards: dict[str, str]  # each worked example's board, by example code
    sample: str | None  # the page of sample games (partita.md), for a game with an engine


def _media(project: Project, game: GameInfo, with_images: bool) -> Media:
    folder = _game_dir(project, game)
    pictures = card_images(project, game, folder / "img") if with_images else ({}, (0, 0))
    boards = board.example_boards(project, game, [e.code for e in game.examples], folder)
    return Media(pictures, boards, board.sample_page(project, game, folder))


def _game_pages(
    project: Project,
    env: Any,
    game: GameInfo,
    media: Media,
    warn: Callable[[str], None] | None,
) -> None:
    folder = _game_dir(project, game)
    refs = clause_refs(game)
    anchors = anchors_of(game.sections)
    questions = {r.code: r.question for r in game.rulings}

    def texts(depth: str) -> Any:
        """Rule-like Markdown with cited rulings, references and glossary terms linked,
        for a page `depth` folders below the game's own."""
        terms = TermLinks.build(game.terms, f"{depth}glossario.md")
        ruling_link = markdown_ruling_link(f"{depth}chiarimenti.md")

        def link(text: str, skip: str | None = None) -> Markup:
            text = link_rulings(text, questions, ruling_link)
            return Markup(terms.link(link_references(text, anchors, f"{depth}regole.md"), skip))

        return link

    text = texts("")
    rulings = ruling_views(game)
    for ruling in rulings:
        ruling["answer_md"] = text(not_a_list(escape_html(ruling["answer"])))
    # A ruling's box stands after the first clause it settles; later clauses link to it.
    by_clause: dict[str, list[dict[str, Any]]] = defaultdict(list)
    see_also: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for ruling in rulings:
        for index, ref in enumerate(dict.fromkeys(r.anchor for r in ruling["clause_refs"])):
            (see_also if index else by_clause)[ref].append(ruling)
    sections = [
        {
            "number": s.number,
            "title": s.title,
            "anchor": s.anchor,
            "number_anchor": number_anchor(s.number),
            "level": s.level,
            "body": Markup(paragraphs_html(s, text)),
        }
        for s in game.sections
    ]
    terms = []
    for term in sorted(game.terms, key=lambda t: _collation(t.term)):
        terms.append(
            {
                "term": term.term,
                "anchor": term.anchor,
                "kind": term.kind,
                "definition": text(escape_html(term.definition_md), skip=term.anchor),
                "refs": refs(term_anchors(term, 8)),
            }
        )
    examples = _examples(game, text)
    examples_by_clause: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for example in examples:
        for ref in example["refs"][:1]:
            examples_by_clause[ref.anchor].append(example)
    images, size = media.pictures
    for example in examples:  # each worked example's board after its narration
        example["narration"] += Markup("\n\n" + media.boards.get(example["code"], ""))
    decks = []
    for deck in game.decks:
        view = deck_view(game, deck)
        view["code"] = deck.code
        view["cards"] = [with_image(card, images) for card in deck.cards]
        decks.append(view)
    trim = CARD_SIZES[game.card_size]
    balance = balance_page(project, game, folder / "bilanciamento", warn)
    common = {
        "game": game,
        "status_labels": STATUS_LABELS,
        "source_labels": SOURCE_LABELS,
        "has_balance": balance is not None,
        "has_examples": bool(examples),
        "ruling_questions": questions,
    }
    pages: dict[str, tuple[str, dict[str, Any]]] = {
        "index.md": (
            "site/overview.md.j2",
            {
                "decks": decks,
                "incomplete_decks": [d for d in decks if d["status"] == "incomplete"],
                "card_size": f"{game.card_size} ({trim.width:g} × {trim.height:g} mm)".replace(
                    ".", ","
                ),
            },
        ),
        "regole.md": (
            "site/rules.md.j2",
            {
                "sections": sections,
                "rulings_by_clause": by_clause,
                "rulings_see_also": see_also,
                "examples": examples_by_clause,
            },
        ),
        "glossario.md": ("site/glossary.md.j2", {"terms": terms}),
        "chiarimenti.md": ("site/rulings.md.j2", {"rulings": rulings}),
        "carte.md": ("site/cards.md.j2", {"decks": decks, "image_size": size}),
        "tabella.md": (
            "site/table.md.j2",
            {
                "cards": game.cards,
                "columns": game.attributes,
                "kinds": game.kinds,
                "decks": game.decks if len(game.decks) > 1 else [],
                "filters": [a for a in game.attributes if a.type in ("int", "enum")],
                "format_value": format_value,
                "cell": cell,
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
    if media.sample is not None:
        _write(folder / "partita.md", media.sample)
    if balance is not None:
        pages["bilanciamento.md"] = ("site/balance.md.j2", {"balance": balance})
    for name, (template, context) in pages.items():
        _write(folder / name, env.get_template(template).render(**common, **context))
    card_text = texts("../")
    for name, page in card_pages(
        env.get_template("site/card.md.j2"),
        common,
        CardContext(game, rulings, examples, size, lambda text: card_text(str(md(text)))),
        [card for view in decks for card in view["cards"]],
    ):
        _write(folder / "carte" / name, page)


def _collation(word: str) -> str:
    """Italian alphabetical order: accents and case do not count."""
    plain = unicodedata.normalize("NFKD", word.casefold())
    return "".join(c for c in plain if not unicodedata.combining(c))


def _downloads(project: Project, game: GameInfo, folder: Path) -> list[Download]:
    """Every file `cartiera build` makes for this game, copied next to the page; one it has
    not made yet is listed without a size (the page says how to make it)."""
    items = []
    for artifact in artifacts(game.slug):
        path, label = artifact.file(project), artifact.label
        if not path.exists():
            items.append(Download(path.name, label, ""))
            continue
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, folder / path.name)
        items.append(Download(path.name, label, _size(path.stat().st_size)))
    return items


def _size(count: int) -> str:
    if count >= 1_000_000:
        return f"{decimal(count / 1_000_000, '.1f')} MB"
    return f"{max(1, round(count / 1000))} kB"


def _examples(game: GameInfo, text: Any) -> list[dict[str, Any]]:
    """Worked examples from the database, narrated (games with a rules engine)."""
    refs = clause_refs(game)
    return [
        {
            "code": e.code,
            "title": e.title,
            "narration": text(escape_html(e.narration_md)),
            "source": e.narration_md,
            "refs": refs(e.clauses),
        }
        for e in game.examples
    ]


def mkdocs_config(project: Project, slugs: list[str], offline: bool) -> Path:
    """mkdocs.yml with the generated navigation, absolute paths and the site's URL, under
    build/: one tab per game, so the sidebar shows one game at a time."""
    source = project.root / "mkdocs.yml"
    if not source.exists():
        raise SourceError(Problem("error", "mkdocs.yml is missing", file="mkdocs.yml"))
    config = yaml.load(source.read_text(encoding="utf-8"), Loader=_LenientLoader) or {}
    docs = site_dir(project)
    nav: list[Any] = [{"Inizio": "index.md"}]
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
    # Our hooks come from the installed package, so a project without pipeline/ beside its
    # mkdocs.yml builds the same site; other hooks are relative to the project.
    ours = str(Path(__file__).with_name("hooks.py"))
    hooks = [
        ours if Path(h).as_posix() in OUR_HOOKS else str((project.root / h).resolve())
        for h in config.get("hooks", [])
    ]
    scripts = list(config.get("extra_javascript", []))
    if (docs / QUERY_SCRIPT).exists():  # the card query language
        scripts += [QUERY_INDEX, QUERY_SCRIPT]
    if (docs / board.SITE_ASSETS).is_dir():  # the step-through board
        scripts.append(f"{board.SITE_ASSETS}/board.js")
        config["extra_css"] = [*config.get("extra_css", []), f"{board.SITE_ASSETS}/board.css"]
    theme = config.get("theme")
    if isinstance(theme, dict) and theme.get("custom_dir"):
        theme["custom_dir"] = str((project.root / theme["custom_dir"]).resolve())
    address = site_url(project)
    if address is None:  # no canonical links, no sitemap (our hooks remove it)
        config.pop("site_url", None)
    else:
        config["site_url"] = address
    config.update(
        docs_dir=str(docs),
        site_dir=str(_site_folder(project, offline)),
        nav=nav,
        hooks=hooks or [ours],
        extra_javascript=scripts,
    )
    for plugin in config.get("plugins", []):
        if isinstance(plugin, dict) and "offline" in plugin:
            plugin["offline"] = {"enabled": offline}
    if offline:  # the zip is the offline site: it does not hold itself (nor its stand-in)
        config["exclude_docs"] = f"{config.get('exclude_docs') or ''}\n/{ZIP_LINK}\n".lstrip()
    target = project.build_dir / ("mkdocs-offline.yml" if offline else "mkdocs.yml")
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(yaml.safe_dump(config, allow_unicode=True, sort_keys=False), encoding="utf-8")
    return target


def _title(page: Path) -> str:
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("title: "):  # a YAML value, quoted by the templates' yaml_str
            return str(yaml.safe_load(line[len("title: ") :]))
        if line.startswith("# "):
            return line[2:].strip()
    return page.stem.capitalize()


@holding_lock("site")
def build_site(
    project: Project,
    offline: bool = False,
    with_images: bool = True,
    warn: Callable[[str], None] | None = None,
) -> Path:
    """Generate the pages and run `mkdocs build --strict`; return the site folder.

    `warn` receives one line per thing a publisher should know (what is left out while
    site_url is not set, downloads that `cartiera build` has not made yet)."""
    slugs = [g.slug for g in _prepare(project, with_images, warn)]
    folder = _mkdocs(project, slugs, offline)
    if not offline:
        offer_offline_zip(project, folder)
    return folder


@holding_lock("site")
def build_sites(project: Project, warn: Callable[[str], None] | None = None) -> Path:
    """Both variants as `cartiera build` publishes them, from one generation of the pages,
    built side by side (two MkDocs processes); then the offline one's zip, in
    build/downloads/ and offered by the served one. Returns the served site's folder."""
    slugs = [g.slug for g in _prepare(project, True, warn, offer_zip=True)]
    with ThreadPoolExecutor(max_workers=2) as pool:
        offline, served = (pool.submit(_mkdocs, project, slugs, v) for v in (True, False))
        offline_zip(project, offline.result(), offline_zip_path(project))
        offer_offline_zip(project, served.result())
    return served.result()


def _prepare(
    project: Project,
    with_images: bool,
    warn: Callable[[str], None] | None,
    offer_zip: bool | None = None,
) -> list[GameInfo]:
    message = missing_site_url_note(project)
    if message and warn:
        warn(message)
    games = _generate(project, with_images, warn, offer_zip)
    missing = [a for g in games for a in artifacts(g.slug) if not a.file(project).exists()]
    if missing and warn:
        warn(
            f"warning: {len(missing)} download files are not built yet, so the Scarica pages "
            "list them as missing (run `cartiera build`, which builds the site too)"
        )
    return games


def _site_folder(project: Project, offline: bool) -> Path:
    return project.build_dir / ("site-offline" if offline else "site")


def _mkdocs(project: Project, slugs: list[str], offline: bool) -> Path:
    """`mkdocs build --strict` of the generated pages into build/site (or site-offline).

    MkDocs empties its folder first and stops where a page or template fails: it builds
    into a folder beside, which replaces the published one only once the build succeeded
    (a failed build leaves the last good site; a killed one, a `.*.tmp` folder that the
    next command holding the lock removes)."""
    config = mkdocs_config(project, slugs, offline)
    env = {
        **os.environ,
        "CARTIERA_OFFLINE": "true" if offline else "false",
        "NO_MKDOCS_2_WARNING": "1",  # Material's notice on stderr is not a build warning
        # The sitemap's dates: the same sources give the same site (and offline zip).
        "SOURCE_DATE_EPOCH": str(int(datetime.fromisoformat(FIXED_DATE).timestamp())),
    }
    target = _site_folder(project, offline)
    building = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    try:
        command = [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet"]
        result = subprocess.run(
            [*command, "-f", str(config), "--site-dir", str(building)],
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
        publish_folder(building, target)
    finally:
        shutil.rmtree(building, ignore_errors=True)
    return target


def offline_zip(project: Project, folder: Path, target: Path) -> Path:
    """The offline site as one zip whose bytes depend only on its files."""
    files = (p for p in folder.rglob("*") if p.is_file())
    entries = [(f"cartiera-offline/{p.relative_to(folder).as_posix()}", p) for p in files]
    atomic_write(target, zip_bytes(entries))
    return target


class _Handler(http.server.SimpleHTTPRequestHandler):
    """Serves the site's own Italian 404 page instead of Python's English one."""

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        page = Path(self.directory) / "404.html"
        if code != 404 or not page.exists():
            super().send_error(code, message, explain)
            return
        body = page.read_bytes()
        self.send_response(404)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)


def serve(folder: Path, port: int) -> None:
    """Serve a built site on localhost until interrupted."""
    handler = functools.partial(_Handler, directory=str(folder))
    with http.server.ThreadingHTTPServer(("127.0.0.1", port), handler) as server:
        print(f"serving {folder} at http://127.0.0.1:{port}/ (Ctrl-C to stop)")
        with contextlib.suppress(KeyboardInterrupt):
            server.serve_forever()
