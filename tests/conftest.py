"""Shared fixtures: throwaway copies of the real project, the CLI run in-process, and the
settings for documents that are not ours (seeds, reference tables).

Speed: every temporary project renders into one face cache ($CARTIERA_CACHE), kept
from run to run in build/test-cache/ (--fresh-cache: a new one for this run) and started
with links to what the checkout's own build cache holds (`adopt`); its entries are named
by content hash, and their folder by the renderers' versions and the installed fonts, so
sharing it cannot change a result. `built` and `shared_project` copy one database built
once per session.
"""

from __future__ import annotations

import contextlib
import functools
import http.server
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Callable, Generator, Iterator
from dataclasses import dataclass
from pathlib import Path

import pgserver
import pypdfium2 as pdfium
import pytest
from typer.testing import CliRunner

from pipeline.cli.app import app
from pipeline.common.collector import collect_less_often
from pipeline.common.project import CACHE_ENV, DB_FILE, REFERENCE_ENV, SEEDS_ENV, env_dir

ROOT = Path(__file__).resolve().parents[1]
TEST_CACHE = ROOT / "build" / "test-cache"  # the suite's render cache, kept between runs
TEST_CACHE_DAYS = 14  # entries older than this are removed at the start of a run
NOT_COMPILED = "the engine is not compiled here"  # the skip of tests/test_compiled.py
CARTIERA = (sys.executable, "-m", "pipeline")  # the CLI in a subprocess: env=checkout_env()


def checkout_env(**extra: str) -> dict[str, str]:
    """The environment for a subprocess that runs or imports pipeline (``[*CARTIERA, ...]``,
    ``python -c``): os.environ with this checkout first on PYTHONPATH, so the child runs
    this checkout's code with this interpreter, not the checkout the interpreter's
    editable install was made from, nor what PATH finds; and `extra` on top."""
    rest = [p for p in os.getenv("PYTHONPATH", "").split(os.pathsep) if p and p != str(ROOT)]
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), *rest]), **extra}


# Subprocesses that do not pass an env (pytest in a copied suite, an installed script)
# inherit the same.
os.environ["PYTHONPATH"] = checkout_env()["PYTHONPATH"]
SCRIPTS = Path(sysconfig.get_path("scripts"))  # this interpreter's bin/: its cartiera, its pip
GAMES = ("bldng", "bless", "blitz", "mazzo", "samurai-sword")
# The site's Bilanciamento pages simulate every engine: a few games are enough to test them.
os.environ.setdefault("CARTIERA_BALANCE_GAMES", "40")
# Where the seed documents are ($CARTIERA_SEEDS), None when not set: use the `seeds` fixture.
SEEDS = env_dir(SEEDS_ENV)
REFERENCE = env_dir(REFERENCE_ENV)
SETTINGS = {
    SEEDS_ENV: (SEEDS, "the folder of the seed documents"),
    REFERENCE_ENV: (REFERENCE, "the folder of the reference tables"),
}


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--require-seeds",
        action="store_true",
        help=f"fail, instead of skipping, a test that needs {SEEDS_ENV} or {REFERENCE_ENV} "
        "when it is not set (what CI does)",
    )
    parser.addoption(
        "--fresh-cache",
        action="store_true",
        help="render into a new, empty cache for this run instead of build/test-cache "
        "(what the first run on a fresh clone does)",
    )
    parser.addoption(
        "--require-compiled",
        action="store_true",
        help="fail, instead of skipping, a test that needs the compiled engine modules when "
        "the install did not compile them (what CI does)",
    )
    parser.addoption(
        "--conformance-games",
        type=int,
        default=500,
        metavar="N",
        help="seeded random games each rules engine plays in tests/test_conformance.py "
        "(default 500; CI plays 2,000)",
    )
    parser.addoption(
        "--require-postgres",
        action="store_true",
        help="fail, instead of skipping, a test that needs a PostgreSQL server binary when "
        "there is none (what CI does)",
    )


