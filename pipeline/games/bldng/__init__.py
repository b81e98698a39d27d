"""BLDNG: the project and What happens models, the checks that every project can be built
(checks, matching), and the rules engine (engine, state, cards, scenario, figures, narrate)
with its agent. Importing the package stays light: the engine loads only when asked."""

from pipeline.engine.plugin import GamePlugin

from .checks import DATA_MODELS, Project, check
from .events import EVENT_MODELS

PLUGIN = GamePlugin(
    slug="bldng",
    data_models={**DATA_MODELS, **EVENT_MODELS},
    check=check,
    engine="pipeline.games.bldng.engine:build_rules",
    agents="pipeline.games.bldng.agents:AGENTS",
    rollout="builder",  # the search agent's policy (pipeline.engine.ismcts)
    scenario="pipeline.games.bldng.scenario:VOCABULARY",
)

__all__ = ["DATA_MODELS", "PLUGIN", "Project", "check"]
