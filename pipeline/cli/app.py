"""The `cartiera` command: a thin Typer layer; each command calls one library function.

No `from __future__ import annotations` here: Typer reads every command's annotations at
each start, and as strings it evaluates some 600 of them (15 of a command's 20 ms)."""

import contextlib
import functools
import math
import os
import re
import sys
import tempfile
import time
import traceback
from collections.abc import Callable
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, TypeVar

import typer

from pipeline.common.collector import collect_less_often
from pipeline.common.problems import Problem, SourceError
from pipeline.common.project import DB_ENV, Project, find_root, open_project
from pipeline.common.words import plural

from .vocab import BadValue, CartieraTyper, QueryCommand, error_line, usage_error

# Pydantic looks for plugins of other packages (validation hooks for observability) when
# it builds the first model, by reading the entry points of every installed distribution:
# 10-20 ms of each command's start. Cartiera's models check its own files; none is wanted.
# Typer's own models are built the same way. A value the user set is kept.
os.environ.setdefault("PYDANTIC_DISABLE_PLUGINS", "__all__")

if TYPE_CHECKING:  # the engine loads only for the commands that play
    from pipeline.engine.plugin import Engine
    from pipeline.play.simulate import Setup

app = CartieraTyper(
    name="cartiera",
    help="Card database and print-and-play pipeline for card games.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
db_app = CartieraTyper(help="Build and check the card database (cards.db).", no_args_is_help=True)
app.add_typer(db_app, name="db")

F = TypeVar("F", bound=Callable[..., Any])
MAX_OFFSET_MM = 20.0  # --backs-offset: more than this is not a printer's misalignment


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version  # 15 ms: only for --version

    try:
        return version("cartiera")
    except PackageNotFoundError:
        return "0+unknown"


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"cartiera {_version()}")
        raise typer.Exit()


@app.callback()
def main(
    ctx: typer.Context,
    project: Annotated[
        Path | None,
        typer.Option(
            "--project",
            "-C",
            help="Project folder (the one holding games/). "
            "Default: the current directory or the nearest one above it.",
            file_okay=False,
        ),
    ] = None,
    db: Annotated[
        str | None,
        typer.Option(
            "--db",
            envvar=DB_ENV,
            help="Database: a SQLAlchemy URL or a SQLite file path. "
            "Default: cards.db in the project.",
        ),
    ] = None,
    _version_flag: Annotated[
        bool,
        typer.Option(
            "--version", callback=_print_version, is_eager=True, help="Show the version and exit."
        ),
    ] = False,
) -> None:
    """Cartiera: validate card data, build cards.db, and publish card games."""
    collect_less_often()  # a quarter of a face's layout went to the garbage collector
    ctx.obj = {"project": project, "db": db}


def fails_cleanly(func: F) -> F:
    """Bad input ends a command with one line on stderr and exit status 1."""

    @functools.wraps(func)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        command = getattr(kwargs.get("ctx"), "command_path", "cartiera")
        try:
            return func(*args, **kwargs)
        except SourceError as exc:
            for problem in exc.problems:
                typer.echo(_problem_line(problem, command), err=True)
            raise typer.Exit(1) from None
        except OSError as exc:
            where = str(exc.filename) if exc.filename else command
            typer.echo(error_line(where, exc.strerror or str(exc)), err=True)
            raise typer.Exit(1) from None
        except Exception as exc:
            template = _template_failure(exc, _root(kwargs.get("ctx")))
            if template is not None:
                typer.echo(_problem_line(template, command), err=True)
                raise typer.Exit(1) from None
            if not _database_failure(exc):
                raise
            # Opening checks the database (connection.schema_problem); this is the file
            # changing or breaking under a running command.
            failed = f"the database failed: {_first_line(exc)}"
            typer.echo(error_line(command, failed), err=True)
            raise typer.Exit(1) from None

    return wrapper  # type: ignore[return-value]


def _problem_line(problem: Problem, command: str) -> str:
    """A data error as every error is printed: one in no file names the command."""
    line = problem.one_line()
    return command + line.removeprefix("cartiera") if problem.where() == "cartiera" else line


def _root(ctx: typer.Context | None) -> Path:
    """The project's folder, for naming its files as every error line does."""
    given = ((ctx.find_root().obj or {}) if ctx is not None else {}).get("project")
    return Path(given) if given else (find_root(Path.cwd()) or Path.cwd())


def _template_failure(exc: Exception, root: Path) -> Problem | None:
    """A Jinja2 error in a template (a card face, the rulebook, the site: the designer's
    files under templates/) as a problem at its file and line, or None for another error.
    A syntax error knows where it is; an error while rendering is placed at the deepest
    template frame of its traceback."""
    errors = sys.modules.get("jinja2.exceptions")  # loaded only by a command that renders
    if errors is None or not isinstance(exc, errors.TemplateError):
        return None
    file, line = getattr(exc, "filename", None), getattr(exc, "lineno", None)
    if file is None:
        frames = [
            (frame.f_code.co_filename, number)
            for frame, number in traceback.walk_tb(exc.__traceback__)
            if frame.f_code.co_filename.endswith(".j2")
        ]
        # from a worker process, the traceback comes as text (concurrent.futures)
        remote = re.findall(r'File "([^"]+\.j2)", line (\d+)', str(exc.__cause__ or ""))
        frames += [(name, int(number)) for name, number in remote]
        file, line = frames[-1] if frames else (None, None)
    if file is not None:
        with contextlib.suppress(ValueError):
            file = Path(file).resolve().relative_to(root.resolve()).as_posix()
    detail = getattr(exc, "message", None) or str(exc) or type(exc).__name__
    kind = "syntax error" if isinstance(exc, errors.TemplateSyntaxError) else "error"
    return Problem(
        "error",
        f"Jinja2 template {kind}: {detail}",
        file=file,
        line=line,
        hint="correct the template" + (" at that line" if line else ""),
    )


