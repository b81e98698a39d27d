"""Mazzo: the rules engine of the Classico duel (engine, scenario, narrate) and its agents.
Importing the package stays light: the engine loads only when asked."""

from pipeline.engine.plugin import GamePlugin

PLUGIN = GamePlugin(
    slug="mazzo",
    engine="pipeline.games.mazzo.engine:build_rules",
    agents="pipeline.games.mazzo.agents:AGENTS",
    rollout="bluffer",  # the search agent's policy (pipeline.engine.ismcts)
    scenario="pipeline.games.mazzo.scenario:VOCABULARY",
)

__all__ = ["PLUGIN"]
