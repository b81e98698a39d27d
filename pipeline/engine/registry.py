"""The one list of games that have Python: entry points of the group ``cartiera.games``.

Each entry point names a game package's ``PLUGIN`` (pyproject.toml), so a game from another
distribution plugs in the same way. A listed package that does not exist (yet) is skipped;
one that exists but fails to import is an error. Nothing here reads the database: rules are
built from plain card records (pipeline.play.records reads them from cards.db).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Mapping, Sequence
from importlib.metadata import entry_points
from typing import Any, cast

from .agents import RandomAgent
from .core import CardRecord, Seats
from .ismcts import SearchAgent, SearchSpec, SearchSpecError, parse_spec
from .plugin import Agent, AgentFactory, BuildRules, Engine, GamePlugin

GROUP = "cartiera.games"


class UnknownName(ValueError):
    """A game, engine or agent name that is not registered; the message lists known ones."""


@functools.cache
def _points() -> dict[str, str]:
    """The registered entry points, slug -> "module:attribute"."""
    return {point.name: point.value for point in entry_points(group=GROUP)}


@functools.cache
def plugin(slug: str) -> GamePlugin | None:
    """The game's plugin; None for a game without Python (or whose package is not written
    yet). Only this game's package is imported."""
    value = _points().get(slug)
    if value is None:
        return None
    module_name, _, attribute = value.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        if exc.name and (module_name == exc.name or module_name.startswith(f"{exc.name}.")):
            return None  # registered, but its package is not written yet
        raise
    if getattr(module, "__file__", None) is None:
        return None  # a folder without its __init__ yet
    found = getattr(module, attribute)
    if not isinstance(found, GamePlugin) or found.slug != slug:
        raise TypeError(f"entry point {slug} = {value} is not its GamePlugin")
    return found


def plugins() -> dict[str, GamePlugin]:
    """Every registered game's plugin, by slug, in slug order."""
    found = {slug: plugin(slug) for slug in sorted(_points())}
    return {slug: p for slug, p in found.items() if p is not None}


def engine_slugs() -> list[str]:
    """The games whose plugin has a rules engine."""
    return [slug for slug, p in plugins().items() if p.engine]


def _attribute(target: str) -> Any:
    module, _, name = target.partition(":")
    return getattr(importlib.import_module(module), name)


def _engine_plugin(slug: str) -> GamePlugin:
    found = plugin(slug)
    if found is None or not found.engine:
        known = ", ".join(engine_slugs()) or "none"
        raise UnknownName(f"no rules engine for the game '{slug}' (engines: {known})")
    return found


def build_rules(slug: str, seats: Seats, cards: Sequence[CardRecord], digest: str) -> Engine[Any]:
    """The game's rules for game.yaml's player counts (`seats`) over these cards (`digest`
    identifies them, for replays). A plugin whose engine breaks the contract is an error."""
    target = _engine_plugin(slug).engine or ""
    build: BuildRules = _attribute(target)
    rules = build(seats, cards, digest)
    if not isinstance(rules, Engine):  # a plugin of another distribution, unchecked by mypy
        raise TypeError(f"the engine {target} of {slug} does not make an Engine")
    return rules


@functools.cache
def _agents(slug: str) -> dict[str, AgentFactory]:
    own = _engine_plugin(slug).agents
    factories: dict[str, AgentFactory] = {"random": RandomAgent}
    if own:
        factories.update(cast(Mapping[str, AgentFactory], _attribute(own)))
    return factories


def agent_names(slug: str) -> list[str]:
    """ "random" and "search" (every game has them) first, then the game's own agents in
    name order."""
    return ["random", "search", *sorted(set(_agents(slug)) - {"random"})]


def make_agent(slug: str, name: str, seed: int) -> Agent:
    """The agent called `name`; ``search`` may carry a budget and a policy agent
    (``search:400``, ``search:0.5s``, ``search:200:greedy``, ``search:200:random``, see
    pipeline.engine.ismcts); without one it takes the plugin's ``rollout`` agent."""
    if name.partition(":")[0] == "search":
        spec = _search_spec(slug, name)
        game = _engine_plugin(slug)
        policy = spec.rollout or game.rollout or "random"
        rollout = None if policy == "random" else _agents(slug)[policy]
        return SearchAgent(seed, spec.budget, rollout, game.horizon)
    factories = _agents(slug)
    if name not in factories:
        known = ", ".join(agent_names(slug))
        raise UnknownName(f"unknown agent '{name}' for {slug} (agents: {known})")
    return factories[name](seed)


def check_agent(slug: str, name: str) -> None:
    """Raise UnknownName, with the known agents or the search agent's form, for a name
    `make_agent` would refuse."""
    if name.partition(":")[0] == "search":
        _search_spec(slug, name)
    elif name not in _agents(slug):
        known = ", ".join(agent_names(slug))
        raise UnknownName(f"unknown agent '{name}' (agents: {known})")


def _search_spec(slug: str, name: str) -> SearchSpec:
    try:
        spec = parse_spec(name)
    except SearchSpecError as exc:
        raise UnknownName(str(exc)) from None
    if spec.rollout is not None and spec.rollout not in _agents(slug):
        known = ", ".join(sorted(_agents(slug)))
        raise UnknownName(f"'{name}': no rollout agent '{spec.rollout}' (agents: {known})")
    return spec
