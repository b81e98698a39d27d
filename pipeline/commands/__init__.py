"""The commands that run several stages: `cartiera build` (every output, no work twice),
`validate` (every problem in one run), `preview` (faces redrawn as sources change) and
`new` (scaffold: a game of one's own).

May import: pipeline.common, pipeline.engine, pipeline.sources, pipeline.games,
pipeline.database, pipeline.search, pipeline.spreadsheet, pipeline.play, pipeline.publish.
"""
