"""One option vocabulary: every command's options against the table of meanings in
pipeline/cli/vocab.py, help that reads at 80 columns, one error line, slug completion."""

from __future__ import annotations

import re
import subprocess
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import typer
from conftest import CARTIERA, ROOT, checkout_env, invoke

from pipeline.cli.app import app
from pipeline.cli.vocab import OPTIONS


def _commands(command: Any = None, path: tuple[str, ...] = ()) -> Iterator[tuple[str, Any]]:
    command = command or typer.main.get_command(app)
    yield " ".join(("cartiera", *path)), command
    for name, sub in getattr(command, "commands", {}).items():
        yield from _commands(sub, (*path, name))


COMMANDS = dict(_commands())


def _options(command: Any) -> Iterator[tuple[str, list[str], bool]]:
    """(long name, short names, is a flag) of each option."""
    for param in command.params:
        if param.param_type_name == "option":
            names = [*param.opts, *param.secondary_opts]
            long = next(n for n in names if n.startswith("--"))
            yield long, sorted(n for n in names if not n.startswith("--")), param.is_flag


def test_a_short_option_means_one_thing_in_every_command() -> None:
    meanings: dict[str, set[str]] = defaultdict(set)
    for _, command in COMMANDS.items():
        for long, shorts, _ in _options(command):
            for short in shorts:
                meanings[short].add(long)
    assert {s: ls for s, ls in meanings.items() if len(ls) > 1} == {}
    assert meanings["-n"] == {"--limit"} and meanings["-o"] == {"--out"}


def test_every_option_is_in_the_table_with_its_short_form() -> None:
    for name, command in COMMANDS.items():
        for long, shorts, flag in _options(command):
            assert long in OPTIONS, f"{name} {long}: add it to pipeline/cli/vocab.py"
            want = OPTIONS[long]
            assert shorts == ([want.short] if want.short else []), f"{name} {long}"
            assert flag == want.flag, f"{name} {long}: a flag in one command, a value in another"


def test_the_table_gives_each_short_form_to_one_option() -> None:
    shorts = [m.short for m in OPTIONS.values() if m.short]
    assert len(shorts) == len(set(shorts))


def test_a_long_option_is_a_flag_everywhere_or_nowhere() -> None:
    kinds: dict[str, set[bool]] = defaultdict(set)
    for _, command in COMMANDS.items():
        for long, _, flag in _options(command):
            kinds[long].add(flag)
    assert {long: k for long, k in kinds.items() if len(k) > 1} == {}


def test_every_command_that_prints_data_takes_format() -> None:
    prints_data = ["validate", "export", "search", "simulate", "balance"]
    for name in prints_data:
        longs = {long for long, _, _ in _options(COMMANDS[f"cartiera {name}"])}
        assert "--format" in longs, name


def test_simulate_json_is_format_json(shared_project: Path) -> None:
    args = ["simulate", "bless", "--games", "4", "--seed", "3"]
    by_format = invoke(shared_project, *args, "--format", "json")
    by_flag = invoke(shared_project, *args, "--json")
    assert by_format.exit_code == 0, by_format.output
    assert by_format.stdout == by_flag.stdout and by_format.stdout.startswith("{")
    assert "--json" not in invoke(None, "simulate", "--help").stdout  # kept, not advertised


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_help_reads_at_80_columns(name: str) -> None:
    env = checkout_env(COLUMNS="80")
    words = name.split()[1:]
    out = subprocess.run(
        [*CARTIERA, *words, "--help"],
        capture_output=True, text=True, env=env, cwd=ROOT, check=True,
    ).stdout  # fmt: skip
    lines = out.splitlines()
    assert lines[0].startswith("Usage: ")
    assert max(len(line) for line in lines) <= 80
    assert not re.search(r"<(bool|str|int|float|list|path)", out), out
    assert not re.search(r"[╭│╰]", out)  # plain text, no boxes
    assert "{" not in lines[0]


# Each way a command line can be wrong, and what it must say: one line, exit 2.
USAGE = {
    "unknown option": (["search", "bless", "re", "--fromat", "json"], "no such option: --fromat"),
    "bad value": (["search", "bless", "re", "--limit", "x"], "invalid value for '--limit'"),
    "missing argument": (["deck"], "missing argument 'GAME'"),
    "unknown command": (["desk"], "no such command 'desk'"),
    "unknown game": (["faces", "scacchi"], "unknown game 'scacchi'"),
    "a command's own check": (["simulate", "bless", "--option", "x=1"], "no option 'x'"),
    "bad choice": (["deck", "bless", "--paper", "a9"], "invalid value for '--paper'"),
}


@pytest.mark.parametrize(("args", "says"), USAGE.values(), ids=USAGE.keys())
def test_a_usage_error_is_one_line_in_one_shape(
    shared_project: Path, args: list[str], says: str
) -> None:
    run = invoke(shared_project, *args)
    assert run.exit_code == 2, run.output
    assert run.stdout == ""
    (line,) = run.stderr.splitlines()
    command = "cartiera" if args[0] == "desk" else f"cartiera {args[0]}"
    assert line.startswith(f"{command}: error: "), line
    assert says in line and line.endswith(f"(fix: see `{command} --help`)")


@pytest.mark.parametrize("group", [[], ["db"]])
def test_a_group_alone_shows_its_help(group: list[str]) -> None:
    run = invoke(None, *group)
    assert run.output.startswith(f"Usage: {' '.join(['cartiera', *group])} [OPTIONS] COMMAND")
    assert "error:" not in run.output


def test_a_data_error_names_the_command_or_the_file(tmp_path: Path) -> None:
    (tmp_path / "games").mkdir()
    run = invoke(tmp_path, "--db", str(tmp_path / "none.db"), "search", "re")
    assert run.exit_code == 1
    assert run.stderr.startswith("cartiera search: error: none.db does not exist")
    broken = tmp_path / "notadb.db"
    broken.write_text("hello")
    run = invoke(tmp_path, "--db", str(broken), "db", "dump")
    assert run.exit_code == 1
    assert run.stderr.startswith("cartiera db dump: error: ")


def test_a_query_may_start_with_a_minus(shared_project: Path) -> None:
    """'-' starts a negation, not an option; the command's own options work around it."""
    run = invoke(shared_project, "search", "bless", "-forma:luce", "-f", "ids", "-n", "2")
    assert run.exit_code == 0, run.output
    assert run.stdout.split() == ["bless/re-ombra", "bless/mesit-campione-dell-ombra"]


def test_game_arguments_complete_the_projects_slugs(shared_project: Path) -> None:
    def complete(line: str, cwd: Path) -> list[str]:
        words = line.split(" ")
        env = checkout_env(
            _CARTIERA_COMPLETE="complete_bash", COMP_WORDS=line, COMP_CWORD=str(len(words) - 1)
        )
        return subprocess.run(
            CARTIERA, capture_output=True, text=True, env=env, cwd=cwd
        ).stdout.split()

    assert complete("cartiera deck b", shared_project) == ["bldng", "bless", "blitz"]
    assert complete("cartiera validate bless s", shared_project / "games") == ["samurai-sword"]
    elsewhere = f"cartiera -C {shared_project} simulate m"
    assert complete(elsewhere, shared_project.parent) == ["mazzo"]
