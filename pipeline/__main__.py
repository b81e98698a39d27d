"""`python -m pipeline` is the same as `cartiera`."""

from pipeline.cli.app import app

app(prog_name="cartiera")
