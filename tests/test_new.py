"""`cartiera new`: a designer's own game that validates and builds with no edit, also from
the installed wheel in an empty folder."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

import pypdfium2
import pytest
from conftest import ROOT, invoke

from pipeline.compiled import PURE_ENV

NAMES = ("Prima carta", "Seconda carta", "Terza carta")


def test_new_game_in_a_project_validates_and_prints(project: Path) -> None:
    run = invoke(project, "new", "giardino", "--name", "Giardino", "--players", "2-4")
    assert run.exit_code == 0, run.output
    assert "wrote games/giardino/game.yaml" in run.stdout
    assert (project / "templates" / "cards" / "giardino" / "front.html.j2").exists()
    assert (project / "schemas" / "giardino" / "cards.schema.json").exists()
    checked = invoke(project, "validate", "giardino")  # with layout: the texts fit
    assert checked.exit_code == 0, checked.output
    assert "3/3 cards" in checked.stdout and "0 errors, 0 warnings" in checked.stdout
    assert invoke(project, "db", "build").exit_code == 0
    assert invoke(project, "schema", "--check").exit_code == 0
    pdf = project / "giardino.pdf"
    deck = invoke(project, "deck", "giardino", "--out", str(pdf))
    assert deck.exit_code == 0, deck.output
    _assert_deck_shows_the_cards(pdf)


def test_new_refuses_what_it_cannot_make(project: Path) -> None:
    assert invoke(project, "new", "giardino").exit_code == 0
    again = invoke(project, "new", "giardino")
    assert again.exit_code == 1 and "already exists" in again.stderr
    for args in (["Giardino!"], ["orto", "--players", "4-2"], ["orto", "--size", "enorme"]):
        bad = invoke(project, "new", *args)
        assert bad.exit_code == 2, bad.output
        assert "Traceback" not in bad.output


def _assert_deck_shows_the_cards(pdf: Path) -> None:
    doc = pypdfium2.PdfDocument(str(pdf))
    texts = [doc[i].get_textpage().get_text_range() for i in range(len(doc))]
    fronts = next(i for i, t in enumerate(texts) if NAMES[0] in t)
    for name in NAMES:
        assert name in texts[fronts], name
    image = doc[fronts].render(scale=40 / 72).to_pil().convert("L")
    dark = sum(image.histogram()[:128])
    assert dark > 500  # the names and values are really drawn, not only present as text


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project built as a wheel from what git tracks, as a release would be."""
    pytest.importorskip("build", reason="the test extras install `build`")
    source = tmp_path_factory.mktemp("source")
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, tracked):
        path = ROOT / name.decode()
        if path.is_file():
            target = source / name.decode()
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    dist = tmp_path_factory.mktemp("dist")
    # Pure Python: compiling the engine would take a minute more, and tests/test_compiled.py
    # already checks the compiled modules of the installed checkout.
    subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(source)],
        check=True,
        capture_output=True,
        env={**os.environ, PURE_ENV: "1"},
    )
    return next(dist.glob("cartiera-*.whl"))


def test_the_wheel_carries_every_declaration_file(wheel: Path) -> None:
    """A compiled module loads only while the digest of its .py and its .pxd matches the
    build's (pipeline/compiled.py): a wheel without the .pxd files ran Bless as pure
    Python, with a warning, wherever it was installed."""
    declared = {p.relative_to(ROOT).as_posix() for p in (ROOT / "pipeline").rglob("*.pxd")}
    assert declared
    with zipfile.ZipFile(wheel) as archive:
        assert declared <= set(archive.namelist())


def test_from_the_wheel_in_an_empty_folder(wheel: Path, tmp_path: Path) -> None:
    # The wheel goes into a fresh venv; its dependencies come from this interpreter's
    # site-packages, so the test does not download them again, and it checks that the
    # cartiera it runs is the wheel's, not the checkout's. pip too comes from there (the
    # venv's python runs it and installs into the venv): seeding the venv with its own
    # pip took 5 s.
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(system_site_packages=True, with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)],
        check=True,
        capture_output=True,
    )
    where = subprocess.run(
        [str(python), "-c", "import pipeline; print(pipeline.__file__)"],
        capture_output=True, text=True, check=True, cwd=tmp_path,
    ).stdout  # fmt: skip
    assert str(env_dir) in where
    empty = tmp_path / "progetto"
    empty.mkdir()
    cartiera = str(env_dir / "bin" / "cartiera")
    clean = {"PATH": f"{env_dir / 'bin'}:/usr/bin:/bin", "HOME": str(tmp_path)}
    new = subprocess.run(
        [cartiera, "new", "giardino", "--players", "2-4"],
        cwd=empty, capture_output=True, text=True, env=clean,
    )  # fmt: skip
    assert new.returncode == 0, new.stderr
    built = subprocess.run(
        [cartiera, "build", "--jobs", "1"], cwd=empty, capture_output=True, text=True, env=clean
    )
    assert built.returncode == 0, built.stdout + built.stderr
    decks = sorted((empty / "build" / "decks").glob("giardino-sheets-a4*.pdf"))
    assert decks
    _assert_deck_shows_the_cards(decks[0])
    assert (empty / "build" / "site" / "giochi" / "giardino" / "regole" / "index.html").exists()
    assert sorted((empty / "build" / "rulebooks").glob("giardino*.pdf"))
