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
}

BLEED_MM = 3.0  # the European norm; 3.175 (1/8 in) is the US one
SAFE_MM = 3.0  # text stays this far inside the trim line


@dataclass(frozen=True)
class ImagePreset:
    """A print service's expectations for one PNG per card (poker size)."""

    name: str
    label: str
    width_px: int
    height_px: int
    dpi: int
    bleed: bool
    confirmed: bool = True


IMAGE_PRESETS: dict[str, ImagePreset] = {
    "tgc": ImagePreset("tgc", "The Game Crafter", 825, 1125, 300, bleed=True),
    "mpc": ImagePreset(
        "mpc", "MakePlayingCards (non confermato)", 822, 1122, 300, bleed=True, confirmed=False
    ),
}

TTS_MAX_GRID = (10, 7)  # Tabletop Simulator: at most 10 x 7 cards per sheet
TTS_MAX_PX = 4096
