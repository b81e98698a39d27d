"""`cartiera new`: a game of one's own, ready to validate, print and publish with no edit.

In a project it adds games/<slug>/ (declarations, three example cards, numbered rules, a
glossary and a ruling) and templates/cards/<slug>/ (a neutral face that shows whatever the
game declares). In a folder with no project it first lays out a whole one: the publishing
templates, the site's hand-written pages and mkdocs.yml, from the copies the package
carries (pipeline/_skeleton in a wheel; the repository itself in a checkout).
"""

from __future__ import annotations

import re
import shutil
from dataclasses import dataclass
from importlib.resources import files
from pathlib import Path

from pipeline.common.problems import Problem, SourceError
from pipeline.common.words import count
from pipeline.publish.render.paper import CARD_SIZES

SLUG = re.compile(r"[a-z][a-z0-9]*(-[a-z0-9]+)*")


def skeleton_paths() -> list[str]:
    """What a new project needs besides its games (pipeline/commands/skeleton.txt, which setup.py
    also reads to put exactly these into the wheel)."""
    listing = (files("pipeline.commands") / "skeleton.txt").read_text("utf-8").splitlines()
    return [line.strip() for line in listing if line.strip() and not line.startswith("#")]


def skeleton_root() -> Path:
    """Where the skeleton's files are: inside the installed package, or the checkout."""
    bundled = Path(str(files("pipeline"))) / "_skeleton"
    if bundled.is_dir():
        return bundled
    return Path(__file__).resolve().parents[2]


@dataclass(frozen=True)
class NewGame:
    slug: str
    name: str
    players: tuple[int, int]
    size: str


def parse_players(text: str) -> tuple[int, int]:
    """`2-4` or `3` as (min, max); ValueError with one sentence otherwise."""
    match = re.fullmatch(r"\s*(\d+)\s*(?:-\s*(\d+)\s*)?", text)
    if match is None:
        raise ValueError(f"'{text}' is not a number of players such as 2-4 or 3")
    low = int(match.group(1))
    high = int(match.group(2) or low)
    if not 1 <= low <= high <= 20:
        raise ValueError(f"'{text}': players go from 1 to 20, the smaller number first")
    return low, high


def check_new(slug: str, size: str) -> None:
    if SLUG.fullmatch(slug) is None:
        raise ValueError(
            f"'{slug}' is not a slug: lower-case letters and digits, words joined by '-'"
        )
    if size not in CARD_SIZES:
        raise ValueError(f"unknown card size '{size}' (sizes: {', '.join(sorted(CARD_SIZES))})")


def new_project(root: Path, game: NewGame) -> list[Path]:
    """Lay out a whole project in `root` (which has no games/ yet) around its first game."""
    source = skeleton_root()
    written = []
    for rel in skeleton_paths():
        src, dest = source / rel, root / rel
        if dest.exists():
            continue
        dest.parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, dest, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            shutil.copy2(src, dest)
        written.append(dest)
    config = root / "mkdocs.yml"
    text = config.read_text("utf-8")
    text = re.sub(r"(?m)^site_name: .*$", f"site_name: Giochi di {root.resolve().name}", text)
    text = re.sub(
        r"(?m)^site_description: .*$", "site_description: Regole, carte e mazzi da stampare", text
    )
    config.write_text(text, "utf-8")
    (root / "games").mkdir(exist_ok=True)
    for name, text in (
        (".gitignore", _gitignore()),
        (".pre-commit-config.yaml", PRE_COMMIT_CONFIG),
        ("site/cercare.md", search_page(game)),
    ):
        if not (root / name).exists():
            (root / name).write_text(text, "utf-8")
            written.append(root / name)
    return written


def _gitignore() -> str:
    """Every file `cartiera build` makes, so that a build leaves `git status` empty."""
    from pipeline.publish.artifacts import SITE_GENERATED  # what `site` writes into site/

    return "".join(
        f"{line}\n"
        for line in (
            "# made by `cartiera build` from the sources",
            "build/",
            "cards.db",  # a team sharing one database commits it instead: drop this line
            "*.tmp",
            *(f"/site/{name}" for name in SITE_GENERATED),
        )
    )


