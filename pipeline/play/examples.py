"""Worked examples: scenario files (format 3) that set up a position, play moves and say what
must follow, for any game with a rules engine.

A scenario (``games/<slug>/examples/<name>.yaml``) is played with the game's Rules. Its
position and its expectations speak the one vocabulary of pipeline/engine/scenario.py
(seats by number with their zones, shared piles, whose turn, the phase), extended by the
game's typed models (its ``Vocabulary``); a move is the game's own (``parse_action``). This
runner checks what every game shares: the events since the last check (with their details,
or that they did not happen), the exact legal options, the kind of decision, who decides,
whose turn, the seats' zones and attributes, the piles and the result; the game's own keys go
to its ``check``. What the engine plays by itself once the position is placed (before the
first decision) is narrated and checked like any other step. Every failure names the file,
the line and the step, and a run reports all of them. The database stage (pipeline.play.records)
stores the narration.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, Discriminator, Field, Tag, ValidationError, create_model

from pipeline.common.problems import Problem, SourceError, SourceErrors
from pipeline.common.project import Project
from pipeline.engine.core import Event, State
from pipeline.engine.plugin import Engine
from pipeline.engine.registry import plugin
from pipeline.engine.scenario import Expect, PositionView, Result, Strict, Vocabulary, ZoneWant
from pipeline.sources.yamlfile import YamlDoc, read_yaml

EventSpec = str | dict[str, Any]  # a kind, or a kind with a subset of its fields

# What a game's hook may raise on a scenario it cannot follow (a card it does not know, a
# seat out of range, a value of the wrong type): reported at the file's line, never a traceback.
SCENARIO_ERRORS = (KeyError, ValueError, TypeError, IndexError, AttributeError)


class Move(Strict):
    play: Any  # the game's action spec
    by: int | None = Field(default=None, ge=1)  # who must take it (1..N)
    if_asked: bool = False  # taken only if it is legal now, else skipped


class Check(Strict):
    expect: Expect


class Scenario(Strict):
    """A scenario file; a game's own model (``scenario_model``) types its position and
    expectations."""

    format: Literal[3]
    title: str
    clauses: list[str] = Field(min_length=1)  # the anchors of the rules it shows, main first
    description: str = ""
    rulings: list[str] = []  # ids of the rulings it shows the engine following
    players: int | None = Field(default=None, ge=1)  # default: the game's minimum
    options: dict[str, Any] = {}
    position: Any = None
    steps: list[Move | Check] = Field(min_length=1)  # typed by scenario_model

    @property
    def anchors(self) -> list[str]:
        return list(self.clauses)


def vocabulary(slug: str) -> Vocabulary:
    """The game's scenario vocabulary (its plugin's ``scenario``: "module:attribute")."""
    found = plugin(slug)
    if found is None or found.scenario is None:
        raise SourceError(Problem("error", f"{slug} has no scenario vocabulary", game=slug))
    module, _, name = found.scenario.partition(":")
    value = getattr(importlib.import_module(module), name)
    if not isinstance(value, Vocabulary):
        raise TypeError(f"{found.scenario} is not a Vocabulary")
    return value


def _step(check: type[Strict]) -> Any:
    """A step is a move (``play``) or a check (``expect``): a step with ``expect`` is
    validated as a check only, so its errors do not repeat as a move's."""

    def kind(value: Any) -> str:
        return "Check" if isinstance(value, Mapping) and "expect" in value else "Move"

    return Annotated[
        Annotated[Move, Tag("Move")] | Annotated[check, Tag("Check")],
        Discriminator(kind),
    ]


@functools.cache
def scenario_model(words: Vocabulary) -> type[Scenario]:
    """The scenario file of one game: its position and expectations typed by `words`."""
    name = words.position.__name__.removesuffix("Position")
    check: type[Strict] = create_model(
        f"{name}Check", __base__=Strict, expect=(words.expect_model, ...)
    )
    # Field types made at run time: typed Any, as pydantic's stubs cannot follow them.
    fields: dict[str, Any] = {
        "position": (words.position, Field(default_factory=lambda: words.position())),
        "steps": (list[_step(check)], Field(min_length=1)),  # type: ignore[misc]
    }
    model: type[Scenario] = create_model(
        f"{name}Scenario",
        __base__=Scenario,
        __doc__=f"A worked example of {name}: a position, moves and what must follow.",
        **fields,
    )
    return model


