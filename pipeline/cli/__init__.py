"""The `cartiera` command line: a thin Typer layer (app) over the library, and its one
vocabulary of options, help and error lines (vocab). Nothing imports it.

May import: every other package of pipeline.
"""
