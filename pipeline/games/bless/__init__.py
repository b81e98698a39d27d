"""Bless: the effect vocabulary (vocab) and its checks (checks), and the rules engine
(engine, state, turns, field, compiler, values, effects), its narration, scenarios and
figures. Importing the package stays light: the engine loads only when asked."""

from pipeline.engine.plugin import CardProblem, GamePlugin

from .checks import NO_EFFECT, check, summary
from .vocab import DATA_MODELS, BlessEffects

PLUGIN = GamePlugin(
    slug="bless",
    data_models=DATA_MODELS,
    check=check,
    engine="pipeline.games.bless.engine:build_rules",
    agents="pipeline.games.bless.agents:AGENTS",
    scenario="pipeline.games.bless.scenario:VOCABULARY",
    horizon=2,  # random play-outs, judged by BlessGame.estimate two decisions on
)

__all__ = ["DATA_MODELS", "NO_EFFECT", "PLUGIN", "BlessEffects", "CardProblem", "check", "summary"]
