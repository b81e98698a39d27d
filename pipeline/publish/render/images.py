"""`cartiera images`: PNG card images rasterised from the cached face PDFs.

Presets for print-on-demand services fix the pixel size (and so the bleed); the
Tabletop Simulator preset lays the whole deck out on sheets of at most 10 × 7 cards.
"""

from __future__ import annotations

import io
import json
import math
import re
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from PIL import Image

from pipeline.common.output import atomic_write
from pipeline.common.problems import Problem, SourceError
from pipeline.common.project import Project
from pipeline.common.words import plural

from .cache import render_cache
from .deck import face_cache, load_faces, print_run
from .faces import DeckFaces, FacePage, render_faces
from .paper import BLEED_MM, IMAGE_PRESETS, MM_PER_INCH, TTS_MAX_GRID, TTS_MAX_PX, Size

PRESETS = ("tgc", "mpc", "tts")


@dataclass(frozen=True)
class ImageOptions:
    preset: str | None = None  # tgc | mpc | tts
    dpi: int = 300
    bleed: bool = True  # keep the bleed around each card image


@dataclass
class ImagesResult:
    folder: Path
    files: list[Path]
    size: tuple[int, int]  # pixels of one card image
    note: str | None = None


def preset_bleed(trim: Size, width_px: int, dpi: int) -> float:
    """The bleed (mm) that gives a service's pixel width at its dpi."""
    return round((width_px / dpi * MM_PER_INCH - trim.width) / 2, 4)


class Rasteriser:
    """Face pages as pixels, each batch PDF opened once, each image cached by content."""

    def __init__(self, faces: dict[str, FacePage], cache: Path) -> None:
        self.faces = faces
        self.cache = cache
        self._documents: dict[Path, Any] = {}

    def path(self, digest: str, dpi: int, crop_mm: float) -> Path:
        return self.cache / f"{digest}-{dpi}-{crop_mm:g}.png"

    def ensure(self, digest: str, dpi: int, size: Size, crop_mm: float = 0.0) -> Path:
        """The cached PNG of the face at `dpi`, cropped by `crop_mm` on every side;
        rendered only if it is not in the cache yet."""
        cached = self.path(digest, dpi, crop_mm)
        if cached.exists():
            return cached
        import pypdfium2 as pdfium

        face = self.faces[digest]
        if face.pdf not in self._documents:
            self._documents[face.pdf] = pdfium.PdfDocument(face.pdf)
        page = self._documents[face.pdf][face.index]
        width_px, height_px = size.pixels(dpi)
        image = page.render(scale=dpi / 72, draw_annots=False).to_pil().convert("RGB")
        if image.size != (width_px, height_px):  # pdfium rounds up a fractional pixel
            image = image.crop((0, 0, width_px, height_px))
        if crop_mm:
            inner = size.grow(-crop_mm).pixels(dpi)
            left = round(crop_mm / MM_PER_INCH * dpi)
            image = image.crop((left, left, left + inner[0], left + inner[1]))
        atomic_write(cached, _png(image, dpi))
        return cached

    def close(self) -> None:
        for document in self._documents.values():
            document.close()
        self._documents.clear()


def _png(image: Image.Image, dpi: int) -> bytes:
    out = io.BytesIO()
    image.save(out, format="PNG", dpi=(dpi, dpi), compress_level=3)
    return out.getvalue()


def build_images(
    project: Project,
    slug: str,
    options: ImageOptions,
    out: Path | None = None,
    faces: DeckFaces | None = None,
) -> ImagesResult:
    """PNG images of a game's faces (`faces`, when given, saves reading the game again;
    its bleed must be the standard one)."""
    if options.preset is not None and options.preset not in PRESETS:
        raise SourceError(
            Problem(
                "error",
                f"unknown preset '{options.preset}'",
                hint=f"use one of: {', '.join(PRESETS)}",
            )
        )
    folder = out or project.build_dir / "images" / slug / (options.preset or f"{options.dpi}dpi")
    if options.preset == "tts":
        return _tts(project, slug, folder)
    dpi, bleed, crop, note = options.dpi, BLEED_MM, 0.0, None
    if options.preset in IMAGE_PRESETS:
        preset = IMAGE_PRESETS[options.preset]
        faces = faces or load_faces(project, slug, BLEED_MM)
        pixels = preset.size_for(faces.size)
        if pixels is None:
            trim = faces.trim
            raise SourceError(
                Problem(
                    "error",
                    f"{preset.label} has no card image size for {faces.size} cards "
                    f"({trim.width:g} × {trim.height:g} mm), the size of {slug}",
                    hint=f"its sizes: {', '.join(preset.sizes)}; or use --dpi N for plain images",
                )
            )
        dpi = preset.dpi
        bleed = preset_bleed(faces.trim, pixels[0], preset.dpi)
        note = None if preset.confirmed else f"{preset.label}: dimensioni non confermate"
    elif not options.bleed:
        crop = bleed
    if faces is None or faces.bleed != bleed:
        faces = load_faces(project, slug, bleed)
    return _faces_to_png(project, faces, folder, dpi, crop, note)


