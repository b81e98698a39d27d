"""Bless: the effect vocabulary and its checks (vocab), and the rules engine (engine,
effects, narrate). Importing the package stays light: the engine loads only when asked."""

from pipeline.engine.plugin import GamePlugin
from pipeline.games import CardProblem

from .vocab import DATA_MODELS, NO_EFFECT, BlessEffects, check, summary

PLUGIN = GamePlugin(
    slug="bless",
    data_models=DATA_MODELS,
    check=check,
    engine="pipeline.games.bless.engine:build_rules",
    agents="pipeline.games.bless.agents:AGENTS",
)

__all__ = ["DATA_MODELS", "NO_EFFECT", "PLUGIN", "BlessEffects", "CardProblem", "check", "summary"]