@dataclass
class ExampleResult:
    """A played scenario: whether every expectation held, and its Italian narration."""

    slug: str
    name: str
    title: str
    clauses: list[str]
    failed: list[tuple[str, str]] = field(default_factory=list)  # (file:line, step: what)
    narration: list[str] = field(default_factory=list)
    markdown: str = ""  # the whole example, with its title
    body: str = ""  # the same without title and rule reference (the site and rulebook add them)

    @property
    def clause(self) -> str:
        return self.clauses[0]

    @property
    def passed(self) -> bool:
        return not self.failed

    @property
    def failures(self) -> list[str]:
        """Each failed check as one line: `file:line: step N: what did not hold`."""
        return [f"{place}: {what}" for place, what in self.failed]


def examples_dir(project: Project, slug: str) -> Path:
    return project.games_dir / slug / "examples"


def example_names(project: Project, slug: str) -> list[str]:
    """The scenario files of a game, by name (file name without .yaml), in name order."""
    return sorted(p.stem for p in examples_dir(project, slug).glob("*.yaml"))


def load_scenario(path: Path, project: Project, slug: str) -> tuple[Scenario, YamlDoc]:
    """The scenario file, checked against the game's model: every error points at its line."""
    doc = read_yaml(path, project.rel(path), slug, project.yaml_cache)
    if not isinstance(doc.data, Mapping):
        message = "a scenario is a mapping: format, title, clauses, position, steps"
        raise SourceError(Problem("error", message, file=doc.display, line=1, game=slug))
    try:
        return scenario_model(vocabulary(slug)).model_validate(doc.data), doc
    except ValidationError as exc:
        raise SourceErrors([_invalid(doc, slug, error) for error in exc.errors()]) from None


def _invalid(doc: YamlDoc, slug: str, error: Any) -> Problem:
    """One pydantic error as a located problem, without the model names of unions."""
    loc = [_key(x) for x in error["loc"] if not (isinstance(x, str) and _is_branch(x))]
    where = ".".join(str(x) for x in loc) or "the file"
    message = error["msg"]
    if error["type"] == "extra_forbidden":
        message = "unknown key (the game's scenario schema lists the keys it takes)"
    return doc.problem(loc, f"{where}: {message}", game=slug)


def _is_branch(name: str) -> bool:
    """A name pydantic puts in an error's location for a branch of a union (a model's name,
    ``int``, ``list[str]``, ``function-after[...]``), not a key of the file."""
    return (
        name[:1].isupper()
        or name in {"int", "str", "bool", "list[str]", "dict[str,any]"}
        or ("[" in name)
    )


def _key(part: str | int) -> str | int:
    """A seat number, which the file spells as a number, as the number."""
    return int(part) if isinstance(part, str) and part.isdigit() else part


def _bad(doc: YamlDoc, slug: str, loc: Sequence[str | int], exc: Exception) -> SourceError:
    sub = tuple(getattr(exc, "loc", ()))
    message = exc.args[0] if exc.args else type(exc).__name__
    if isinstance(exc, KeyError):
        message = f"unknown {message!r}"
    where = ".".join(str(x) for x in (*loc, *sub))
    return SourceError(doc.problem([*loc, *sub], f"{where}: {message}", game=slug))


