"""Compiled engine modules, loaded only while they match their source.

`setup.py` compiles the rules engines' hot modules with Cython and records a digest of each
source it compiled (the .py and the .pxd beside it, which declares its C-level classes) in
pipeline/_compiled.json. An installed module file shadows its source on import, so after an
edit of, say, pipeline/games/bless/turns.py the old compiled rules would still run. The
finder installed here prevents that: when a compiled module's source changed since it was
built, every compiled module of its package is skipped (with one warning saying how to
rebuild) and the sources are imported instead. A whole package, because its compiled
modules share C-level classes (Bless's game is one chain of them, a class per module),
which cannot be mixed with the Python source of a base or a subclass. Every compiled file found
beside a source is checked, whether the manifest lists it or not (a failed build may leave
an old file and drop it from the manifest). CARTIERA_PURE_PYTHON=1 skips every compiled
module.
"""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import os
import sys
import warnings
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

PURE_ENV = "CARTIERA_PURE_PYTHON"
MANIFEST = Path(__file__).with_name("_compiled.json")


def source_digest(source: Path) -> str:
    """sha256 of a compiled module's source: the .py and, when there is one, its .pxd."""
    digest = hashlib.sha256(source.read_bytes())
    declarations = source.with_suffix(".pxd")
    if declarations.exists():
        digest.update(b"\0" + declarations.read_bytes())
    return digest.hexdigest()


class FreshCompiledOnly:
    """Sends the imports of a package's compiled modules to their sources when one of those
    sources changed since it was compiled, or when the manifest does not vouch for it.

    Every compiled module file found beside a source counts, whatever the manifest lists:
    a module the manifest dropped (its recompile failed) or an empty manifest (a failed
    build) says nothing about when that file was made, so it is not trusted.

    A meta path finder needs only `find_spec`. Deriving from importlib.abc.MetaPathFinder
    imported importlib.resources, with tempfile and zipfile, into every process that
    imports `pipeline`, whether it needs them or not (10 ms of `cartiera --help`)."""

    def __init__(self, built: dict[str, str], pure: bool, prefix: str = "pipeline."):
        self.built = built  # module -> digest of the source it was compiled from
        self.pure = pure
        self.prefix = prefix  # the packages whose compiled modules are checked
        self.stale: dict[str, bool] = {}  # package -> some compiled module of it is stale

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if not fullname.startswith(self.prefix):
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            return None  # nothing compiled there: the ordinary import finds the source
        assert spec.origin is not None
        folder = Path(spec.origin).parent
        source = folder / (fullname.rpartition(".")[2] + ".py")
        if not source.exists():
            return None  # an installation with the compiled module only
        if not self.pure and not self._stale(fullname.rpartition(".")[0], folder):
            return None  # up to date: the ordinary import takes the compiled module
        return importlib.util.spec_from_file_location(fullname, source)

    def _stale(self, package: str, folder: Path) -> bool:
        if package not in self.stale:
            changed = stale_modules(package, folder, self.built)
            if changed:
                warnings.warn(
                    f"{', '.join(changed)} in {folder} changed since compiled (or the build "
                    f"did not record it): running the Python sources of {package} "
                    "(reinstall with `pip install -e .` to compile them again)",
                    stacklevel=3,
                )
            self.stale[package] = bool(changed)
        return self.stale[package]


def stale_modules(package: str, folder: Path, built: dict[str, str]) -> list[str]:
    """The sources in `folder` whose compiled module beside them may not run: the source
    changed since it was compiled, or the manifest `built` does not list it."""
    changed = []
    names = {name for path in folder.iterdir() if (name := _module_name(path)) is not None}
    for name in sorted(names):
        source = folder / f"{name}.py"
        if source.exists() and built.get(f"{package}.{name}") != source_digest(source):
            changed.append(source.name)
    return changed


def _module_name(path: Path) -> str | None:
    """The module a compiled extension file holds ("turns" for turns.cpython-311-….so)."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if path.name.endswith(suffix):
            return path.name[: -len(suffix)]
    return None


def install() -> None:
    """Put the finder first on sys.meta_path (once). Without a manifest (nothing compiled,
    or a build that failed before writing it) every compiled file found is stale."""
    if any(isinstance(f, FreshCompiledOnly) for f in sys.meta_path):
        return
    try:
        built = dict(json.loads(MANIFEST.read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        built = {}
    pure = os.environ.get(PURE_ENV, "") not in ("", "0")
    sys.meta_path.insert(0, FreshCompiledOnly(built, pure))


def compiled_modules() -> list[str]:
    """The modules of this process that run compiled (for benchmarks and reports)."""
    out = []
    for name, module in list(sys.modules.items()):
        spec = getattr(module, "__spec__", None)
        loader = getattr(spec, "loader", None)
        if name.startswith("pipeline.") and isinstance(
            loader, importlib.machinery.ExtensionFileLoader
        ):
            out.append(name)
    return sorted(out)
