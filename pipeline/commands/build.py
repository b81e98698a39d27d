"""`cartiera build`: every output of every game, into build/, doing no work twice.

Each step (a deck PDF, the card images, a rulebook, the site) has a stamp: a digest of
everything it reads (the database's content, the templates, the code, its options).
A step whose stamp and outputs are unchanged is skipped, so a second run with nothing
changed does nothing and says so.
"""

from __future__ import annotations

import hashlib
import json
import os
import resource
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from pipeline.common.lock import die_with_parent, holding_lock
from pipeline.common.output import atomic_write, zip_bytes
from pipeline.common.problems import Problem, SourceError
from pipeline.common.project import Project, code_digest, digest_files
from pipeline.publish.artifacts import OFFLINE_ZIP, SITE_GENERATED, artifacts

if TYPE_CHECKING:
    from pipeline.sources.load import LoadedGame


@dataclass(frozen=True)
class Step:
    name: str  # "deck bless a4"
    game: str | None
    kind: str  # deck | images | rulebook | site
    options: tuple[tuple[str, str], ...] = ()
    outputs: tuple[str, ...] = ()  # paths relative to the project


@dataclass(frozen=True)
class Timing:
    """Where a build's time went: one step or phase, its game, wall and CPU seconds (CPU:
    user + system of the process that did it and of the programs it ran, e.g. MkDocs)."""

    name: str
    game: str | None
    wall: float
    cpu: float


@dataclass
class BuildReport:
    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    seconds: float = 0.0
    database: str | None = None  # what was done to the database, or which one was used
    timings: list[Timing] = field(default_factory=list)  # phases and steps, in order done
    cpu: float = 0.0  # CPU seconds of the whole build, workers and programs included


def cpu_seconds(children: bool = True) -> float:
    """User + system CPU seconds of this process (and of its waited-for children)."""
    total = 0.0
    for who in (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN) if children else (0,):
        used = resource.getrusage(who)
        total += used.ru_utime + used.ru_stime
    return total


class _Clock:
    """Times the phases of a build in this process."""

    def __init__(self, report: BuildReport) -> None:
        self.report = report
        self.wall, self.cpu = time.perf_counter(), cpu_seconds()

    def lap(self, name: str) -> None:
        wall, cpu = time.perf_counter(), cpu_seconds()
        self.report.timings.append(Timing(name, None, wall - self.wall, cpu - self.cpu))
        self.wall, self.cpu = wall, cpu


def plan(
    project: Project, slugs: Sequence[str], engines: Sequence[str] | None = None
) -> list[Step]:
    """Every step for these games; `engines`: those of them with a rules engine, when known
    (else found by importing each game's package, a second for Bless's vocabulary)."""
    made: dict[str, Step] = {}  # one step per name: a step may make several files
    for slug in slugs:
        for a in artifacts(slug):
            known = made.get(a.step)
            outputs = (*known.outputs, a.path) if known else (a.path,)
            made[a.step] = Step(a.step, slug, a.kind, a.options, outputs)
    steps = list(made.values())
    have = set(_engines(slugs) if engines is None else engines)
    steps += [
        Step(f"balance {slug}", slug, "balance", (), (f"build/balance/{slug}/figures.json",))
        for slug in slugs
        if slug in have
    ]
    # both variants in one step: they share the generated pages, and the served one offers
    # the offline one's zip
    sites = ("build/site/index.html", "build/site-offline/index.html")
    steps.append(Step("site", None, "site", (), (*sites, f"build/downloads/{OFFLINE_ZIP}")))
    return steps


def _engines(slugs: Sequence[str]) -> list[str]:
    """The games with a rules engine (imports each game's package, and only its own)."""
    from pipeline.engine.registry import plugin

    return [slug for slug in slugs if (found := plugin(slug)) is not None and found.engine]


