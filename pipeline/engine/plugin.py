"""What a game package plugs into Cartiera: its data checks and, if it has one, its engine.

Each game that has Python is one package, ``pipeline/games/<slug>/``, whose ``__init__``
exports ``PLUGIN = GamePlugin(...)``. The package is registered once, as an entry point of
the group ``cartiera.games`` (pyproject.toml), so a game from another distribution plugs in
the same way. The ``__init__`` stays light: the engine module is imported only when an
engine is asked for (``engine="pipeline.games.blitz.engine:build_rules"``).

An engine's rules object satisfies ``Engine``, the contract below, which every generic stage
calls (worked examples, `cartiera simulate`, record and replay, the site's balance pages,
the conformance test). Nothing here imports the database.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from .core import Action, CardRecord, Chance, Event, Rules, Seats, State

if TYPE_CHECKING:  # pydantic loads only with the worked examples
    from .scenario import PositionView


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


def share(value: float) -> dict[str, float]:
    """A FigureTable cell for a share worked out rather than counted (the wins chance alone
    would give a player): a percentage like the rates beside it, with no interval."""
    return {"share": value}


def is_share(cell: Any) -> bool:
    return isinstance(cell, dict) and "share" in cell


class Agent(Protocol):
    name: str

    def act(self, state: State) -> Action: ...


AgentFactory = Callable[[int], Agent]  # seed -> agent

S = TypeVar("S", bound=State)


class MatchReport(Protocol):
    """The figures of a run of whole matches: JSON for machines, a report for people."""

    def to_json(self) -> str: ...

    def report(self) -> str: ...


class MatchPlay(Protocol):
    """Whole matches of several games, for a game whose rules have them (BLITZ 8.1, 8.2):
    what `cartiera simulate GAME --match MODE` plays."""

    @property
    def modes(self) -> tuple[str, ...]:
        """The match modes `play` takes (e.g. "rounds", "points")."""
        ...

    def play(
        self,
        mode: str,
        matches: int,
        seed: int,
        players: int,
        options: Mapping[str, Any],
        agents: Sequence[str],
        jobs: int = 1,
    ) -> MatchReport:
        """`matches` seeded matches between the named agents (one per seat)."""
        ...


@runtime_checkable
class Engine(Rules, Protocol[S]):
    """The one contract between a game and the platform: every hook a game's rules provide.

    ``S`` is the game's own State class: what ``new_game`` and ``setup`` make is what the
    other hooks are given back. Every hook is required; what a game may lack is said by its
    value (``matches`` is None, ``position_lines`` returns no line), so the stages never ask
    whether a hook exists. A game's ``build_rules(seats, cards, digest)`` returns an
    ``Engine`` of its State (see ``BuildRules``): mypy checks the whole contract there.

    Worked examples (pipeline/play/examples.py) name players 1.., cards by code. The generic
    runner handles the keys every game shares (``events``, ``no_events``, ``legal``,
    ``decision``, ``player``, ``result``) and passes every other ``expect`` key to ``check``.
    """

    def new_game(
        self,
        seed: int,
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        chance: Chance | None = None,
    ) -> S:
        """A new game dealt with `seed` (``GameInfo.start`` checks players and options)."""
        ...

    # -- worked examples -----------------------------------------------------------------

    def setup(self, position: Mapping[str, Any], players: int, options: Mapping[str, Any]) -> S:
        """A state in the given position (validated here: raise ValueError with the key)."""
        ...

    def parse_action(self, state: S, spec: Mapping[str, Any]) -> Action:
        """The legal action that a step's ``play`` describes; ValueError if none matches."""
        ...

    def describe_action(self, state: S, action: Action) -> dict[str, Any]:
        """The inverse of ``parse_action``: a spec that parses back to `action`."""
        ...

    def describe_event(self, event: Event) -> dict[str, Any]:
        """An event as ``{"kind": ..., "player": 1.., field: value}`` with cards as codes."""
        ...

    def check(self, state: S, key: str, want: Any) -> list[str]:
        """Failures (Italian or English, one line each) of one game-specific expectation."""
        ...

    def position_lines(
        self, position: Mapping[str, Any], players: int, options: Mapping[str, Any]
    ) -> list[str]:
        """The position of a worked example in Italian, one line each (none: not shown)."""
        ...

    def view(self, state: S) -> PositionView:
        """The state as a scenario position lists it: whose turn, the seats' zones and
        attributes, the piles (for the shared ``seats``/``piles``/``turn`` expectations)."""
        ...

    # -- balance figures -----------------------------------------------------------------

    def summarize(self, state: S) -> dict[str, Any]:
        """The figures of one finished game, as plain JSON values."""
        ...

    def figures(self, summaries: Sequence[Mapping[str, Any]], players: int) -> list[FigureTable]:
        """The game's own tables over the summaries of the games its rules ended, in game
        order: a game a safeguard stopped has no result, and the platform counts it apart."""
        ...

    @property
    def matches(self) -> MatchPlay | None:
        """Whole matches, for a game whose rules have them; None for the others."""
        ...

    # -- conformance ---------------------------------------------------------------------

    def invariants(self, state: S) -> list[str]:
        """What is wrong with `state` (empty when all holds): limits, scores, turn order.
        The conformance test checks them after every action."""
        ...


@dataclass(frozen=True)
class CardProblem:
    """A game-specific problem with one card (or the whole game when card_id is None)."""

    card_id: str | None
    field: str
    message: str
    warning: bool = False


@dataclass(frozen=True)
class GamePlugin:
    """Everything only one game knows, registered once under its slug."""

    slug: str
    # card kind -> pydantic model that a card's ``data`` must validate against
    data_models: Mapping[str, type] = field(default_factory=dict)
    # checks particular to the game: check(game_source, cards) -> Iterable[CardProblem]
    check: Callable[[Any, list[Any]], Iterable[CardProblem]] | None = None
    # "module:function" of the game's BuildRules
    engine: str | None = None
    # the game's own agents besides "random" (e.g. {"greedy": ...}), "module:attr" of a
    # Mapping[str, AgentFactory], imported with the engine
    agents: str | None = None
    # the one of those agents that the search agent takes as its policy when its name gives
    # none (``search:200``; see pipeline.engine.ismcts): the strongest that is cheap enough
    # to play a whole game per iteration. None: random moves (the plain ISMCTS)
    rollout: str | None = None
    # how many decisions a play-out of the search agent goes before the game's ``estimate``
    # judges it (pipeline.engine.core.Estimating), for a game whose whole play-outs are too
    # long or too noisy to judge a move by. None: every play-out goes to the game's end
    horizon: int | None = None
    # "module:attr" of the game's scenario Vocabulary (pipeline/engine/scenario.py): the typed
    # words of its worked examples, importable without the cards (for `cartiera schema`)
    scenario: str | None = None


BuildRules = Callable[[Seats, Sequence[CardRecord], str], Engine[Any]]
"""A game's ``build_rules(seats, cards, digest)``: its rules for game.yaml's player counts
over these cards (`digest` identifies them, for replays)."""
