"""The stages of pipeline/ are layered: a package imports only the packages below it.

The order is the data flow (sources, then cards.db, then play and publishing) with the
commands and the CLI on top. Each package's docstring says what it may import; this test
reads every import statement of every module (function-local and type-only ones too) and
fails on one that reaches up, naming the file, the line and the two packages.
"""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "pipeline"

LAYERS = [  # lowest first
    "common",
    "engine",
    "sources",
    "games",
    "database",
    "search",
    "spreadsheet",
    "play",
    "publish",
    "commands",
    "cli",
]
# `import pipeline` installs the compiled modules' import hook before anything else, and
# `python -m pipeline` is the CLI: the package's own three files stand outside the layers.
BOOTSTRAP = {"__init__.py", "__main__.py", "compiled.py"}


def _module(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path, module: str | None = None) -> list[tuple[int, str]]:
    """Every pipeline module or package `path` imports, absolute, with its line; `module`
    is its name (by default, from where it stands under the checkout)."""
    module = module or _module(path)
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                target = ".".join([*base, node.module] if node.module else base)
            else:
                target = node.module or ""
            found += [(node.lineno, f"{target}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
    return [(line, name) for line, name in found if name.startswith("pipeline.")]


def _layer(name: str) -> str | None:
    parts = name.split(".")
    return parts[1] if len(parts) > 1 and parts[1] in LAYERS else None


def _sources() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def test_no_package_imports_a_package_above_it():
    upward = []
    for path in _sources():
        here = _layer(_module(path))
        if here is None:
            continue
        for line, name in _imports(path):
            there = _layer(name)
            if there is not None and LAYERS.index(there) > LAYERS.index(here):
                shown = path.relative_to(ROOT)
                upward.append(f"{shown}:{line}: {here} imports {name} ({there} is above it)")
    assert not upward, "\n".join(upward)


def test_every_module_belongs_to_a_stage():
    loose = [p.name for p in PACKAGE.glob("*.py") if p.name not in BOOTSTRAP]
    folders = sorted(p.name for p in PACKAGE.iterdir() if (p / "__init__.py").exists())
    assert not loose, f"modules outside any stage: {loose}"
    assert folders == sorted(LAYERS)


@pytest.mark.parametrize("layer", LAYERS)
def test_each_package_says_what_it_may_import(layer: str):
    doc = importlib.import_module(f"pipeline.{layer}").__doc__ or ""
    said = " ".join(doc.partition("May import:")[2].split())
    below = LAYERS[: LAYERS.index(layer)]
    if said.startswith("nothing else in pipeline"):  # stricter than its place: checked
        outside = [
            f"{path.relative_to(ROOT)}:{line}: {name}"
            for path in _sources()
            if _layer(_module(path)) == layer
            for line, name in _imports(path)
            if _layer(name) not in (layer, None)
        ]
        assert not outside, "\n".join(outside)
    elif layer == "cli":
        assert said.startswith("every other package of pipeline"), doc
    else:
        named = [word.strip(",.") for word in said.split() if word.startswith("pipeline.")]
        assert named == [f"pipeline.{name}" for name in below], doc


def test_the_check_catches_an_upward_import(tmp_path: Path):
    """The graph reader sees a function-local relative import two levels up."""
    source = tmp_path / "_probe.py"  # read as pipeline/common/_probe.py, never written there
    source.write_text("def f():\n    from ..cli import app\n", "utf-8")
    found = _imports(source, "pipeline.common._probe")
    assert found == [(2, "pipeline.cli.app")]
    assert _layer(found[0][1]) == "cli" and LAYERS.index("cli") > LAYERS.index("common")


def test_the_readme_maps_every_package():
    """The README's map of pipeline/ is where a newcomer looks first: it names every stage."""
    readme = (ROOT / "README.md").read_text("utf-8")
    assert [f"pipeline/{layer}/" for layer in LAYERS if f"pipeline/{layer}/" not in readme] == []
