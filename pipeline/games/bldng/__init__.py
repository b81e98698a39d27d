"""BLDNG: the project model and the checks that every project can be built (checks); the
rules engine joins this package as ``engine`` (set ``PLUGIN.engine`` then)."""

from pipeline.engine.plugin import GamePlugin

from .checks import DATA_MODELS, Project, check
from .events import EVENT_MODELS

PLUGIN = GamePlugin(
    slug="bldng", data_models={**DATA_MODELS, **EVENT_MODELS}, check=check, engine=None
)

__all__ = ["DATA_MODELS", "PLUGIN", "Project", "check"]