def search_page(game: NewGame) -> str:
    """The site's page on the query language, with examples on the cards `new` writes (the
    bundled project's page speaks of Bless and BLDNG, which a designer's site does not
    have). Every query in it finds cards of the new game (tests/test_new.py)."""
    return f"""---
title: Cercare le carte
---

# Cercare le carte

Ogni pagina delle carte, la tabella di ogni gioco e la pagina iniziale hanno una casella di
ricerca. Ci si scrive una **query**, cioè qualche parola che dice quali carte si vogliono
vedere. La stessa query funziona nel terminale, con `cartiera search`, e resta
nell'indirizzo della pagina (`?cerca=…`): una ricerca si può salvare o mandare a qualcuno.

Gli esempi usano le carte e gli attributi con cui `cartiera new` ha creato {game.name}:
quando il gioco cambia, cambia anche questi.

## Le parole di una query

| Scrivi | Trovi |
|---|---|
| `seconda` | le carte con la parola «seconda» nel nome |
| `"prima carta"`, `sec*` | queste parole di seguito nel nome, o una parola che comincia così |
| `!"Terza carta"` | la carta con esattamente questo nome |
| `nome~cond` | i nomi che contengono queste lettere in un punto qualsiasi |
| `colore:rosso` | le carte con quel valore di un attributo |
| `valore>=5` | le carte con Valore da 5 in su; ci sono anche `>`, `<`, `<=`, `=` e `!=` |
| `o:pesca`, `o~pesc` | la parola «pesca» in uno dei testi, o un pezzo di parola |
| `effetto:avversario` | la parola in un testo solo, chiamato con il suo nome |
| `t:carta`, `tipo:carta` | le carte di un tipo |
| `mazzo:base` | le carte di un mazzo |
| `stato:ufficiale` | le carte per stato: `ufficiale`, `ricostruito` o `incompleto` |
| `copie=1` | le carte che il mazzo ha in una copia sola (`copie>1`: quelle ripetute) |
| `gioco:{game.slug}` | solo le carte di un gioco, quando se ne cerca più d'uno |
| `ordina:nome`, `ordina:-valore` | l'ordine dei risultati (con il meno, dal più grande) |

Maiuscole e accenti non contano. Gli attributi si chiamano come le colonne della tabella del
gioco.

## Più condizioni insieme

- Una dopo l'altra, devono valere **tutte**: `colore:verde valore>=5`.
- Con `or` in mezzo, ne basta **una**: `colore:rosso or colore:blu`.
- Il meno davanti **esclude**: `-colore:blu` sono tutte le carte che non sono blu.
- Le **parentesi** raggruppano: `(colore:rosso or colore:verde) valore>=5`.

Una carta senza un attributo non soddisfa mai una condizione su di esso, e soddisfa
sempre quella negata.

## Qualche esempio

| Query | Che cosa trova |
|---|---|
| `valore>=5 ordina:-valore` | le carte più forti, dalla più forte |
| `o:carta -colore:rosso` | le carte non rosse che parlano di carte |
| `colore:verde or colore:blu` | le carte verdi e quelle blu |
| `tipo:carta ordina:nome` | tutte le carte, in ordine di nome |

Se la query non si capisce, sotto la casella compare che cosa non va e in quale colonna.
"""


# The hook that README.md shows: the installed cartiera, so it needs no network and no tag.
PRE_COMMIT_CONFIG = """\
# Check the games before every commit: pip install pre-commit, then pre-commit install.
repos:
  - repo: local
    hooks:
      - id: cartiera-validate
        name: cartiera validate
        entry: cartiera validate --no-fit
        language: system
        pass_filenames: false
        files: ^(games|templates)/
"""


def new_game(root: Path, game: NewGame) -> list[Path]:
    """Write games/<slug>/ and templates/cards/<slug>/ for `game`; refuse to overwrite."""
    folder = root / "games" / game.slug
    cards = root / "templates" / "cards" / game.slug
    for path in (folder, cards):
        if path.exists():
            raise SourceError(
                Problem(
                    "error",
                    f"{path.relative_to(root)} already exists",
                    hint="choose another slug, or remove that folder first",
                )
            )
    folder.mkdir(parents=True)
    written = []
    for name, text in _sources(game).items():
        path = folder / name
        path.write_text(text, "utf-8")
        written.append(path)
    cards.mkdir(parents=True)
    base = skeleton_root() / "templates" / "cards" / "_base"
    for template in sorted(base.iterdir()):
        if template.is_file():
            text = template.read_text("utf-8")
            text = text.replace("__SLUG__", game.slug).replace("__NAME__", game.name)
            (cards / template.name).write_text(text, "utf-8")
            written.append(cards / template.name)
    return written


