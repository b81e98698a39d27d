"""Worked examples: scenario files that set up a position, play moves and state what follows.

A scenario (``games/<slug>/examples/<name>.yaml``) is played by the game's rules engine with
the cards of the database; every expectation is checked and the engine narrates the play in
Italian. Every example is also a test (tests/test_examples.py): `cartiera example`.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from .games.bless.narrate import player_name
from .problems import Problem, SourceError
from .project import Project
from .yamlfile import YamlDoc, read_yaml


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Maledizione(_Strict):
    card: str
    corrotta: bool = False
    stasi: bool = False


class Preghiera(_Strict):
    card: str
    host: str | None = None  # a Legame's Maledizione


class Side(_Strict):
    hand: list[str] = []
    maledizioni: list[str | Maledizione] = []
    preghiere: list[str | Preghiera] = []
    altare: list[str] = []


class FinalTurns(_Strict):
    by: Literal[1, 2]
    how: Literal["altare", "mazzo"] = "altare"
    last_turn: int


class Position(_Strict):
    """Players are numbered 1 and 2; cards are named by their code."""

    turn: int = 3
    active: Literal[1, 2] = 1
    first: Literal[1, 2] = 1
    actions: int = Field(3, ge=0)
    altar: Literal[3, 5, 7] = 5
    scores: list[int] = Field([0, 0], min_length=2, max_length=2)
    players: list[Side] = Field(min_length=2, max_length=2)
    mazzo: list[str] = []  # on top of the Mazzo, the first is the top card
    vuoto: list[str] = []  # from the bottom of the Vuoto to its top
    attacked: list[str] = []  # Maledizioni that already attacked this turn
    invoked: list[str] = []
    final: FinalTurns | None = None


class Expect(_Strict):
    """What must hold at that point of the scenario."""

    scores: list[int] | None = None
    zones: dict[str, str] | None = None  # card -> hand-1, maledizioni-2, altare-1, vuoto ...
    corrotta: list[str] | None = None
    pura: list[str] | None = None
    stasi: list[str] | None = None
    occhio: dict[str, int] | None = None
    karma: dict[str, int] | None = None
    host: dict[str, str | None] | None = None
    actions: int | None = None
    active: Literal[1, 2] | None = None
    turn: int | None = None
    decision: str | None = None  # the kind of the pending decision (offer, fato, target ...)
    legal: list[Any] | None = None
    illegal: list[Any] | None = None
    events: list[str] | None = None  # these kinds happened since the last check, in order
    over: bool | None = None
    winner: Literal[1, 2] | None = None
    final: dict[str, Any] | None = None


class Scenario(_Strict):
    title: str
    clause: str  # the anchor of the rule it illustrates
    description: str = ""
    seed: int = 0
    dice: list[int] = []  # die rolls for Fato clashes, in order
    position: Position
    steps: list[Any] = Field(min_length=1)  # moves, and {expect: ...} checks between them


@dataclass
class ExampleResult:
    """A played scenario: whether every expectation held, and its Italian narration."""

    slug: str
    name: str
    title: str
    clause: str
    clauses: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    narration: list[str] = field(default_factory=list)
    markdown: str = ""  # the whole example, with its title
    body: str = ""  # the same without title and rule reference (the site and rulebook add them)

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
    doc = read_yaml(path, project.rel(path), slug)
    try:
        return Scenario.model_validate(doc.data), doc
    except ValidationError as exc:
        error = exc.errors()[0]
        loc = [x for x in error["loc"] if isinstance(x, str | int)]
        where = ".".join(str(x) for x in loc)
        raise SourceError(doc.problem(loc, f"{where}: {error['msg']}", game=slug)) from exc


def run_example(project: Project, slug: str, name: str, rules: Any) -> ExampleResult:
    """Play one scenario with the cards of the database, check it and narrate it."""
    path = examples_dir(project, slug) / f"{name}.yaml"
    if not path.exists():
        known = ", ".join(example_names(project, slug)) or "none"
        raise SourceError(
            Problem("error", f"no example '{name}' for {slug}", hint=f"examples: {known}")
        )
    scenario, doc = load_scenario(path, project, slug)
    try:
        game = rules.position(
            scenario.position.model_dump(exclude_none=True), scenario.seed, scenario.dice
        )
    except (KeyError, ValueError) as exc:
        message = f"position: {exc.args[0] if exc.args else exc}"
        raise SourceError(doc.problem(["position"], message, game=slug)) from exc
    result = ExampleResult(slug, name, scenario.title, scenario.clause, [scenario.clause])
    start = mark = len(game.log)
    for number, step in enumerate(scenario.steps, 1):
        if isinstance(step, Mapping) and set(step) == {"expect"}:
            expect = Expect.model_validate(step["expect"])
            result.failures += [f"step {number}: {f}" for f in _check(rules, game, expect, mark)]
            mark = len(game.log)
            continue
        try:
            action = rules.parse_move(game, step)
        except (KeyError, ValueError) as exc:
            message = f"step {number}: {exc.args[0] if exc.args else exc}"
            raise SourceError(doc.problem(["steps", number - 1], message, game=slug)) from exc
        if action not in game.legal_actions():
            result.failures.append(f"step {number}: {step} is not legal here")
            break
        game.apply(action)
    result.narration = rules.narrate(game.log[start:])
    result.markdown = _markdown(rules, scenario, game, result)
    return result


def run_examples(project: Project, slug: str, rules: Any) -> list[ExampleResult]:
    return [run_example(project, slug, name, rules) for name in example_names(project, slug)]


def _zone_name(game: Any, c: int) -> str:
    zone = game.zone[c]
    if zone < 2:
        return ("mazzo", "vuoto")[zone]
    kinds = {2: "hand", 3: "maledizioni", 4: "preghiere", 5: "altare"}
    return f"{kinds.get(zone >> 1, 'aside')}-{(zone & 1) + 1}"


def _check(rules: Any, game: Any, e: Expect, mark: int) -> list[str]:
    """What does not hold of the expectation `e` (empty: all holds)."""
    out: list[str] = []
    card = rules.card

    def same(label: str, got: Any, want: Any) -> None:
        if got != want:
            out.append(f"{label}: expected {want!r}, got {got!r}")

    if e.scores is not None:
        same("scores", list(game.scores), e.scores)
    for code, zone in (e.zones or {}).items():
        same(f"zone of {code}", _zone_name(game, card(code)), zone)
    for label, codes, flags, want in (
        ("corrotta", e.corrotta, game.corrupt, 1),
        ("pura", e.pura, game.corrupt, 0),
        ("stasi", e.stasi, game.stasi, 1),
    ):
        for code in codes or []:
            if flags[card(code)] != want or game.zone[card(code)] >> 1 != 3:
                out.append(f"{code} is not {label}")
    for label, values, stat in (("occhio", e.occhio, 0), ("karma", e.karma, 1)):
        for code, value in (values or {}).items():
            same(f"{label} of {code}", game.stat(card(code), stat), value)
    for code, host in (e.host or {}).items():
        got = game.host[card(code)]
        same(f"host of {code}", rules.cards[got].code if got >= 0 else None, host)
    if e.actions is not None:
        same("actions", game.actions, e.actions)
    if e.active is not None:
        same("active player", game.active + 1, e.active)
    if e.turn is not None:
        same("turn", game.turn, e.turn)
    if e.decision is not None:
        same("decision", game.decision_kind(), e.decision)
    legal = game.legal_actions()
    for move in e.legal or []:
        if rules.parse_move(game, move) not in legal:
            out.append(f"{move} should be legal")
    for move in e.illegal or []:
        if rules.parse_move(game, move) in legal:
            out.append(f"{move} should not be legal")
    if e.events is not None:
        kinds = iter(ev.kind for ev in game.log[mark:])
        missing = [k for k in e.events if not any(k == got for got in kinds)]
        if missing:
            out.append(f"events {e.events} did not all happen in this order (missing {missing})")
    if e.over is not None:
        same("game over", game.is_terminal(), e.over)
    if e.winner is not None:
        same("winner", game.winner + 1, e.winner)
    if e.final is not None:
        got = {"by": game.final_by + 1, "how": game.final_how, "last_turn": game.final_last}
        same("final turns", {k: got[k] for k in e.final}, e.final)
    return out


def _markdown(rules: Any, scenario: Scenario, game: Any, result: ExampleResult) -> str:
    """The example as the rulebook and the site print it."""
    rule = f"*Regola: [{scenario.clause}](#{scenario.clause})*"
    heading = [f"### {scenario.title}", "", rule, ""]
    lines: list[str] = []
    if scenario.description:
        lines += [scenario.description.strip(), ""]
    lines += ["**La posizione**", ""]
    lines += _position_lines(rules, scenario.position)
    lines += ["", "**Che cosa succede**", ""]
    lines += [f"{i}. {line}" for i, line in enumerate(result.narration, 1)]
    if result.failures:
        lines += ["", "**Verifica non riuscita**", ""] + [f"- {f}" for f in result.failures]
    result.body = "\n".join(lines) + "\n"
    return "\n".join(heading + lines) + "\n"


def _position_lines(rules: Any, position: Position) -> list[str]:
    def name(code: str) -> str:
        return rules.cards[rules.card(code)].name

    out = [
        f"- Turno {position.turn}, di {player_name(position.active - 1)}, con "
        f"{position.actions} Azioni; punti {position.scores[0]} a {position.scores[1]}."
    ]
    for p, side in enumerate(position.players):
        parts = []
        if side.hand:
            parts.append("in mano " + ", ".join(name(c) for c in side.hand))
        for item in side.maledizioni:
            m = Maledizione(card=item) if isinstance(item, str) else item
            state = "Corrotta" if m.corrotta else "Pura"
            parts.append(f"Maledizione {name(m.card)} ({state}{', in Stasi' if m.stasi else ''})")
        for item in side.preghiere:
            pr = Preghiera(card=item) if isinstance(item, str) else item
            bond = f", legata a {name(pr.host)}" if pr.host else ""
            parts.append(f"Preghiera {name(pr.card)}{bond}")
        if side.altare:
            parts.append(f"{len(side.altare)} carte nell'Altare")
        out.append(
            f"- {player_name(p)}: " + ("; ".join(parts) if parts else "niente in campo") + "."
        )
    if position.vuoto:
        out.append("- Nel Vuoto: " + ", ".join(name(c) for c in position.vuoto) + ".")
    return out
