"""Which games have a rules engine, and loading one game's rules from the database."""

from __future__ import annotations

import importlib
from pathlib import Path

from pipeline.database import open_engine
from pipeline.problems import Problem, SourceError
from pipeline.project import Project

from .core import Game, Replay, ReplayError, Rules, play_replay

ENGINES = {"bless": "pipeline.engine.bless"}


def engine_slugs() -> list[str]:
    return sorted(ENGINES)


def load_rules(project: Project, slug: str) -> Rules:
    """A game's rules with its cards read from the project's database (never the YAML).

    Each engine module offers ``load(engine) -> Rules``.
    """
    if slug not in ENGINES:
        known = ", ".join(engine_slugs())
        raise SourceError(
            Problem("error", f"no rules engine for the game '{slug}'", hint=f"engines: {known}")
        )
    module = importlib.import_module(ENGINES[slug])
    with open_engine(project) as engine:
        return module.load(engine)


def replay_file(project: Project, path: Path) -> tuple[Game, list[str]]:
    """Play a saved replay again and narrate it in Italian.

    Fails with one SourceError line when the file is not a replay, or when its cards or its
    log disagree with the database.
    """
    where = project.rel(path)
    try:
        replay = Replay.from_json(path.read_text(encoding="utf-8"))
        rules = load_rules(project, replay.slug)
        game = play_replay(rules, replay)
    except OSError as exc:
        message = f"cannot read the replay: {exc.strerror}"
        raise SourceError(Problem("error", message, file=where)) from exc
    except ReplayError as exc:
        hint = "record the game again with the current cards"
        raise SourceError(Problem("error", str(exc), file=where, hint=hint)) from exc
    return game, rules.narrate(game.log)
