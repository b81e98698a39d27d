"""The one list of what `cartiera build` makes for a game: each file, what it is (Italian,
for the site's download page) and the step that makes it. `build` plans its steps from it
and `site` lists the downloads from it, so neither needs the other."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pipeline.common.project import Project

OFFLINE_ZIP = "cartiera-sito-offline.zip"  # the offline site, in build/downloads/
# What the site step writes into site/ (the rest of site/ is written by hand): the build's
# stamps digest only the hand-written part, so a generated page never makes the site stale.
SITE_GENERATED = ("index.md", "giochi", "scarica")


@dataclass(frozen=True)
class Artifact:
    path: str  # relative to the project root
    label: str  # Italian, shown on the download page
    step: str  # the name of the build step that makes it (with its other files), "deck bless a4"
    kind: str  # deck | images | rulebook
    options: tuple[tuple[str, str], ...] = ()

    def file(self, project: Project) -> Path:
        return project.root / self.path


def artifacts(slug: str) -> list[Artifact]:
    """The files a player downloads for a game, in the order the site lists them."""
    return [
        Artifact(
            f"build/decks/{slug}-sheets-a4-long.pdf",
            "Mazzo da stampare su A4, fronte-retro sul lato lungo",
            f"deck {slug} a4",
            "deck",
            (("paper", "a4"), ("layout", "sheets")),
        ),
        Artifact(
            f"build/decks/{slug}-sheets-letter-long.pdf",
            "Mazzo da stampare su US Letter, fronte-retro sul lato lungo",
            f"deck {slug} letter",
            "deck",
            (("paper", "letter"), ("layout", "sheets")),
        ),
        Artifact(
            f"build/decks/{slug}-carte.pdf",
            "Per la tipografia: una carta per pagina, con abbondanza e TrimBox",
            f"deck {slug} cards",
            "deck",
            (("paper", "a4"), ("layout", "cards")),
        ),
        Artifact(
            f"build/downloads/{slug}-immagini-300dpi.zip",
            "Le immagini PNG di ogni carta a 300 dpi, con abbondanza",
            f"images {slug}",
            "images",
            (("dpi", "300"),),
        ),
        Artifact(
            f"build/rulebooks/{slug}-regolamento-a5.pdf",
            "Il regolamento, formato A5",
            f"rulebook {slug}",
            "rulebook",
            (("paper", "a5"),),
        ),
        Artifact(  # made by the same step, from the A5 pages: not laid out a second time
            f"build/rulebooks/{slug}-regolamento-libretto-a4.pdf",
            "Il regolamento come libretto: due pagine A5 per facciata di un A4 orizzontale, "
            "fronte-retro sul lato corto, da piegare a metà",
            f"rulebook {slug}",
            "rulebook",
            (("paper", "a5"),),
        ),
    ]
