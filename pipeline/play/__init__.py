"""Playing the games: card records from cards.db into the rules engines (records), worked
examples, seeded simulations between agents, the balance report and its runs on a Dask
cluster. The rules engines themselves live in pipeline.engine and pipeline.games.

May import: pipeline.common, pipeline.engine, pipeline.sources, pipeline.games,
pipeline.database, pipeline.search, pipeline.spreadsheet.
"""