def run_step(root: str, db_url: str, step: Step) -> Timing:
    """Do one step (in a worker process); return how long it took."""
    from pipeline.publish.render.deck import DeckOptions, Layout, build_deck
    from pipeline.publish.render.images import ImageOptions, build_images
    from pipeline.publish.rulebook import build_booklet, build_rulebook
    from pipeline.publish.site.pages import build_sites

    project = Project(root=Path(root), db_url=db_url)
    options = dict(step.options)
    started, cpu = time.perf_counter(), cpu_seconds()
    outputs = [project.root / o for o in step.outputs]
    if step.kind == "deck":
        build_deck(
            project,
            step.game or "",
            DeckOptions(paper=options["paper"], layout=cast(Layout, options["layout"])),
            outputs[0],
        )
    elif step.kind == "images":
        result = build_images(
            project,
            step.game or "",
            ImageOptions(dpi=300),
            project.build_dir / "images" / (step.game or "") / "300dpi",
        )
        atomic_write(outputs[0], _zip(result.folder, [*result.files, result.folder / MANIFEST]))
    elif step.kind == "rulebook":
        build_rulebook(project, step.game or "", options["paper"], outputs[0])  # type: ignore[arg-type]
        for booklet in outputs[1:]:
            build_booklet(project, step.game or "", outputs[0], booklet)
    elif step.kind == "balance":
        from pipeline.publish.site.balance import ensure_balance

        ensure_balance(project, step.game or "")
    elif step.kind == "site":
        build_sites(project)
    return Timing(step.name, step.game, time.perf_counter() - started, cpu_seconds() - cpu)


MANIFEST = "manifest.json"


def _zip(folder: Path, files: Iterable[Path]) -> bytes:
    """The step's own files (never a stray one, such as a temporary file a killed step
    left in the folder) in a zip whose bytes depend only on their content."""
    return zip_bytes((f"{folder.parent.name}/{path.name}", path) for path in files)


def stamps(project: Project, steps: Sequence[Step], content: str) -> dict[str, str]:
    """What each step depends on, as one digest per step; `content` is the digest of the
    database's content (database_digest)."""
    from pipeline.publish.render.cache import renderer_tag

    code = code_digest()
    templates = digest_files(project.templates_dir.rglob("*"), project.root)
    hand_written = [p for p in (project.root / "site").rglob("*") if not _generated(project, p)]
    site = digest_files([*hand_written, project.root / "mkdocs.yml"], project.root)
    result: dict[str, str] = {}
    for step in steps:
        parts = [content, code, templates, step.name, json.dumps(step.options)]
        if step.kind in RENDERED:  # a WeasyPrint, PDFium or font upgrade changes the bytes
            parts.append(renderer_tag())
        if step.kind == "balance":  # only the game's cards and engine: simulating is slow
            from pipeline.publish.site.balance import stamp

            parts = [step.name, stamp(project, step.game or "")]
        if step.kind == "site":  # the site also shows every other step's outputs (the
            # plan puts the site last, so their stamps are known: a zip made again is a
            # site made again)
            others = [result[s.name] for s in steps if s.kind != "site"]
            parts += [site, json.dumps(others), site_tools()]
        result[step.name] = hashlib.sha256("|".join(parts).encode()).hexdigest()
    return result


RENDERED = ("deck", "images", "rulebook", "site")  # the steps whose outputs renderers make


def site_tools() -> str:
    """The versions of what builds the site besides our code (MkDocs and its theme)."""
    from importlib.metadata import PackageNotFoundError, version

    found = []
    for name in ("mkdocs", "mkdocs-material"):
        try:
            found.append(f"{name}={version(name)}")
        except PackageNotFoundError:
            found.append(f"{name}=-")
    return " ".join(found)


DB_RECORD = "database.json"  # in build/: what the last build found cards.db made from


