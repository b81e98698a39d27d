"""Finding the project (the folder that holds games/) and its database."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .problems import Problem, SourceError

DB_ENV = "CARTIERA_DB"
DB_FILE = "cards.db"
SEEDS_ENV = "CARTIERA_SEEDS"  # the folder of the seed documents; not set: no seeds
REFERENCE_ENV = "CARTIERA_REFERENCE"  # the folder of the reference tables; not set: none
CACHE_ENV = "CARTIERA_CACHE"  # content-addressed render caches; default: build/cache


def env_dir(name: str) -> Path | None:
    """The folder an environment setting names, absolute; None when it is not set.

    Seeds and reference tables are not ours, so the project never looks for them on its
    own (no guessing of a ../shared beside it): only the setting says where they are.
    """
    value = os.environ.get(name, "").strip()
    return Path(value).expanduser().resolve() if value else None


def digest_files(paths: Iterable[Path], root: Path) -> str:
    """One digest of the files' names (relative to `root`) and bytes, in name order."""
    digest = hashlib.sha256()
    for path in sorted(paths):
        if path.is_file() and "__pycache__" not in path.parts:
            digest.update(path.relative_to(root).as_posix().encode())
            digest.update(path.read_bytes())
    return digest.hexdigest()


@cache
def code_digest() -> str:
    """The digest of Cartiera's own Python sources: a stamp or cache entry made with it is
    made again after any change to the code. Read once per process (the code a process
    runs does not change under it)."""
    package = Path(__file__).resolve().parents[1]  # pipeline/
    return digest_files(package.rglob("*.py"), package)


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
    def cache_dir(self) -> Path:
        """Where rendered faces, their images and parsed sources are kept, keyed by
        content hash.

        $CARTIERA_CACHE lets several projects (clones, test copies) share one cache: an
        entry is named by the digest of everything that shapes it, so sharing cannot
        change a result, only skip work.
        """
        return env_dir(CACHE_ENV) or self.build_dir / "cache"

    @property
    def yaml_cache(self) -> Path:
        """Where parsed source files are kept, by the digest of their text."""
        return self.cache_dir / "yaml"

    @property
    def seeds_dir(self) -> Path | None:
        """The user's seed documents ($CARTIERA_SEEDS), or None when it is not set."""
        return env_dir(SEEDS_ENV)

    def game_slugs(self) -> list[str]:
        """Every folder under games/ that has a game.yaml, in name order."""
        return sorted(p.parent.name for p in self.games_dir.glob("*/game.yaml"))

    def rel(self, path: Path) -> str:
        """A path as shown in messages: relative to the project when it is inside."""
        try:  # realpath, not resolve: a symlink loop is an error for the reader to report
            return Path(os.path.realpath(path)).relative_to(self.root).as_posix()
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
    refuse_links_out(root)
    return Project(root=root, db_url=database_url(db or os.environ.get(DB_ENV) or root / DB_FILE))


# What the commands read and publish: the games' sources, the templates, the site's own
# pages and its configuration (the rest of a checkout, a venv or .git, is never read).
SOURCES = ("games", "templates", "site", "schemas", "mkdocs.yml")


def refuse_links_out(root: Path) -> None:
    """SourceError for the first symbolic link among the sources that leads out of the
    project: a pull request can add one (git keeps links), and every reader would follow it,
    publishing a file of the build machine in a card, a PDF or a page. Links that stay inside
    the project are sources like the others."""
    for name in SOURCES:
        top = root / name
        if top.is_symlink():
            _check_link(root, top)
        elif top.is_dir():
            _walk_links(root, top)


def _walk_links(root: Path, folder: Path) -> None:
    """Every link under `folder` checked; links to folders are not entered (scandir: the
    kind of each entry comes with its name, no call per file)."""
    try:
        with os.scandir(folder) as found:
            entries = list(found)
    except OSError:
        return  # a folder that cannot be read: the reader that needs it says so
    for entry in entries:
        if entry.is_symlink():
            _check_link(root, Path(entry.path))
        elif entry.is_dir():
            _walk_links(root, Path(entry.path))


def _check_link(root: Path, link: Path) -> None:
    """A link that stays in the project (or loops: its reader says so) is left alone."""
    if not Path(os.path.realpath(link)).is_relative_to(root):
        raise SourceError(
            Problem(
                "error",
                "a symbolic link to a file outside the project",
                file=link.relative_to(root).as_posix(),
                hint="put the file itself in the project, not a link to it",
            )
        )


def database_url(db: str | os.PathLike[str]) -> str:
    """A SQLAlchemy URL as given, or a file path (relative to where the user stands) as
    the URL of that SQLite file."""
    url = os.fspath(db)
    if "://" not in url:
        url = f"sqlite:///{Path(url).resolve()}"
    return url
