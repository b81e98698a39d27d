"""`cartiera preview`: every face of a game at true size, redrawn as its sources change.

A designer edits cards.yaml or a template and looks at the browser: the page keeps one
request open for the next state (a long poll: the server answers it the moment a new
rendering is ready, so the page follows within the rendering's time, not a polling
period's). When the sources changed the server reads them again (straight from the YAML,
into a scratch database of that one game), lays out only the faces whose markup changed
(the content-addressed face cache) and rasterises them. A source that does not load shows
its problems in the page instead of stopping the server. Overlays show the trim, the
bleed, the safe zone, and the faces whose text does not fit its box.
"""

from __future__ import annotations

import html
import http.server
import json
import tempfile
import threading
from dataclasses import dataclass, field
from importlib.resources import files
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from pipeline.common.problems import Problem, SourceError
from pipeline.common.project import Project

# The face size and bleed, and the safe margin, in millimetres.
Geometry = tuple[tuple[float, float], float, float]

PREVIEW_DPI = 150
WAIT_S = 25.0  # how long the server holds a page's request for the next state
WATCHED = ("games/{slug}", "templates/cards/{slug}", "templates/cards/base.css")


@dataclass
class Snapshot:
    """What the page shows: a version that changes with every new rendering."""

    version: int = 0
    faces: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    size_mm: tuple[float, float] = (0.0, 0.0)
    bleed_mm: float = 0.0
    safe_mm: float = 0.0


class Preview:
    """The faces of one game, kept current with its sources."""

    def __init__(self, project: Project, slug: str):
        self.project = project
        self.slug = slug
        self.snapshot = Snapshot()
        self.images: dict[str, Path] = {}
        self.lock = threading.Lock()
        self.changed = threading.Condition(self.lock)  # notified with every new snapshot
        self.rendered = 0  # faces laid out by WeasyPrint so far (tests/test_preview.py reads it)

    def paths(self) -> list[Path]:
        return [self.project.root / p.format(slug=self.slug) for p in WATCHED]

    def refresh(self) -> Snapshot:
        """Read the sources again and render what changed; never raises for bad sources."""
        try:
            faces, images, geometry, problems = self._render()
        except SourceError as exc:
            faces, images, geometry, problems = [], {}, None, [exc.problem.one_line()]
        except Exception as exc:  # a broken template must not stop the preview either
            faces, images, geometry, problems = [], {}, None, [f"error: {exc}"]
        with self.lock:
            old = self.snapshot
            self.images = images or self.images
            size, bleed, safe = geometry or (old.size_mm, old.bleed_mm, old.safe_mm)
            self.snapshot = Snapshot(old.version + 1, faces or old.faces, problems, size,
                                     bleed, safe)  # fmt: skip
            self.changed.notify_all()
            return self.snapshot

    def _render(
        self,
    ) -> tuple[list[dict[str, Any]], dict[str, Path], Geometry | None, list[str]]:
        from sqlalchemy import create_engine

        from pipeline.common.settings import site_url
        from pipeline.database.catalog import read_game
        from pipeline.database.store import write_sqlite
        from pipeline.publish.render.cache import render_cache
        from pipeline.publish.render.deck import face_cache
        from pipeline.publish.render.faces import deck_faces, render_faces
        from pipeline.publish.render.images import Rasteriser
        from pipeline.publish.render.paper import SAFE_MM
        from pipeline.sources.load import load_game

        loaded = load_game(self.project, self.slug)
        errors = [p.one_line() for p in loaded.problems if p.is_error]
        if errors:
            return [], {}, None, errors
        with tempfile.TemporaryDirectory() as tmp:
            db = Path(tmp) / "preview.db"
            write_sqlite(db, [loaded])
            engine = create_engine(f"sqlite:///{db}")
            try:
                game = read_game(engine, self.slug)
            finally:
                engine.dispose()
        deck = deck_faces(game, self.project.templates_dir, site_url(self.project))
        cache = face_cache(self.project)
        before = {d for d in deck.faces if (cache / f"{d}.json").exists()}
        pages = render_faces(deck, cache)
        self.rendered += len(set(deck.faces) - before)
        raster = Rasteriser(pages, render_cache(self.project) / "png")
        size = deck.trim.grow(deck.bleed)
        images = {d: raster.ensure(d, PREVIEW_DPI, size) for d in deck.faces}
        raster.close()
        faces = []
        for card in game.cards:
            for side, index in (("fronte", deck.fronts), ("retro", deck.backs)):
                digest = index[card.code]
                faces.append(
                    {
                        "card": card.code,
                        "name": card.name,
                        "side": side,
                        "digest": digest,
                        "overflow": [f["field"] for f in pages[digest].fits],
                    }
                )
        geometry = ((size.width, size.height), deck.bleed, SAFE_MM)
        return faces, images, geometry, []

    def watch(self, stop: threading.Event) -> None:
        """Render again after every change of the watched sources, until `stop`."""
        from watchfiles import watch

        existing = [p for p in self.paths() if p.exists()]
        for _ in watch(*existing, stop_event=stop, debounce=150, step=50):
            self.refresh()

    def page(self) -> str:
        page = (files("pipeline.commands") / "preview.html").read_text("utf-8")
        return page.replace("{{title}}", html.escape(self.slug))

    def state(self, after: int | None = None, wait: float = 0.0) -> dict[str, Any]:
        """The current state; with `after`, the first one whose version differs from it,
        waiting at most `wait` seconds for it (then the current one)."""
        with self.changed:
            self.changed.wait_for(lambda: self.snapshot.version != after, timeout=wait)
            snap = self.snapshot
        return {
            "version": snap.version,
            "faces": snap.faces,
            "problems": snap.problems,
            "size": snap.size_mm,
            "bleed": snap.bleed_mm,
            "safe": snap.safe_mm,
        }

    def image(self, digest: str) -> bytes | None:
        with self.lock:
            path = self.images.get(digest)
        return path.read_bytes() if path is not None and path.exists() else None


