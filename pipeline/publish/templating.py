"""The Jinja2 environment over templates/: sandboxed, autoescaped, strict about undefined
names. Templates are sources like the others (a pull request may change them): the sandbox
keeps a template to the values it is given, so one cannot reach Python's internals to read
a file or start a process while the build renders it."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from jinja2 import FileSystemLoader, StrictUndefined, select_autoescape
from jinja2.sandbox import SandboxedEnvironment
from markupsafe import Markup, escape


@cache
def environment(templates_dir: Path) -> SandboxedEnvironment:
    env = SandboxedEnvironment(
        loader=FileSystemLoader(templates_dir),
        autoescape=select_autoescape(["html", "j2", "svg"], default_for_string=True),
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["yaml_str"] = yaml_string
    return env


def yaml_string(value: Any) -> Markup:
    """A value for a page's YAML front matter: one double-quoted scalar (JSON's quoting is
    YAML's), so a name with a colon, a '#' or a leading '*' stays text; HTML-escaped like
    every other value."""
    return Markup(json.dumps(str(escape(value)), ensure_ascii=False))