def pytest_configure(config: pytest.Config) -> None:
    # The tests lay out faces and read sources in their own process, as `cartiera` does:
    # with its setting of the garbage collector (a worker spent 18 s in it without).
    collect_less_often()
    # Tests change directory and copy projects around: keep the settings absolute.
    for name, (folder, _) in SETTINGS.items():
        if folder is not None:
            os.environ[name] = str(folder)


def pytest_sessionstart(session: pytest.Session) -> None:
    if not os.environ.get("PYTEST_XDIST_WORKER"):  # once per run: in the controller
        prune(TEST_CACHE, TEST_CACHE_DAYS)
        if not session.config.getoption("--fresh-cache") and _writable(TEST_CACHE):
            adopt(env_dir(CACHE_ENV) or ROOT / "build" / "cache", TEST_CACHE)


def adopt(cache: Path, into: Path) -> int:
    """Link into the suite's cache the entries of the checkout's own render cache that it
    lacks: what `cartiera build` rendered (the README's first command) is not rendered
    again by the tests. Both are content-addressed caches of the same kind, which the
    README lets clones share; the suite only reads the build's entries (hard links: a
    cache replaces an entry by a rename, never writes one in place) and writes its own.
    Returns the number of files linked."""
    if not cache.is_dir() or cache.resolve() == into.resolve():
        return 0
    into.mkdir(parents=True, exist_ok=True)
    return _adopt(cache, into)


def _adopt(source: Path, target: Path, unseen: bool = False) -> int:
    """The entries of `source` that the folder `target` lacks (all of them when `target`
    is new and `unseen`). A folder it lacks is filled beside it and renamed into place
    whole, as a cache publishes one (the balance figures): an interrupted run never leaves
    half of one. Names that start with a dot (locks, unfinished writes) are not entries."""
    linked = 0
    for path in sorted(source.iterdir()):
        dest = target / path.name
        if path.name.startswith(".") or path.is_symlink():
            continue
        if path.is_file():
            linked += 0 if dest.exists() else _link(path, dest)
        elif not path.is_dir():
            continue
        elif unseen:
            dest.mkdir()
            linked += _adopt(path, dest, unseen=True)
        elif dest.is_dir():
            linked += _adopt(path, dest)
        elif not dest.exists():
            part = target / f".{path.name}.adopting"
            shutil.rmtree(part, ignore_errors=True)
            part.mkdir()
            count = _adopt(path, part, unseen=True)
            try:
                part.rename(dest)
                linked += count
            except OSError:  # another run put it there first
                shutil.rmtree(part, ignore_errors=True)
    return linked


def _link(path: Path, dest: Path) -> int:
    """1 when `dest` is now `path` (a hard link, or a whole copy on another file system)."""
    try:
        os.link(path, dest)
    except FileExistsError:
        return 0
    except OSError:
        part = dest.with_name(f".{dest.name}.part")
        try:
            shutil.copy2(path, part)
            os.replace(part, dest)
        except OSError:  # a cache is only a speed-up: do without this entry
            part.unlink(missing_ok=True)
            return 0
    return 1


def prune(folder: Path, days: float) -> None:
    """Remove the files of a cache that were made more than `days` ago, and the folders
    that leaves empty (a cache entry used again is made again: it only costs time)."""
    if not folder.is_dir():
        return
    oldest = time.time() - days * 86400
    for path in sorted(folder.rglob("*"), reverse=True):  # files before their folders
        try:
            if path.is_dir():
                if not any(path.iterdir()):
                    path.rmdir()
            elif path.lstat().st_mtime < oldest:
                path.unlink()
        except OSError:
            pass  # another run took it first


def _needs(name: str) -> Path:
    folder, what = SETTINGS[name]
    if folder is None or not folder.is_dir():
        why = "is not set" if folder is None else f"names {folder}, which is not a folder"
        pytest.skip(f"{name} {why}: set it to {what} to run this test")
    return folder


@pytest.fixture(scope="session")
def seeds() -> Path:
    """The seed documents' folder; the test skips (fails with --require-seeds) without it."""
    return _needs(SEEDS_ENV)


@pytest.fixture(scope="session")
def reference() -> Path:
    """The reference tables' folder; the test skips (fails with --require-seeds) without it."""
    return _needs(REFERENCE_ENV)


