"""Card search: the query language's parser and its vocabulary (parser), and the one
parametrised SQL query a parsed query compiles to, with the site's browser index (sql).

May import: pipeline.common, pipeline.engine, pipeline.sources, pipeline.games,
pipeline.database.
"""