def _database_failure(exc: Exception) -> bool:
    import sqlite3

    # SQLAlchemy's errors come from a loaded SQLAlchemy: a command that never opened the
    # database (and every typer.Exit passes here) does not import it (0.3 s or more)
    errors = sys.modules.get("sqlalchemy.exc")
    database_errors = (sqlite3.DatabaseError, *([errors.DatabaseError] if errors else []))
    return isinstance(exc, database_errors)


def _first_line(exc: Exception) -> str:
    detail = getattr(exc, "orig", None) or exc
    return (str(detail).strip().splitlines() or [type(exc).__name__])[0]


def _out_in_existing_folder(value: Path | None) -> Path | None:
    """--out names a file or folder inside a folder that exists: a mistyped path makes no
    folders where nobody will look for the output."""
    if value is not None and not value.parent.exists():
        raise BadValue(
            f"the folder {value.parent} does not exist",
            f"create it first, e.g. mkdir -p {value.parent}, or correct the path",
        )
    if value is not None and value.exists() and not (value.is_file() or value.is_dir()):
        # A FIFO, a device or a socket: replacing it with a file would delete it.
        raise typer.BadParameter(
            f"{value} is not a regular file or a folder: it would be replaced, not written"
        )
    return value


def _at_most_the_cores(value: int) -> int:
    """--jobs beyond the cores this process may use only makes the workers take turns
    (and each holds its own engines in memory): use the cores, and say so."""
    import os

    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    if cores and value > cores:
        typer.echo(
            f"note: --jobs {value} is more than the {cores} cores here; using {cores}",
            err=True,
        )
        return cores
    return value


def _cluster_address(value: str | None) -> str | None:
    """--cluster is checked before any game is played."""
    if value is not None:
        from pipeline.play.cluster import parse_address

        try:
            parse_address(value)
        except ValueError as exc:
            raise typer.BadParameter(str(exc)) from None
    return value


class TextFormat(StrEnum):
    text = "text"
    json = "json"


JobsOption = Annotated[
    int,
    typer.Option(
        "--jobs",
        "-j",
        min=1,
        help="Worker processes; the output does not depend on it.",
        callback=_at_most_the_cores,
    ),
]
ClusterOption = Annotated[
    str | None,
    typer.Option(
        "--cluster",
        help="Play on a Dask cluster: its scheduler (tcp://HOST:PORT), or local:N for N "
        "workers here. The output does not depend on it.",
        show_default=False,
        callback=_cluster_address,
    ),
]
FormatOption = Annotated[
    TextFormat, typer.Option("--format", "-f", help="text for people, json for tools.")
]
JsonOption = Annotated[bool, typer.Option("--json", hidden=True, help="Same as --format json.")]


def _plain_name(value: str | None) -> str | None:
    """A name that picks a file inside the project (an example's), never a path to one
    elsewhere."""
    if value is not None and (not value or "/" in value or "\\" in value or value[0] == "."):
        raise typer.BadParameter(f"'{value}' is a path; give the example's name, e.g. 01-inizio")
    return value


def _project(ctx: typer.Context) -> Project:
    obj = ctx.find_root().obj or {}
    return open_project(obj.get("project"), obj.get("db"))


def _check_games(project: Project, games: list[str] | None) -> None:
    """An unknown game is bad usage (exit 2), like an unknown option."""
    known = project.game_slugs()
    for game in games or []:
        if game not in known:
            raise typer.BadParameter(
                f"unknown game '{game}' (use one of: {', '.join(known)})", param_hint="GAME"
            )


class ReportFormat(StrEnum):
    text = "text"
    json = "json"
    github = "github"
    sarif = "sarif"


@app.command("validate")
@fails_cleanly
def validate_cmd(
    ctx: typer.Context,
    games: Annotated[
        list[str] | None,
        typer.Argument(help="Games to check (slugs). Default: every game.", show_default=False),
    ] = None,
    fmt: Annotated[
        ReportFormat,
        typer.Option(
            "--format",
            "-f",
            help="text for people, json for tools, github for annotations, sarif for "
            "code scanning.",
        ),
    ] = ReportFormat.text,
    fit: Annotated[
        bool,
        typer.Option(
            "--fit/--no-fit",
            help="Lay out every card face and report text that does not fit its box "
            "(slow the first time, then cached by content).",
        ),
    ] = True,
    no_layout: Annotated[bool, typer.Option("--no-layout", hidden=True)] = False,
) -> None:
    """Check every game's sources and report every problem; exit 1 if any is an error."""
    from pipeline.commands.validate import render, validate

    project = _project(ctx)
    _check_games(project, games)
    report = validate(project, games, layout=fit and not no_layout)
    typer.echo(render(report, fmt.value))
    raise typer.Exit(0 if report.ok else 1)


