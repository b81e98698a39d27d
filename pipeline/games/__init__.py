"""Per-game Python: only what a game's data cannot say about itself.

Each game with Python is a package ``pipeline/games/<slug with underscores>/`` exporting
``PLUGIN`` (pipeline.engine.plugin.GamePlugin), registered as an entry point of the group
``cartiera.games``. Its ``data_models`` map a card kind to the pydantic model its ``data``
must validate against; its ``check(game, cards)`` yields the game's own CardProblems (e.g.
every BLDNG project is completable with the deck's Forme); its ``engine`` builds the rules.

May import: pipeline.common, pipeline.engine, pipeline.sources.
"""
