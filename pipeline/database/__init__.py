"""cards.db: its SQLModel tables, writing it from loaded games all or nothing (store),
opening any database URL (connection), the check that a database is Cartiera's (tables),
plain SQL without SQLAlchemy where that is SQLite (reader), a team's shared database
(shared) and reading a game back as plain objects for every publisher (catalog).

May import: pipeline.common, pipeline.engine, pipeline.sources, pipeline.games.
"""