# How the tests share the two pytest-xdist workers (--dist loadgroup): the tests of one
# file form one group, so they run on one worker and its module fixtures are made once;
# the files with a test that reads the session's site (a fixture of SITE_FIXTURES) form
# one group, so the site is built once per run (a session fixture is made once per
# worker); the two files that start a PostgreSQL server form one, so it is started once;
# a test marked xdist_group (the conformance runs) keeps its own group. Workers take
# groups in this order: the longest first, so the two finish close together (a scheduling
# hint only: a group out of place costs time, never a result).
SITE_FIXTURES = frozenset(
    {
        "session_site_build",
        "session_site",
        "session_offline_site",
        "session_server",
        "project_server",
    }
)
SITE_GROUP = (  # the site's files that SLOW leaves out; its group is found by fixture
    "test_site.py",
    "test_site_browser.py",
    "test_search_site.py",
    "test_visible_text.py",
    "test_screenshots.py",
)
POSTGRES_GROUP = ("test_postgres.py", "test_team_postgres.py")
LONGEST_FIRST = (
    "site",
    "test_rulebook.py",
    "test_print_defects.py",
    "test_print_layouts.py",
    "postgres",
    "test_new.py",
)


# The files `-m "not slow"` leaves out, the developer's quick loop (README): each builds a
# site, a wheel, every rulebook or layout, starts a browser, a server or a cluster, or plays
# hundreds of games, and takes tens of seconds.
SLOW = (
    *SITE_GROUP,
    *POSTGRES_GROUP,
    *(name for name in LONGEST_FIRST if name.endswith(".py")),
    "test_preview.py",
    "test_engine_random_games.py",
    "test_cluster.py",
    "test_print.py",
    "test_site_balance.py",
)