@db_app.command("build")
@fails_cleanly
def db_build_cmd(
    ctx: typer.Context,
    check: Annotated[
        bool,
        typer.Option(
            "--check", help="Write nothing; exit 1 when the database is not what the sources give."
        ),
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--force",
            help="On a shared server, replace content that another project built from "
            "other sources.",
        ),
    ] = False,
) -> None:
    """Load and validate every game, then write the database (only if all is valid)."""
    from pipeline.commands.validate import validate
    from pipeline.database.connection import shown
    from pipeline.database.store import build_database, is_current
    from pipeline.play.records import DB_STAGES

    project = _project(ctx)
    started = time.perf_counter()
    report = validate(project, layout=False)
    errors = [p for p in report.problems if p.is_error]
    for problem in errors:
        typer.echo(problem.one_line(), err=True)
    if errors:
        written = f"{plural(len(errors), 'error')}; the database was not written"
        details = "run `cartiera validate` for details"
        typer.echo(error_line(ctx.command_path, written, details), err=True)
        raise typer.Exit(1)
    if check:
        current, why = is_current(project, report.games, DB_STAGES)
        stale = error_line(ctx.command_path, why, "run `cartiera db build`")
        typer.echo(why if current else stale, err=not current)
        raise typer.Exit(0 if current else 1)
    for warning in build_database(project, report.games, DB_STAGES, force=force):
        typer.echo(warning, err=True)
    cards = sum(len(g.cards) for g in report.games)
    where = project.rel(project.sqlite_path) if project.sqlite_path else shown(project.db_url)
    typer.echo(
        f"wrote {where}: {plural(len(report.games), 'game')}, "
        f"{plural(cards, 'distinct card')} "
        f"in {time.perf_counter() - started:.2f} s"
    )


@db_app.command("dump")
@fails_cleanly
def db_dump_cmd(ctx: typer.Context) -> None:
    """Print the database's content as sorted JSON lines, the same on SQLite and PostgreSQL,
    so two databases can be compared with diff."""
    from pipeline.database.connection import open_project_db
    from pipeline.database.store import neutral_dump

    with open_project_db(_project(ctx)) as db:
        for line in neutral_dump(db):
            typer.echo(line)


@app.command("schema")
@fails_cleanly
def schema_cmd(
    ctx: typer.Context,
    check: Annotated[
        bool,
        typer.Option(
            "--check", help="Write nothing; exit 1 when schemas/ differs from the models."
        ),
    ] = False,
) -> None:
    """Write the JSON Schemas of the source files into schemas/."""
    from pipeline.publish.schemas import stale_schemas, write_schemas

    project = _project(ctx)
    if check:
        stale = stale_schemas(project)
        for rel in stale:
            typer.echo(f"schemas/{rel}: error: out of date (fix: run `cartiera schema`)", err=True)
        if stale:
            raise typer.Exit(1)
        typer.echo("schemas/ is current")
        return
    written = write_schemas(project)
    for path in written:
        typer.echo(f"wrote {project.rel(path)}")
    if not written:
        typer.echo("schemas/ is current")


class ExportFormat(StrEnum):
    csv = "csv"
    json = "json"
    xlsx = "xlsx"
    ods = "ods"


DelimiterOption = Annotated[
    str | None,
    typer.Option(
        "--delimiter",
        help="CSV cell separator, e.g. ';' as Italian Excel writes. Import default: detected.",
        show_default=False,
    ),
]
EncodingOption = Annotated[
    str | None,
    typer.Option(
        "--encoding",
        help="CSV text encoding, e.g. cp1252 or utf-8-sig. Import default: detected.",
        show_default=False,
    ),
]


@app.command("new")
@fails_cleanly
def new_cmd(
    ctx: typer.Context,
    slug: Annotated[str, typer.Argument(help="The new game's slug, e.g. giardino.")],
    name: Annotated[
        str | None, typer.Option("--name", help="Its name. Default: from the slug.")
    ] = None,
    players: Annotated[
        str, typer.Option("--players", "-p", metavar="MIN-MAX", help="MIN-MAX, or one number.")
    ] = "2-4",
    size: Annotated[str, typer.Option("--size", help="Card size: poker, bridge, …")] = "poker",
    into: Annotated[
        Path | None,
        typer.Option(
            "--in",
            help="The project folder (made if needed). Default: --project, else the project "
            "around the current folder, else the current folder.",
            file_okay=False,
        ),
    ] = None,
) -> None:
    """Start a game of your own: sources and card templates that validate and build as they
    are; in a folder with no project, a whole project around it."""
    from pipeline.commands.scaffold import NewGame, check_new, new_game, new_project, parse_players
    from pipeline.common.project import find_root
    from pipeline.publish.schemas import write_schemas

    try:
        check_new(slug, size)
        span = parse_players(players)
    except ValueError as exc:
        raise typer.BadParameter(str(exc)) from None
    given = into or (ctx.find_root().obj or {}).get("project")
    if given is not None:
        root = Path(given).resolve()
    else:
        root = find_root(Path.cwd().resolve()) or Path.cwd().resolve()
    title = name or slug.replace("-", " ").capitalize()
    game = NewGame(slug, title, span, size)
    made = []
    if not (root / "games").is_dir():
        root.mkdir(parents=True, exist_ok=True)
        made = new_project(root, game)
    written = new_game(root, game)
    write_schemas(open_project(root))
    for path in [*made, *written]:
        typer.echo(f"wrote {path.relative_to(root)}")
    where = "" if root == Path.cwd().resolve() else f"cd {root} && "
    typer.echo(f"next: {where}cartiera build  (then edit games/{slug}/ and rebuild)")


