"""The decisions of a BLITZ turn and the fixed actions that answer them."""

from pipeline.engine.core import Action

START, DRAW, MAIN, RESPOND, SWAP, OVER = "start", "draw", "main", "respond", "swap", "over"
END_TURN: Action = ("fine",)
BLOCK: Action = ("blocca",)
LET: Action = ("lascia",)
