"""The game-agnostic engine platform: the core interface, the plugin protocol, the registry
of games and the agents every game gets. It knows no game, no file and no database
(pipeline.play.records reads cards.db for it).

May import: nothing else in pipeline.
"""

from .agents import RandomAgent, play
from .core import (
    Action,
    CardRecord,
    Chance,
    Event,
    GameInfo,
    IllegalAction,
    Outcome,
    Replay,
    ReplayError,
    Rules,
    Seats,
    State,
    play_replay,
)
from .plugin import Agent, Engine, FigureTable, GamePlugin
from .registry import agent_names, build_rules, engine_slugs, make_agent

__all__ = [
    "Action",
    "Agent",
    "CardRecord",
    "Chance",
    "Engine",
    "Event",
    "FigureTable",
    "GameInfo",
    "GamePlugin",
    "IllegalAction",
    "Outcome",
    "RandomAgent",
    "Replay",
    "ReplayError",
    "Rules",
    "Seats",
    "State",
    "agent_names",
    "build_rules",
    "engine_slugs",
    "make_agent",
    "play",
    "play_replay",
]