def _database(
    project: Project,
    games: Sequence[LoadedGame] | Callable[[], Sequence[LoadedGame]],
    snapshot: Path,
) -> tuple[str | None, str]:
    """refresh(), then a snapshot of the database into `snapshot` (a SQLite file every step
    reads: one version of the cards for the whole build, whatever writes the database
    meanwhile); return what to say and the digest of the snapshot's content. Checking a
    SQLite file writes a whole database and plays every worked example (most of a no-op
    build's time), so that is skipped while cards.db is, byte for byte, the file the last
    build left and games/ and the code are what it came from."""
    path = project.sqlite_path
    record = project.build_dir / DB_RECORD
    inputs = _inputs(project)
    if path is not None and path.exists():  # (a server: another client may have written it)
        known = _known(project)
        if (
            known.get("inputs") == inputs
            and known.get("file") == _sha256(path)
            and _copy_sqlite(path, snapshot) == known["file"]
        ):
            return None, str(known["content"])
    # Imported here: a no-op build needs neither SQLAlchemy nor the engines (a second or two).
    from pipeline.database.store import refresh, server_snapshot, snapshot_digest
    from pipeline.play.records import DB_STAGES

    loaded = games() if callable(games) else games
    said = refresh(project, loaded, DB_STAGES)
    if path is None:
        server_snapshot(project.db_url, snapshot, loaded)
        return said, snapshot_digest(snapshot, server=True)
    file = _copy_sqlite(path, snapshot)
    content = snapshot_digest(snapshot, server=False)
    slugs = [g.slug for g in loaded]
    now = {
        "inputs": inputs,
        "file": file,
        "content": content,
        "games": slugs,
        "engines": _engines(slugs),
    }
    atomic_write(record, json.dumps(now, indent=1).encode())
    return said, content


def _copy_sqlite(path: Path, target: Path) -> str:
    """Copy a SQLite database with its backup API (a consistent copy even while another
    program writes the file in place); return the digest of the file copied (the copy's
    header counters differ from it), or "" when it changed while being copied."""
    import sqlite3
    from contextlib import closing

    for _ in range(3):
        before = _sha256(path)
        target.unlink(missing_ok=True)
        with (
            closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as source,
            closing(sqlite3.connect(target)) as copy,
        ):
            source.backup(copy)
        if _sha256(path) == before:
            return before
    return ""


def snapshot_path(project: Project) -> Path:
    """Where a build keeps its copy of the database: a temporary name, so that the copy of
    a killed build goes with the next command that takes the project's lock."""
    return project.build_dir / f".snapshot-cards.db.{os.getpid()}.tmp"


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _generated(project: Project, path: Path) -> bool:
    rel = path.relative_to(project.root / "site").parts
    return bool(rel) and rel[0] in SITE_GENERATED


@holding_lock("build")
def build(
    project: Project, jobs: int = 1, progress: Callable[[str, int, int], None] | None = None
) -> BuildReport:
    """Check the data, bring cards.db up to date, then make every output that is stale,
    all from one snapshot of the database."""
    report = BuildReport()
    started, cpu = time.perf_counter(), cpu_seconds()
    clock = _Clock(report)
    checked: list[LoadedGame] = []

    def games() -> list[LoadedGame]:
        if not checked:
            checked.extend(_validated(project))
        return checked

    known = _known(project)
    if known.get("inputs") != _inputs(project) or not isinstance(known.get("games"), list):
        games()  # else: the sources and code that passed last time, so they pass again
    clock.lap("validate")
    snapshot = snapshot_path(project)
    try:
        report.database, content = _database(project, games, snapshot)
        clock.lap("database")
        slugs = [g.slug for g in checked] if checked else list(_known(project)["games"])
        _run(project, report, slugs, content, snapshot, jobs, progress)
    finally:
        snapshot.unlink(missing_ok=True)
    report.seconds = time.perf_counter() - started
    report.cpu = cpu_seconds() - cpu
    return report


