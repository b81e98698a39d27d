"""Cards in spreadsheets: CSV, .xlsx and .ods files as designers have them (files), and the
round trip that exports a game's cards and imports an edited sheet into cards.yaml
(roundtrip).

May import: pipeline.common, pipeline.engine, pipeline.sources, pipeline.games,
pipeline.database, pipeline.search.
"""