@app.command("export")
@fails_cleanly
def export_cmd(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="The game's slug, e.g. bless.")],
    fmt: Annotated[
        ExportFormat | None,
        typer.Option(
            "--format", "-f", help="csv, json, xlsx or ods. Default: from --out, else csv."
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="File to write. Default: standard output.",
            dir_okay=False,
            callback=_out_in_existing_folder,
        ),
    ] = None,
    delimiter: DelimiterOption = None,
    encoding: EncodingOption = None,
) -> None:
    """Export a game's cards from the database, one row per card (the game's view)."""
    from pipeline.common.output import atomic_write
    from pipeline.spreadsheet.files import table_format
    from pipeline.spreadsheet.roundtrip import export

    if fmt is None and out is not None:
        try:
            named = "json" if out.suffix.lower() == ".json" else table_format(out)
        except SourceError as exc:
            hint = "name it .csv, .xlsx, .ods or .json, or say which with --format"
            raise BadValue(exc.problems[0].message, hint, param_hint=["--out", "-o"]) from None
        fmt = ExportFormat(named)
        if delimiter is None and out.suffix.lower() == ".tsv":
            delimiter = "\t"
    fmt = fmt or ExportFormat.csv
    if fmt in (ExportFormat.xlsx, ExportFormat.ods) and out is None:
        raise typer.BadParameter(
            f"an .{fmt.value} workbook needs --out FILE", param_hint=["--out", "-o"]
        )
    if delimiter is not None and len(delimiter) != 1:
        raise typer.BadParameter("give one character, e.g. ';'", param_hint=["--delimiter"])
    project = _project(ctx)
    _check_games(project, [game])
    try:
        content = export(project, game, fmt.value, delimiter or ",", encoding or "utf-8")
    except LookupError:
        message = f"unknown encoding '{encoding}'"
        raise typer.BadParameter(message, param_hint=["--encoding"]) from None
    if out is None:
        sys.stdout.buffer.write(content)
        sys.stdout.flush()
    else:
        atomic_write(out, content)
        typer.echo(f"wrote {out}", err=True)


@app.command("import")
@fails_cleanly
def import_cmd(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="The game's slug, e.g. bless.")],
    csv_file: Annotated[
        Path,
        typer.Argument(
            help="A table with the columns of `cartiera export`: .csv, .xlsx or .ods.",
            dir_okay=False,
        ),
    ],
    delimiter: DelimiterOption = None,
    encoding: EncodingOption = None,
) -> None:
    """Write an edited table back into games/GAME/cards.yaml, if every row and the whole game
    validate; every bad cell is reported with its row and column."""
    from pipeline.spreadsheet.roundtrip import import_csv

    if delimiter is not None and len(delimiter) != 1:
        raise typer.BadParameter("give one character, e.g. ';'", param_hint=["--delimiter"])
    project = _project(ctx)
    _check_games(project, [game])
    changed = import_csv(project, game, csv_file, delimiter, encoding)
    typer.echo(
        f"games/{game}/cards.yaml: {changed} cards changed"
        + ("; run `cartiera db build` to update the database" if changed else "")
    )


class SearchFormat(StrEnum):
    table = "table"
    json = "json"
    csv = "csv"
    ids = "ids"


@app.command("search", cls=QueryCommand)
@fails_cleanly
def search_cmd(
    ctx: typer.Context,
    words: Annotated[
        list[str],
        typer.Argument(
            help="[GAME] QUERY, e.g. bless 'forma:ombra occhio>=5' or 'gioco:mazzo copie>1'.",
            show_default=False,
        ),
    ],
    fmt: Annotated[
        SearchFormat, typer.Option("--format", "-f", help="table, json, csv or ids.")
    ] = SearchFormat.table,
    limit: Annotated[
        int | None, typer.Option("--limit", "-n", min=1, help="At most N cards.")
    ] = None,
) -> None:
    """Find cards with the query language (README: "Searching cards")."""
    from pipeline.database.reader import open_project_reader
    from pipeline.search.parser import QueryError
    from pipeline.search.sql import COLUMNS, Searcher, render

    if len(words) > 2:
        raise typer.BadParameter("give at most a game and one query (quote the query)")
    game, text = (words[0], words[1]) if len(words) == 2 else (None, words[0])
    project = _project(ctx)
    if game is not None:
        _check_games(project, [game])
    with open_project_reader(project) as db:
        try:
            result = Searcher(db).search(text, game, limit)
        except QueryError as exc:
            typer.echo(exc.one_line(), err=True)
            typer.echo(exc.caret(), err=True)
            raise typer.Exit(2) from None
    if fmt is not SearchFormat.table:
        sys.stdout.write(render(result, fmt.value))
        return
    from rich.console import Console
    from rich.table import Table

    # on a terminal, names rather than codes, no shared column that is the same everywhere,
    # and no attribute column that none of the cards found has (a search of several games
    # shows the attributes its query names, which some games may not have)
    shared = ("game", "kind", "copies", "deck", "status")
    rows = result.rows
    shown = [
        c
        for c in result.columns
        if (c not in shared or len({r[c] for r in rows}) > 1)
        and (c in COLUMNS or any(r[c] is not None for r in rows))
    ]
    shown.remove("code")
    table = Table(box=None, header_style="bold")
    for name in shown:
        values = [r[name] for r in rows if r[name] is not None]
        number = bool(values) and all(isinstance(v, int) for v in values)
        table.add_column(name, justify="right" if number else "left")
    for row in result.rows:
        table.add_row(*("" if row[c] is None else str(row[c]) for c in shown))
    # a terminal's width, or none for a pipe or a file: rich cut names to fit 80 columns
    console = Console(width=None if sys.stdout.isatty() else 10_000)
    console.print(table)
    shown_count = len(result.rows)
    counted = f"{shown_count} of {result.total}" if result.total > shown_count else shown_count
    console.print(f"{counted} cards", style="dim")


