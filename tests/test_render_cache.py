"""The render cache: entries named by content, folders named by what renders them."""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import adopt, prune

from pipeline.common.project import CACHE_ENV, open_project
from pipeline.publish.render import cache, fonts
from pipeline.publish.render.cache import cached_pdf, render_cache, renderer_tag

HTML = '<!DOCTYPE html><html lang="it"><body><p>{}</p></body></html>'


@pytest.fixture
def fresh_tag() -> Iterator[None]:
    """renderer_tag is cached per process: forget it before and after the test."""
    renderer_tag.cache_clear()
    yield
    renderer_tag.cache_clear()


@pytest.mark.usefixtures("fresh_tag")
def test_a_font_or_a_renderer_changed_is_another_folder(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    font = tmp_path / "Prova-Regular.ttf"
    shutil.copy(next(iter(fonts.installed_fonts().values())), font)
    monkeypatch.setattr(fonts, "installed_fonts", lambda: {"Prova-Regular": font})
    first = renderer_tag()
    renderer_tag.cache_clear()
    assert renderer_tag() == first  # the same environment, the same folder
    os.utime(font, ns=(font.stat().st_atime_ns, font.stat().st_mtime_ns + 10**9))
    renderer_tag.cache_clear()
    second = renderer_tag()
    assert second != first  # the font file was replaced
    import importlib.metadata

    real = importlib.metadata.version
    monkeypatch.setattr(
        importlib.metadata, "version", lambda name: "0.0" if name == "weasyprint" else real(name)
    )
    renderer_tag.cache_clear()
    assert renderer_tag() not in (first, second)  # another WeasyPrint


def test_a_document_renders_once_and_names_only_its_content(
    project: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    proj = open_project(project)
    assert render_cache(proj) == tmp_path / "cache" / f"render-{renderer_tag()}"
    rendered: list[str] = []
    real = cache.html_to_pdf

    def counting(html: str, base_url: str, fetcher: Any, variant: str | None = None) -> bytes:
        rendered.append(html)
        return real(html, base_url, fetcher, variant)

    monkeypatch.setattr(cache, "html_to_pdf", counting)
    first = cached_pdf(proj, HTML.format("Uno"), str(project))
    again = cached_pdf(proj, HTML.format("Uno"), str(project))
    assert again == first and len(rendered) == 1
    assert first.read_bytes().startswith(b"%PDF-")
    other = cached_pdf(proj, HTML.format("Due"), str(project))
    assert other != first and len(rendered) == 2
    tagged = cached_pdf(proj, HTML.format("Uno"), str(project), variant="pdf/ua-1")
    assert tagged not in (first, other) and len(rendered) == 3
    copy = open_project(shutil.copytree(project, tmp_path / "copy"))  # a clone's copy
    assert cached_pdf(copy, HTML.format("Uno"), str(copy.root)) == first
    assert len(rendered) == 3


def test_the_suites_cache_loses_only_old_entries(tmp_path: Path) -> None:
    old, new = tmp_path / "render-x/faces/old.pdf", tmp_path / "yaml/new.pickle"
    for path in (old, new):
        path.parent.mkdir(parents=True)
        path.write_bytes(b"x")
    long_ago = time.time() - 20 * 86400
    os.utime(old, (long_ago, long_ago))
    prune(tmp_path, days=14)
    assert new.exists() and not old.exists()
    assert not (tmp_path / "render-x").exists()  # the folders it left empty too
    prune(tmp_path / "absent", days=14)  # no cache yet: nothing to do


def test_the_suite_adopts_what_the_build_rendered_and_only_reads_it(tmp_path: Path) -> None:
    build, suite = tmp_path / "build-cache", tmp_path / "test-cache"
    entries = {"render-x/faces/a.pdf": b"a", "render-x/faces/b.pdf": b"b", "yaml/c": b"c"}
    for name, data in entries.items():
        (build / name).parent.mkdir(parents=True, exist_ok=True)
        (build / name).write_bytes(data)
    (build / "render-x/faces/.bless.lock").write_bytes(b"")
    (suite / "render-x/faces").mkdir(parents=True)
    (suite / "render-x/faces/b.pdf").write_bytes(b"the suite's own")
    assert adopt(build, suite) == 2
    assert (suite / "render-x/faces/a.pdf").read_bytes() == b"a"
    assert (suite / "yaml/c").read_bytes() == b"c"
    assert (suite / "render-x/faces/b.pdf").read_bytes() == b"the suite's own"
    assert not (suite / "render-x/faces/.bless.lock").exists()
    assert adopt(build, suite) == 0  # nothing left to adopt
    # The build replaces an entry (a rename, as every cache write): the suite keeps its own.
    (build / "render-x/faces/a.new").write_bytes(b"A")
    os.replace(build / "render-x/faces/a.new", build / "render-x/faces/a.pdf")
    assert (suite / "render-x/faces/a.pdf").read_bytes() == b"a"
    assert adopt(suite, suite) == 0 and adopt(tmp_path / "none", suite) == 0


def test_a_folder_the_suite_lacks_arrives_whole(tmp_path: Path) -> None:
    """A cache publishes some entries as a folder, by one rename (the balance figures):
    the suite gets such a folder whole or not at all, and nothing a build left unfinished."""
    build, suite = tmp_path / "build-cache", tmp_path / "test-cache"
    run = build / "balance/0123abcd"
    run.mkdir(parents=True)
    for name in ("report.json", "2-00-posti.svg"):
        (run / name).write_text(name, encoding="utf-8")
    unfinished = build / "balance/.4567.99.tmp"
    unfinished.mkdir()
    (unfinished / "report.json").write_text("{", encoding="utf-8")
    renames: list[tuple[str, list[str]]] = []
    real_rename = Path.rename

    def rename(self: Path, target: Path) -> Path:
        renames.append((Path(target).name, sorted(p.name for p in self.iterdir())))
        return real_rename(self, target)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Path, "rename", rename)
        assert adopt(build, suite) == 2
    assert renames == [("balance", ["0123abcd"])]  # the top folder missing, renamed full
    assert (suite / "balance/0123abcd/report.json").read_text(encoding="utf-8") == "report.json"
    assert sorted(p.name for p in (suite / "balance").iterdir()) == ["0123abcd"]
    assert [p.name for p in suite.iterdir()] == ["balance"]  # no part left beside it
