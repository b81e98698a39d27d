"""The command line's vocabulary and manners: what each option means, in one table, how help
is laid out, how a game's slug is completed, and the one shape of every error line.

pipeline/cli/app.py declares the commands; the classes here give them a common behaviour:
options show the metavar of the table (`--games N`, not `<int range>`), arguments their
name, help is plain text wrapped to the terminal, a GAME argument completes the project's
slugs, and Click's usage errors become one line. tests/test_cli_options.py checks every
command against the table.
"""

from __future__ import annotations

import functools
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import typer
from typer.core import TyperCommand, TyperGroup

from pipeline.common.project import find_root


@dataclass(frozen=True)
class Meaning:
    """What a long option means in every command that has it."""

    what: str
    short: str | None = None  # the one short form, if it has one
    metavar: str | None = None  # None: a flag, or a choice shown as its values
    flag: bool = False


OPTIONS: dict[str, Meaning] = {
    "--project": Meaning("the project folder (the one holding games/)", "-C", "DIR"),
    "--db": Meaning("the database: a SQLAlchemy URL or a SQLite file", None, "URL"),
    "--version": Meaning("print the version", flag=True),
    "--help": Meaning("show the command's help", "-h", flag=True),
    "--install-completion": Meaning("install shell completion", flag=True),
    "--show-completion": Meaning("print the shell completion script", flag=True),
    "--format": Meaning("the format of what the command prints or writes", "-f"),
    "--json": Meaning("the same as --format json (kept for old scripts)", flag=True),
    "--out": Meaning("the file or folder to write", "-o", "PATH"),
    "--limit": Meaning("at most N results", "-n", "N"),
    "--jobs": Meaning("worker processes; results never depend on them", "-j", "N"),
    "--check": Meaning("write nothing; exit 1 when the output is out of date", flag=True),
    "--force": Meaning("replace what another project built on a shared database", flag=True),
    "--fit": Meaning("lay out card faces to check that their text fits", flag=True),
    "--no-layout": Meaning("the same as --no-fit (kept for old scripts)", flag=True),
    "--delimiter": Meaning("the CSV cell separator", None, "C"),
    "--encoding": Meaning("the CSV text encoding", None, "ENC"),
    "--name": Meaning("the new game's name", None, "NAME"),
    "--players": Meaning("how many players", "-p", "N"),
    "--size": Meaning("a card size by name (poker, bridge…)"),
    "--in": Meaning("the project folder to create or add to", None, "DIR"),
    "--paper": Meaning("the paper size"),
    "--duplex": Meaning("which edge a duplex printer flips on"),
    "--bleed": Meaning("bleed in mm around the printed cards", None, "MM"),
    "--crop": Meaning("cut the images at the card's edge, without bleed", flag=True),
    "--no-bleed": Meaning("the same as --crop (kept for old scripts)", flag=True),
    "--layout": Meaning("how cards are laid out on the sheets"),
    "--gutter": Meaning("the gap in mm between cards on a sheet", None, "MM"),
    "--ink": Meaning("how much ink the backgrounds take"),
    "--backs-offset": Meaning("shift of the backs in mm", None, "X,Y"),
    "--interleave": Meaning("backs and fronts alternate, page by page", flag=True),
    "--booklet": Meaning("the A5 pages as an A4 booklet to fold", flag=True),
    "--deck": Meaning("one deck of the game", None, "DECK"),
    "--preset": Meaning("a print service's or program's image format"),
    "--dpi": Meaning("image resolution in dots per inch", None, "N"),
    "--port": Meaning("the local port to serve on", None, "PORT"),
    "--serve": Meaning("serve the result on localhost", flag=True),
    "--offline": Meaning("the variant that works from file://", flag=True),
    "--guides": Meaning("draw the cut line and the safe area", flag=True),
    "--games": Meaning("how many games (or matches) to play", None, "N"),
    "--seed": Meaning("the random seed: the same seed, the same games", None, "S"),
    "--agents": Meaning("who plays each seat", None, "A[,B…]"),
    "--teams": Meaning("a team mode of the game", None, "MODE"),
    "--option": Meaning("a game option, repeatable", None, "K=V"),
    "--match": Meaning("a match mode of the game", None, "MODE"),
    "--cluster": Meaning("a Dask scheduler, or local:N", None, "ADDRESS"),
    "--variant": Meaning("a card changed, card.field=value, repeatable", None, "CHANGE"),
    "--threshold": Meaning("how far from parity a figure is marked", None, "P"),
    "--timings": Meaning("print where the time went, step by step", flag=True),
    "--html": Meaning("the self-contained HTML file to write", None, "FILE"),
}

