"""BLITZ: the rules engine (cards, state, engine, scenario, figures, narrate) and its agents.

Importing the package stays light: the engine loads only when asked. BLITZ has no data
checks of its own: cards.yaml declares all the engine reads (kinds and attributes).
"""

from pipeline.engine.plugin import GamePlugin

PLUGIN = GamePlugin(
    slug="blitz",
    engine="pipeline.games.blitz.engine:build_rules",
    agents="pipeline.games.blitz.agents:AGENTS",
    rollout="greedy",  # the search agent's policy (pipeline.engine.ismcts)
    scenario="pipeline.games.blitz.scenario:VOCABULARY",
)

__all__ = ["PLUGIN"]
