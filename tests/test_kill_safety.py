"""Killed and concurrent builds (issue 37): a writer killed at any point leaves the sources
and cards.db old or new, never a mix, no process and no temporary file behind once the next
command has run; two writers at once are one line; an incremental build equals a clean one.

Everything runs on a project of one small game (conftest's numbered `prova` deck), so each
command takes a second or two."""

from __future__ import annotations

import os
import random
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import CARTIERA, PROVA_GAME, ROOT, checkout_env, edit
from typer.testing import CliRunner

from pipeline.cli.app import app
from pipeline.common.project import open_project

SEED = 37  # the kill points are random, but the same on every run
CARDS = "games/prova/cards.yaml"


def _cards(numbers: list[int]) -> str:
    return "cards:\n" + "".join(
        f"  - {{number: {n}, id: carta-{n}, name: Carta {n}, kind: carta, "
        f"attributes: {{valore: {n % 90 + 1}}}}}\n"
        for n in numbers
    )


def _small_project(dest: Path, numbers: list[int] | None = None) -> Path:
    """A project with the one game `prova` (no total, so cards can come and go)."""
    game = dest / "games/prova"
    game.mkdir(parents=True)
    (game / "game.yaml").write_text(PROVA_GAME.replace(", total: 11", ""), encoding="utf-8")
    (game / "cards.yaml").write_text(_cards(numbers or list(range(1, 11))), encoding="utf-8")
    shutil.copytree(ROOT / "templates", dest / "templates", ignore=_other_games)
    cards = dest / "templates/cards/prova"
    cards.mkdir(parents=True)
    (cards / "front.html.j2").write_text("<div>F{{ card.number }}</div>", encoding="utf-8")
    (cards / "back.html.j2").write_text("<div>B</div>", encoding="utf-8")
    (cards / "card.css").write_text("div { font-size: 30pt; }", encoding="utf-8")
    shutil.copy(ROOT / "mkdocs.yml", dest / "mkdocs.yml")  # for the site steps of `build`
    shutil.copytree(ROOT / "site", dest / "site", ignore=shutil.ignore_patterns(".*"))
    return dest


def _other_games(folder: str, names: list[str]) -> list[str]:
    if Path(folder).name != "cards" or Path(folder).parent.name != "templates":
        return []
    return [name for name in names if (Path(folder) / name).is_dir()]  # the other games


def _cli(project: Path, *args: str) -> subprocess.Popen[bytes]:
    command = [*CARTIERA, "--project", str(project), *args]
    return subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=checkout_env()
    )


def _run(project: Path, *args: str) -> None:
    result = CliRunner().invoke(app, ["--project", str(project), *args], catch_exceptions=False)
    assert result.exit_code == 0, result.output


def _temps(project: Path) -> list[Path]:
    return [p for p in project.rglob(".*.tmp") if "cache" not in p.parts]


@pytest.fixture
def small(tmp_path: Path) -> Path:
    project = _small_project(tmp_path / "proj")
    _run(project, "db", "build")
    return project


# --- one writer at a time, and what killed writers left -----------------------------------


def test_a_second_writer_is_one_line_naming_the_first(small: Path) -> None:
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import pathlib, time; from pipeline.common.lock import project_lock; "
            "from pipeline.common.project import open_project\n"
            f"with project_lock(open_project(pathlib.Path({str(small)!r})), 'site'):\n"
            "    print('held', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == b"held"
        for args in (["db", "build"], ["build"], ["import", "prova", str(small / "x.csv")]):
            result = CliRunner().invoke(app, ["--project", str(small), *args])
            assert result.exit_code == 1, result.output
            assert f"cartiera site (pid {holder.pid}) is running in this project" in result.stderr
            assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    finally:
        holder.kill()
        holder.wait()
    _run(small, "db", "build")  # the lock went with its holder


def test_stale_temporary_files_are_removed_by_the_next_run(small: Path) -> None:
    left = [
        small / ".cards.db.k1ll3d.tmp",
        small / "games/prova/.cards.yaml.k1ll3d.tmp",
        small / "build/decks/.prova-carte.pdf.k1ll3d.tmp",
    ]
    for path in left:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(b"half")
    _run(small, "db", "build")
    assert _temps(small) == []