# Arguments as usage lines name them.
ARGUMENTS = {
    "game": "GAME",
    "games": "GAME",
    "slug": "SLUG",
    "csv_file": "FILE",
    "file": "FILE",
    "name": "NAME",
    "words": "[GAME] QUERY",
}
GAME_ARGUMENTS = ("game", "games")


def error_line(where: str, message: str, hint: str | None = None) -> str:
    """Every error the CLI prints: `WHERE: error: MESSAGE (fix: HINT)`, WHERE being the file
    position of bad data, or `cartiera COMMAND` when the error is not in a file."""
    return f"{where}: error: {message}" + (f" (fix: {hint})" if hint else "")


# Typer 0.2x checks values with pydantic, whose messages read as a validator's ("Input
# should be greater than or equal to 1", "Value error, 'a0' is not one of …"): said here
# as the rest of the CLI says them. Click's own messages, in older Typers, pass unchanged.
_PYDANTIC_WORDS = (
    (re.compile(r"Value error, "), ""),
    (re.compile(r"Input should be greater than or equal to (\S+)"), r"must be at least \1"),
    (re.compile(r"Input should be less than or equal to (\S+)"), r"must be at most \1"),
    (re.compile(r"Input should be greater than (\S+)"), r"must be more than \1"),
    (re.compile(r"Input should be less than (\S+)"), r"must be less than \1"),
    (re.compile(r"Input should be a valid integer\b.*"), "must be a whole number"),
    (re.compile(r"Input should be a valid number\b.*"), "must be a number"),
    (re.compile(r"Input should be "), "must be "),
)


def plain_words(message: str, given: object = None) -> str:
    """A usage error's message without pydantic's phrasing, naming the value `given` (when
    known) where pydantic's words leave it out: "'--games': '0' must be at least 1"."""
    for pattern, words in _PYDANTIC_WORDS:
        message = pattern.sub(words, message)
    if given is not None:
        message = re.sub(r"^([^:]*: )(must be )", lambda m: f"{m[1]}{given!r} {m[2]}", message)
    return message


def given_value(exc: BaseException) -> object:
    """The value a bad option was given, from the pydantic error Typer raised it from (its
    `input`); None when the error does not carry one (Click's own, a command's)."""
    errors = getattr(exc.__cause__, "errors", None)
    try:
        return errors()[0]["input"] if callable(errors) else None
    except (IndexError, KeyError, TypeError):
        return None


# Click's UsageError, whether Typer vendors Click or uses the installed one: every mistake
# in the command line (unknown option, bad value, missing argument) is one of these.
_UsageError: type[Exception] = typer.BadParameter.__mro__[1]


class UsageProblem(_UsageError):  # type: ignore[valid-type,misc]
    """Bad usage found by a command itself; printed like Click's own, with its own fix."""

    def __init__(self, message: str, hint: str | None = None, ctx: Any = None):
        super().__init__(message, ctx)
        self.hint = hint


class BadValue(typer.BadParameter):
    """A bad option value, printed as Click prints one (`invalid value for '--out'`), with
    its own fix instead of the pointer to --help."""

    def __init__(self, message: str, hint: str, param_hint: Sequence[str] | None = None):
        super().__init__(message, param_hint=param_hint)
        self.hint = hint


def usage_error(message: str, hint: str | None = None) -> NoReturn:
    """Bad usage: one line on stderr (`cartiera COMMAND: error: …`), exit status 2."""
    raise UsageProblem(message, hint)


def complete_game(ctx: Any, param: Any, incomplete: str) -> list[str]:
    """The slugs of the project's games (folders of games/ holding a game.yaml), for shell
    completion: read from the disk, with no database and no heavy import."""
    given = ctx.find_root().params.get("project")
    root = find_root(Path(given or Path.cwd()).resolve())
    if root is None:
        return []
    return sorted(
        p.name
        for p in (root / "games").iterdir()
        if p.name.startswith(incomplete) and (p / "game.yaml").is_file()
    )


class CartieraCommand(TyperCommand):
    """A command whose options read the vocabulary's metavars and whose help is plain."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _apply_vocabulary(self.params)

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        return _usage_pieces(self, ctx)

    def format_options(self, ctx: Any, formatter: Any) -> None:
        _format_parameters(self, ctx, formatter)


_OPTION_LIKE = re.compile(r"--[a-z][a-z0-9-]*(=.*)?")


class QueryCommand(CartieraCommand):
    """A command whose arguments are a query, where '-' starts a negation (`-forma:luce`),
    not an option: the command's own options are taken wherever they stand, every other
    word is the query's, in its order (`--` is not needed)."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        takes_value = {
            name: not getattr(param, "is_flag", False)
            for param in self.get_params(ctx)
            if param.param_type_name == "option"
            for name in (*param.opts, *param.secondary_opts)
        }
        options: list[str] = []
        words: list[str] = []
        rest = iter(args)
        for arg in rest:
            name = arg.split("=", 1)[0]
            if arg == "--":
                words.extend(rest)
            elif name in takes_value:
                options.append(arg)
                if takes_value[name] and "=" not in arg:
                    value = next(rest, None)
                    if value is None:
                        raise UsageProblem(f"option {arg} needs a value", None, ctx)
                    options.append(value)
            elif _OPTION_LIKE.fullmatch(arg):  # a mistyped option, not a double negation
                raise UsageProblem(f"no such option: {name}", None, ctx)
            else:
                words.append(arg)
        return super().parse_args(ctx, [*options, "--", *words])


