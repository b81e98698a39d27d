"""Cartiera: a card database and print-and-play pipeline for card games."""

from . import compiled

compiled.install()  # before any engine module is imported: see pipeline/compiled.py
