"""`cartiera new`: a designer's own game that validates and builds with no edit, also from
the installed wheel in an empty folder."""

from __future__ import annotations

import os
import re
import shutil
import site
import subprocess
import sys
import sysconfig
import venv
import zipfile
from pathlib import Path

import pypdfium2
import pytest
from conftest import ROOT, invoke

COMPILE_ENV = "CARTIERA_COMPILE"  # setup.py: compile the engines
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


def test_text_that_does_not_fit_names_the_field_the_designer_edits(project: Path) -> None:
    assert invoke(project, "new", "giardino").exit_code == 0
    cards = project / "games" / "giardino" / "cards.yaml"
    long = " ".join(["Pesca una carta e poi scartane due."] * 30)
    cards.write_text(cards.read_text("utf-8").replace("Pesca una carta.", long), "utf-8")
    run = invoke(project, "validate", "giardino")
    assert run.exit_code == 1
    (line,) = [x for x in run.stdout.splitlines() if "does not fit" in x]
    assert "text 'effetto' does not fit its box" in line, line
    row = int(line.split(":")[1])  # the line of the text in cards.yaml, not of the card
    assert long in cards.read_text("utf-8").splitlines()[row - 1]


def test_new_refuses_what_it_cannot_make(project: Path) -> None:
    assert invoke(project, "new", "giardino").exit_code == 0
    again = invoke(project, "new", "giardino")
    assert again.exit_code == 1 and "already exists" in again.stderr
    for args in (["Giardino!"], ["orto", "--players", "4-2"], ["orto", "--size", "enorme"]):
        bad = invoke(project, "new", *args)
        assert bad.exit_code == 2, bad.output
        assert "Traceback" not in bad.output


def test_a_new_projects_search_page_speaks_of_its_own_cards(tmp_path: Path) -> None:
    """The query page of a new project teaches the language on the cards `new` wrote: the
    bundled project's page, which `new` copied before, searched Bless and BLDNG, games a
    designer's site does not have. Every query the page shows finds a card."""
    folder = tmp_path / "giochi"
    assert invoke(None, "new", "giardino", "--in", str(folder)).exit_code == 0
    assert invoke(folder, "db", "build").exit_code == 0
    page = (folder / "site" / "cercare.md").read_text("utf-8")
    for other in ("Bless", "BLDNG", "BLITZ", "Samurai", "Mazzo", "Re Luce", "occhio", "arma"):
        assert other not in page, other
    shown = [
        query
        for line in page.splitlines()
        if line.startswith(("| `", "- "))
        for query in re.findall(r"`([^`]+)`", line.split(" | ")[0] if "|" in line else line)
        if query not in ("or",)
    ]
    assert len(shown) >= 20 and "gioco:giardino" in shown
    found = {}
    for query in shown:
        run = invoke(folder, "search", "giardino", query, "--format", "ids")
        assert run.exit_code == 0, (query, run.output)
        found[query] = run.stdout.split()
    assert [query for query, ids in found.items() if not ids] == []
    assert found["valore>=5 ordina:-valore"] == ["giardino/terza-carta", "giardino/seconda-carta"]
    assert found["o:carta -colore:rosso"] == ["giardino/seconda-carta"]


def _git(folder: Path, *args: str) -> str:
    who = ["-c", "user.name=Designer", "-c", "user.email=designer@example.org"]
    return subprocess.run(
        ["git", *who, *args], cwd=folder, capture_output=True, text=True, check=True
    ).stdout


@pytest.mark.slow
def test_a_new_repository_builds_clean_and_its_hook_checks_it(tmp_path: Path) -> None:
    """A designer's repository from `cartiera new`: a build leaves nothing for git to add,
    and the pre-commit hook that README.md shows (the one `new` writes) runs offline and
    stops a commit of a broken card."""
    pytest.importorskip("pre_commit", reason="the test extras install pre-commit")
    folder = tmp_path / "giochi"
    assert invoke(None, "new", "giardino", "--in", str(folder)).exit_code == 0
    readme = (ROOT / "README.md").read_text("utf-8")
    assert (folder / ".pre-commit-config.yaml").read_text("utf-8") in readme
    _git(folder, "init", "-q")
    _git(folder, "add", "-A")
    _git(folder, "commit", "-q", "-m", "Il mio gioco")
    built = invoke(folder, "build")
    assert built.exit_code == 0, built.output
    assert (folder / "site" / "scarica").is_dir() and (folder / "cards.db").is_file()
    assert "cards.db did not exist and has been built" in built.stdout  # not "was stale"
    _assert_the_served_site_offers_the_offline_one(folder / "build")
    assert _git(folder, "status", "--porcelain", "--untracked-files=all") == ""

    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit"),
    }

    def hook() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "pre_commit", "run", "--all-files"],
            cwd=folder, capture_output=True, text=True, env=env,
        )  # fmt: skip

    good = hook()
    assert good.returncode == 0, good.stdout + good.stderr
    assert "cartiera validate" in good.stdout and "Passed" in good.stdout
    cards = folder / "games" / "giardino" / "cards.yaml"
    cards.write_text(cards.read_text("utf-8").replace(f"name: {NAMES[0]}", "name: ''"), "utf-8")
    _git(folder, "add", "-A")
    bad = hook()
    assert bad.returncode == 1
    assert "games/giardino/cards.yaml:" in bad.stdout


