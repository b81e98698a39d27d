"""`cartiera build`: every output of every game, into build/, doing no work twice.

Each step (a deck PDF, the card images, a rulebook, the site) has a stamp: a digest of
everything it reads (the database's content, the templates, the code, its options).
A step whose stamp and outputs are unchanged is skipped, so a second run with nothing
changed does nothing and says so.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import time
import zipfile
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import cast

from .artifacts import OFFLINE_ZIP, artifacts
from .database import build_database, is_current, sorted_dump
from .lock import die_with_parent, holding_lock
from .output import atomic_write
from .play import DB_STAGES
from .problems import Problem, SourceError
from .project import Project
from .validate import validate


@dataclass(frozen=True)
class Step:
    name: str  # "deck bless a4"
    game: str | None
    kind: str  # deck | images | rulebook | site
    options: tuple[tuple[str, str], ...] = ()
    outputs: tuple[str, ...] = ()  # paths relative to the project


@dataclass
class BuildReport:
    ran: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    seconds: float = 0.0
    database_rebuilt: bool = False


def plan(project: Project, slugs: Sequence[str]) -> list[Step]:
    steps = [
        Step(a.step, slug, a.kind, a.options, (a.path,)) for slug in slugs for a in artifacts(slug)
    ]
    from .engine.registry import plugin

    steps += [
        Step(f"balance {slug}", slug, "balance", (), (f"build/balance/{slug}/figures.json",))
        for slug in slugs
        if (found := plugin(slug)) is not None and found.engine  # imports this game's only
    ]
    offline = ("build/site-offline/index.html", f"build/downloads/{OFFLINE_ZIP}")
    steps.append(Step("site offline", None, "site", (("variant", "offline"),), offline))
    steps.append(Step("site", None, "site", (), ("build/site/index.html",)))
    return steps


def run_step(root: str, db_url: str, step: Step) -> float:
    """Do one step (in a worker process); return its duration in seconds."""
    from .render.deck import DeckOptions, Layout, build_deck
    from .render.images import ImageOptions, build_images
    from .rulebook import build_rulebook
    from .site import build_site

    project = Project(root=Path(root), db_url=db_url)
    options = dict(step.options)
    started = time.perf_counter()
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
    elif step.kind == "balance":
        from .site_balance import ensure_balance

        ensure_balance(project, step.game or "")
    elif step.kind == "site" and options.get("variant") == "offline":
        from .site import offline_zip, offline_zip_path

        offline_zip(project, build_site(project, offline=True), offline_zip_path(project))
    elif step.kind == "site":
        build_site(project)
    return time.perf_counter() - started


MANIFEST = "manifest.json"


def _zip(folder: Path, files: Iterable[Path]) -> bytes:
    """The step's own files (never a stray one, such as a temporary file a killed step
    left in the folder) in a zip whose bytes depend only on their content."""
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for path in sorted(files):
            info = zipfile.ZipInfo(f"{folder.parent.name}/{path.name}", (2026, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            archive.writestr(info, path.read_bytes())
    return out.getvalue()


def _digest_files(paths: Iterable[Path], root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(paths):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


def stamps(project: Project, steps: Sequence[Step]) -> dict[str, str]:
    """What each step depends on, as one digest per step."""
    package = Path(__file__).resolve().parent
    db = project.sqlite_path
    content = hashlib.sha256("\n".join(sorted_dump(db)).encode()).hexdigest() if db else ""
    code = _digest_files(package.rglob("*.py"), package)
    templates = _digest_files(project.templates_dir.rglob("*"), project.root)
    hand_written = [p for p in (project.root / "site").rglob("*") if not _generated(project, p)]
    site = _digest_files([*hand_written, project.root / "mkdocs.yml"], project.root)
    result = {}
    for step in steps:
        parts = [content, code, templates, step.name, json.dumps(step.options)]
        if step.kind == "balance":  # only the game's cards and engine: simulating is slow
            from .site_balance import stamp

            parts = [step.name, stamp(project, step.game or "")]
        if step.kind == "site":  # the site also shows every other step's outputs (the
            # plan puts the site last, so their stamps are known: a zip made again is a
            # site made again)
            others = [result[s.name] for s in steps if s.kind != "site"]
            parts += [site, json.dumps(others)]
        result[step.name] = hashlib.sha256("|".join(parts).encode()).hexdigest()
    return result


def _generated(project: Project, path: Path) -> bool:
    rel = path.relative_to(project.root / "site").parts
    return bool(rel) and rel[0] in ("index.md", "giochi", "scarica")


@holding_lock("build")
def build(
    project: Project, jobs: int = 1, progress: Callable[[str, int, int], None] | None = None
) -> BuildReport:
    """Check the data, bring cards.db up to date, then make every output that is stale."""
    report = BuildReport()
    started = time.perf_counter()
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
    if project.sqlite_path is not None and not is_current(project, checked.games, DB_STAGES)[0]:
        build_database(project, checked.games, DB_STAGES)
        report.database_rebuilt = True
    steps = plan(project, [g.slug for g in checked.games])
    wanted = stamps(project, steps)
    stamp_file = project.build_dir / "stamps.json"
    done = json.loads(stamp_file.read_text()) if stamp_file.exists() else {}
    todo = [
        s
        for s in steps
        if done.get(s.name) != wanted[s.name]
        or not all((project.root / o).exists() for o in s.outputs)
    ]
    report.skipped = [s.name for s in steps if s not in todo]
    per_game = [s for s in todo if s.kind != "site"]
    finished = 0

    def record(step: Step) -> None:
        nonlocal finished
        finished += 1
        done[step.name] = wanted[step.name]
        report.ran.append(step.name)
        atomic_write(stamp_file, json.dumps(done, indent=1, sort_keys=True).encode())
        if progress:
            progress(step.name, finished, len(todo))

    if jobs > 1 and len(per_game) > 1:
        with ProcessPoolExecutor(
            max_workers=jobs, initializer=die_with_parent, initargs=(os.getpid(),)
        ) as pool:
            futures = {
                s: pool.submit(run_step, str(project.root), project.db_url, s) for s in per_game
            }
            for step, future in futures.items():
                future.result()
                record(step)
    else:
        for step in per_game:
            run_step(str(project.root), project.db_url, step)
            record(step)
    for step in todo:
        if step.kind == "site":
            run_step(str(project.root), project.db_url, step)
            record(step)
    report.seconds = time.perf_counter() - started
    return report