def test_workers_of_a_killed_build_die_with_it(small: Path) -> None:
    """Old code: the two workers survived their build (parent 1) and wrote decks later."""
    build = _cli(small, "build", "--jobs", "2")
    workers: list[int] = []
    deadline = time.monotonic() + 120
    while len(workers) < 2 and time.monotonic() < deadline and build.poll() is None:
        time.sleep(0.2)
        workers = _children(build.pid)
    assert len(workers) >= 2, "the build never started its workers"
    build.send_signal(signal.SIGKILL)
    build.wait()
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if _alive(pid)]


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*/children"):
        found += [int(c) for c in task.read_text().split()]
    return found


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "\nState:\tZ" not in status


# --- balance figures written whole ---------------------------------------------------


def test_a_torn_figures_json_is_simulated_again(built: Path) -> None:
    """Old code: every later build and site failed with a JSONDecodeError traceback."""
    from pipeline.publish.site.balance import ensure_balance

    torn = built / "build/balance/mazzo/figures.json"
    torn.parent.mkdir(parents=True)
    torn.write_text('{"stamp": "x", "tables": [{"key"', encoding="utf-8")
    result = ensure_balance(open_project(built), "mazzo")
    assert not isinstance(result, str), result
    assert torn.read_text(encoding="utf-8").endswith("}")


# --- fault injection: SIGKILL at random points ------------------------------------------

RENUMBERED = [n for n in range(1, 11) if n != 5]  # card 5 deleted…
RENUMBERED[RENUMBERED.index(3)] = 30  # …and card 3 renumbered


def _outputs(project: Path) -> dict[str, bytes]:
    """Every file a build made (the render cache is the builds' own, not an output), the
    project's folder named as <project> (mkdocs' working configurations hold it)."""
    build = project / "build"
    return {
        p.relative_to(build).as_posix(): p.read_bytes().replace(bytes(project), b"<project>")
        for p in sorted(build.rglob("*"))
        if p.is_file() and p.relative_to(build).parts[0] != "cache"
    }


@pytest.fixture(scope="module")
def builds(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, bytes], float]:
    """Once for every case, side by side: a project built whole with the ten cards (each
    case copies it), and a clean build of the renumbered cards in a fresh project with the
    same sources otherwise (its files, and how long it took)."""
    old = _small_project(tmp_path_factory.mktemp("old") / "proj")
    clean = tmp_path_factory.mktemp("clean") / "proj"
    shutil.copytree(old, clean)
    (clean / CARDS).write_text(_cards(RENUMBERED), encoding="utf-8")
    started = time.monotonic()
    commands = [_cli(project, "build", "--jobs", "1") for project in (old, clean)]
    for command in commands:
        _, err = command.communicate()
        assert command.returncode == 0, err
    return old, _outputs(clean), time.monotonic() - started


def _killed_build(project: Path, when: str, rng: random.Random, longest: float) -> list[int]:
    """`cartiera build` killed at `when`: "random" (a time within `longest` seconds), or
    "site" (once it reports every step done but the two of the site); returns the
    processes it had started."""
    command = _cli(project, "build", "--jobs", "2")
    workers: set[int] = set()
    if when == "random":
        deadline = time.monotonic() + rng.uniform(0.0, longest)
        while time.monotonic() < deadline and command.poll() is None:
            workers.update(_children(command.pid))
            time.sleep(0.05)
    else:
        assert command.stdout is not None
        for line in command.stdout:  # progress lines: "[3/8] deck prova cards"
            workers.update(_children(command.pid))
            done = re.match(r"\[(\d+)/(\d+)\]", line.decode())
            if done and int(done[1]) >= int(done[2]) - 2:
                break
    workers.update(_children(command.pid))
    command.send_signal(signal.SIGKILL)
    command.communicate()
    if when == "site":  # killed, not finished before the signal came
        assert command.returncode == -signal.SIGKILL, command.returncode
    return sorted(workers)


