"""A new user's first ten minutes, measured in one run (issue 38): install, start-up, builds,
preview.

    python3 benchmarks/first_run.py [--skip-install] [--skip-cold] [--edits 10]

Every figure is printed beside its goal and the figure the issue measured before on this
2-core machine, with the load average when it was taken: the machine may be shared, so a
wall time is only as good as its load, and the CPU seconds of the processes are printed too.
What runs is this checkout (PYTHONPATH), on copies of its tracked files in a temporary
folder, with an empty render cache for the cold build.

- install: a fresh venv with the wheel (`pip wheel` of the checkout, pure Python), another
  with `pip install -e .`; dependencies come from pip's configured index and cache.
- start-up: `cartiera --help`, `search bless re`, `validate --no-layout`: the median of 5,
  from the venv made from the wheel (as a user runs them), else from this checkout.
- builds: a cold `cartiera build` of the five games, a no-op one, one after a card edit;
  a designer's game made by `cartiera new`, built, then a no-op build.
- preview: `cartiera preview mazzo`; each edit of cards.yaml is timed until the state the
  page asks for (the long poll of pipeline/commands/preview.py) shows it: median and 95th
  percentile.
- tests (`--tests`, some six minutes): in a git clone of the checkout's last commit, as the
  README has a new user do it, `cartiera build` and then the README's test command,
  `python3 -m pytest`, without the seed documents (a user's clone has no ../shared) and
  with bytecode written; and how busy the machine's cores were meanwhile.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": str(ROOT)}
CARTIERA = [sys.executable, "-m", "pipeline"]


def load() -> str:
    return f"load {os.getloadavg()[0]:.1f}"


def machine_busy() -> float | None:
    """Core-seconds the whole machine has spent busy since boot (Linux's /proc/stat): the
    CPU of a step counted from the machine's side, with the processes that `cpu` (the
    command's waited-for descendants) misses, such as a database server it started."""
    try:
        with open("/proc/stat", encoding="ascii") as stat:
            user, nice, system, _idle, _iowait, irq, softirq, steal = map(
                int, stat.readline().split()[1:9]
            )
    except (OSError, ValueError):
        return None
    return (user + nice + system + irq + softirq + steal) / os.sysconf("SC_CLK_TCK")


def report(what: str, seconds: float, goal: float, before: float | None, cpu: float | None) -> None:
    verdict = "ok  " if seconds <= goal else "MISS"
    then = f"  before {before:6.1f} s ({before / seconds:4.1f}x)" if before else ""
    used = f"  cpu {cpu:6.1f} s" if cpu is not None else ""
    print(f"{verdict} {what:<44} {seconds:7.2f} s  goal {goal:5.1f} s{then}{used}  [{load()}]")


def timed(
    command: Sequence[str], cwd: Path, env: dict[str, str] | None = None
) -> tuple[float, float]:
    """Wall and CPU seconds of a command that must succeed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    run = subprocess.run(command, cwd=cwd, env=env or ENV, capture_output=True, text=True)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if run.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{run.stdout}{run.stderr}")
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def copy_checkout(target: Path) -> Path:
    """The checkout's tracked files (its cards.db included), as a fresh clone has them."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    for name in filter(None, listed.stdout.decode().split("\0")):
        if (ROOT / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(ROOT / name, target / name)
    return target


def installs(scratch: Path) -> Path:
    """Time the installs; return the venv made from the wheel."""
    source = copy_checkout(scratch / "source")
    alone = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    wall, cpu = timed(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "-q",
            "--no-deps",
            "-w",
            str(scratch / "dist"),
            str(source),
        ],
        scratch,
        alone,
    )
    report("pip wheel (pure Python)", wall, 60, None, cpu)
    wheel = next((scratch / "dist").glob("cartiera-*.whl"))
    print(f"     the wheel: {wheel.name}, {wheel.stat().st_size / 1e6:.2f} MB")
    for name, target, before in (
        ("wheel", [str(wheel)], None),
        ("editable", ["-e", str(source)], 250.0),
    ):
        venv = scratch / f"venv-{name}"
        subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
        pip = [str(venv / "bin/python"), "-m", "pip", "install", "-q"]
        wall, cpu = timed([*pip, *target], scratch, alone)
        report(f"fresh venv: pip install {name} (with deps)", wall, 60, before, cpu)
        wall, cpu = timed([*pip, "--no-deps", "--force-reinstall", *target], scratch, alone)
        report("  again, without the dependencies", wall, 30, None, cpu)
    return scratch / "venv-wheel"


def startup(project: Path, venv: Path | None) -> None:
    """The commands as a user runs them: the `cartiera` script of the venv made from the
    wheel (its modules byte-compiled by pip), else this checkout with this Python. Without
    PYTHONDONTWRITEBYTECODE, which some machines set (this one does): Python would compile
    every module of the checkout again on each start, some 50 ms a command that no user
    pays. One run first, not counted, writes the bytecode and the YAML cache."""
    env = {k: v for k, v in ENV.items() if k != "PYTHONDONTWRITEBYTECODE"}
    command = [*CARTIERA]
    if venv is not None:
        command = [str(venv / "bin" / "cartiera")]
        env.pop("PYTHONPATH", None)
    where = "the wheel's venv" if venv is not None else "this checkout"
    print(f"     start-up: {' '.join(command)} ({where})")
    for args, before in (
        (["--help"], 1.2),
        (["search", "bless", "re"], 1.5),
        (["validate", "--no-layout"], 1.5),
    ):
        timed([*command, *args], project, env)
        times = [timed([*command, *args], project, env)[0] for _ in range(5)]
        report(
            f"cartiera {' '.join(args)} (median of 5)", statistics.median(times), 0.3, before, None
        )


def builds(project: Path, cold: bool) -> None:
    build = [*CARTIERA, "build"]
    if cold:
        wall, cpu = timed(build, project)
        # before: 99 s on a quiet machine (the issue), 174 s on a loaded one (294 s of CPU)
        report("cold build, five games, empty cache", wall, 60, 99, cpu)
    else:
        timed(build, project)  # the render cache is the user's (CARTIERA_CACHE, build/cache)
    wall, cpu = timed(build, project)
    report("no-op build, five games", wall, 2, 3.2, cpu)
    cards = project / "games/mazzo/cards.yaml"
    cards.write_text(cards.read_text("utf-8").replace("name: Spia", "name: Spia Astuta", 1))
    wall, cpu = timed(build, project)
    report("build after one card's edit", wall, 60, None, cpu)
    small = project.parent / "small"
    small.mkdir()
    timed([*CARTIERA, "new", "giardino", "--players", "2-4"], small)
    wall, cpu = timed(build, small)
    report("first build of a `cartiera new` game", wall, 40, 40, cpu)
    wall, cpu = timed(build, small)
    report("no-op build of a `cartiera new` game", wall, 1, 9.5, cpu)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _state(url: str, timeout: float = 30) -> dict:
    with urllib.request.urlopen(url, timeout=timeout) as answer:
        return dict(json.load(answer))


def _until(check: Callable[[], bool], seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            sys.exit("the preview did not answer")
        time.sleep(0.05)


def preview(project: Path, edits: int) -> None:
    port = _free_port()
    url = f"http://127.0.0.1:{port}/state.json"
    server = subprocess.Popen(
        [*CARTIERA, "--project", str(project), "preview", "mazzo", "--port", str(port)],
        env=ENV,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )

    def up() -> bool:
        try:
            return bool(_state(url, 1)["faces"])
        except OSError:
            return False

    try:
        _until(up, 180)
        time.sleep(2)  # the watcher starts after the first rendering is served
        cards = project / "games/mazzo/cards.yaml"
        text = cards.read_text("utf-8")
        latencies = []
        for edit in range(edits):
            shown = _state(url)["version"]
            name = f"Spia {edit + 2}"
            cards.write_text(text.replace("name: Spia", f"name: {name}", 1), "utf-8")
            started = time.perf_counter()
            while True:  # what the page does: ask for the state after the one it shows
                state = _state(f"{url}?after={shown}")
                shown = state["version"]
                if any(name in face["name"] for face in state["faces"]):
                    break
            latencies.append(time.perf_counter() - started)
            time.sleep(0.3)  # the editor's next save comes later
        cards.write_text(text, "utf-8")
    finally:
        server.terminate()
        server.wait(10)
    latencies.sort()
    p95 = latencies[min(len(latencies) - 1, round(0.95 * (len(latencies) - 1)))]
    report(f"preview follows an edit: median of {edits}", statistics.median(latencies), 1, 5, None)
    report("preview follows an edit: 95th percentile", p95, 1, 15, None)


def first_tests(scratch: Path) -> None:
    """The README's two commands on a fresh clone of the checkout's last commit (a git
    repository: the wheel's tests list its files with git): its build, then its tests."""
    clone = scratch / "clone"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    unset = {"PYTHONPATH", "PYTHONDONTWRITEBYTECODE", "CARTIERA_CACHE"}
    unset |= {"CARTIERA_SEEDS", "CARTIERA_REFERENCE", "CARTIERA_DB"}
    env = {k: v for k, v in os.environ.items() if k not in unset}
    wall, cpu = timed([*CARTIERA, "build"], clone, env)
    report("cartiera build in a fresh clone", wall, 60, 99, cpu)
    busy = machine_busy()
    wall, cpu = timed([sys.executable, "-m", "pytest"], clone, env)
    after = machine_busy()
    # before: 5 min 24 s (the issue); the goal is the four minutes on two cores
    report("first run of the tests, after the build", wall, 240, 324, cpu)
    if busy is not None and after is not None:
        cores = os.cpu_count() or 1
        print(
            f"     the machine's {cores} cores were busy for {after - busy:.0f} of the "
            f"{cores * wall:.0f} core-seconds of the test run"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--skip-install", action="store_true", help="no venvs (minutes)")
    parser.add_argument("--skip-cold", action="store_true", help="no cold build (minutes)")
    parser.add_argument("--skip-builds", action="store_true", help="no builds at all")
    parser.add_argument(
        "--edits", type=int, default=10, help="edits timed in the preview (0: no preview)"
    )
    parser.add_argument("--tests", action="store_true", help="the first test run (minutes)")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, {load()}; the checkout at {ROOT}")
    with tempfile.TemporaryDirectory(prefix="cartiera-first-run-") as tmp:
        scratch = Path(tmp)
        venv = None if args.skip_install else installs(scratch)
        project = copy_checkout(scratch / "project")
        if not args.skip_cold:
            ENV["CARTIERA_CACHE"] = str(scratch / "cache")  # nothing rendered yet
        startup(project, venv)
        if not args.skip_builds:
            builds(project, cold=not args.skip_cold)
        if args.edits > 0:
            preview(project, args.edits)
        if args.tests:
            first_tests(scratch)


if __name__ == "__main__":
    main()