# Single tests of otherwise quick files that the quick loop leaves out too: each takes
# seconds of CPU (a database built from the sources, thousands of games, a cluster, a
# PostgreSQL server, a process started cold). File::function, every parameter of it.
SLOW_TESTS = frozenset(
    {
        "test_balance.py::test_a_local_dask_cluster_gives_the_same_report",
        "test_balance.py::test_a_variant_equal_to_the_baseline_changes_nothing",
        "test_balance.py::test_every_player_count_and_the_last_agent_fills_the_seats",
        "test_balance.py::test_lowering_re_luce_occhio_reports_a_paired_difference",
        "test_balance.py::test_off_parity_figures_are_marked_past_the_threshold",
        "test_balance.py::test_one_or_two_workers_give_the_same_report",
        "test_board.py::test_every_example_frame_is_the_engine_state",
        "test_board.py::test_replay_html_steps_through_a_whole_game",
        "test_build_snapshot.py::test_every_output_shows_the_database_as_the_build_started",
        "test_ci_formats.py::test_sarif_output_is_valid_sarif_with_the_problem_on_its_line",
        "test_ci_formats.py::test_the_pre_commit_hook_runs_as_pre_commit_would",
        "test_cli.py::test_python_m_pipeline",
        "test_cli_options.py::test_help_reads_at_80_columns",
        "test_conformance.py::test_random_games_keep_the_rules",
        "test_contract.py::test_a_hook_with_another_signature_fails",
        "test_contract.py::test_a_state_of_another_type_fails",
        "test_contract.py::test_a_missing_hook_fails",
        "test_contract.py::test_a_misspelled_hook_fails",
        "test_contract.py::test_the_game_as_it_is_keeps_the_contract",
        "test_database.py::test_check_detects_stale_database",
        "test_database.py::test_check_without_database",
        "test_database.py::test_committed_database_is_current",
        "test_database.py::test_database_url_option_and_environment",
        "test_database.py::test_examples_that_no_longer_hold_are_left_out",
        "test_database.py::test_failed_build_leaves_old_database_untouched",
        "test_database.py::test_other_database_urls_are_rebuilt_in_one_transaction",
        "test_database.py::test_same_sources_same_database",
        "test_engine_bldng.py::test_builder_beats_random",
        "test_engine_bless.py::test_a_designer_edit_changes_the_play",
        "test_engine_blitz.py::test_games_with_options_keep_the_invariants",
        "test_engine_samurai_sword.py::test_cli_simulate_record_replay",
        "test_engine_samurai_sword.py::test_warrior_beats_random",
        "test_examples.py::test_random_positions_never_escape_as_a_traceback",
        "test_fresh_clone.py::test_the_tests_of_one_file_run_on_one_worker",
        "test_examples.py::test_the_schema_checks_position_and_expectations",
        "test_first_run.py::test_a_command_imports_only_what_it_uses",
        "test_first_run.py::test_a_no_op_build_does_not_check_the_database_again",
        "test_hostile_input.py::test_empty_postgres_database_is_one_line",
        "test_hostile_markdown.py::test_card_names_in_narrations_read_as_text",
        "test_hostile_markdown.py::test_the_rulebook_reads_only_the_project",
        "test_hostile_markdown.py::test_the_site_carries_no_active_content",
        "test_ismcts.py::test_beats_random_clearly_at_mazzo",
        "test_ismcts.py::test_search_balance_is_the_same_on_a_local_cluster",
        "test_kill_safety.py::test_a_killed_incremental_build_then_a_rerun_equals_a_clean_build",
        "test_kill_safety.py::test_a_worker_lost_with_the_inputs_gets_them_sent_again",
        "test_kill_safety.py::test_db_build_and_import_killed_anywhere_leave_old_or_new",
        "test_kill_safety.py::test_workers_of_a_killed_build_die_with_it",
        "test_print.py::test_page_count_follows_the_composition",
        "test_readme.py::test_the_sample_validate_output_is_what_validate_prints",
        "test_schema.py::test_schema_rejects_what_validate_rejects",
        "test_schema.py::test_sources_match_their_schemas",
        "test_search.py::test_browser_and_sql_agree_on_generated_queries",
        "test_spreadsheet.py::test_edited_cell_reaches_the_sources_and_the_database",
        "test_spreadsheet_formats.py::test_formulas_are_neutralised_on_export_and_restored_on_import",
        "test_spreadsheet_formats.py::test_workbooks_both_ways",
        "test_validate.py::test_every_problem_in_one_run",
        "test_validate.py::test_json_format",
        "test_validate.py::test_shipped_data_is_valid",
        "test_validate.py::test_yaml_syntax_error_has_line_and_column",
        "test_yaml_cache.py::test_every_source_reads_back_from_the_cache_with_its_lines",
    }
)


def _slow(item: pytest.Item) -> bool:
    name = getattr(item, "originalname", item.name)
    return item.path.name in SLOW or f"{item.path.name}::{name}" in SLOW_TESTS


def _group(item: pytest.Item, site_files: frozenset[str]) -> str:
    mark = item.get_closest_marker("xdist_group")
    if mark is not None:
        return str(mark.args[0] if mark.args else mark.kwargs.get("name", "default"))
    if item.path.name in site_files:
        return "site"
    return "postgres" if item.path.name in POSTGRES_GROUP else item.path.name


def _site_files(items: list[pytest.Item]) -> frozenset[str]:
    """The files with a test that reads the session's site."""
    return frozenset(
        item.path.name
        for item in items
        if SITE_FIXTURES.intersection(getattr(item, "fixturenames", ()))
    )


@pytest.hookimpl(tryfirst=True)  # before xdist reads the marks
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if _slow(item):
            item.add_marker(pytest.mark.slow)
    if not getattr(config.option, "loadgroup", False):
        return
    site_files = _site_files(items)
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(_group(item, site_files)))
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(_group(item, site_files), len(rank)))  # stable


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, pytest.TestReport, pytest.TestReport]:
    """With --require-seeds, a skip that names a seeds/reference setting is a failure."""
    report: pytest.TestReport = yield
    if report.skipped:
        reason = str(report.longrepr[-1] if isinstance(report.longrepr, tuple) else "")
        if item.config.getoption("--require-seeds") and any(n in reason for n in SETTINGS):
            report.outcome = "failed"
            report.longrepr = f"--require-seeds: {reason}"
        if item.config.getoption("--require-compiled") and NOT_COMPILED in reason:
            report.outcome = "failed"
            report.longrepr = f"--require-compiled: {reason}"
        missing = (pgserver.NO_SERVER, pgserver.NO_RUNUSER)
        if item.config.getoption("--require-postgres") and any(m in reason for m in missing):
            report.outcome = "failed"
            report.longrepr = f"--require-postgres: {reason}"
    return report


