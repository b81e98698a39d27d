"""`python -m pipeline` is the same as `cartiera`."""

from .cli import app

app(prog_name="cartiera")
