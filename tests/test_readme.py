"""The README says what the program does: its command table matches the Typer app, and its
sample `cartiera validate` output is what a project with that very error prints."""

from __future__ import annotations

import enum
import re
import typing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import typer.main
from conftest import ROOT, edit, invoke

from pipeline.cli.app import app

README = ROOT / "README.md"
ROW = re.compile(r"^\| `cartiera ([^`]+)` \|", re.MULTILINE)
CHOICES = r"[a-z0-9-]+(\|[a-z0-9-]+)+"  # text|json|github


@dataclass
class Shown:
    """One row of the README's command table: the command, its options (with the values
    it lists, if any) and its positional arguments (name, optional?)."""

    path: str
    options: dict[str, list[str]] = field(default_factory=dict)
    arguments: list[tuple[str, bool]] = field(default_factory=list)


def _tokens(usage: str) -> list[str]:
    """Words and whole [bracketed groups], which may nest: `[--agents A[,B…]]`."""
    tokens: list[str] = []
    current, depth = "", 0
    for char in usage:
        if char == " " and depth == 0:
            if current:
                tokens.append(current)
            current = ""
            continue
        depth += (char == "[") - (char == "]")
        current += char
    return [*tokens, current] if current else tokens


def readme_rows() -> list[Shown]:
    rows = []
    for usage in ROW.findall(README.read_text(encoding="utf-8")):
        tokens = _tokens(usage.replace("\\|", "|"))
        command: list[str] = []
        while tokens and re.fullmatch(r"[a-z][a-z-]*", tokens[0]):
            command.append(tokens.pop(0))
        shown = Shown(" ".join(command))
        while tokens:
            token = tokens.pop(0)
            optional = token.startswith("[")
            words = token[1:-1].split() if optional else token.split()
            if words[0].startswith("-"):
                if len(words) == 1 and tokens and not tokens[0].startswith(("[", "-")):
                    words.append(tokens.pop(0))  # `--out FILE`: the option's value
                value = words[1] if len(words) > 1 else ""
                listed = re.fullmatch(CHOICES, value)
                shown.options[words[0]] = value.split("|") if listed else []
            else:
                shown.arguments.append((words[0].rstrip("…"), optional))
        rows.append(shown)
    return rows


def _choices(param: Any) -> list[str] | None:
    annotation = param.type_descriptor.annotation
    for candidate in (annotation, *typing.get_args(annotation)):
        if isinstance(candidate, type) and issubclass(candidate, enum.Enum):
            return [str(member.value) for member in candidate]
    return None


def app_commands() -> dict[str, Any]:
    """Every leaf command of the Typer app by its full path ("db build")."""
    found: dict[str, Any] = {}

    def walk(command: Any, path: tuple[str, ...]) -> None:
        if hasattr(command, "commands"):
            for name, sub in command.commands.items():
                walk(sub, (*path, name))
        else:
            found[" ".join(path)] = command

    walk(typer.main.get_command(app), ())
    return found


def test_the_readme_table_has_every_command_and_only_real_ones() -> None:
    shown = {row.path for row in readme_rows()}
    commands = set(app_commands())
    assert shown, "no command table found in the README"
    problems = [f"README shows `cartiera {c}`, which the app has not" for c in shown - commands]
    problems += [f"`cartiera {c}` is missing from the README's table" for c in commands - shown]
    assert not problems, "\n".join(sorted(problems))


def test_every_option_the_readme_shows_exists_with_its_values() -> None:
    commands = app_commands()
    problems = []
    for row in readme_rows():
        command = commands.get(row.path)
        if command is None:
            continue  # reported by the test above
        options = {
            name: param
            for param in command.params
            if param.param_type_name == "option"
            for name in (*param.opts, *param.secondary_opts)
        }
        for name, values in row.options.items():
            param = options.get(name)
            if param is None:
                problems.append(f"`cartiera {row.path}`: README shows {name}, the app has not")
                continue
            choices = _choices(param)
            if values and choices is not None and set(values) != set(choices):
                problems.append(
                    f"`cartiera {row.path} {name}`: README lists {'|'.join(values)}, "
                    f"the app accepts {'|'.join(choices)}"
                )
        arguments = [p for p in command.params if p.param_type_name == "argument"]
        variadic = any(p.nargs == -1 for p in arguments)  # takes the rest of the words
        if len(row.arguments) < len(arguments) or (
            len(row.arguments) > len(arguments) and not variadic
        ):
            problems.append(
                f"`cartiera {row.path}`: README shows {len(row.arguments)} arguments "
                f"({' '.join(a for a, _ in row.arguments)}), the app takes {len(arguments)}"
            )
        for (name, optional), param in zip(row.arguments, arguments, strict=False):
            if param.nargs == -1:
                break
            if optional == param.required:
                problems.append(
                    f"`cartiera {row.path}`: README shows {name} as "
                    f"{'optional' if optional else 'required'}, the app does not"
                )
    assert not problems, "\n".join(problems)


def _sample_block() -> list[str]:
    text = README.read_text(encoding="utf-8")
    block = re.search(r"```text\n\$ cartiera validate\n(.*?)```", text, re.DOTALL)
    assert block, "the README's sample `cartiera validate` block is missing"
    lines = block.group(1).splitlines()
    return lines[: lines.index("…")] if "…" in lines else lines


def test_the_sample_validate_output_is_what_validate_prints(project: Path, seeds: Path) -> None:
    """The README's sample: Re Luce with occhio 42. Seeds are needed for the '0 warnings'
    the sample shows (without them every game warns that its seed is missing)."""
    edit(
        project / "games/bless/cards.yaml",
        "attributes: {forma: Luce, occhio: 3, karma: 2, preghiera: Eco}",
        "attributes: {forma: Luce, occhio: 42, karma: 2, preghiera: Eco}",
    )
    run = invoke(project, "validate")
    assert run.exit_code == 1, run.output
    printed = run.stdout.splitlines()
    sample = _sample_block()
    assert printed[0] == sample[0], f"first line: README {sample[0]!r}, printed {printed[0]!r}"
    at = 0
    for line in sample[1:]:
        assert line in printed[at:], f"README line not printed (in order): {line!r}"
        at = printed.index(line, at) + 1
