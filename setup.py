"""Packaging beyond pyproject.toml: the wheel also carries the project skeleton that
`cartiera new` lays out in an empty folder (the paths in pipeline/skeleton.txt), copied from
the repository's top-level folders into pipeline/_skeleton/ at build time."""

import shutil
from pathlib import Path

from setuptools import setup
from setuptools.command.build_py import build_py

ROOT = Path(__file__).resolve().parent


class BuildWithSkeleton(build_py):
    def run(self) -> None:
        super().run()
        target = Path(self.build_lib) / "pipeline" / "_skeleton"
        listing = (ROOT / "pipeline" / "skeleton.txt").read_text("utf-8").splitlines()
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


setup(cmdclass={"build_py": BuildWithSkeleton})
