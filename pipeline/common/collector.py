"""Python's cyclic garbage collector, set for the work Cartiera does.

Laying out a card face, parsing a YAML file or playing a game makes a great many
short-lived containers and next to no reference cycles, so reference counting frees them.
The collector still makes a pass every 700 new containers (Python's default); every tenth
pass takes in the survivors of the last ones too, and about every hundredth walks every
object loaded before: the libraries, the fonts, the card data. Rendering the light-ink
faces of Bless and Mazzo spent a quarter of its CPU time in the collector (2.6 s of
10.4 s); with a pass every 20,000 new containers, 0.7 s, at the same peak memory (255 MB
against 264). A cold `cartiera build` of the five games used 15% less CPU (96 s against
113). The engine's `many_games` sets the same pass for a batch of games, and freezes what
was loaded before (pipeline.engine imports nothing from the rest of pipeline, so it says
so itself).
"""

from __future__ import annotations

import gc

YOUNG = 20_000  # new containers between two passes of the collector


def collect_less_often(young: int = YOUNG) -> None:
    """Let at least `young` new containers come between two passes of the collector, for
    the rest of the process (and the processes it forks)."""
    threshold = gc.get_threshold()
    gc.set_threshold(max(young, threshold[0]), *threshold[1:])
