"""What a game package plugs into Cartiera: its data checks and, if it has one, its engine.

Each game that has Python is one package, ``pipeline/games/<slug>/``, whose ``__init__``
exports ``PLUGIN = GamePlugin(...)``. The package is registered once, as an entry point of
the group ``cartiera.games`` (pyproject.toml), so a game from another distribution plugs in
the same way. The ``__init__`` stays light: the engine module is imported only when an
engine is asked for (``engine="pipeline.games.blitz.engine:build_rules"``).

An engine's ``Rules`` object (core.Rules) also implements the two hook sets below, which the
generic stages call: ``ScenarioHooks`` for worked examples (scenario format 2) and
``FigureHooks`` for `cartiera simulate`. Nothing here imports the database.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from .core import Action, CardRecord, Event, Rules, State


@dataclass(frozen=True)
class FigureTable:
    """One table of balance figures: printed by `simulate`, charted by the site.

    A rate column holds ``{"rate": r, "low": lo, "high": hi, "n": n}`` (a 95% interval);
    other cells are plain numbers or strings. ``chart`` says how the site may draw it:
    "bars" (first column as labels, the first rate column as bars with intervals),
    "histogram" (a column of counts over the first column's values), or "" (table only).
    """

    key: str
    title: str  # Italian, shown on the site
    columns: tuple[str, ...]
    rows: tuple[tuple[Any, ...], ...]
    chart: str = ""


def wilson(successes: int, trials: int, z: float = 1.96) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default)."""
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    denominator = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denominator
    spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denominator
    return max(0.0, centre - spread), min(1.0, centre + spread)


def rate(successes: int, trials: int) -> dict[str, float | int]:
    """A FigureTable rate cell: the proportion with its 95% Wilson interval."""
    low, high = wilson(successes, trials)
    return {"rate": successes / trials if trials else 0.0, "low": low, "high": high, "n": trials}


class Agent(Protocol):
    name: str

    def act(self, state: State) -> Action: ...


AgentFactory = Callable[[int], Agent]  # seed -> agent


class ScenarioHooks(Protocol):
    """The game's scenario vocabulary: what a position, a move and an expectation may say.

    Scenario files name players 1.., cards by code. The generic runner (pipeline/examples.py)
    handles the keys every game shares (``events``, ``no_events``, ``legal``, ``decision``,
    ``player``, ``result``) and passes every other ``expect`` key to ``check``.
    """

    def setup(self, position: Mapping[str, Any], players: int, options: Mapping[str, Any]) -> State:
        """A state in the given position (validated here: raise ValueError with the key)."""
        ...

    def parse_action(self, state: State, spec: Mapping[str, Any]) -> Action:
        """The legal action that a step's ``play`` describes; ValueError if none matches."""
        ...

    def describe_action(self, state: State, action: Action) -> dict[str, Any]:
        """The inverse of ``parse_action``: a spec that parses back to `action`."""
        ...

    def describe_event(self, event: Event) -> dict[str, Any]:
        """An event as ``{"kind": ..., "player": 1.., field: value}`` with cards as codes."""
        ...

    def check(self, state: State, key: str, want: Any) -> list[str]:
        """Failures (Italian or English, one line each) of one game-specific expectation."""
        ...

    def expect_keys(self) -> Sequence[str]:
        """The game-specific expectation keys `check` understands (for the schema)."""
        ...


class FigureHooks(Protocol):
    """What a game adds to the figures every simulation gives (seat/team win rates, length)."""

    def summarize(self, state: State) -> dict[str, Any]:
        """The figures of one finished game, as plain JSON values."""
        ...

    def figures(self, summaries: Sequence[Mapping[str, Any]], players: int) -> list[FigureTable]:
        """The game's own tables over many games' summaries (in game order)."""
        ...


class InvariantHooks(Protocol):
    """The game's own invariants, checked by the conformance test after every action."""

    def invariants(self, state: State) -> list[str]:
        """What is wrong with `state` (empty when all holds): limits, scores, turn order."""
        ...


@dataclass(frozen=True)
class GamePlugin:
    """Everything only one game knows, registered once under its slug."""

    slug: str
    # card kind -> pydantic model that a card's ``data`` must validate against
    data_models: Mapping[str, type] = field(default_factory=dict)
    # checks particular to the game: check(game_source, cards) -> Iterable[CardProblem]
    check: Callable[[Any, list[Any]], Iterable[Any]] | None = None
    # "module:function" with function(cards: Sequence[CardRecord], digest: str) -> Rules
    engine: str | None = None
    # the game's own agents besides "random" (e.g. {"greedy": ...}), "module:attr" of a
    # Mapping[str, AgentFactory], imported with the engine
    agents: str | None = None


BuildRules = Callable[[Sequence[CardRecord], str], Rules]