def run_example(project: Project, slug: str, name: str, rules: Engine[Any]) -> ExampleResult:
    """Play one scenario with these rules, check every expectation and narrate the play."""
    path = examples_dir(project, slug) / f"{name}.yaml"
    if not path.exists():
        known = ", ".join(example_names(project, slug)) or "none"
        raise SourceError(
            Problem("error", f"no example '{name}' for {slug}", hint=f"examples: {known}")
        )
    scenario, doc = load_scenario(path, project, slug)
    players = scenario.players or rules.info.min_players
    _check_seats(doc, slug, scenario.position, players)
    position = scenario.position.model_dump(exclude_unset=True)
    try:
        state = rules.setup(position, players, scenario.options)
    except SCENARIO_ERRORS as exc:
        raise _bad(doc, slug, ["position"], exc) from None
    result = ExampleResult(slug, name, scenario.title, scenario.anchors)
    mark = 0  # what the engine played by itself after the placing is a step like the others
    for number, step in enumerate(scenario.steps, 1):
        place = f"{doc.display}:{doc.locate(['steps', number - 1])[0]}"
        if isinstance(step, Move):
            failures = _move(rules, state, step)
        else:
            failures = _check(rules, state, step.expect, state.log[mark:])
            mark = len(state.log)
        result.failed += [(place, f"step {number}: {f}") for f in failures]
    result.narration = rules.narrate(state.log, players)
    result.markdown = _markdown(rules, scenario, players, result)
    return result


def _check_seats(doc: YamlDoc, slug: str, position: Any, players: int) -> None:
    """Seat numbers (the seats' keys, whose turn) are 1..players."""
    for seat in position.seats:
        if not 1 <= seat <= players:
            message = f"position.seats: seat {seat} is not one of 1..{players}"
            raise SourceError(doc.problem(["position", "seats", seat], message, game=slug))
    if position.turn is not None and position.turn > players:
        message = f"position.turn: seat {position.turn} is not one of 1..{players}"
        raise SourceError(doc.problem(["position", "turn"], message, game=slug))


def _move(rules: Engine[Any], state: State, step: Move) -> list[str]:
    """Take one move; what went wrong (empty: it was taken). A refused move is not taken."""
    try:
        action = rules.parse_action(state, step.play)
    except SCENARIO_ERRORS as exc:
        return [] if step.if_asked else [f"{step.play} is refused: {_reason(exc)}"]
    if action not in state.legal_actions():
        return [] if step.if_asked else [f"{step.play} is not legal here"]
    out = []
    if step.by is not None and state.current_player() + 1 != step.by:
        out.append(f"taken by player {state.current_player() + 1}, not {step.by}")
    state.apply(action)
    return out


def _reason(exc: Exception) -> str:
    return str(exc.args[0]) if exc.args else type(exc).__name__


def run_examples(project: Project, slug: str, rules: Engine[Any]) -> list[ExampleResult]:
    return [run_example(project, slug, name, rules) for name in example_names(project, slug)]


def _matches(rules: Engine[Any], event: Event, spec: EventSpec) -> bool:
    if isinstance(spec, str):
        return event.kind == spec
    if event.kind != spec.get("kind"):
        return False
    described = rules.describe_event(event)
    return all(described.get(k) == v for k, v in spec.items())


def _check(rules: Engine[Any], state: State, e: Expect, events: Sequence[Event]) -> list[str]:
    """What does not hold of the expectation `e` (empty: all holds)."""
    out: list[str] = []

    def same(label: str, got: Any, want: Any) -> None:
        if got != want:
            out.append(f"{label}: expected {want!r}, got {got!r}")

    if e.events is not None:
        todo = iter(events)
        missing = [s for s in e.events if not any(_matches(rules, ev, s) for ev in todo)]
        if missing:
            out.append(f"events {e.events} did not all happen in this order (missing {missing})")
    for spec in e.no_events or []:
        if any(_matches(rules, ev, spec) for ev in events):
            out.append(f"event {spec} happened")
    if e.legal is not None:
        out += _check_legal(rules, state, e.legal)
    if e.decision is not None:
        same("decision", state.decision_kind(), e.decision)
    if e.player is not None:
        same("player", state.current_player() + 1, e.player)
    if e.result is not None:
        out += _check_result(state, e.result)
    if {"turn", "turn_number", "seats", "piles"} & e.model_fields_set:
        out += _check_view(rules.view(state), e)
    for key in e.model_fields_set - set(Expect.model_fields):
        try:
            out += rules.check(state, key, _plain(getattr(e, key)))
        except SCENARIO_ERRORS as exc:
            out.append(f"{key}: cannot check {getattr(e, key)!r} ({_reason(exc)})")
    return out


