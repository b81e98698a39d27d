"""Printing: card faces rendered once, then imposed into sheets and rasterised into images."""
