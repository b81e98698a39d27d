"""Problems found in the sources, and the three ways `validate` reports them."""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Literal

Severity = Literal["error", "warning"]

_ONE_LINE = str.maketrans({"\n": "\\n", "\r": "\\r"})


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the sources, located as precisely as we can."""

    severity: Severity
    message: str
    file: str | None = None
    line: int | None = None
    column: int | None = None
    game: str | None = None
    card: str | None = None
    hint: str | None = None

    @property
    def is_error(self) -> bool:
        return self.severity == "error"

    def where(self) -> str:
        if not self.file:
            return self.game or "cartiera"
        place = self.file
        if self.line is not None:
            place += f":{self.line}"
            if self.column is not None:
                place += f":{self.column}"
        return place

    def one_line(self) -> str:
        """`file:line:col: error: [game/card] what is wrong (fix: what to do)`."""
        subject = ""
        if self.game and self.card:
            subject = f"{self.game}/{self.card}: "
        elif self.game and not self.file:
            subject = ""
        text = f"{self.where()}: {self.severity}: {subject}{self.message}"
        if self.hint:
            text += f" (fix: {self.hint})"
        return text.translate(_ONE_LINE)  # a name from a hostile file may hold a line break


class SourceError(Exception):
    """Raised for bad input that stops a command; the CLI prints `problem.one_line()`."""

    def __init__(self, problem: Problem):
        super().__init__(problem.one_line())
        self.problem = problem
        self.problems = [problem]

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its problem: raised in a worker process, it reaches the command whole."""
        return (type(self), (self.problem,))


class SourceErrors(SourceError):
    """Several problems found at once (every bad row of a spreadsheet); the CLI prints each."""

    def __init__(self, problems: Sequence[Problem]):
        super().__init__(problems[0])
        self.problems = list(problems)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.problems,))


def count(problems: Iterable[Problem]) -> tuple[int, int]:
    errors = warnings = 0
    for problem in problems:
        if problem.is_error:
            errors += 1
        else:
            warnings += 1
    return errors, warnings


def github_annotation(problem: Problem) -> str:
    """A GitHub Actions workflow command, so problems show on the changed lines."""
    kind = "error" if problem.is_error else "warning"
    params = []
    if problem.file:
        params.append(f"file={problem.file}")
        if problem.line is not None:
            params.append(f"line={problem.line}")
        if problem.column is not None:
            params.append(f"col={problem.column}")
    title = f"{problem.game}/{problem.card}" if problem.card else problem.game
    if title:
        params.append(f"title={_escape(title, prop=True)}")
    message = problem.message + (f" (fix: {problem.hint})" if problem.hint else "")
    return f"::{kind} {','.join(params)}::{_escape(message)}"


def _escape(text: str, prop: bool = False) -> str:
    text = text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")
    if prop:
        text = text.replace(":", "%3A").replace(",", "%2C")
    return text


def as_json(problems: Sequence[Problem], summaries: Sequence[dict]) -> str:
    errors, warnings = count(problems)
    payload = {
        "ok": errors == 0,
        "errors": errors,
        "warnings": warnings,
        "problems": [asdict(p) for p in problems],
        "games": list(summaries),
    }
    return json.dumps(payload, ensure_ascii=False, indent=2)


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def as_sarif(problems: Sequence[Problem], version: str) -> str:
    """SARIF 2.1.0, so code-scanning tools show each problem on its line of the sources."""
    results = []
    for problem in problems:
        message = problem.message + (f" (fix: {problem.hint})" if problem.hint else "")
        if problem.card:
            message = f"{problem.game}/{problem.card}: {message}"
        result: dict = {
            "ruleId": "cartiera.source",
            "level": "error" if problem.is_error else "warning",
            "message": {"text": message},
        }
        if problem.file:
            location: dict = {"artifactLocation": {"uri": problem.file, "uriBaseId": "SRCROOT"}}
            if problem.line is not None:
                region = {"startLine": max(1, problem.line)}
                if problem.column is not None:
                    region["startColumn"] = max(1, problem.column)
                location["region"] = region
            result["locations"] = [{"physicalLocation": location}]
        results.append(result)
    rule = {
        "id": "cartiera.source",
        "name": "CardSource",
        "shortDescription": {"text": "A problem in a game's sources found by cartiera validate"},
    }
    tool = {"driver": {"name": "cartiera", "version": version, "rules": [rule]}}
    run = {"tool": {**tool}, "results": results, "originalUriBaseIds": {"SRCROOT": {"uri": ""}}}
    payload = {"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}
    return json.dumps(payload, ensure_ascii=False, indent=2)
