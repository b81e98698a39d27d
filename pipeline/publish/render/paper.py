"""Physical sizes in millimetres: cards, paper, and the presets of print services."""

from __future__ import annotations

from dataclasses import dataclass

MM_PER_INCH = 25.4
PT_PER_MM = 72 / MM_PER_INCH


@dataclass(frozen=True)
class Size:
    width: float  # mm
    height: float  # mm

    def grow(self, margin: float) -> Size:
        return Size(self.width + 2 * margin, self.height + 2 * margin)

    def pixels(self, dpi: float) -> tuple[int, int]:
        return round(self.width / MM_PER_INCH * dpi), round(self.height / MM_PER_INCH * dpi)


CARD_SIZES: dict[str, Size] = {
    "poker": Size(63.5, 88.9),
    "bridge": Size(57.15, 88.9),
    "tarot": Size(70, 120),
    "mini": Size(44, 67),
    "euro": Size(59, 92),
}

PAPERS: dict[str, Size] = {
    "a4": Size(210, 297),
    "letter": Size(215.9, 279.4),
    "a3": Size(297, 420),
    "legal": Size(215.9, 355.6),
}
# What home printers can reach: nothing we print (marks, targets, labels) comes nearer
# the paper's edge than this. Most inkjets and lasers leave 3-5 mm; US models 1/6 in.
PRINTABLE_MM: dict[str, float] = {"a4": 5.0, "a3": 5.0, "letter": 4.2, "legal": 4.2}

BLEED_MM = 3.0  # the European norm; 3.175 (1/8 in) is the US one
SAFE_MM = 3.0  # text stays this far inside the trim line


@dataclass(frozen=True)
class ImagePreset:
    """A print service's pixel size (bleed included) for one PNG per card, per card size.

    A card size the service does not list has no entry: the preset refuses it rather
    than make an image no product of theirs takes."""

    name: str
    label: str
    sizes: dict[str, tuple[int, int]]  # card size name -> (width, height) px
    dpi: int = 300
    confirmed: bool = True

    def size_for(self, card_size: str) -> tuple[int, int] | None:
        return self.sizes.get(card_size)


IMAGE_PRESETS: dict[str, ImagePreset] = {
    "tgc": ImagePreset(
        "tgc",
        "The Game Crafter",
        {"poker": (825, 1125), "bridge": (750, 1125), "mini": (600, 825), "tarot": (900, 1500)},
    ),
    "mpc": ImagePreset(
        "mpc",
        "MakePlayingCards (non confermato)",
        {"poker": (822, 1122)},
        confirmed=False,
    ),
}

TTS_MAX_GRID = (10, 7)  # Tabletop Simulator: at most 10 x 7 cards per sheet
TTS_MAX_PX = 4096
