"""Samurai Sword: the structured card data, the check that action texts agree with it, and
(imported only when asked) the rules engine and its agents."""

from __future__ import annotations

from pipeline.engine.plugin import GamePlugin

from .checks import check
from .data import DATA_MODELS

PLUGIN = GamePlugin(
    slug="samurai-sword",
    data_models=DATA_MODELS,
    check=check,
    engine="pipeline.games.samurai_sword.engine:build_rules",
    agents="pipeline.games.samurai_sword.agents:AGENTS",
    rollout="guerriero",  # the search agent's policy (pipeline.engine.ismcts)
    scenario="pipeline.games.samurai_sword.scenario:VOCABULARY",
)

__all__ = ["PLUGIN"]