class RulebookPaper(StrEnum):
    a5 = "a5"
    a4 = "a4"


@app.command("rulebook")
@fails_cleanly
def rulebook_cmd(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="The game's slug, e.g. bless.")],
    paper: Annotated[RulebookPaper, typer.Option("--paper", help="Page size.")] = RulebookPaper.a5,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="PDF to write. Default: build/rulebooks/GAME-regolamento-PAPER.pdf.",
            dir_okay=False,
            callback=_out_in_existing_folder,
        ),
    ] = None,
    booklet: Annotated[
        bool,
        typer.Option(
            "--booklet",
            help="Write the A5 pages as a booklet: two to each side of a landscape A4 sheet, "
            "to print on both sides (flip on the short edge) and fold in half. Default: "
            "build/rulebooks/GAME-regolamento-libretto-a4.pdf.",
        ),
    ] = False,
) -> None:
    """Render the game's rulebook PDF from the database (tagged, fonts embedded)."""
    from pipeline.publish.rulebook import build_booklet, build_rulebook

    project = _project(ctx)
    _check_games(project, [game])
    if booklet and paper is not RulebookPaper.a5:
        raise typer.BadParameter(
            "a booklet is made of A5 pages: leave --paper at a5", param_hint=["--paper"]
        )
    if booklet:
        with tempfile.TemporaryDirectory() as folder:
            pages = build_rulebook(project, game, "a5", Path(folder) / "a5.pdf")
            target = build_booklet(project, game, pages, out)
    else:
        target = build_rulebook(project, game, paper.value, out)
    typer.echo(f"wrote {project.rel(target)}")


@app.command("faces")
@fails_cleanly
def faces_cmd(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="The game's slug, e.g. bless.")],
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="PDF to write. Default: build/faces/GAME-facce.pdf.",
            dir_okay=False,
            callback=_out_in_existing_folder,
        ),
    ] = None,
    guides: Annotated[
        bool,
        typer.Option("--guides", help="Draw the cut line with rounded corners and the safe area."),
    ] = False,
) -> None:
    """Preview every distinct card face of a game, one per page, at trim size plus bleed."""
    from pipeline.publish.render.deck import build_preview

    project = _project(ctx)
    _check_games(project, [game])
    target = out or project.build_dir / "faces" / f"{game}-facce.pdf"
    build_preview(project, game, target, guides)
    typer.echo(f"wrote {project.rel(target)}")


class Paper(StrEnum):
    a4 = "a4"
    letter = "letter"
    a3 = "a3"
    legal = "legal"


class DuplexMode(StrEnum):
    long = "long"
    short = "short"
    none = "none"


class DeckLayout(StrEnum):
    sheets = "sheets"
    cards = "cards"
    fold = "fold"


class CardSize(StrEnum):
    poker = "poker"
    bridge = "bridge"
    mini = "mini"
    tarot = "tarot"
    euro = "euro"


class InkMode(StrEnum):
    full = "full"
    light = "light"


def _offset(value: str) -> tuple[float, float]:
    """X,Y in mm; NaN, infinities and shifts larger than a card are not printer drift."""
    try:
        x, y = (float(part) for part in value.replace(" ", "").split(","))
    except ValueError:
        x = y = math.nan
    if not all(math.isfinite(v) and abs(v) <= MAX_OFFSET_MM for v in (x, y)):
        raise typer.BadParameter(
            f"write it as X,Y in millimetres, each within ±{MAX_OFFSET_MM:g}, e.g. 1.5,-0.5",
            param_hint=["--backs-offset"],
        )
    return x, y