@pytest.fixture(scope="session")
def postgres() -> Iterator[pgserver.Server]:
    """A throw-away PostgreSQL server; skips (fails with --require-postgres) without one."""
    why = pgserver.unavailable()
    if why is not None:
        pytest.skip(why)
    pytest.importorskip("psycopg", reason="the extra cartiera[postgres] is not installed")
    server = pgserver.start()
    yield server
    server.stop()


@pytest.fixture(scope="session", autouse=True)
def _session_face_cache(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Path]:
    """One content-addressed render cache for every project copy of the session, shared
    by the pytest-xdist workers and kept for the next run (entries are written
    atomically, so runs at the same time only share work)."""
    folder = None if request.config.getoption("--fresh-cache") else _writable(TEST_CACHE)
    if folder is None:  # --fresh-cache, or a read-only checkout: this run's own folder
        if os.environ.get("PYTEST_XDIST_WORKER"):
            folder = tmp_path_factory.getbasetemp().parent / "face-cache"
            folder.mkdir(exist_ok=True)
        else:
            folder = tmp_path_factory.mktemp("cache")
    old = os.environ.get(CACHE_ENV)
    os.environ[CACHE_ENV] = str(folder)
    yield folder
    if old is None:
        del os.environ[CACHE_ENV]
    else:
        os.environ[CACHE_ENV] = old


def _writable(folder: Path) -> Path | None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError:
        return None
    return folder if os.access(folder, os.W_OK) else None


@pytest.fixture
def own_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    """For tests that empty build/cache to render from nothing: use the project's own."""
    monkeypatch.delenv(CACHE_ENV)


@dataclass
class Run:
    exit_code: int
    stdout: str
    stderr: str

    @property
    def output(self) -> str:
        return self.stdout + self.stderr


def invoke(project: Path | None, *args: str, env: dict[str, str] | None = None) -> Run:
    runner = CliRunner()
    prefix = ["--project", str(project)] if project is not None else []
    result = runner.invoke(app, [*prefix, *args], env=env, catch_exceptions=False)
    return Run(result.exit_code, result.stdout, result.stderr)


@pytest.fixture
def cli() -> Callable[..., Run]:
    return invoke


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A copy of the real games/, schemas/ and templates/ in a temporary folder, without a
    database. Seeds are found through CARTIERA_SEEDS, as in the real project."""
    dest = tmp_path / "proj"
    copy_sources(dest)
    return dest


def copy_sources(dest: Path) -> None:
    """What a fresh clone has: sources, schemas, templates, hand-written site pages."""
    for name in ("games", "schemas", "templates"):
        shutil.copytree(ROOT / name, dest / name)
    shutil.copytree(
        ROOT / "site",
        dest / "site",
        ignore=lambda folder, names: [
            n for n in names if Path(folder) == ROOT / "site" and n in ("index.md", "giochi")
        ],
    )
    shutil.copy(ROOT / "mkdocs.yml", dest / "mkdocs.yml")


@pytest.fixture(scope="session")
def _built_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project built once per session; fixtures copy it, tests never touch it."""
    dest = tmp_path_factory.mktemp("built") / "proj"
    copy_sources(dest)
    run = invoke(dest, "db", "build")
    assert run.exit_code == 0, run.output
    return dest


@pytest.fixture(scope="session")
def built_copy(
    tmp_path_factory: pytest.TempPathFactory, _built_once: Path
) -> Callable[[str], Path]:
    """Make a private copy of the session's built project (sources and cards.db): for
    module fixtures that would otherwise copy the sources and build the database again."""

    def make(name: str) -> Path:
        dest = tmp_path_factory.mktemp(name) / "proj"
        shutil.copytree(_built_once, dest, ignore=shutil.ignore_patterns("build"))
        return dest

    return make


