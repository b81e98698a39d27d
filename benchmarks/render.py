"""Print-set benchmark: Cartiera's render-once pipeline against raw WeasyPrint.

(a) From a cold cache, the full print set of all five games (A4 long-edge duplex sheets
    and every card PNG at 300 dpi) made with two worker processes, against WeasyPrint
    rendering the same front and back sheets as one HTML document per game.
(b) After one Bless card's text changes, bringing the Bless sheets and that card's PNG
    up to date, against the cold time for Bless.
(c) The layouts of issue 14 for all five games from the warm cache: fold-and-glue on A4,
    a 4 mm gutter on A3, Letter, and light ink with its coverage report (light faces are
    rendered from nothing), against (a).

Prints ratios measured in this run (seconds vary with the machine, ratios much less).
Run from the project folder: python3 benchmarks/render.py
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pipeline.common.output import reproducible  # noqa: E402
from pipeline.common.project import open_project  # noqa: E402
from pipeline.database.catalog import read_game  # noqa: E402
from pipeline.database.store import open_project_db  # noqa: E402
from pipeline.publish.render.deck import (  # noqa: E402
    DeckOptions,
    build_deck,
    load_faces,
    plan_sheets,
    print_run,
)
from pipeline.publish.render.faces import _geometry_css  # noqa: E402
from pipeline.publish.render.images import ImageOptions, build_images  # noqa: E402

GAMES = ["bless", "samurai-sword", "bldng", "mazzo", "blitz"]  # largest first: the two
# workers then finish close together


def print_set(root: str, slug: str) -> float:
    project = open_project(Path(root))
    started = time.perf_counter()
    faces = load_faces(project, slug, 3.0)
    build_deck(project, slug, DeckOptions(), faces=faces)
    build_images(project, slug, ImageOptions(dpi=300), faces=faces)
    return time.perf_counter() - started


def raw_sheets_html(root: Path, slug: str) -> str:
    """The same sheets as one HTML document: every copy of every card laid out by CSS."""
    project = open_project(root)
    faces = load_faces(project, slug, 3.0)
    run = print_run(faces, None)
    layout = plan_sheets(faces.trim, DeckOptions()).front  # the sheets `cartiera deck` makes
    pages = []
    for start in range(0, len(run), layout.per_sheet):
        group = run[start : start + layout.per_sheet]
        for side in (1, 2):
            cells = []
            for i, card in enumerate(group):
                slot = layout.slot(i if side == 1 else layout.back_slot(i, "long"))
                clip = layout.visible(i if side == 1 else layout.back_slot(i, "long"))
                cells.append(
                    f'<div class="clip" style="left:{clip.x}mm;top:{clip.y}mm;width:{clip.w}mm;'
                    f'height:{clip.h}mm"><section class="face game-{slug}" style="position:'
                    f"absolute;left:{slot.x - clip.x - faces.bleed}mm;top:"
                    f'{slot.y - clip.y - faces.bleed}mm"><div class="trim">'
                    f"{faces.faces[card[side]].html}</div></section></div>"
                )
            pages.append(f'<div class="sheet">{"".join(cells)}</div>')
    paper = layout.paper
    css = _geometry_css(faces).replace(
        f"@page {{ size: {faces.page.width}mm {faces.page.height}mm; margin: 0; }}",
        f"@page {{ size: {paper.width}mm {paper.height}mm; margin: 0; }}",
    )
    return (
        f"<!DOCTYPE html><html><head><meta charset=utf-8><style>{css}\n{faces.css}\n"
        f".sheet {{ position: relative; width: {paper.width}mm; height: {paper.height}mm; "
        "break-after: page; }"
        ".clip { position: absolute; overflow: hidden; } .face { break-after: auto; }"
        "</style></head><body>" + "".join(pages) + "</body></html>"
    )


def raw_weasyprint(root: Path) -> float:
    from weasyprint import HTML

    documents = [raw_sheets_html(root, slug) for slug in GAMES]  # not timed: templating
    started = time.perf_counter()
    for html in documents:
        HTML(string=html).write_pdf()
    return time.perf_counter() - started


NEW_LAYOUTS = [
    DeckOptions(layout="fold"),
    DeckOptions(paper="a3", gutter=4.0),
    DeckOptions(paper="letter"),
    DeckOptions(ink="light", report_ink=True),
]


def new_layouts(root: str, slug: str) -> float:
    project = open_project(Path(root))
    started = time.perf_counter()
    faces = load_faces(project, slug, 3.0)
    for options in NEW_LAYOUTS:
        build_deck(project, slug, options, faces=faces)
    return time.perf_counter() - started


def main() -> None:
    reproducible()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp) / "proj"
        for name in ("games", "templates", "schemas"):
            shutil.copytree(ROOT / name, root / name)
        shutil.copy(ROOT / "cards.db", root / "cards.db")
        if (ROOT / "mkdocs.yml").exists():
            shutil.copy(ROOT / "mkdocs.yml", root / "mkdocs.yml")

        started = time.perf_counter()
        with ProcessPoolExecutor(max_workers=2) as pool:
            per_game = dict(zip(GAMES, pool.map(print_set, [str(root)] * 5, GAMES), strict=True))
        ours = time.perf_counter() - started
        raw = raw_weasyprint(root)
        print(
            f"(a) full print set, 5 games, 2 workers, cold cache: {ours:.1f} s "
            f"(sheets + PNGs at 300 dpi)"
        )
        print(f"    raw WeasyPrint, the same sheets as one HTML per game: {raw:.1f} s")
        print(f"    ratio ours / raw = {ours / raw:.2f}  (goal <= 0.60)")

        shutil.rmtree(root / "build")
        project = open_project(root)
        cold = print_set(str(root), "bless")
        cards = root / "games/bless/cards.yaml"
        text = cards.read_text(encoding="utf-8")
        cards.write_text(
            text.replace("Vince contro le carte", "Vince sempre contro le carte", 1),
            encoding="utf-8",
        )
        from pipeline.database.store import build_database
        from pipeline.sources.load import load_games

        build_database(project, load_games(project))
        with open_project_db(project) as engine:
            assert read_game(engine, "bless")
        started = time.perf_counter()
        print_set(str(root), "bless")
        warm = time.perf_counter() - started
        print(f"(b) Bless cold: {cold:.1f} s; after one card's text changed: {warm:.2f} s")
        print(f"    ratio incremental / cold = {warm / cold:.3f}  (goal <= 0.10)")
        print(
            "    per game (cold, in workers): "
            + ", ".join(f"{slug} {seconds:.1f} s" for slug, seconds in per_game.items())
        )

        started = time.perf_counter()
        with ProcessPoolExecutor(max_workers=2) as pool:
            list(pool.map(new_layouts, [str(root)] * 5, GAMES))
        layouts = time.perf_counter() - started
        print(
            f"(c) new layouts, 5 games, 2 workers, warm cache (fold A4, gutter 4 mm A3, "
            f"Letter, light ink with coverage): {layouts:.1f} s"
        )
        print(f"    ratio new layouts / (a) = {layouts / ours:.2f}")


if __name__ == "__main__":
    main()
