"""Worked examples: scenario files (format 2) that set up a position, play moves and say what
must follow, for any game with a rules engine.

A scenario (``games/<slug>/examples/<name>.yaml``) is played with the game's Rules; what it
means by a position, a move and a game-specific expectation is the game's own vocabulary
(``ScenarioHooks`` on the Rules object). This runner knows only what every game shares: who
plays, the events since the last check (with their details, or that they did not happen),
the exact legal options, the kind of decision and the result. Every failure names the file,
the line and the step. The database stage (pipeline.play) stores the narration.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from .engine.core import Event, Rules, State
from .problems import Problem, SourceError
from .project import Project
from .yamlfile import YamlDoc, read_yaml

FORMAT = 2


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


EventSpec = str | dict[str, Any]  # a kind, or a kind with a subset of its fields


class Expect(BaseModel):
    """What every game's scenarios may check; any other key goes to ``rules.check``."""

    model_config = ConfigDict(extra="allow")

    events: list[EventSpec] | None = None  # happened since the last expect, in this order
    no_events: list[EventSpec] | None = None  # did not happen since the last expect
    legal: list[Any] | None = None  # the legal options are exactly these
    decision: str | None = None  # the kind of the pending decision
    player: int | None = Field(None, ge=1)  # who decides now (1..N)
    result: Result | None = None


class Result(_Strict):
    """How the game ended: one of winner, winners, draw or ranking, optionally with how."""

    winner: int | None = Field(None, ge=1)
    winners: list[int] | None = None
    draw: bool | None = None
    ranking: list[list[int]] | None = None
    how: str | None = None
    over: bool = True  # false: the game must still be going on


class Move(_Strict):
    play: Any  # the game's action spec
    by: int | None = Field(None, ge=1)  # who must take it (1..N)
    if_asked: bool = False  # taken only if it is legal now, else skipped


class Check(_Strict):
    expect: Expect


class Scenario(_Strict):
    format: Literal[2]
    title: str
    clause: str | None = None  # the anchor of the rule it illustrates
    clauses: list[str] | None = None  # or several, the main one first
    description: str = ""
    rulings: list[str] = []  # ids of the rulings it shows the engine following
    players: int | None = Field(None, ge=1)  # default: the game's minimum
    options: dict[str, Any] = {}
    position: dict[str, Any] = {}
    steps: list[Move | Check] = Field(min_length=1)

    @model_validator(mode="after")
    def _one_clause_field(self) -> Scenario:
        if (self.clause is None) == (self.clauses is None):
            raise ValueError("give either clause or clauses")
        return self

    @property
    def anchors(self) -> list[str]:
        return [self.clause] if self.clause else list(self.clauses or [])


Expect.model_rebuild()


@dataclass
class ExampleResult:
    """A played scenario: whether every expectation held, and its Italian narration."""

    slug: str
    name: str
    title: str
    clauses: list[str]
    failures: list[str] = field(default_factory=list)
    narration: list[str] = field(default_factory=list)
    markdown: str = ""  # the whole example, with its title
    body: str = ""  # the same without title and rule reference (the site and rulebook add them)

    @property
    def clause(self) -> str:
        return self.clauses[0]

    @property
    def passed(self) -> bool:
        return not self.failures


def examples_dir(project: Project, slug: str) -> Path:
    return project.games_dir / slug / "examples"


def example_names(project: Project, slug: str) -> list[str]:
    """The scenario files of a game, by name (file name without .yaml), in name order."""
    return sorted(p.stem for p in examples_dir(project, slug).glob("*.yaml"))


def load_scenario(path: Path, project: Project, slug: str) -> tuple[Scenario, YamlDoc]:
    """The scenario file, checked against the model; errors point at the file's line."""
    doc = read_yaml(path, project.rel(path), slug, project.yaml_cache)
    try:
        return Scenario.model_validate(doc.data), doc
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = [x for x in error["loc"] if isinstance(x, str | int)]
        loc = [x for x in loc if x not in ("Move", "Check")]  # the union's branch names
        where = ".".join(str(x) for x in loc)
        raise SourceError(doc.problem(loc, f"{where}: {error['msg']}", game=slug)) from exc


def _bad(doc: YamlDoc, slug: str, loc: Sequence[str | int], exc: Exception) -> SourceError:
    sub = tuple(getattr(exc, "loc", ()))
    message = exc.args[0] if exc.args else str(exc)
    where = ".".join(str(x) for x in (*loc, *sub))
    return SourceError(doc.problem([*loc, *sub], f"{where}: {message}", game=slug))