def _assert_the_served_site_offers_the_offline_one(build: Path) -> None:
    """The two variants are built side by side; the served one then gets the zip of the
    other and its size, and the offline one neither offers nor holds itself."""
    from pipeline.publish.site.pages import _size

    made = build / "downloads" / "cartiera-sito-offline.zip"
    home = (build / "site" / "index.html").read_text("utf-8")
    size = _size(made.stat().st_size)
    assert 'href="scarica/cartiera-sito-offline.zip">' in home
    assert f'(<span class="cartiera-zip-size">{size}</span>)' in home
    assert (build / "site" / "scarica" / made.name).read_bytes() == made.read_bytes()
    offline = (build / "site-offline" / "index.html").read_text("utf-8")
    assert "Stai leggendo la versione offline" in offline and made.name not in offline
    assert not (build / "site-offline" / "scarica" / made.name).exists()
    with zipfile.ZipFile(made) as archive:
        names = archive.namelist()
    assert "cartiera-offline/index.html" in names and not any(made.name in n for n in names)


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
    subprocess.run(  # as a user would: pure Python unless CARTIERA_COMPILE says otherwise
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(dist), str(source)],
        check=True,
        capture_output=True,
        env={k: v for k, v in os.environ.items() if k != COMPILE_ENV},
    )
    return next(dist.glob("cartiera-*.whl"))


def test_the_wheel_is_pure_python_by_default(wheel: Path) -> None:
    """A default build compiles nothing: one wheel for every platform, made in seconds (the
    compiled engines are asked for with CARTIERA_COMPILE=1, setup.py)."""
    assert wheel.name.endswith("-py3-none-any.whl")
    with zipfile.ZipFile(wheel) as archive:
        assert not [n for n in archive.namelist() if n.endswith((".so", ".c", "_compiled.json"))]


def test_the_wheel_carries_every_declaration_file(wheel: Path) -> None:
    """A compiled module loads only while the digest of its .py and its .pxd matches the
    build's (pipeline/compiled.py): a wheel without the .pxd files ran Bless as pure
    Python, with a warning, wherever it was installed. And pipeline/py.typed, without which
    a project importing the installed package gets no types from it (PEP 561)."""
    declared = {p.relative_to(ROOT).as_posix() for p in (ROOT / "pipeline").rglob("*.pxd")}
    assert declared
    with zipfile.ZipFile(wheel) as archive:
        assert declared | {"pipeline/py.typed"} <= set(archive.namelist())


def test_from_the_wheel_in_an_empty_folder(wheel: Path, tmp_path: Path) -> None:
    # The wheel goes into a fresh venv; its dependencies, and pip, come from this
    # interpreter's site-packages (a .pth file names them), so the test downloads nothing and
    # seeding the venv with its own pip (5 s) is not needed. Not system_site_packages: from a
    # venv, that would give the base interpreter's packages, not this environment's. The
    # checkout is off the path (PYTHONPATH, tests/conftest.py): the cartiera run is the wheel's.
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    purelib = Path(sysconfig.get_path("purelib", vars={"base": str(env_dir)}))
    ours = "\n".join(site.getsitepackages())
    (purelib / "_cartiera_test_parent.pth").write_text(ours + "\n", encoding="utf-8")
    alone = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    subprocess.run(
        [str(python), "-m", "pip", "install", "-q", "--no-deps", str(wheel)],
        check=True,
        capture_output=True,
        env=alone,
    )
    where = subprocess.run(
        [str(python), "-c", "import pipeline; print(pipeline.__file__)"],
        capture_output=True, text=True, check=True, cwd=tmp_path, env=alone,
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