@app.command("deck")
@fails_cleanly
def deck_cmd(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="The game's slug, e.g. bless.")],
    paper: Annotated[Paper, typer.Option("--paper", help="Sheet size (sheets layout).")] = Paper.a4,
    duplex: Annotated[
        DuplexMode,
        typer.Option(
            "--duplex",
            help="long: backs for long-edge duplex (most printers); short: for "
            "short-edge; none: fronts only.",
        ),
    ] = DuplexMode.long,
    bleed: Annotated[
        float,
        typer.Option(
            "--bleed",
            min=0,
            max=6,
            help="Bleed in mm around the card block (sheets) or each "
            "card (cards). 3.175 is 1/8 in.",
        ),
    ] = 3.0,
    layout: Annotated[
        DeckLayout,
        typer.Option(
            "--layout",
            help="sheets: as many cards as the paper holds (either orientation) with crop "
            "marks, for home duplex printing; fold: fronts and backs side by side with a fold "
            "line, for printers without duplex; cards: one card per page with bleed, TrimBox "
            "and BleedBox, PDF/X-4, for print shops.",
        ),
    ] = DeckLayout.sheets,
    gutter: Annotated[
        float,
        typer.Option(
            "--gutter",
            min=0,
            max=20,
            help="Gap in mm between cards on sheets, with bleed on every side of every "
            "card; 0 (default): cards butted.",
        ),
    ] = 0.0,
    size: Annotated[
        CardSize | None,
        typer.Option("--size", help="Print at this card size (default: the game's own)."),
    ] = None,
    ink: Annotated[
        InkMode | None,
        typer.Option(
            "--ink",
            help="light: light backs and backgrounds, to save ink at home; full: as "
            "designed. Either prints each sheet's ink coverage.",
        ),
    ] = None,
    backs_offset: Annotated[
        str,
        typer.Option(
            "--backs-offset",
            help="Move the backs by X,Y mm (right, down as seen on the backs "
            "sheet) when your printer's sides do not line up.",
        ),
    ] = "0,0",
    interleave: Annotated[
        bool,
        typer.Option(
            "--interleave",
            help="cards layout: order back 1, front 1, back 2, front 2 … "
            "(what DriveThruCards asks for).",
        ),
    ] = False,
    deck: Annotated[
        str | None, typer.Option("--deck", help="Which deck of the game (default: its main deck).")
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="PDF to write. Default: build/decks/….",
            dir_okay=False,
            callback=_out_in_existing_folder,
        ),
    ] = None,
) -> None:
    """Make the print-and-play PDF of a game's deck: sheets for home, or pages for a shop."""
    from pipeline.publish.render.deck import (
        DeckOptions,
        build_deck,
        deck_summary,
        stale_database_warning,
    )

    project = _project(ctx)
    _check_games(project, [game])
    if warning := stale_database_warning(project, game):
        typer.echo(warning, err=True)
    options = DeckOptions(
        gutter=gutter,
        size=size.value if size else None,
        ink=ink.value if ink else "full",
        report_ink=ink is not None,
        paper=paper.value,
        duplex=duplex.value,
        bleed=bleed,
        layout=layout.value,
        backs_offset=_offset(backs_offset),
        interleave=interleave,
        deck=deck,
    )
    result = build_deck(project, game, options, out)
    for note in result.notes:
        typer.echo(note, err=True)
    typer.echo(deck_summary(project, result))


class ImagePreset(StrEnum):
    tgc = "tgc"
    mpc = "mpc"
    tts = "tts"


@app.command("images")
@fails_cleanly
def images_cmd(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="The game's slug, e.g. bless.")],
    preset: Annotated[
        ImagePreset | None,
        typer.Option(
            "--preset",
            help="tgc: The Game Crafter (825 × 1125 px); mpc: MakePlayingCards "
            "(822 × 1122 px, not confirmed by the service); tts: Tabletop Simulator deck sheets.",
        ),
    ] = None,
    dpi: Annotated[int, typer.Option("--dpi", min=72, max=1200, help="Resolution.")] = 300,
    crop: Annotated[
        bool,
        typer.Option("--crop", help="Cut each image at the card's edge (default: 3 mm bleed)."),
    ] = False,
    no_bleed: Annotated[bool, typer.Option("--no-bleed", hidden=True)] = False,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Folder to write. Default: build/images/GAME/….",
            file_okay=False,
            callback=_out_in_existing_folder,
        ),
    ] = None,
) -> None:
    """Write one PNG per distinct card face (and a manifest), or Tabletop Simulator sheets."""
    from pipeline.publish.render.images import ImageOptions, build_images

    project = _project(ctx)
    _check_games(project, [game])
    result = build_images(
        project,
        game,
        ImageOptions(
            preset=preset.value if preset else None, dpi=dpi, bleed=not (crop or no_bleed)
        ),
        out,
    )
    width, height = result.size
    typer.echo(
        f"wrote {len(result.files)} images ({width} × {height} px) to "
        f"{project.rel(result.folder)}" + (f"; {result.note}" if result.note else "")
    )


@app.command("preview")
@fails_cleanly
def preview_cmd(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="The game's slug, e.g. bless.")],
    port: Annotated[
        int, typer.Option("--port", min=0, max=65535, help="Port on 127.0.0.1 (0: any free).")
    ] = 8765,
) -> None:
    """Serve every card face at true size, with trim, bleed and safe-zone guides; the page
    follows your edits of cards.yaml and the card templates within a second."""
    from pipeline.commands.preview import serve

    project = _project(ctx)
    _check_games(project, [game])
    serve(project, game, port)


@app.command("site")
@fails_cleanly
def site_cmd(
    ctx: typer.Context,
    serve: Annotated[
        bool, typer.Option("--serve", help="Serve the site on localhost after building it.")
    ] = False,
    offline: Annotated[
        bool,
        typer.Option(
            "--offline", help="Build the variant that works from file:// (build/site-offline)."
        ),
    ] = False,
    port: Annotated[int, typer.Option("--port", min=1, max=65535, help="Port for --serve.")] = 8000,
) -> None:
    """Generate the rules website from the database and build it with MkDocs (strict)."""
    from pipeline.publish.site.pages import build_site
    from pipeline.publish.site.pages import serve as serve_site

    project = _project(ctx)
    folder = build_site(project, offline=offline, warn=lambda line: typer.echo(line, err=True))
    typer.echo(f"wrote {project.rel(folder)}")
    if serve:
        serve_site(folder, port)