def _plain(value: Any) -> Any:
    """A validated expectation as the plain data a game's ``check`` reads."""
    if isinstance(value, BaseModel):
        return value.model_dump(exclude_none=True, by_alias=True)
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    return value


def _check_legal(rules: Engine[Any], state: State, specs: Sequence[Any]) -> list[str]:
    """The legal options are exactly `specs`; a spec the game refuses is a failure of its own."""
    out, want = [], []
    for spec in specs:
        try:
            want.append(repr(rules.describe_action(state, rules.parse_action(state, spec))))
        except SCENARIO_ERRORS as exc:
            out.append(f"legal option {spec} is refused: {_reason(exc)}")
    if out:
        return out
    got = sorted(repr(rules.describe_action(state, a)) for a in state.legal_actions())
    if got != sorted(want):
        out.append(f"legal options: expected {sorted(want)}, got {got}")
    return out


def _check_view(view: PositionView, e: Expect) -> list[str]:
    """Whose turn, the turn number, the seats' zones and attributes, the piles."""
    out: list[str] = []
    if e.turn is not None and view.turn != e.turn:
        out.append(f"turn: expected seat {e.turn}, got seat {view.turn}")
    if e.turn_number is not None and view.turn_number != e.turn_number:
        out.append(f"turn_number: expected {e.turn_number}, got {view.turn_number}")
    for seat, wants in (e.seats or {}).items():
        if not 1 <= seat <= len(view.seats):
            out.append(f"seats: seat {seat} is not one of 1..{len(view.seats)}")
            continue
        got = view.seats[seat - 1]
        for key, want in _set(wants):
            out += _zone(f"seat {seat} {key}", got.get(key), want, ordered=False)
    for key, want in _set(e.piles):
        out += _zone(f"pile {key}", view.piles.get(key), want, ordered=True)
    return out


def _set(model: Any) -> Iterable[tuple[str, Any]]:
    """The keys a check model was given, with their values."""
    if model is None:
        return []
    return [(k, getattr(model, k)) for k in type(model).model_fields if k in model.model_fields_set]


def _zone(label: str, got: Any, want: ZoneWant | Any, ordered: bool) -> list[str]:
    """A zone by its size or its cards (in order for a pile), an attribute by its value."""
    if isinstance(got, list) and isinstance(want, int) and not isinstance(want, bool):
        got, label = len(got), f"{label} size"
    elif isinstance(got, list) and isinstance(want, list) and not ordered:
        got, want = sorted(got), sorted(want)
    if isinstance(want, BaseModel):
        want = want.model_dump(exclude_none=True)
    return [] if got == want else [f"{label}: expected {want!r}, got {got!r}"]


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


def _markdown(rules: Engine[Any], scenario: Scenario, players: int, result: ExampleResult) -> str:
    """The example as the rulebook and the site print it."""
    rule = ", ".join(f"[{a}](#{a})" for a in scenario.anchors)
    heading = [f"### {scenario.title}", "", f"*Regola: {rule}*", ""]
    lines: list[str] = []
    if scenario.description:
        lines += [scenario.description.strip(), ""]
    position = scenario.position.model_dump(exclude_unset=True)
    described = rules.position_lines(position, players, scenario.options)
    if described:
        lines += ["**La posizione**", "", *described, ""]
    lines += ["**Che cosa succede**", ""]
    lines += [f"{i}. {line}" for i, line in enumerate(result.narration, 1)]
    if result.failures:
        lines += ["", "**Verifica non riuscita**", ""] + [f"- {f}" for f in result.failures]
    result.body = "\n".join(lines) + "\n"
    return "\n".join(heading + lines) + "\n"


def scenario_schema(slug: str) -> dict[str, Any]:
    """The JSON Schema of one game's scenario files (schemas/<slug>/scenario.schema.json)."""
    return scenario_model(vocabulary(slug)).model_json_schema()
