"""Rule text written by an attacker: the rulebook and the site read no file outside the
project, make no network request, and carry no active content.

The sources of Bless get pictures of a local file and of a loopback server, a style that
fetches a background, a `javascript:` link and an event attribute, in rules.md, a ruling
and a glossary term. A recording HTTP server on 127.0.0.1 counts every request; an audit
hook counts every file this process opens and every connection it makes while rendering.
"""

from __future__ import annotations

import base64
import http.server
import re
import sys
import threading
from collections.abc import Callable, Iterator
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, ClassVar

import pytest
from conftest import Run, edit, pdf_text
from pypdf import PdfReader

import pipeline.publish.site.pages
from pipeline.common.project import open_project
from pipeline.common.sanitize import sanitize_html
from pipeline.publish.markup import md_to_html
from pipeline.publish.render.fetch import ProjectFetcher
from pipeline.publish.site.pages import build_site

# A 1×1 PNG: what a secret picture or a remote one would be.
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


class _Recorder(http.server.BaseHTTPRequestHandler):
    requests: ClassVar[list[str]]

    def do_GET(self) -> None:
        self.requests.append(self.path)
        self.send_response(200)
        self.send_header("Content-Type", "image/png")
        self.end_headers()
        self.wfile.write(PNG)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def loopback() -> Iterator[tuple[int, list[str]]]:
    """A server on 127.0.0.1 that answers every GET with a picture and records it."""
    requests: list[str] = []
    handler = type("Recorder", (_Recorder,), {"requests": requests})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server.server_address[1], requests
    server.shutdown()
    server.server_close()


def _hostile(secret: Path, port: int, indent: str) -> str:
    lines = [
        f"Pericolo ![segreto]({secret.as_uri()}) e ![rete](http://127.0.0.1:{port}/rete.png) "
        f"e [clic](javascript:alert(1)) e [nascosto](JaVaScRiPt:alert(3)).",
        f'{{: onclick="alert(2)" onmouseover="alert(4)" style="background: '
        f'url(http://127.0.0.1:{port}/sfondo.png)" .innocua }}',
        "",
    ]
    return "".join(f"{indent}{line}\n" if line else "\n" for line in lines)


@pytest.fixture
def hostile(project: Path, tmp_path: Path, loopback: tuple[int, list[str]]) -> Path:
    """The project with hostile Markdown in Mazzo's rules, a ruling and a glossary term
    (Mazzo: the shortest rulebook to render again)."""
    port = loopback[0]
    secret = tmp_path / "segreto.png"
    secret.write_bytes(PNG)
    games = project / "games" / "mazzo"
    with (games / "rules.md").open("a", encoding="utf-8") as rules:
        rules.write("\n" + _hostile(secret, port, ""))
    edit(
        games / "rulings.yaml",
        "    answer: >-\n      ",
        "    answer: |-\n" + _hostile(secret, port, "      ") + "      ",
    )
    edit(
        games / "glossary.yaml",
        "    definition: >-\n      ",
        "    definition: |-\n" + _hostile(secret, port, "      ") + "      ",
    )
    return project


class _Opened:
    """Every file opened and every connection made by this process while `recording`."""

    def __init__(self) -> None:
        self.recording = False
        self.files: list[str] = []
        self.connections: list[str] = []
        sys.addaudithook(self.hook)  # hooks cannot be removed: it only records when asked

    def hook(self, event: str, args: tuple[Any, ...]) -> None:
        if not self.recording:
            return
        if event == "open" and isinstance(args[0], (str, Path)):
            self.files.append(str(args[0]))
        elif event == "open" and isinstance(args[0], bytes):
            self.files.append(args[0].decode(errors="replace"))
        elif event == "socket.connect":
            self.connections.append(repr(args[1]))


_OPENED = _Opened()


@pytest.fixture
def opened() -> Iterator[_Opened]:
    _OPENED.files.clear()
    _OPENED.connections.clear()
    _OPENED.recording = True
    yield _OPENED
    _OPENED.recording = False


