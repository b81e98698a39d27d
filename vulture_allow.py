"""Names in pipeline/ that vulture reports as unused but that are used where it cannot see.

Read by vulture, never imported or run: tests/test_dead_code.py checks
`python -m vulture pipeline vulture_allow.py --min-confidence 60` finds nothing. Each group
says why its names are used; a name goes here only with such a reason, and what is really
dead is deleted instead.
"""

from typing import Any

_: Any = None

# Typer commands and the choices of their options: registered by @app.command() and read by
# Click from the command line (pipeline/cli/app.py).
CLI = (
    _.validate_cmd,
    _.db_build_cmd,
    _.db_dump_cmd,
    _.schema_cmd,
    _.new_cmd,
    _.export_cmd,
    _.import_cmd,
    _.search_cmd,
    _.rulebook_cmd,
    _.faces_cmd,
    _.deck_cmd,
    _.images_cmd,
    _.preview_cmd,
    _.site_cmd,
    _.build_cmd,
    _.simulate_cmd,
    _.balance_cmd,
    _.replay_cmd,
    _.record_cmd,
    _.example_cmd,
    _.github,  # ReportFormat
    _.sarif,
    _.letter,  # Paper
    _.a3,
    _.poker,  # CardSize
    _.bridge,
    _.mini,
    _.tarot,
    _.euro,
    _.light,  # InkMode
    _.tgc,  # ImagePreset
    _.mpc,
    _.tts,
)

# Click's formatting hooks that CartieraCommand/CartieraGroup override, and the attribute
# Click reads for an argument's shell completion (pipeline/cli/vocab.py).
CLICK = (_.collect_usage_pieces, _.format_options, _._custom_shell_complete)

# The MkDocs hooks of the site: MkDocs calls them by name (pipeline/publish/site/hooks.py).
MKDOCS = (_.on_env, _.on_page_markdown, _.on_page_content, _.on_post_build)

# Jinja templates read these fields (templates/cards/*/front.html.j2, the rulebook).
JINJA = (_.kind_label,)

# The games' agents: their plugins name them as "module:AGENTS" strings
# (pipeline/engine/registry.py imports them).
PLUGINS = (_.AGENTS,)

# Pydantic and SQLModel: model settings, validators run by the model, fields read from YAML
# files (worked examples, card data) or written to the database's columns.
PYDANTIC = (
    _.model_config,
    _._default_piles,  # pipeline/engine/scenario.py
    _._count,  # bldng/events.py
    _.colore,  # bldng/checks.py: an element of a card's figure
    _.rotazione,
    _._one,  # bless/vocab.py
    _._some,
    _._ranked,
    _._watch,
    _.occhio_original,
    _.karma_original,
    _.lacks,  # the games' scenario expectations
    _.illegal,
    _.possible,
    _.collections,
    _.from_,
    _.roles_seen,
    _.language,  # pipeline/database/models.py: database columns
    _.parent_id,
)

# Bless's narrator writes an event's line with the method named after its kind:
# getattr(self, f"_{e.kind}") (pipeline/games/bless/narrate.py).
NARRATION = (
    _._first,
    _._turn,
    _._mulligan,
    _._refill,
    _._cala,
    _._enter,
    _._stasi,
    _._stasi_end,
    _._direct,
    _._fato,
    _._clash_void,
    _._barrier,
    _._offer,
    _._decline_offer,
    _._invoke,
    _._decline,
    _._no_host,
    _._limit,
    _._return,
    _._control,
    _._copy,
    _._actions,
    _._end_now,
)

# SQLAlchemy: cache flag of the search functions, SQL compilers registered by @compiles
# (pipeline/search/sql.py).
SQLALCHEMY = (_.inherit_cache, _._fold_pg, _._words_pg)

# The standard library's HTTP server calls these by name (pipeline/commands/preview.py).
HTTP = (_.do_GET, _.log_message)

# Attributes set on other libraries' objects: pikepdf page boxes and PDF dictionaries,
# fontTools and openpyxl options, ruamel.yaml's quoting (pipeline/publish/render/,
# pipeline/spreadsheet/files.py, pipeline/sources/yamlfile.py).
LIBRARIES = (
    _.BleedBox,
    _.TrimBox,
    _.Resources,
    _.Contents,
    _.GTS_PDFXVersion,
    _.Trapped,
    _.docinfo,
    _.OutputIntents,
    _.drop_tables,
    _.FontName,
    _.W,
    _.data_type,
    _.preserve_quotes,
)

# Used by tests and benchmarks only, on purpose: hooks that check or vary an engine, a
# figure a test pins, the game facts tests read, the build stamps and the compiled modules
# benchmarks/engine.py reports, the environment variable tests set, the preview's count of
# rendered faces.
TESTS = (
    _.check_invariants,  # bless/state.py: tests/test_engine_bless.py
    _.blanked,  # bless/compiler.py: a card without its effect
    _.edited,  # bless/engine.py: the same rules with a card's stats changed
    _.side_win_rate,  # samurai_sword/agents.py
    _.hidden_information,  # engine/core.py GameInfo
    _.database_digest,  # pipeline/database/store.py: tests/test_build_stamps.py
    _.compiled_modules,  # pipeline/compiled.py
    _.REFERENCE_ENV,  # pipeline/common/project.py: tests/conftest.py
    _.rendered,  # pipeline/commands/preview.py: tests/test_preview.py
)

# what this file holds, so that vulture sees each group used
__all__ = [
    "CLI",
    "CLICK",
    "HTTP",
    "JINJA",
    "LIBRARIES",
    "MKDOCS",
    "NARRATION",
    "PLUGINS",
    "PYDANTIC",
    "SQLALCHEMY",
    "TESTS",
]