def _run(
    project: Project,
    report: BuildReport,
    slugs: list[str],
    content: str,
    snapshot: Path,
    jobs: int,
    progress: Callable[[str, int, int], None] | None,
) -> None:
    from pipeline.common.project import database_url

    clock = _Clock(report)
    engines = _known(project).get("engines")  # (None for a server database: found again)
    steps = plan(project, slugs, engines if isinstance(engines, list) else None)
    wanted = stamps(project, steps, content)
    stamp_file = project.build_dir / "stamps.json"
    done = json.loads(stamp_file.read_text()) if stamp_file.exists() else {}
    todo = [
        s
        for s in steps
        if done.get(s.name) != wanted[s.name]
        or not all((project.root / o).exists() for o in s.outputs)
    ]
    report.skipped = [s.name for s in steps if s not in todo]
    clock.lap("stamps")
    per_game = _schedule([s for s in todo if s.kind != "site"])
    finished = 0
    db_url = database_url(snapshot)

    def record(step: Step, timing: Timing) -> None:
        nonlocal finished
        finished += 1
        done[step.name] = wanted[step.name]
        report.ran.append(step.name)
        report.timings.append(timing)
        atomic_write(stamp_file, json.dumps(done, indent=1, sort_keys=True).encode())
        if progress:
            progress(step.name, finished, len(todo))

    if jobs > 1 and len(per_game) > 1:
        with ProcessPoolExecutor(
            max_workers=jobs, initializer=die_with_parent, initargs=(os.getpid(),)
        ) as pool:
            futures = {s: pool.submit(run_step, str(project.root), db_url, s) for s in per_game}
            for step, future in futures.items():
                record(step, future.result())
    else:
        for step in per_game:
            record(step, run_step(str(project.root), db_url, step))
    for step in todo:
        if step.kind == "site":
            record(step, run_step(str(project.root), db_url, step))
    path = project.sqlite_path
    if todo and path is not None and _copied(project) != (_sha256(path) if path.exists() else ""):
        report.database = (
            f"{project.rel(path)} changed during the build: every output shows it as it was "
            "when the build started (run `cartiera build` again for the new one)"
        )


def timings_table(report: BuildReport) -> list[str]:
    """`cartiera build --timings`: each phase and step, then each game and the whole build,
    in wall and CPU seconds (steps run side by side, so their wall times overlap)."""
    width = max((len(t.name) for t in report.timings), default=10) + 2
    lines = [f"{'step':<{width}}{'wall s':>9}{'CPU s':>9}"]
    lines += [f"{t.name:<{width}}{t.wall:9.1f}{t.cpu:9.1f}" for t in report.timings]
    games = sorted({t.game for t in report.timings if t.game})
    if games:
        lines.append(f"{'per game':<{width}}")
    for game in games:
        own = [t for t in report.timings if t.game == game]
        wall, cpu = sum(t.wall for t in own), sum(t.cpu for t in own)
        lines.append(f"{'  ' + game:<{width}}{wall:9.1f}{cpu:9.1f}")
    lines.append(f"{'total':<{width}}{report.seconds:9.1f}{report.cpu:9.1f}")
    return lines


def _schedule(steps: list[Step]) -> list[Step]:
    """The order workers take steps in: first one deck per game (it renders the game's
    faces), then the steps that need no faces, then the other decks and images, which find
    the faces rendered: two workers never lay out the same game's faces at once."""
    first = {s.game: s for s in reversed(steps) if s.kind == "deck"}
    rank = {"rulebook": 1, "balance": 1}
    return sorted(steps, key=lambda s: 0 if first.get(s.game) is s else rank.get(s.kind, 2))


def _validated(project: Project) -> list[LoadedGame]:
    """The project's games, once every source is valid; else the first error, one line."""
    from .validate import validate  # pydantic and every game's vocabulary: a second

    checked = validate(project, layout=False)
    errors = [p for p in checked.problems if p.is_error]
    if errors:
        raise SourceError(
            errors[0]
            if len(errors) == 1
            else Problem(
                errors[0].severity,
                f"{errors[0].message} (and {len(errors) - 1} more errors)",
                file=errors[0].file,
                line=errors[0].line,
                column=errors[0].column,
                game=errors[0].game,
                card=errors[0].card,
                hint="run `cartiera validate` to see them all",
            )
        )
    return list(checked.games)


def _known(project: Project) -> dict[str, Any]:
    """What the last build recorded about cards.db and the sources (DB_RECORD)."""
    try:
        found = json.loads((project.build_dir / DB_RECORD).read_text("utf-8"))
    except (OSError, ValueError):
        return {}
    return found if isinstance(found, dict) else {}


def _inputs(project: Project) -> str:
    """The digest of games/ and of the code: what validation and cards.db come from."""
    return digest_files(project.games_dir.rglob("*"), project.root) + code_digest()


def _copied(project: Project) -> str:
    """The digest of the SQLite file this build copied (its record)."""
    try:
        return str(json.loads((project.build_dir / DB_RECORD).read_text("utf-8"))["file"])
    except (OSError, ValueError, KeyError):
        return ""
