"""Finding the project (the folder that holds games/) and its database."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from .problems import Problem, SourceError

DB_ENV = "CARTIERA_DB"
DB_FILE = "cards.db"
SEEDS_ENV = "CARTIERA_SEEDS"


@dataclass(frozen=True)
class Project:
    root: Path
    db_url: str

    @property
    def games_dir(self) -> Path:
        return self.root / "games"

    @property
    def schemas_dir(self) -> Path:
        return self.root / "schemas"

    @property
    def templates_dir(self) -> Path:
        return self.root / "templates"

    @property
    def build_dir(self) -> Path:
        return self.root / "build"

    @property
    def seeds_dir(self) -> Path:
        """The user's seed documents (not part of the project: their text is not ours)."""
        return Path(os.environ.get(SEEDS_ENV) or self.root.parent / "shared" / "seeds")

    def game_slugs(self) -> list[str]:
        """Every folder under games/ that has a game.yaml, in name order."""
        return sorted(p.parent.name for p in self.games_dir.glob("*/game.yaml"))

    def rel(self, path: Path) -> str:
        """A path as shown in messages: relative to the project when it is inside."""
        try:
            return path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return str(path)

    @property
    def sqlite_path(self) -> Path | None:
        """The database file when the URL is a SQLite file, else None."""
        prefix = "sqlite:///"
        if self.db_url.startswith(prefix) and self.db_url != "sqlite:///:memory:":
            return Path(self.db_url[len(prefix) :])
        return None


def find_root(start: Path) -> Path | None:
    for folder in (start, *start.parents):
        if (folder / "games").is_dir():
            return folder
    return None


def open_project(project_dir: Path | None = None, db: str | None = None) -> Project:
    """The project at `project_dir`, or the nearest one above the current directory.

    The database is `db` (a SQLAlchemy URL or a file path), else $CARTIERA_DB, else
    cards.db in the project.
    """
    if project_dir is not None:
        root = project_dir.resolve()
        if not (root / "games").is_dir():
            raise SourceError(
                Problem(
                    "error",
                    f"{project_dir} holds no games/ folder",
                    hint="pass --project with the folder that holds games/",
                )
            )
    else:
        found = find_root(Path.cwd().resolve())
        if found is None:
            raise SourceError(
                Problem(
                    "error",
                    "no Cartiera project here (no games/ folder in this directory or above)",
                    hint="cd into the project or pass --project DIR",
                )
            )
        root = found
    url = db or os.environ.get(DB_ENV) or str(root / DB_FILE)
    if "://" not in url:  # a plain file path, relative to where the user stands
        url = f"sqlite:///{Path(url).resolve()}"
    return Project(root=root, db_url=url)
