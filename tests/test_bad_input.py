"""Bad input never ends in a traceback: every command, given a bad value for an option or
an argument, says what is wrong and exits 2 (bad usage) or 1 (bad data or file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from pipeline.cli.app import app

# (arguments after --project, exit code, words the message must contain). `{tmp}` is a
# fresh folder of the test, `{file}` names files the `files` fixture writes in it.
CASES: list[tuple[str, list[str], int, str]] = [
    ("validate-game", ["validate", "nessuno"], 2, "unknown game 'nessuno'"),
    ("validate-format", ["validate", "--format", "xml"], 2, "--format"),
    ("export-game", ["export", "nessuno"], 2, "unknown game"),
    ("export-format", ["export", "bless", "--format", "xls"], 2, "--format"),
    ("export-out-in-file", ["export", "bless", "--out", "{tmp}/empty.csv/x.csv"], 1, "empty.csv"),
    ("record-out-in-file", ["record", "bless", "--out", "{tmp}/empty.csv/r.json"], 1, "empty.csv"),
    ("deck-out-in-file", ["deck", "mazzo", "--out", "{tmp}/empty.csv/d.pdf"], 1, "empty.csv"),
    ("import-missing", ["import", "bless", "{tmp}/manca.csv"], 1, "manca.csv"),
    ("import-binary", ["import", "bless", "{tmp}/binary.csv"], 1, "binary.csv"),
    ("import-empty", ["import", "bless", "{tmp}/empty.csv"], 1, "empty.csv"),
    ("import-columns", ["import", "bless", "{tmp}/columns.csv"], 1, "columns.csv"),
    ("rulebook-paper", ["rulebook", "bless", "--paper", "a0"], 2, "--paper"),
    ("rulebook-out-dir", ["rulebook", "bless", "--out", "{tmp}"], 2, "--out"),
    ("faces-game", ["faces", "nessuno"], 2, "unknown game"),
    ("deck-bleed-high", ["deck", "bless", "--bleed", "99"], 2, "'--bleed': '99' must be at most 6"),
    ("deck-bleed-negative", ["deck", "bless", "--bleed", "-1"], 2, "--bleed"),
    ("deck-bleed-word", ["deck", "bless", "--bleed", "tanto"], 2, "--bleed"),
    ("deck-offset-word", ["deck", "bless", "--backs-offset", "x"], 2, "'--backs-offset': write"),
    ("deck-offset-three", ["deck", "bless", "--backs-offset", "1,2,3"], 2, "X,Y"),
    ("deck-offset-nan", ["deck", "bless", "--backs-offset", "nan,0"], 2, "X,Y"),
    ("deck-offset-huge", ["deck", "bless", "--backs-offset", "1e9,0"], 2, "X,Y"),
    ("deck-paper", ["deck", "bless", "--paper", "a0"], 2, "--paper"),
    ("deck-duplex", ["deck", "bless", "--duplex", "sometimes"], 2, "--duplex"),
    ("deck-layout", ["deck", "bless", "--layout", "poster"], 2, "--layout"),
    ("deck-deck", ["deck", "bless", "--deck", "nessuno"], 1, "no deck 'nessuno'"),
    ("images-dpi", ["images", "bless", "--dpi", "10"], 2, "--dpi"),
    ("images-preset", ["images", "bless", "--preset", "poster"], 2, "--preset"),
    ("images-out-file", ["images", "bless", "--out", "{tmp}/empty.csv"], 2, "--out"),
    ("site-port-high", ["site", "--serve", "--port", "70000"], 2, "--port"),
    ("site-port-zero", ["site", "--serve", "--port", "0"], 2, "--port"),
    ("build-jobs", ["build", "--jobs", "0"], 2, "--jobs"),
    ("simulate-game", ["simulate", "nessuno"], 2, "unknown game"),
    ("simulate-players", ["simulate", "bless", "--players", "9"], 2, "not 9"),
    ("record-option", ["record", "bless", "--out", "{tmp}/r.json", "--option", "no=1"], 2, "'no'"),
    ("simulate-games", ["simulate", "bless", "--games", "0"], 2, "'--games': '0' must be at"),
    ("simulate-games-word", ["simulate", "bless", "--games", "molte"], 2, "a whole number"),
    ("simulate-seed", ["simulate", "bless", "--seed", "uno"], 2, "--seed"),
    ("simulate-jobs", ["simulate", "bless", "--jobs", "0"], 2, "--jobs"),
    ("record-game", ["record", "nessuno", "--out", "{tmp}/r.json"], 2, "unknown game"),
    ("record-no-out", ["record", "bless"], 2, "--out"),
    ("record-seed", ["record", "bless", "--out", "{tmp}/r.json", "--seed", "x"], 2, "--seed"),
    ("record-out-dir", ["record", "bless", "--out", "{tmp}"], 2, "--out"),
    ("replay-missing", ["replay", "{tmp}/manca.json"], 1, "manca.json"),
    ("replay-not-json", ["replay", "{tmp}/binary.csv"], 1, "binary.csv"),
    ("replay-list", ["replay", "{tmp}/list.json"], 1, "list.json"),
    ("replay-fields", ["replay", "{tmp}/fields.json"], 1, "fields.json"),
    ("replay-game", ["replay", "{tmp}/game.json"], 1, "game.json"),
    ("replay-seed", ["replay", "{tmp}/seed.json"], 1, "seed.json"),
    ("example-game", ["example", "nessuno"], 2, "unknown game"),
    ("example-name", ["example", "bless", "nessuno"], 1, "nessuno"),
    ("project-missing", ["--project", "{tmp}/manca", "validate"], 1, "manca holds no games/"),
    ("project-no-games", ["--project", "{tmp}", "validate"], 1, "no games/ folder"),
    ("db-not-sqlite", ["--db", "{tmp}/binary.csv", "export", "bless"], 1, "binary.csv"),
    ("db-bad-url", ["--db", "nosuchdb://x/y", "export", "bless"], 1, "nosuchdb"),
    ("db-missing", ["--db", "{tmp}/manca.db", "export", "bless"], 1, "manca.db"),
    ("db-empty", ["--db", "{tmp}/empty.csv", "export", "bless"], 1, "empty.csv"),
    ("db-empty-rulebook", ["--db", "{tmp}/empty.csv", "rulebook", "bless"], 1, "empty.csv"),
    ("db-empty-deck", ["--db", "{tmp}/empty.csv", "deck", "bless"], 1, "empty.csv"),
]


BOX = str.maketrans("", "", "│╭╮╰╯─")


@pytest.fixture
def files(tmp_path: Path) -> Path:
    """The bad files the cases name."""
    (tmp_path / "binary.csv").write_bytes(b"\x89PNG\r\n\x1a\n\x00\xff\xfe")
    (tmp_path / "empty.csv").write_text("", encoding="utf-8")
    (tmp_path / "columns.csv").write_text("colore,peso\nrosso,3\n", encoding="utf-8")
    (tmp_path / "list.json").write_text("[1, 2, 3]", encoding="utf-8")
    (tmp_path / "fields.json").write_text(json.dumps({"partita": 1}), encoding="utf-8")
    replay = {"game": "nessuno", "seed": 1, "agents": ["random", "random"], "log": []}
    (tmp_path / "game.json").write_text(json.dumps(replay), encoding="utf-8")
    replay = {"game": "bless", "seed": "uno", "agents": ["random", "random"], "log": []}
    (tmp_path / "seed.json").write_text(json.dumps(replay), encoding="utf-8")
    return tmp_path


@pytest.mark.parametrize(
    ("args", "code", "needle"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_bad_value_is_one_clear_error(
    shared_project: Path, files: Path, args: list[str], code: int, needle: str
) -> None:
    argv = [a.replace("{tmp}", str(files)) for a in args]
    if argv[0] != "--project":
        argv = ["--project", str(shared_project), *argv]
    result = CliRunner().invoke(app, argv)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"cartiera {' '.join(args)} raised instead of failing cleanly") from (
            result.exception
        )
    message = result.stderr.strip()
    assert result.exit_code == code, (result.exit_code, result.output)
    flat = " ".join(message.translate(BOX).split())  # Typer's usage errors come in a box
    assert needle in flat, message
    # said as the CLI says things, not as pydantic's validators do ("Input should be…")
    assert "Input should" not in flat and "Value error" not in flat, message
    if " must be " in flat:  # and the value it was given, as Click's own messages name it
        assert f"'{argv[-1]}' must be " in flat, message
    if code == 1:  # our own errors: one line, with what to do about it
        assert len([line for line in message.splitlines() if "error" in line]) == 1, message


# A designer's template with a mistake: where it is, in one line, whichever process rendered
# it (`faces` renders here; `build` and `site` in worker processes).
BROKEN_TEMPLATES = {
    "syntax": ("{% if %}", "Jinja2 template syntax error: Expected an expression"),
    "render": ("{{ card.name.missing.deeper }}", "'str object' has no attribute 'missing'"),
    # a template from a pull request reaching for os through Python's internals (without the
    # sandbox this printed the build machine's working folder on every card)
    "escape": (
        "{{ cycler.__init__.__globals__.os.getcwd() }}",
        "access to attribute '__init__' of 'type' object is unsafe",
    ),
}


@pytest.mark.parametrize("broken", list(BROKEN_TEMPLATES))
def test_a_broken_template_is_one_line_at_its_file_and_line(
    built: Path, tmp_path: Path, broken: str
) -> None:
    from conftest import invoke

    replacement, needle = BROKEN_TEMPLATES[broken]
    template = built / "templates/cards/mazzo/front.html.j2"
    lines = template.read_text("utf-8").splitlines(keepends=True)
    at = next(i for i, line in enumerate(lines) if "{{ card.name }}" in line)
    lines[at] = lines[at].replace("{{ card.name }}", replacement, 1)
    template.write_text("".join(lines), encoding="utf-8")
    run = invoke(built, "faces", "mazzo", "--out", str(tmp_path / "facce.pdf"))
    assert run.exit_code == 1, run.stderr
    assert run.stderr.strip() == run.stderr.strip().splitlines()[0]  # one line
    assert run.stderr.startswith(f"templates/cards/mazzo/front.html.j2:{at + 1}: error: ")
    assert needle in run.stderr and "(fix: correct the template at that line)" in run.stderr
    assert not (tmp_path / "facce.pdf").exists()


@pytest.mark.parametrize(
    ("markup", "card", "what"),
    [
        (
            '</div></section><section class="face"><p>fuori</p>',
            "carta-3",
            "takes more than one page",
        ),
        ("<style>.face:nth-of-type(3) { display: none }</style>", "carta-3", "has no page of"),
    ],
)
def test_a_face_that_breaks_one_face_one_page_is_one_line_at_its_card(
    prova: Path, tmp_path: Path, markup: str, card: str, what: str
) -> None:
    """A template that closes the card's page (here, only on card 3) made WeasyPrint lay
    out one page more than there are faces, and a style that hides another face one page
    fewer: a RuntimeError's traceback. The line names the template and the card whose face
    took the extra page or has none."""
    from conftest import invoke

    template = prova / "templates/cards/prova/front.html.j2"
    template.write_text(  # every front changes: all ten are laid out in one document
        '<div class="big">F{{ card.number }}.</div>{% if card.number == 3 %}'
        + markup
        + "{% endif %}",
        encoding="utf-8",
    )
    out = tmp_path / "prova.pdf"
    run = invoke(prova, "deck", "prova", "--out", str(out))
    assert run.exit_code == 1 and "Traceback" not in run.output, run.output
    assert run.stderr.count("\n") == 1
    assert run.stderr.startswith(f"templates/cards/prova/front.html.j2: error: prova/{card}: ")
    assert what in run.stderr and not out.exists()


def _render_in_a_worker(folder: str) -> str:
    import jinja2

    env = jinja2.Environment(loader=jinja2.FileSystemLoader(folder))
    return env.get_template("face.html.j2").render(card={"name": "Spia"})


def test_a_template_error_from_a_worker_process_keeps_its_place(tmp_path: Path) -> None:
    from concurrent.futures import ProcessPoolExecutor

    from pipeline.cli.app import _template_failure

    (tmp_path / "face.html.j2").write_text("<p>\n{{ card.name.upper().x.y }}\n</p>\n", "utf-8")
    with ProcessPoolExecutor(max_workers=1) as pool, pytest.raises(Exception) as raised:
        pool.submit(_render_in_a_worker, str(tmp_path)).result()
    problem = _template_failure(raised.value, tmp_path)
    assert problem is not None and (problem.file, problem.line) == ("face.html.j2", 2)
    assert problem.message == "Jinja2 template error: 'str object' has no attribute 'x'"
    assert _template_failure(ValueError("no template"), tmp_path) is None


def test_a_data_error_raised_in_a_worker_process_reaches_the_command_whole() -> None:
    """Build steps and the site's pictures run in worker processes, which hand their errors
    back pickled: a SourceError must come back as the same problems, not fail to unpickle."""
    import pickle

    from pipeline.common.problems import Problem, SourceError, SourceErrors

    one = SourceError(Problem("error", "x", file="games/a/cards.yaml", line=3, hint="h"))
    many = SourceErrors([Problem("error", "x"), Problem("error", "y", card="a/b")])
    for error in (one, many):
        again = pickle.loads(pickle.dumps(error))
        assert type(again) is type(error) and again.problems == error.problems
        assert str(again) == str(error)


def test_a_line_break_in_a_source_stays_on_the_problem_line(project: Path) -> None:
    """A quoted YAML key can hold a line break; `validate` quotes it back, still one line
    per problem (each line of the report is read as one problem by people and scripts)."""
    from conftest import edit, invoke

    edit(project / "games/mazzo/cards.yaml", "    id: spia\n", '    id: spia\n    "a\\nb": 1\n')
    run = invoke(project, "validate", "mazzo", "--no-layout")
    assert run.exit_code == 1
    errors = [line for line in run.stdout.splitlines() if ": error: " in line]
    assert errors == [
        "games/mazzo/cards.yaml:5:5: error: mazzo/spia: unknown field 'a\\nb'"
        " (fix: remove it or check its spelling)"
    ], run.stdout
