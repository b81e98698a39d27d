"""Samurai Sword: the structured card data and, imported only when asked, the rules engine."""

from __future__ import annotations

from pipeline.engine.plugin import GamePlugin

from .data import DATA_MODELS

PLUGIN = GamePlugin(
    slug="samurai-sword",
    data_models=DATA_MODELS,
    engine="pipeline.games.samurai_sword.engine:build_rules",
    agents="pipeline.games.samurai_sword.agents:AGENTS",
)

__all__ = ["PLUGIN"]
