"""Packaging beyond pyproject.toml.

- The wheel carries the project skeleton that `cartiera new` lays out in an empty folder
  (the paths in pipeline/commands/skeleton.txt), copied from the repository's top-level folders into
  pipeline/_skeleton/ at build time.
- An install is pure Python unless asked otherwise: `pip install -e .` takes seconds. With
  CARTIERA_COMPILE=1 in the environment (`CARTIERA_COMPILE=1 pip install -e .`), the rules
  engines' hot modules are compiled with Cython in pure-Python mode: the sources stay
  ordinary Python; a .pxd beside a module may declare, for the compiler only, which of its
  classes are C classes, their fields and their methods called from C, and the C types of
  hot locals and functions (Bless's game; the core's shuffle and random choice). Play is
  then faster (by how much: the README's measured table, benchmarks/engine.py), which
  balance runs of tens of thousands of games need; the build needs a C compiler. Cython
  is then asked for as a build requirement (setup_requires, which setuptools' PEP 517
  backend reports to pip), so a pure install never downloads it. The modules are built
  without debugging symbols and stripped. With no C compiler the install warns and stays
  pure Python. Each compiled build records a digest of every source it compiled
  (pipeline/_compiled.json), and pipeline.compiled loads a
  package's compiled modules only while all their sources are unchanged, so an edit to an
  engine module takes effect at once, compiled again or not.
"""

import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path

from setuptools import setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent
# The modules a random game spends its time in (profiles of benchmarks/engine.py and of the
# conformance test, which also checks each game's invariants after every action).
COMPILED = [
    "pipeline/engine/agents.py",
    "pipeline/engine/core.py",
    "pipeline/games/bldng/cards.py",
    "pipeline/games/bldng/figures.py",
    "pipeline/games/bldng/matching.py",
    "pipeline/games/bldng/state.py",
    "pipeline/games/bless/common.py",
    "pipeline/games/bless/compiler.py",
    "pipeline/games/bless/effects.py",
    "pipeline/games/bless/engine.py",
    "pipeline/games/bless/field.py",
    "pipeline/games/bless/state.py",
    "pipeline/games/bless/turns.py",
    "pipeline/games/bless/values.py",
    "pipeline/games/blitz/cards.py",
    "pipeline/games/blitz/engine.py",
    "pipeline/games/blitz/state.py",
    "pipeline/games/mazzo/state.py",
    "pipeline/games/samurai_sword/engine.py",
    "pipeline/games/samurai_sword/state.py",
    "pipeline/games/samurai_sword/table.py",
]
MANIFEST = "_compiled.json"  # in the package pipeline, beside the compiled modules
COMPILE_ENV = "CARTIERA_COMPILE"  # 1: compile the modules above


class BuildWithSkeleton(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "pipeline" / "_skeleton"
        listing = (ROOT / "pipeline" / "commands" / "skeleton.txt").read_text("utf-8").splitlines()
        for rel in (line.strip() for line in listing):
            if not rel or rel.startswith("#"):
                continue
            src, dest = ROOT / rel, target / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            if src.is_dir():
                shutil.copytree(src, dest, dirs_exist_ok=True,
                                ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))  # fmt: skip
            else:
                shutil.copy2(src, dest)


class OptionalBuildExt(build_ext):
    """Compiled modules where a C compiler is at hand; pure Python, with a warning, where not.
    Writes the manifest of what was compiled from which source."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if self.parallel is None:
            self.parallel = os.cpu_count() or 1  # the C compiler on every core

    def run(self) -> None:
        self.built: set[str] = set()
        try:
            super().run()
        except Exception as error:  # no compiler, no Python headers: the sources still run
            _warn(f"the rules engines stay pure Python ({error})")
        compiled = {}
        digest = _compiled_py().source_digest
        for ext in self.extensions:  # built (or up to date) now: an old file may stay behind
            if ext.name in self.built and Path(self.get_ext_fullpath(ext.name)).exists():
                compiled[ext.name] = digest(ROOT / _source_of(ext.name))
        package = Path(self.get_ext_fullpath("pipeline.x")).parent
        package.mkdir(parents=True, exist_ok=True)
        (package / MANIFEST).write_text(json.dumps(compiled, indent=1, sort_keys=True) + "\n")

    def build_extension(self, ext) -> None:  # type: ignore[no-untyped-def]
        try:
            super().build_extension(ext)
        except Exception as error:
            _warn(f"{ext.name} stays pure Python ({error})")
        else:
            self.built.add(ext.name)


def _source_of(module: str) -> str:
    return module.replace(".", "/") + ".py"


def _compiled_py():  # type: ignore[no-untyped-def]
    """pipeline/compiled.py (stdlib only), loaded without importing the package: its
    source_digest is what the installed package compares the manifest with."""
    spec = importlib.util.spec_from_file_location(
        "_cartiera_compiled", ROOT / "pipeline/compiled.py"
    )
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _warn(message: str) -> None:
    print(f"cartiera: {message}", file=sys.stderr)


def compiling() -> bool:
    return os.environ.get(COMPILE_ENV, "") not in ("", "0")


def compiled_extensions() -> list:
    if not compiling():
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:  # pip installs it first (setup_requires below); a bare setup.py may not
        _warn("Cython is not installed: the rules engines stay pure Python")
        return []
    extensions = cythonize(
        COMPILED,
        build_dir="build/cython",  # the generated C stays out of the sources
        compiler_directives={"language_level": 3, "binding": True, "annotation_typing": False},
        quiet=True,
        nthreads=os.cpu_count() or 1,
    )
    for extension in extensions:  # the interpreter's CFLAGS carry -g: a 15.7 MB wheel
        extension.extra_compile_args.append("-g0")  # no debugging symbols
        extension.extra_link_args.append("-s")  # stripped
    return extensions


setup(
    cmdclass={"build_py": BuildWithSkeleton, "build_ext": OptionalBuildExt},
    ext_modules=compiled_extensions(),
    setup_requires=["Cython>=3.0"] if compiling() else [],
)
