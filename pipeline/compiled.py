"""Compiled engine modules, loaded only while they match their source.

`setup.py` compiles the rules engines' hot modules with Cython and records the sha256 of
each source it compiled in pipeline/_compiled.json. An installed module file shadows its
source on import, so after an edit of, say, pipeline/games/bless/turns.py the old compiled
rules would still run. The finder installed here prevents that: a compiled module whose
source changed since it was built is skipped (with one warning saying how to rebuild) and
the source is imported instead. CARTIERA_PURE_PYTHON=1 skips every compiled module.
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


class FreshCompiledOnly(importlib.abc.MetaPathFinder):
    """Sends the import of a compiled module whose source changed to its source."""

    def __init__(self, built: dict[str, str], pure: bool):
        self.built = built  # module -> sha256 of the source it was compiled from
        self.pure = pure

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        if fullname not in self.built:
            return None
        spec = importlib.machinery.PathFinder.find_spec(fullname, path)
        if spec is None or not isinstance(spec.loader, importlib.machinery.ExtensionFileLoader):
            return None  # nothing compiled there: the ordinary import finds the source
        assert spec.origin is not None
        source = Path(spec.origin).parent / (fullname.rpartition(".")[2] + ".py")
        if not source.exists():
            return None  # an installation with the compiled module only
        if not self.pure:
            if hashlib.sha256(source.read_bytes()).hexdigest() == self.built[fullname]:
                return None  # up to date: the ordinary import takes the compiled module
            warnings.warn(
                f"{source} changed since it was compiled: running its Python source "
                "(reinstall with `pip install -e .` to compile it again)",
                stacklevel=2,
            )
        return importlib.util.spec_from_file_location(fullname, source)


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
