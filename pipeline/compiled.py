"""Compiled engine modules, loaded only while they match their source.

`setup.py` compiles the rules engines' hot modules with Cython and records a digest of each
source it compiled (the .py and the .pxd beside it, which declares its C-level classes) in
pipeline/_compiled.json. An installed module file shadows its source on import, so after an
edit of, say, pipeline/games/bless/turns.py the old compiled rules would still run. The
finder installed here prevents that: when a compiled module's source changed since it was
built, every compiled module of its package is skipped (with one warning saying how to
rebuild) and the sources are imported instead. A whole package, because its compiled
modules share C-level classes (Bless's game is a chain of them across five modules), which
cannot be mixed with the Python source of a base or a subclass. CARTIERA_PURE_PYTHON=1
skips every compiled module.
"""

from __future__ import annotations

import hashlib
import importlib.abc
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


class FreshCompiledOnly(importlib.abc.MetaPathFinder):
    """Sends the imports of a package's compiled modules to their sources when one of those
    sources changed since it was compiled."""

    def __init__(self, built: dict[str, str], pure: bool):
        self.built = built  # module -> digest of the source it was compiled from
        self.pure = pure
        self.stale: dict[str, bool] = {}  # package -> some compiled module of it is stale

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.built:
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
            changed = []
            for module, digest in sorted(self.built.items()):
                name = module.rpartition(".")
                source = folder / (name[2] + ".py")
                if name[0] == package and source.exists() and source_digest(source) != digest:
                    changed.append(source.name)
            if changed:
                warnings.warn(
                    f"{', '.join(changed)} in {folder} changed since compiled: running the "
                    f"Python sources of {package} (reinstall with `pip install -e .` to "
                    "compile them again)",
                    stacklevel=3,
                )
            self.stale[package] = bool(changed)
        return self.stale[package]


def install() -> None:
    """Put the finder first on sys.meta_path (once), when something was compiled."""
    if any(isinstance(f, FreshCompiledOnly) for f in sys.meta_path):
        return
    try:
        built = json.loads(MANIFEST.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return  # nothing compiled: pure Python
    if built:
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