def run_example(project: Project, slug: str, name: str, rules: Rules) -> ExampleResult:
    """Play one scenario with these rules, check every expectation and narrate the play."""
    path = examples_dir(project, slug) / f"{name}.yaml"
    if not path.exists():
        known = ", ".join(example_names(project, slug)) or "none"
        raise SourceError(
            Problem("error", f"no example '{name}' for {slug}", hint=f"examples: {known}")
        )
    scenario, doc = load_scenario(path, project, slug)
    hooks: Any = rules
    players = scenario.players or rules.info.min_players
    try:
        state = hooks.setup(scenario.position, players, scenario.options)
    except (KeyError, ValueError) as exc:
        raise _bad(doc, slug, ["position"], exc) from exc
    result = ExampleResult(slug, name, scenario.title, scenario.anchors)
    start = mark = len(state.log)
    for number, step in enumerate(scenario.steps, 1):
        line = doc.locate(["steps", number - 1])[0]
        where = f"{doc.display}:{line}: step {number}"
        if isinstance(step, Check):
            failures = _check(hooks, state, step.expect, state.log[mark:])
            result.failures += [f"{where}: {f}" for f in failures]
            mark = len(state.log)
            continue
        try:
            action = hooks.parse_action(state, step.play)
        except (KeyError, ValueError) as exc:
            if step.if_asked:
                continue
            raise _bad(doc, slug, ["steps", number - 1, "play"], exc) from exc
        legal = state.legal_actions()
        if action not in legal:
            if not step.if_asked:
                result.failures.append(f"{where}: {step.play} is not legal here")
            continue
        if step.by is not None and state.current_player() + 1 != step.by:
            got = state.current_player() + 1
            result.failures.append(f"{where}: taken by player {got}, not {step.by}")
        state.apply(action)
    result.narration = rules.narrate(state.log[start:], players)
    result.markdown = _markdown(hooks, scenario, players, result)
    return result


def run_examples(project: Project, slug: str, rules: Rules) -> list[ExampleResult]:
    return [run_example(project, slug, name, rules) for name in example_names(project, slug)]


def _matches(hooks: Any, event: Event, spec: EventSpec) -> bool:
    if isinstance(spec, str):
        return event.kind == spec
    if event.kind != spec.get("kind"):
        return False
    described = hooks.describe_event(event)
    return all(described.get(k) == v for k, v in spec.items())


def _check(hooks: Any, state: State, e: Expect, events: Sequence[Event]) -> list[str]:
    """What does not hold of the expectation `e` (empty: all holds)."""
    out: list[str] = []

    def same(label: str, got: Any, want: Any) -> None:
        if got != want:
            out.append(f"{label}: expected {want!r}, got {got!r}")

    if e.events is not None:
        todo = iter(events)
        missing = [s for s in e.events if not any(_matches(hooks, ev, s) for ev in todo)]
        if missing:
            out.append(f"events {e.events} did not all happen in this order (missing {missing})")
    for spec in e.no_events or []:
        if any(_matches(hooks, ev, spec) for ev in events):
            out.append(f"event {spec} happened")
    if e.legal is not None:
        got = sorted(map(repr, (hooks.describe_action(state, a) for a in state.legal_actions())))
        want = sorted(
            repr(hooks.describe_action(state, hooks.parse_action(state, s))) for s in e.legal
        )
        if got != want:
            out.append(f"legal options: expected {sorted(want)}, got {sorted(got)}")
    if e.decision is not None:
        same("decision", state.decision_kind(), e.decision)
    if e.player is not None:
        same("player", state.current_player() + 1, e.player)
    if e.result is not None:
        out += _check_result(state, e.result)
    for key, want in (e.model_extra or {}).items():
        if key not in hooks.expect_keys():
            known = ", ".join([*Expect.model_fields, *hooks.expect_keys()])
            out.append(f"unknown expectation '{key}' (known: {known})")
            continue
        out += hooks.check(state, key, want)
    return out


def _check_result(state: State, want: Result) -> list[str]:
    outcome = state.outcome()
    if not want.over:
        return [] if outcome is None else [f"the game is over ({outcome.how})"]
    if outcome is None:
        return ["the game is not over"]
    got: dict[str, Any] = {
        "winner": outcome.winners[0] + 1 if len(outcome.winners) == 1 else None,
        "winners": sorted(p + 1 for p in outcome.winners),
        "draw": outcome.draw,
        "ranking": [sorted(p + 1 for p in group) for group in outcome.ranking],
        "how": outcome.how,
    }
    wanted = want.model_dump(exclude_none=True, exclude={"over"})
    if "winners" in wanted:
        wanted["winners"] = sorted(wanted["winners"])
    if "ranking" in wanted:
        wanted["ranking"] = [sorted(group) for group in wanted["ranking"]]
    return [
        f"result {key}: expected {value!r}, got {got[key]!r}"
        for key, value in wanted.items()
        if got[key] != value
    ]


def _markdown(hooks: Any, scenario: Scenario, players: int, result: ExampleResult) -> str:
    """The example as the rulebook and the site print it."""
    rule = ", ".join(f"[{a}](#{a})" for a in scenario.anchors)
    heading = [f"### {scenario.title}", "", f"*Regola: {rule}*", ""]
    lines: list[str] = []
    if scenario.description:
        lines += [scenario.description.strip(), ""]
    describe = getattr(hooks, "position_lines", None)
    if describe is not None:
        lines += ["**La posizione**", ""]
        lines += describe(scenario.position, players, scenario.options)
        lines += [""]
    lines += ["**Che cosa succede**", ""]
    lines += [f"{i}. {line}" for i, line in enumerate(result.narration, 1)]
    if result.failures:
        lines += ["", "**Verifica non riuscita**", ""] + [f"- {f}" for f in result.failures]
    result.body = "\n".join(lines) + "\n"
    return "\n".join(heading + lines) + "\n"


def scenario_schema() -> dict[str, Any]:
    """The JSON Schema of the generic part of a scenario file (schemas/scenario.schema.json)."""
    return Scenario.model_json_schema()