@app.command("build")
@fails_cleanly
def build_cmd(
    ctx: typer.Context,
    jobs: JobsOption = 2,
    timings: Annotated[
        bool,
        typer.Option("--timings", help="At the end, print where the time went (wall and CPU)."),
    ] = False,
) -> None:
    """Build everything into build/: decks, card images, rulebooks and the site.

    Checks the data first and brings cards.db up to date; steps whose inputs did not
    change since the last run are skipped.
    """
    import os

    from pipeline.commands.build import build

    project = _project(ctx)
    interactive = sys.stdout.isatty() and not os.environ.get("CI")
    if interactive:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        with Progress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), transient=True
        ) as bar:
            task = bar.add_task("building", total=None)

            def show(name: str, done: int, total: int) -> None:
                bar.update(task, description=name, completed=done, total=total)

            report = build(project, jobs, show)
    else:

        def log(name: str, done: int, total: int) -> None:
            typer.echo(f"[{done}/{total}] {name}")

        report = build(project, jobs, log)
    if report.database:
        typer.echo(report.database)
    if not report.ran:
        typer.echo(
            f"nothing changed: all {len(report.skipped)} steps are up to date "
            f"({report.seconds:.1f} s)"
        )
    else:
        typer.echo(
            f"built {len(report.ran)} steps, {len(report.skipped)} up to date, "
            f"in {report.seconds:.1f} s"
        )
    from pipeline.common.settings import missing_site_url_note

    if note := missing_site_url_note(project):  # once, for every output it left out
        typer.echo(note, err=True)
    if timings:
        from pipeline.commands.build import timings_table

        for line in timings_table(report):
            typer.echo(line)


def _engine_project(ctx: typer.Context, game: str) -> Project:
    """The project, once `game` is one of its games and has a rules engine."""
    from pipeline.engine.registry import engine_slugs

    project = _project(ctx)
    _check_games(project, [game])
    if game not in engine_slugs():
        usage_error(f"no rules engine for '{game}' yet (engines: {', '.join(engine_slugs())})")
    return project


def _engine_setup(ctx: typer.Context, game: str, **kw: Any) -> "tuple[Project, Engine[Any], Setup]":
    """The project, the game's rules and a checked run setup; bad usage is one line, exit 2."""
    from pipeline.play.records import load_rules
    from pipeline.play.simulate import SimulationError, make_setup, parse_options

    project = _engine_project(ctx, game)
    rules = load_rules(project, game)
    try:
        options = parse_options(kw.pop("options") or [])
        return project, rules, make_setup(rules, options=options, **kw)
    except SimulationError as exc:
        usage_error(str(exc))


PlayersOption = Annotated[
    int | None, typer.Option("--players", "-p", help="Players (default: the game's minimum).")
]
TeamsOption = Annotated[
    str | None, typer.Option("--teams", help="Team mode, e.g. pairs (see the game's modes).")
]
GameOptions = Annotated[
    list[str] | None,
    typer.Option("--option", help="A game option key=value (repeatable), e.g. altar=3."),
]
AgentsOption = Annotated[
    str,
    typer.Option(
        "--agents", help="One agent for every seat, or one per seat: random, or the game's own."
    ),
]


@app.command("simulate")
@fails_cleanly
def simulate_cmd(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="The game's slug (a game with an engine).")],
    games: Annotated[int, typer.Option("--games", min=1, help="Games to play.")] = 1000,
    seed: Annotated[int, typer.Option("--seed", help="Same seed, same results.")] = 1,
    agents: AgentsOption = "random",
    players: PlayersOption = None,
    teams: TeamsOption = None,
    options: GameOptions = None,
    jobs: JobsOption = 1,
    fmt: FormatOption = TextFormat.text,
    as_json: JsonOption = False,
    match: Annotated[
        str | None,
        typer.Option(
            "--match", help="Play whole matches of the game's match mode (blitz: rounds, points)."
        ),
    ] = None,
    cluster: ClusterOption = None,
) -> None:
    """Play many seeded games between agents: win rates by seat, team and agent with 95%
    intervals, draws, how games ended, lengths, and the game's own figures. With --match,
    --games counts whole matches."""
    import os

    from pipeline.play.records import game_name
    from pipeline.play.simulate import simulate

    as_json = as_json or fmt is TextFormat.json
    project, rules, setup = _engine_setup(
        ctx, game, players=players, teams=teams, options=options, agents=agents
    )
    if match is not None:
        matches = rules.matches
        modes = matches.modes if matches is not None else ()
        if matches is None or match not in modes:
            usage_error(f"{game} has no match mode '{match}' (modes: {', '.join(modes) or 'none'})")
        found = matches.play(match, games, seed, setup.players, setup.options, setup.agents, jobs)
        typer.echo(found.to_json() if as_json else found.report())
        return
    if sys.stderr.isatty() and not os.environ.get("CI") and not as_json:
        from rich.progress import Progress

        with Progress(transient=True) as bar:
            task = bar.add_task("games", total=games)
            result = simulate(
                project,
                game,
                games,
                seed,
                setup,
                jobs,
                lambda done, total: bar.update(task, completed=done),
                cluster,
            )
    else:
        result = simulate(project, game, games, seed, setup, jobs, cluster=cluster)
    typer.echo(result.to_json() if as_json else result.report("it", game_name(project, game)))


