"""The engine contract is checked by mypy: a game whose rules lack a hook of
pipeline.engine.plugin.Engine, or give one another signature, does not type-check.

Each case copies one game's engine module (Mazzo's: small and pure Python) out of the
project, breaks it as a contributor might, and runs mypy on the copy with the project's
configuration. The copy imports the real game package and platform, so the contract it is
held to is the one the stages call.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

mypy_api = pytest.importorskip("mypy.api")

ROOT = Path(__file__).resolve().parents[1]
GAME = "pipeline.games.mazzo"
ENGINE = ROOT / "pipeline" / "games" / "mazzo" / "engine.py"


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One mypy cache for the module: the pipeline is analysed once, each case in seconds."""
    return tmp_path_factory.mktemp("mypy-cache")


def check(tmp_path: Path, cache: Path, old: str = "", new: str = "") -> tuple[int, str]:
    """mypy's exit status and report on a copy of the game's engine.py with `old` replaced
    by `new` (nothing replaced when `old` is empty)."""
    text = ENGINE.read_text(encoding="utf-8")
    text = re.sub(r"^from \.(\w*) import", rf"from {GAME}.\1 import", text, flags=re.M)
    text = text.replace(f"from {GAME}. import", f"from {GAME} import")
    if old:
        assert old in text, f"the case no longer fits engine.py: {old!r}"
        text = text.replace(old, new)
    copy = tmp_path / "mazzo_probe.py"
    copy.write_text(text, encoding="utf-8")
    out, err, status = mypy_api.run(
        [
            "--config-file",
            str(ROOT / "pyproject.toml"),
            "--cache-dir",
            str(cache),
            "--follow-imports",
            "silent",  # the pipeline's own errors are `mypy pipeline`'s business
            str(copy),
        ]
    )
    return status, out + err


def test_the_game_as_it_is_keeps_the_contract(tmp_path, cache):
    status, report = check(tmp_path, cache)
    assert status == 0, report


def test_a_missing_hook_fails(tmp_path, cache):
    hook = """    def narrate(self, events: Sequence[Event], players: int = 2) -> list[str]:
        return narrate(self.cards, events)
"""
    status, report = check(tmp_path, cache, hook, "")
    assert status == 1, report
    assert 'missing following "Engine" protocol member' in report and "narrate" in report


def test_a_misspelled_hook_fails(tmp_path, cache):
    status, report = check(tmp_path, cache, "    def summarize(", "    def summarise(")
    assert status == 1, report
    assert "summarize" in report


def test_a_hook_with_another_signature_fails(tmp_path, cache):
    old = "    def check(self, state: MazzoState, key: str, want: Any) -> list[str]:"
    status, report = check(tmp_path, cache, old, old.replace(", want: Any", ""))
    assert status == 1, report
    assert "Got:" in report and "def check(self, state: MazzoState, key: str)" in report


def test_a_state_of_another_type_fails(tmp_path, cache):
    """A hook given the game's State must take that State: not a narrower or other class."""
    old = "    def invariants(self, state: MazzoState) -> list[str]:"
    status, report = check(tmp_path, cache, old, old.replace("MazzoState", "int"))
    assert status == 1, report
    assert '"invariants"' in report


def test_the_registry_refuses_rules_that_break_the_contract(monkeypatch):
    """A plugin from another distribution is not type-checked with the project: the
    registry checks at run time that what its build_rules makes is an Engine."""
    from pipeline.engine import registry
    from pipeline.engine.core import Seats
    from pipeline.engine.plugin import GamePlugin

    class HalfRules:  # deals nothing, narrates nothing: not an Engine
        slug = "half"

    plugin = GamePlugin(slug="half", engine="half.engine:build_rules")
    monkeypatch.setattr(registry, "_engine_plugin", lambda slug: plugin)
    monkeypatch.setattr(registry, "_attribute", lambda target: lambda *args: HalfRules())
    with pytest.raises(TypeError, match=r"half\.engine:build_rules of half does not make an"):
        registry.build_rules("half", Seats(2, 4), [], "")