@pytest.fixture
def built(project: Path, _built_once: Path) -> Path:
    """The project copy with its cards.db built (a copy of the session's build of the
    same sources, which is what `cartiera db build` writes there)."""
    shutil.copy(_built_once / DB_FILE, project / DB_FILE)
    return project


PROVA_GAME = """\
slug: prova
name: Prova
players: {min: 1, max: 1}
status: reconstructed
status_note: Mazzo di prova per la stampa fronte-retro.
description: Dieci carte numerate, con il numero anche sul retro.
attributes:
  valore: {label: Valore, type: int, min: 1, max: 99}
kinds:
  carta: {label: Carta, attributes: [valore]}
decks:
  base: {name: Base, total: 11}
"""


@pytest.fixture(scope="session")
def _prova_once(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project with the numbered test deck added and its cards.db built, once per
    session; `prova` copies it, tests never touch it."""
    project = tmp_path_factory.mktemp("prova") / "proj"
    copy_sources(project)
    folder = project / "games/prova"
    folder.mkdir()
    (folder / "game.yaml").write_text(PROVA_GAME, encoding="utf-8")
    cards = "cards:\n" + "".join(
        f"  - {{number: {n}, id: carta-{n}, name: Carta {n}, kind: carta, "
        f"attributes: {{valore: {n}}}{', copies: 2' if n == 10 else ''}}}\n"
        for n in range(1, 11)
    )
    (folder / "cards.yaml").write_text(cards, encoding="utf-8")
    templates = project / "templates/cards/prova"
    templates.mkdir(parents=True)
    (templates / "front.html.j2").write_text(
        '<div class="big">F{{ card.number }}</div>', encoding="utf-8"
    )
    (templates / "back.html.j2").write_text(
        '<div class="big">B{{ card.number }}</div>', encoding="utf-8"
    )
    (templates / "card.css").write_text(
        ".game-prova .big { font-size: 30pt; text-align: center; padding-top: 30mm; }",
        encoding="utf-8",
    )
    run = invoke(project, "db", "build")
    assert run.exit_code == 0, run.output
    return project


@pytest.fixture
def prova(tmp_path: Path, _prova_once: Path) -> Path:
    """A private copy of the project with the numbered test deck `prova` (ten cards, the
    tenth twice; F1/B1 … on fronts and backs) and its cards.db: what `db build` wrote
    there, copied with the sources' times (copytree keeps them), so a test can edit it."""
    dest = tmp_path / "proj"
    shutil.copytree(_prova_once, dest)
    return dest


def pdf_pages(path: Path) -> tuple[str, ...]:
    """Each page's text as PDFium reads it (what a viewer's search and copy see): thirty
    times quicker than pypdf's extract_text, and it neither glues words across lines nor
    splits accented letters ("caff è"); the tests keep pypdf for the structure (boxes,
    fonts, images). PDFium marks a hyphen it found at a line's end with U+FFFE: given back
    as a hyphen and that line break, as printed."""
    doc = pdfium.PdfDocument(path)
    try:
        return tuple(page.get_textpage().get_text_range().replace("\ufffe", "-\n") for page in doc)
    finally:
        doc.close()


def pdf_text(path: Path) -> list[str]:
    """Each page's text (pdf_pages), spaces and line breaks collapsed to one space."""
    return [" ".join(page.split()) for page in pdf_pages(path)]


def edit(path: Path, old: str, new: str, count: int = 1) -> None:
    """Replace `old` by `new` in a source file; fail loudly if `old` is not there."""
    text = path.read_text(encoding="utf-8")
    assert text.count(old) >= count, f"{old!r} not found in {path}"
    path.write_text(text.replace(old, new, count), encoding="utf-8")


@pytest.fixture(scope="session")
def shared_project(tmp_path_factory: pytest.TempPathFactory, _built_once: Path) -> Path:
    """One built copy of the project for tests that only read it (faster than `built`)."""
    dest = tmp_path_factory.mktemp("shared") / "proj"
    shutil.copytree(_built_once, dest)
    return dest


@dataclass(frozen=True)
class SiteBuild:
    path: Path
    network_cut: str | None  # None: built with no network; else why it could not be cut


NO_UNSHARE = "unshare (util-linux) is needed to cut the network"


def _cut_network() -> str | None:
    """None when this machine can run a process without a network; else why not."""
    if shutil.which("unshare") is None:
        return NO_UNSHARE
    if subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode != 0:
        return "this sandbox does not allow network namespaces"
    return None


@pytest.fixture(scope="session")
def session_site_build(shared_project: Path) -> SiteBuild:
    """The rules site of `shared_project`, built once per session by `cartiera site` in a
    process cut off from the network (unshare -n) where the machine allows it: the one
    build both serves the site tests and proves the build needs no network."""
    why = _cut_network()
    if why is None:
        command = [*CARTIERA, "--project", str(shared_project), "site"]
        result = subprocess.run(
            ["unshare", "-n", *command], capture_output=True, text=True, env=checkout_env()
        )
        assert result.returncode == 0, result.stderr
    else:
        run = invoke(shared_project, "site")
        assert run.exit_code == 0, run.output
    return SiteBuild(shared_project / "build" / "site", why)


@pytest.fixture(scope="session")
def session_site(session_site_build: SiteBuild) -> Path:
    """The rules site of `shared_project`, built once per session (`cartiera site`)."""
    return session_site_build.path


@pytest.fixture(scope="session")
def session_offline_site(shared_project: Path) -> Path:
    """The offline variant of the same site (`cartiera site --offline`), built once."""
    run = invoke(shared_project, "site", "--offline")
    assert run.exit_code == 0, run.output
    return shared_project / "build" / "site-offline"


def _serve(handler: type[http.server.SimpleHTTPRequestHandler], folder: Path) -> Iterator[str]:
    """`folder` served by `handler` on a free local port until the generator is closed."""
    quiet = type("Quiet", (handler,), {"log_message": lambda self, *args: None})
    httpd = http.server.ThreadingHTTPServer(
        ("127.0.0.1", 0), functools.partial(quiet, directory=str(folder))
    )
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.fixture(scope="session")
def session_server(session_site: Path) -> Iterator[str]:
    """`session_site` served on a free local port, for the whole session."""
    yield from _serve(http.server.SimpleHTTPRequestHandler, session_site)


@pytest.fixture(scope="session")
def project_server(session_site: Path) -> Iterator[str]:
    """`session_site` served by `cartiera site --serve`'s own handler (its 404 page)."""
    from pipeline.publish.site.pages import _Handler

    yield from _serve(_Handler, session_site)


CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
CHROMIUM_FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--window-size=1280,1000",
)


def pytest_runtest_teardown(item: pytest.Item, nextitem: pytest.Item | None) -> None:
    """After the last browser test in a row, the session's browser leaves its page for a
    blank one: a site page left open keeps using some CPU (timers, the search worker) for
    as long as the session runs, about a twentieth of a core."""
    uses = "session_browser" in getattr(item, "fixturenames", ())
    if uses and "session_browser" not in getattr(nextitem, "fixturenames", ()):
        driver = getattr(item, "funcargs", {}).get("session_browser")
        if driver is not None:
            from selenium.common.exceptions import WebDriverException

            with contextlib.suppress(WebDriverException):  # a browser in trouble: its test says
                driver.get("about:blank")


@pytest.fixture(scope="session")
def session_browser() -> Iterator[object]:
    """One headless Chromium for every browser test of the session (starting one costs
    seconds); tests must not depend on what an earlier test left open."""
    webdriver = pytest.importorskip("selenium.webdriver")
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="chromium-")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in (*CHROMIUM_FLAGS, f"--user-data-dir={profile}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(CHROMEDRIVER))
    driver.set_page_load_timeout(60)
    yield driver
    driver.quit()
    shutil.rmtree(profile, ignore_errors=True)