class _ActiveContent(HTMLParser):
    """Event attributes, script URLs, scripts and pictures from elsewhere in a page."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            value = (value or "").strip().lower()
            if name.startswith("on"):
                self.found.append(f"<{tag} {name}>")
            if name in ("href", "src", "action", "formaction") and value.startswith(
                ("javascript:", "vbscript:", "file:")
            ):
                self.found.append(f"<{tag} {name}={value[:30]}>")
            if tag == "img" and name == "src" and "127.0.0.1" in value:
                self.found.append(f"<img src={value}>")
            if name == "style" and "url(" in value:
                self.found.append(f"<{tag} style={value[:30]}>")


def active_content(html: str) -> list[str]:
    parser = _ActiveContent()
    parser.feed(html)
    return parser.found


def _outside(files: list[str], project: Path, tmp_path: Path) -> list[str]:
    """Files of the test's folder (where the secret lies) that are not the project's."""
    return sorted(
        {f for f in files if f.startswith(str(tmp_path)) and not f.startswith(str(project))}
    )


def test_validate_names_every_hostile_reference(hostile: Path, cli: Callable[..., Run]) -> None:
    run = cli(hostile, "validate", "--no-layout", "mazzo")
    lines = [line for line in run.output.splitlines() if "games/mazzo/" in line]
    for name in ("rules.md", "rulings.yaml", "glossary.yaml"):
        text = (hostile / "games/mazzo" / name).read_text(encoding="utf-8").splitlines()
        where = f"{name}:{next(n for n, t in enumerate(text, 1) if 'Pericolo' in t)}:"
        found = [line for line in lines if where in line]
        assert any("picture 'file:///" in line for line in found), where
        assert any("picture" in line and "127.0.0.1" in line for line in found), where
        assert any("javascript:" in line for line in found), where
    assert any("rules.md:" in line and "attribute list" in line for line in lines)


def test_the_rulebook_reads_only_the_project(
    hostile: Path,
    tmp_path: Path,
    cli: Callable[..., Run],
    loopback: tuple[int, list[str]],
    opened: _Opened,
) -> None:
    opened.recording = False
    assert cli(hostile, "db", "build").exit_code == 0
    opened.recording = True
    run = cli(hostile, "rulebook", "mazzo")
    assert run.exit_code == 0, run.output
    opened.recording = False
    assert loopback[1] == [], "the rulebook fetched from the network"
    assert opened.connections == []
    assert _outside(opened.files, hostile, tmp_path) == []
    pdf = PdfReader(hostile / "build/rulebooks/mazzo-regolamento-a5.pdf")
    assert sum(len(page.images) for page in pdf.pages) == 0, "a picture was embedded"
    text = " ".join(pdf_text(hostile / "build/rulebooks/mazzo-regolamento-a5.pdf"))
    assert "Pericolo" in text  # the hostile paragraph is there, without what it named


def test_the_fetcher_serves_the_project_and_refuses_the_rest(tmp_path: Path) -> None:
    root = tmp_path / "proj"
    (root / "templates").mkdir(parents=True)
    own = root / "templates" / "logo.png"
    own.write_bytes(PNG)
    secret = tmp_path / "segreto.png"
    secret.write_bytes(PNG)
    (root / "templates" / "via.png").symlink_to(secret)
    fetcher = ProjectFetcher([root / "templates"])
    assert fetcher.fetch(own.as_uri()).read() == PNG
    assert fetcher.fetch("data:image/png;base64,AAAA").read() == b"\0\0\0"
    for url in (
        secret.as_uri(),
        (root / "templates" / "via.png").as_uri(),  # a link that leads out
        (root / "templates" / ".." / ".." / "segreto.png").as_uri(),
        "file://example.org/etc/passwd",
        "http://127.0.0.1:9/a.png",
        "https://example.org/a.png",
        "ftp://example.org/a.png",
        "data:text/html,<script>alert(1)</script>",
    ):
        with pytest.raises(ValueError):
            fetcher.fetch(url)
    assert len(fetcher.refused) == 8


def test_the_site_carries_no_active_content(
    hostile: Path,
    tmp_path: Path,
    cli: Callable[..., Run],
    loopback: tuple[int, list[str]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    assert cli(hostile, "db", "build").exit_code == 0
    # The balance simulations shape no text from the sources: left out, the build is quick.
    monkeypatch.setattr(pipeline.publish.site.pages, "balance_page", lambda *args, **kwargs: None)
    site = build_site(open_project(hostile), with_images=False)
    assert loopback[1] == []
    pages = {p: p.read_text(encoding="utf-8") for p in site.rglob("*.html")}
    for page in ("regole", "chiarimenti", "glossario"):
        html = pages[site / "giochi/mazzo" / page / "index.html"]
        assert "Pericolo" in html, page  # the hostile text is shown, harmless
        assert 'class="innocua"' in html, page  # its class kept, nothing else
    found = {p.relative_to(site).as_posix(): active_content(h) for p, h in pages.items()}
    assert {p: f for p, f in found.items() if f} == {}
    for path, html in pages.items():
        article = re.search(r"<article[^>]*>(.*)</article>", html, re.DOTALL)
        assert article is None or "<script" not in article.group(1), path
        assert "segreto.png" not in html.replace("![segreto]", ""), path


def test_attribute_lists_keep_only_classes_and_ids() -> None:
    html = md_to_html('Un punto **chiaro** e {1, 2}.\n{: onclick="alert(1)" .nota #qui }')
    assert html == '<p class="nota" id="qui">Un punto <strong>chiaro</strong> e {1, 2}.</p>'


@pytest.mark.parametrize(
    "markdown_html",
    [
        '<a href="javascript:alert(1)">x</a>',
        '<p onclick="alert(1)" style="color:red">x</p>',
        '<img src="file:///etc/passwd"><img src="http://127.0.0.1/x.png">',
        "<script>alert(1)</script><iframe src=x></iframe>",
        '<a href="data:text/html,<script>alert(1)</script>">x</a>',
    ],
)
def test_sanitize_drops_active_content(markdown_html: str) -> None:
    clean = sanitize_html(markdown_html)
    assert active_content(clean) == [] and "<script" not in clean and "iframe" not in clean
    assert "data:" not in clean


def test_card_names_in_narrations_read_as_text(built: Path, cli: Callable[..., Run]) -> None:
    """A card name with Markdown in it ("{: onclick=… }", "*…*") is shown as written in
    the worked examples, neither cut into an attribute list nor turned into emphasis."""
    import sqlite3

    name = 'Orizzonte {: onclick="alert(1)" } *forte*'
    edit(built / "games/bless/cards.yaml", "name: Orizzonte\n", f"name: '{name}'\n")
    run = cli(built, "db", "build")
    assert run.exit_code == 0, run.output
    with sqlite3.connect(built / "cards.db") as conn:
        narrations = [row[0] for row in conn.execute("SELECT narration_md FROM example")]
    told = [md_to_html(text) for text in narrations if "Orizzonte" in text]
    assert told and all(name in html for html in told)  # as written, as text
    assert not any(active_content(html) or "<em>forte" in html for html in told)
