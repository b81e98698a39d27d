"""One writer at a time per project, and nothing left behind by a writer that was killed.

`cartiera build`, `site`, `db build` and `import` hold the project's lock while they run:
two at once would write the same files (one failing on a file the other renamed away), and
a `db build` during a `site` would give pages of the old cards beside images of the new.
Holding the lock, a command knows no other writes, so the temporary files of a writer
killed earlier (all ours are `.NAME.*.tmp`, see output.atomic_write) can go.
"""

from __future__ import annotations

import contextlib
import ctypes
import fcntl
import functools
import os
import shutil
import signal
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Concatenate, ParamSpec, TypeVar

from .problems import Problem, SourceError
from .project import Project

LOCK_FILE = ".lock"  # in build/
PR_SET_PDEATHSIG = 1  # prctl(2) option: a signal for this process when its parent dies
P = ParamSpec("P")
R = TypeVar("R")
_HELD: set[Path] = set()  # the locks this process holds: `build` runs `db build` inside


def holding_lock(
    command: str,
) -> Callable[[Callable[Concatenate[Project, P], R]], Callable[Concatenate[Project, P], R]]:
    """Decorate a function of a project that writes it: it runs holding project_lock."""

    def decorate(
        func: Callable[Concatenate[Project, P], R],
    ) -> Callable[Concatenate[Project, P], R]:
        @functools.wraps(func)
        def locked(project: Project, *args: P.args, **kwargs: P.kwargs) -> R:
            with project_lock(project, command):
                return func(project, *args, **kwargs)

        return locked

    return decorate


@contextlib.contextmanager
def project_lock(project: Project, command: str) -> Iterator[None]:
    """Hold the project's lock for `command`; another holder is one line naming it."""
    project.build_dir.mkdir(parents=True, exist_ok=True)
    path = (project.build_dir / LOCK_FILE).resolve()
    if path in _HELD:
        yield
        return
    with open(path, "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            holder = handle.read().strip() or "another cartiera command"
            raise SourceError(
                Problem(
                    "error",
                    f"{holder} is running in this project",
                    hint="wait for it to finish, then run this again",
                )
            ) from None
        handle.seek(0)
        handle.truncate()
        handle.write(f"cartiera {command} (pid {os.getpid()})\n")
        handle.flush()
        _HELD.add(path)
        try:
            remove_stale_temps(project)
            yield
        finally:
            _HELD.discard(path)
            handle.seek(0)
            handle.truncate()


def remove_stale_temps(project: Project) -> list[Path]:
    """Remove the temporary files that killed writers left (the lock is held, so none is
    being written now); return them. Caches are left alone: other projects write there
    without this lock."""
    found = [*project.games_dir.glob("*/.*.tmp"), *project.build_dir.glob(".*.tmp")]
    for folder in project.build_dir.iterdir():
        if folder.is_dir() and "cache" not in folder.name:
            found += folder.rglob(".*.tmp")
    if project.sqlite_path is not None:
        found += project.sqlite_path.parent.glob(f".{project.sqlite_path.name}.*.tmp")
    removed = []
    for path in found:
        if path.is_dir() and path.parent == project.build_dir:  # a site MkDocs was building
            shutil.rmtree(path, ignore_errors=True)
        elif path.is_file():
            with contextlib.suppress(FileNotFoundError):
                path.unlink()
                removed.append(path)
    return removed


def die_with_parent(parent: int) -> None:
    """For worker processes (a pool's initializer, given the pool owner's pid): end when
    that process ends, even by SIGKILL, instead of writing outputs for a build nobody
    waits for."""
    if sys.platform.startswith("linux"):
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent died before prctl took effect
        os._exit(1)