class CartieraGroup(TyperGroup):
    """The `cartiera` group: the same help, and Click's usage errors as one line, exit 2."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        _apply_vocabulary(self.params)

    def format_options(self, ctx: Any, formatter: Any) -> None:
        _format_parameters(self, ctx, formatter)
        self.format_commands(ctx, formatter)

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        windows_expand_args: bool = True,
        **kwargs: Any,
    ) -> Any:
        run = functools.partial(
            super().main,
            args,
            prog_name,
            complete_var,
            windows_expand_args=windows_expand_args,
            **kwargs,
        )
        if not standalone_mode:
            return run(standalone_mode=False)
        try:
            code = run(standalone_mode=False)
        except _UsageError as exc:
            if type(exc).__name__ == "NoArgsIsHelpError":  # `cartiera` alone: the help
                exc.show()  # type: ignore[attr-defined]
                sys.exit(exc.exit_code)  # type: ignore[attr-defined]
            ctx = getattr(exc, "ctx", None)
            where = ctx.command_path if ctx is not None else "cartiera"
            text = " ".join(exc.format_message().split()).rstrip(".")  # type: ignore[attr-defined]
            message = plain_words(text, given_value(exc))
            hint = getattr(exc, "hint", None) or f"see `{where} --help`"
            sys.stderr.write(error_line(where, message[:1].lower() + message[1:], hint) + "\n")
            sys.exit(2)
        except typer.Abort:
            sys.stderr.write("cartiera: aborted\n")
            sys.exit(1)
        sys.exit(code if isinstance(code, int) else 0)


class CartieraTyper(typer.Typer):
    """typer.Typer whose commands are CartieraCommands and whose help is plain text."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("cls", CartieraGroup)
        super().__init__(rich_markup_mode=None, **kwargs)

    def command(self, *args: Any, **kwargs: Any) -> Any:
        kwargs.setdefault("cls", CartieraCommand)
        return super().command(*args, **kwargs)


def _long(param: Any) -> str | None:
    names = [o for o in (*param.opts, *param.secondary_opts) if o.startswith("--")]
    return names[0] if names else None


def _apply_vocabulary(params: Sequence[Any]) -> None:
    for param in params:
        if param.param_type_name == "argument":
            param.metavar = param.metavar or ARGUMENTS.get(param.name, param.name.upper())
            if param.name in GAME_ARGUMENTS:
                param._custom_shell_complete = complete_game  # what shell_complete= sets
            continue
        meaning = OPTIONS.get(_long(param) or "")
        if param.metavar is not None or param.is_flag:
            continue
        if meaning is not None and meaning.metavar:
            param.metavar = meaning.metavar
        elif choices := getattr(getattr(param, "type_descriptor", None), "choices", None):
            param.metavar = "[" + "|".join(str(c.value) for c in choices) + "]"
        else:  # the option's own name rather than Typer's `<str>`
            param.metavar = (_long(param) or param.name).lstrip("-").upper()


def _usage_pieces(command: Any, ctx: Any) -> list[str]:
    pieces = ["[OPTIONS]"] if command.get_params(ctx) else []
    for param in command.get_params(ctx):
        if param.param_type_name != "argument":
            continue
        name = param.metavar
        if param.nargs != 1 and not name.startswith("["):
            name += "…"
        pieces.append(name if param.required or name.startswith("[") else f"[{name}]")
    return pieces


def _format_parameters(command: Any, ctx: Any, formatter: Any) -> None:
    """Arguments by name and help; options as Click writes them, with the table's metavars."""
    arguments, options = [], []
    for param in command.get_params(ctx):
        if param.hidden:
            continue
        if param.param_type_name == "argument":
            if param.help:
                arguments.append((param.metavar, param.help))
            continue
        record = param.get_help_record(ctx)
        if record is not None:
            options.append(record)
    if arguments:
        with formatter.section("Arguments"):
            formatter.write_dl(arguments)
    if options:
        with formatter.section("Options"):
            formatter.write_dl(options)