@app.command("balance")
@fails_cleanly
def balance_cmd(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="The game's slug (a game with an engine).")],
    games: Annotated[int, typer.Option("--games", min=1, help="Games per player count.")] = 200,
    seed: Annotated[int, typer.Option("--seed", help="Same seed, same report.")] = 1,
    agents: Annotated[
        str,
        typer.Option(
            "--agents",
            help="Agents by seat, the last filling the seats left: random, search[:BUDGET], "
            "or the game's own (e.g. search:200,random).",
        ),
    ] = "random",
    players: Annotated[
        int | None,
        typer.Option("--players", "-p", help="Only this player count (default: every one)."),
    ] = None,
    variants: Annotated[
        list[str] | None,
        typer.Option(
            "--variant",
            help="Change a card, card.field=value, or take a whole other cards.yaml (a "
            "path); repeatable, all together one variant, played on the same seeded games as "
            "the baseline.",
        ),
    ] = None,
    threshold: Annotated[
        float,
        typer.Option(
            "--threshold",
            min=0.0,
            max=1.0,
            help="Mark a figure whose 95% interval is beyond parity by more than this.",
        ),
    ] = 0.02,
    options: GameOptions = None,
    jobs: JobsOption = 1,
    cluster: ClusterOption = None,
    fmt: FormatOption = TextFormat.text,
    as_json: JsonOption = False,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Also save the report for the site, with its date and engine version: "
            "games/GAME/balance.json is what `cartiera build` publishes.",
            dir_okay=False,
            callback=_out_in_existing_folder,
        ),
    ] = None,
) -> None:
    """Seat advantage, how games end, length and the game's own figures at every player
    count, marked when off parity; with --variant, the paired difference a card change makes."""
    from pipeline.play.balance import balance
    from pipeline.play.records import game_name
    from pipeline.play.simulate import SimulationError

    project = _engine_project(ctx, game)
    try:
        report = balance(
            project, game, games, seed, players, agents, variants or [], threshold,
            options or [], jobs, cluster,
        )  # fmt: skip
    except SimulationError as exc:
        usage_error(str(exc))
    if out is not None:
        from pipeline.publish.site.balance import save_report

        save_report(project, game, report, out)
    if as_json or fmt is TextFormat.json:
        typer.echo(report.to_json())
    else:
        typer.echo(report.report(game_name(project, game)))


@app.command("replay")
@fails_cleanly
def replay_cmd(
    ctx: typer.Context,
    file: Annotated[Path, typer.Argument(help="A replay saved as JSON.", dir_okay=False)],
    html: Annotated[
        Path | None,
        typer.Option(
            "--html",
            help="Write the game as one self-contained HTML page to step through, instead.",
            dir_okay=False,
            callback=_out_in_existing_folder,
        ),
    ] = None,
) -> None:
    """Play a saved game again from its choices and narrate it in Italian; with --html,
    write it as a step-through board in one HTML file instead."""
    from pipeline.play.records import replay_file
    from pipeline.publish.markup import terminal_text

    if html is not None:
        from pipeline.publish.board import write_replay_html

        board = write_replay_html(_project(ctx), file, html)
        typer.echo(f"wrote {html} ({len(board.frames) - 1} steps)")
        return
    _, lines = replay_file(_project(ctx), file)
    for line in lines:
        typer.echo(terminal_text(line))  # the narration is Markdown, for the site


@app.command("record")
@fails_cleanly
def record_cmd(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="The game's slug (a game with an engine).")],
    out: Annotated[
        Path,
        typer.Option(
            "--out",
            "-o",
            help="JSON replay to write.",
            dir_okay=False,
            callback=_out_in_existing_folder,
        ),
    ],
    seed: Annotated[int, typer.Option("--seed", help="Which game.")] = 1,
    agents: AgentsOption = "random",
    players: PlayersOption = None,
    teams: TeamsOption = None,
    options: GameOptions = None,
) -> None:
    """Play one game between agents and save it as a replay (see `cartiera replay`)."""
    from pipeline.common.output import atomic_write
    from pipeline.play.simulate import record_game

    project, _, setup = _engine_setup(
        ctx, game, players=players, teams=teams, options=options, agents=agents
    )
    replay = record_game(project, game, seed, setup)
    atomic_write(out, replay.to_json().encode("utf-8"))
    typer.echo(f"wrote {out}")


@app.command("example")
@fails_cleanly
def example_cmd(
    ctx: typer.Context,
    game: Annotated[str, typer.Argument(help="The game's slug (a game with an engine).")],
    name: Annotated[
        str | None,
        typer.Argument(
            help="The scenario's name (file name without .yaml). Default: all of them.",
            callback=_plain_name,
        ),
    ] = None,
) -> None:
    """Play worked examples, check what must follow, and print their Italian narration."""
    from pipeline.play.examples import run_example, run_examples

    project, rules, _ = _engine_setup(ctx, game, options=None)
    if name:
        results = [run_example(project, game, name, rules)]
    else:
        results = run_examples(project, game, rules)
    failed = 0
    for result in results:
        typer.echo(result.markdown)
        for place, what in result.failed:
            typer.echo(error_line(place, what), err=True)
        failed += not result.passed
    raise typer.Exit(1 if failed else 0)


def run() -> None:
    app()
