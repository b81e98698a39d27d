"""The reference rules engines: one module per game over a small shared core.

What other code may import from here: the core interface (Game, Rules, Event, Chance,
Replay), the agents, and the registry that loads a game's rules from the database.
"""

from .agents import Agent, GreedyAgent, RandomAgent, make_agent, play
from .core import (
    Action,
    Chance,
    Event,
    Game,
    IllegalAction,
    Replay,
    ReplayError,
    Rules,
    play_replay,
)
from .registry import engine_slugs, load_rules, replay_file

__all__ = [
    "Action",
    "Agent",
    "Chance",
    "Event",
    "Game",
    "GreedyAgent",
    "IllegalAction",
    "RandomAgent",
    "Replay",
    "ReplayError",
    "Rules",
    "engine_slugs",
    "load_rules",
    "make_agent",
    "play",
    "play_replay",
    "replay_file",
]