def make_server(preview: Preview, port: int) -> http.server.ThreadingHTTPServer:
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            url = urlsplit(self.path)
            path = url.path
            if path == "/":
                self._send(200, "text/html; charset=utf-8", preview.page().encode())
            elif path == "/state.json":  # ?after=VERSION: held until a newer one
                after = parse_qs(url.query).get("after", [""])[0]
                state = preview.state(int(after), WAIT_S) if after.isdigit() else preview.state()
                body = json.dumps(state, ensure_ascii=False).encode()
                self._send(200, "application/json", body)
            elif path.startswith("/face/") and path.endswith(".png"):
                data = preview.image(path[len("/face/") : -len(".png")])
                if data is None:
                    self._send(404, "text/plain; charset=utf-8", b"Faccia non trovata")
                else:
                    self._send(200, "image/png", data)
            else:
                self._send(404, "text/plain; charset=utf-8", b"Pagina non trovata")

        def _send(self, code: int, kind: str, body: bytes) -> None:
            self.send_response(code)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args: object) -> None:
            pass

    try:
        return http.server.ThreadingHTTPServer(("127.0.0.1", port), Handler)
    except OSError as exc:
        raise SourceError(
            Problem("error", f"cannot listen on port {port}: {exc.strerror}",
                    hint="choose another --port")
        ) from None  # fmt: skip


def serve(project: Project, slug: str, port: int, ready: threading.Event | None = None) -> None:
    """Serve the preview until interrupted."""
    preview = Preview(project, slug)
    preview.refresh()
    server = make_server(preview, port)
    stop = threading.Event()
    watcher = threading.Thread(target=preview.watch, args=(stop,), daemon=True)
    watcher.start()
    url = f"http://127.0.0.1:{server.server_address[1]}/"
    print(f"previewing {slug} at {url} (it follows your edits; Ctrl-C to stop)", flush=True)
    if ready is not None:
        ready.set()
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        stop.set()
        server.server_close()