def _faces_to_png(
    project: Project, faces: DeckFaces, folder: Path, dpi: int, crop: float, note: str | None
) -> ImagesResult:
    """One PNG per distinct face, named after the cards, plus a manifest."""
    rasteriser = Rasteriser(render_faces(faces, face_cache(project)), render_cache(project) / "png")
    names: dict[str, str] = {}
    for card in faces.game.cards:
        names.setdefault(faces.fronts[card.code], f"{card.number:03d}-{card.code}-fronte.png")
    backs = sorted(
        {faces.backs[c.code] for c in faces.game.cards},
        key=lambda d: min(c.number for c in faces.game.cards if faces.backs[c.code] == d),
    )
    for index, digest in enumerate(backs, start=1):
        names.setdefault(digest, f"retro-{index}.png")
    folder.mkdir(parents=True, exist_ok=True)
    files, size = [], (0, 0)
    for digest, name in names.items():
        png = rasteriser.ensure(digest, dpi, faces.page, crop)
        with Image.open(png) as image:  # reads the header only
            size = image.size
        target = folder / name
        data = png.read_bytes()
        if not target.exists() or target.read_bytes() != data:
            atomic_write(target, data)
        files.append(target)
    for stale in _stale_images(folder, files):
        stale.unlink()
    manifest = {
        "game": faces.game.slug,
        "status": faces.game.status,
        "decks": [
            {"code": d.code, "name": d.name, "status": d.status, "cards": d.total}
            for d in faces.game.decks
        ],
        "dpi": dpi,
        "bleed_mm": 0 if crop else faces.bleed,
        "size_px": list(size),
        "note": note,
        "cards": [
            {
                "number": c.number,
                "code": c.code,
                "name": c.name,
                "copies": c.copies,
                "deck": c.deck,
                "status": c.status,
                "front": names[faces.fronts[c.code]],
                "back": names[faces.backs[c.code]],
            }
            for c in faces.game.cards
        ],
    }
    rasteriser.close()
    atomic_write(
        folder / "manifest.json",
        (json.dumps(manifest, ensure_ascii=False, indent=2) + "\n").encode(),
    )
    return ImagesResult(folder, sorted(files), size, note)


OUR_IMAGE = re.compile(r"[0-9]{3,}-.+-fronte\.png|retro-[0-9]+\.png")


def _stale_images(folder: Path, files: list[Path]) -> list[Path]:
    """The images an earlier run wrote here for a card since renumbered or removed: named
    as this module names them, in a folder its manifest marks as ours (never a file of the
    user's in a folder given with --out)."""
    if not (folder / "manifest.json").is_file():
        return []
    kept = set(files)
    return [p for p in folder.glob("*.png") if p not in kept and OUR_IMAGE.fullmatch(p.name)]


def _tts(project: Project, slug: str, folder: Path) -> ImagesResult:
    """Tabletop Simulator deck sheets: up to 10 × 7 cards, at most 4096 px a side; the
    last slot of each sheet holds the image shown for hidden cards. Each face sheet has
    a backs sheet with every card's own back in the same slot (TTS: "unique backs"), and
    tts.json says each sheet's grid, card count and cards."""
    faces = load_faces(project, slug, BLEED_MM)
    run = print_run(faces, None)
    rasteriser = Rasteriser(render_faces(faces, face_cache(project)), render_cache(project) / "png")
    cols, max_rows = TTS_MAX_GRID
    card_w = TTS_MAX_PX // cols
    card_h = math.floor(card_w * faces.trim.height / faces.trim.width)
    if card_h * max_rows > TTS_MAX_PX:
        card_h = TTS_MAX_PX // max_rows
        card_w = math.floor(card_h * faces.trim.width / faces.trim.height)
    per_sheet = cols * max_rows - 1
    dpi = math.ceil(card_w / (faces.trim.width / MM_PER_INCH))

    def card_image(digest: str) -> Image.Image:
        image = Image.open(rasteriser.ensure(digest, dpi, faces.page, faces.bleed))
        return image.convert("RGB").resize((card_w, card_h), Image.Resampling.LANCZOS)

    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    backs = Counter(back for _, _, back in run)
    hidden = card_image(backs.most_common(1)[0][0])  # the deck's usual back
    images: dict[str, Image.Image] = {}
    files, sheets = [], []
    for index, start in enumerate(range(0, len(run), per_sheet), start=1):
        group = run[start : start + per_sheet]
        rows = math.ceil((len(group) + 1) / cols)
        names = (f"tts-{index}.png", f"tts-{index}-retro.png")
        for side, name in ((1, names[0]), (2, names[1])):
            sheet = Image.new("RGB", (cols * card_w, rows * card_h), "white")
            for slot, card in enumerate(group):
                digest = card[side]
                if digest not in images:
                    images[digest] = card_image(digest)
                row, col = divmod(slot, cols)
                sheet.paste(images[digest], (col * card_w, row * card_h))
            sheet.paste(hidden, ((cols - 1) * card_w, (rows - 1) * card_h))
            atomic_write(folder / name, _png(sheet, dpi))
            files.append(folder / name)
        sheets.append(
            {
                "face": names[0],
                "back": names[1],
                "unique_backs": len({back for _, _, back in group}) > 1,
                "columns": cols,
                "rows": rows,
                "cards": len(group),
                "hidden_slot": rows * cols - 1,
                "codes": [code for code, _, _ in group],
            }
        )
    rasteriser.close()
    manifest = {
        "game": slug,
        "card_px": [card_w, card_h],
        "sheets": sheets,
    }
    atomic_write(
        folder / "tts.json", (json.dumps(manifest, ensure_ascii=False, indent=2) + "\n").encode()
    )
    return ImagesResult(
        folder,
        files,
        (card_w, card_h),
        f"{plural(len(sheets), 'sheet')} of {cols} columns, each with a sheet of its cards' "
        "backs (TTS: unique backs); tts.json says each sheet's grid and cards",
    )