def _sources(game: NewGame) -> dict[str, str]:
    low, high = game.players
    # "un gioco di carte da 2 a 4 giocatori", "… per 3 giocatori"; "si gioca in 3 giocatori"
    one = low == high
    players = count(low, "giocatore", "giocatori") if one else f"da {low} a {high} giocatori"
    for_players = f"per {players}" if one else players
    played_by = f"in {players}" if one else players
    schema = f"# yaml-language-server: $schema=../../schemas/{game.slug}/cards.schema.json\n"
    return {
        "game.yaml": f"""# yaml-language-server: $schema=../../schemas/game.schema.json
slug: {game.slug}
name: {game.name}
players: {{min: {low}, max: {high}}}
card_size: {game.size}
status: official
description: >-
  {game.name} è un gioco di carte {for_players}. Questa descrizione, le carte e le regole
  sono un punto di partenza scritto da «cartiera new»: cambiale con quelle del tuo gioco.
attributes:
  valore:
    label: Valore
    type: int
    min: 1
    max: 10
    description: La forza della carta.
  colore:
    label: Colore
    type: enum
    values: [Rosso, Verde, Blu, Giallo]
    description: La famiglia della carta.
texts:
  effetto:
    label: Effetto
    description: Che cosa succede quando la carta viene giocata.
kinds:
  carta:
    label: Carta
    attributes: [valore, colore]
    texts: [effetto]
decks:
  base:
    name: Mazzo base
    status: official
    total: 3
    kinds: {{carta: 3}}
""",
        "cards.yaml": schema
        + """cards:
  - number: 1
    id: prima-carta
    name: Prima carta
    kind: carta
    attributes: {valore: 3, colore: Rosso}
    text:
      effetto: "Pesca una carta."
  - number: 2
    id: seconda-carta
    name: Seconda carta
    kind: carta
    attributes: {valore: 5, colore: Verde}
    text:
      effetto: "Scegli un avversario: scarta una carta a sua scelta."
  - number: 3
    id: terza-carta
    name: Terza carta
    kind: carta
    attributes: {valore: 8, colore: Blu}
    text:
      effetto: "Nessun effetto."
""",
        "rules.md": f"""## 1. Il gioco {{#il-gioco}}

### 1.1 In breve {{#in-breve}}

{game.name} si gioca {played_by}. Scrivi qui in poche righe di che cosa parla il gioco e
come si vince.

### 1.2 Le carte {{#carte}}

Ogni carta ha un Valore da 1 a 10, un Colore e un Effetto.

## 2. La partita {{#partita}}

### 2.1 Preparazione {{#preparazione}}

Mescola il mazzo e dai tre carte a ogni giocatore.

### 2.2 Il turno {{#turno}}

Al tuo turno giochi una carta e ne applichi l'Effetto.

### 2.3 Fine della partita {{#fine}}

Quando il mazzo è finito, vince chi ha il Valore più alto fra le carte giocate.
""",
        "glossary.yaml": """# yaml-language-server: $schema=../../schemas/glossary.schema.json
terms:
  - term: Valore
    kind: Termine
    definition: Il numero da 1 a 10 stampato sulla carta; a fine partita conta il più alto.
    forms: [Valore, valore]
    clause: carte
""",
        "rulings.yaml": """# yaml-language-server: $schema=../../schemas/rulings.schema.json
rulings:
  - id: mazzo-finito
    question: Che cosa succede se due giocatori hanno lo stesso Valore più alto?
    answer: >-
      Vincono insieme. È un esempio di chiarimento: scrivi qui ogni decisione su un caso che
      le regole non dicono.
    source: interpretation
    clauses: [fine]
    cards: []
""",
    }