@pytest.mark.xdist_group("killed-build")  # beside the file's other tests, on the other worker
@pytest.mark.parametrize("when", ["random", "site"])
def test_a_killed_incremental_build_then_a_rerun_equals_a_clean_build(
    builds: tuple[Path, dict[str, bytes], float], tmp_path: Path, when: str
) -> None:
    """A project built with ten cards; a card renumbered and one deleted; `cartiera build`
    killed at a random time, or during the site (its decks and images already made again,
    incrementally); run again: every output is byte for byte a clean build's in a fresh
    project, and nothing of the killed build is left, no process and no temporary file.
    (Old code: a renumbered card's image stayed in the folder and the zip, and a killed
    step's temporary file was zipped.)"""
    old_build, clean, duration = builds
    project = tmp_path / "proj"
    shutil.copytree(old_build, project)
    (project / CARDS).write_text(_cards(RENUMBERED), encoding="utf-8")
    images = project / "build/images/prova/300dpi"
    (images / ".retro-1.png.k1ll3d.tmp").write_bytes(b"half")  # an older kill's leftover
    workers = _killed_build(project, when, random.Random(SEED), duration)
    _timed(project, "build", "--jobs", "1")  # the output does not depend on it
    deadline = time.monotonic() + 10
    while any(_alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [pid for pid in workers if _alive(pid)]
    assert not _running_in(project)
    assert _temps(project) == []
    got = _outputs(project)
    assert sorted(got) == sorted(clean)
    assert [name for name in clean if got[name] != clean[name]] == []


def _running_in(project: Path) -> list[int]:
    """Processes whose command line names the project (a build's forked workers do)."""
    found = []
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            if str(project).encode() in cmdline.read_bytes() and _alive(int(cmdline.parent.name)):
                found.append(int(cmdline.parent.name))
        except (OSError, ValueError):
            continue
    return found


def _killed_at_random(project: Path, args: list[str], rng: random.Random, longest: float) -> None:
    command = _cli(project, *args)
    time.sleep(rng.uniform(0.0, longest))
    command.send_signal(signal.SIGKILL)
    command.wait()


def _timed(project: Path, *args: str) -> float:
    started = time.monotonic()
    command = _cli(project, *args)
    _, err = command.communicate()
    assert command.returncode == 0, err
    return time.monotonic() - started


@pytest.mark.parametrize("kills", [2])
def test_db_build_and_import_killed_anywhere_leave_old_or_new(
    small: Path, tmp_path: Path, kills: int
) -> None:
    rng = random.Random(SEED)
    sources = small / CARDS
    old_db = (small / "cards.db").read_bytes()
    # the new version, made once cleanly elsewhere
    fresh = tmp_path / "fresh"
    shutil.copytree(small, fresh)
    edit(fresh / "games/prova/cards.yaml", "name: Carta 4,", "name: Carta quattro,")
    duration = _timed(fresh, "db", "build")
    new_db, new_cards = (fresh / "cards.db").read_bytes(), (fresh / CARDS).read_bytes()
    edit(sources, "name: Carta 4,", "name: Carta quattro,")
    for _ in range(kills):
        _killed_at_random(small, ["db", "build"], rng, duration)
        assert (small / "cards.db").read_bytes() in (old_db, new_db)
    _run(small, "db", "build")
    assert (small / "cards.db").read_bytes() == new_db
    assert _temps(small) == []
    # import: the edited table goes back into cards.yaml whole, or not at all
    export = tmp_path / "carte.csv"
    _run(small, "export", "prova", "--out", str(export))
    export.write_text(
        export.read_text(encoding="utf-8").replace("Carta quattro", "Carta 4"), encoding="utf-8"
    )
    duration = _timed(fresh, "import", "prova", str(export))
    imported = (fresh / CARDS).read_bytes()
    assert sources.read_bytes() == new_cards != imported
    for _ in range(kills):
        _killed_at_random(small, ["import", "prova", str(export)], rng, duration)
        assert sources.read_bytes() in (new_cards, imported)
    _run(small, "import", "prova", str(export))
    assert sources.read_bytes() == imported
    assert _temps(small) == []


def test_a_worker_lost_with_the_inputs_gets_them_sent_again(shared_project: Path) -> None:
    """One worker, killed after its first chunk: the inputs scattered to it are gone and
    the run's other tasks are cancelled. Old code: a 50-line FutureCancelledError."""
    distributed = pytest.importorskip("distributed", reason="the extra cartiera[cluster]")
    from pipeline.play import simulate
    from pipeline.play.cluster import local_cluster

    project = open_project(shared_project)
    want = simulate.simulate(project, "mazzo", 120, 7).to_json()
    with local_cluster(1) as cluster, distributed.Client(cluster) as client:
        pid = next(iter(client.run(os.getpid).values()))
        killed: list[int] = []

        def progress(done: int, total: int) -> None:
            if not killed:
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)

        got = simulate.simulate(
            project, "mazzo", 120, 7, cluster=cluster.scheduler_address, progress=progress
        ).to_json()
    assert killed
    assert got == want
