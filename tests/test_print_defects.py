"""Issue 14's defects, each proven on the real games' outputs (PDFs read with pikepdf and
pypdfium2, images measured with Pillow)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pikepdf
import pytest
from conftest import edit, invoke
from PIL import Image

from pipeline.project import open_project
from pipeline.render.deck import load_faces


def _type0_fonts(path: Path) -> list[tuple[str, bytes]]:
    """(BaseFont, program bytes) of every composite font in the file."""
    found = []
    with pikepdf.open(path) as pdf:
        for obj in pdf.objects:
            if isinstance(obj, pikepdf.Dictionary) and obj.get("/Subtype") == "/Type0":
                descriptor = obj.DescendantFonts[0].FontDescriptor
                program = descriptor.get("/FontFile3") or descriptor.get("/FontFile2")
                found.append((str(obj.BaseFont), program.read_bytes()))
    return found


def test_fonts_one_subset_per_name_and_incremental_equals_clean(
    built: Path, own_cache: None, tmp_path: Path
) -> None:
    """Defect 3: one program per font name, and the same bytes however the cache was made."""
    first, incremental, clean = (tmp_path / f"{n}.pdf" for n in ("a", "b", "c"))
    assert invoke(built, "deck", "blitz", "--out", str(first)).exit_code == 0
    edit(built / "games/blitz/cards.yaml", "name: Fuoco", "name: Fuoco vivo")
    assert invoke(built, "db", "build").exit_code == 0
    assert invoke(built, "deck", "blitz", "--out", str(incremental)).exit_code == 0
    shutil.rmtree(built / "build/cache")
    assert invoke(built, "deck", "blitz", "--out", str(clean)).exit_code == 0
    assert incremental.read_bytes() == clean.read_bytes()
    assert incremental.read_bytes() != first.read_bytes()
    fonts = _type0_fonts(incremental)
    names = [name for name, _ in fonts]
    assert len(names) == len(set(names)), names  # one font object per name
    programs = {name: program for name, program in fonts}
    assert len(set(programs.values())) == len(programs)  # and different programs
    assert any("Inter" in name for name in names)


@pytest.fixture(scope="module")
def samurai_tts(shared_project: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("tts") / "samurai"
    run = invoke(shared_project, "images", "samurai-sword", "--preset", "tts", "--out", str(out))
    assert run.exit_code == 0, run.output
    return out


def test_tts_gives_every_card_its_own_back(samurai_tts: Path, shared_project: Path) -> None:
    """Defect 1: the backs sheet holds each card's back in its slot, and the manifest says
    each sheet's grid and card count."""
    manifest = json.loads((samurai_tts / "tts.json").read_text(encoding="utf-8"))
    sheets = manifest["sheets"]
    assert [(s["columns"], s["rows"], s["cards"]) for s in sheets] == [(10, 7, 69), (10, 5, 41)]
    faces = load_faces(open_project(shared_project), "samurai-sword", 3.0)
    w, h = manifest["card_px"]
    seen: dict[str, bytes] = {}  # back digest -> pixels
    kinds = set()
    for sheet in sheets:
        image = Image.open(samurai_tts / sheet["back"]).convert("RGB")
        assert image.size == (10 * w, sheet["rows"] * h)
        for slot, code in enumerate(sheet["codes"]):
            row, col = divmod(slot, 10)
            pixels = image.crop((col * w, row * h, (col + 1) * w, (row + 1) * h)).tobytes()
            digest = faces.backs[code]
            kinds.add(digest)
            assert seen.setdefault(digest, pixels) == pixels, code
    assert len(kinds) >= 2  # role cards and playing cards have different backs
    assert len({seen[d] for d in kinds}) == len(kinds)


def test_presets_follow_the_card_size(shared_project: Path, tmp_path: Path) -> None:
    """Defect 2: bridge cards get The Game Crafter's bridge size; MPC, with no known bridge
    size, refuses in one line."""
    out = tmp_path / "tgc"
    run = invoke(shared_project, "images", "samurai-sword", "--preset", "tgc", "--out", str(out))
    assert run.exit_code == 0, run.output
    sizes = {Image.open(p).size for p in out.glob("*.png")}
    assert sizes == {(750, 1125)}
    run = invoke(shared_project, "images", "samurai-sword", "--preset", "mpc")
    assert run.exit_code == 1
    assert "no card image size for bridge cards" in run.stderr
    assert len(run.stderr.strip().splitlines()) == 1 and "Traceback" not in run.output
    # defect 9: the manifest says which deck each card is from, and its status
    manifest = json.loads((out / "manifest.json").read_text(encoding="utf-8"))
    decks = {c["deck"]: c["status"] for c in manifest["cards"]}
    assert decks == {"base": "official", "rising-sun": "incomplete"}
