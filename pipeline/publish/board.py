"""The step-through board: a game's states as frames a small page script draws as a table.

Every frame is what the engine's own ``view`` says of a state (pipeline/engine/scenario.py:
seats with their zones and attributes, shared piles, whose turn), with the Italian narration
of the step that led to it and what changed since the frame before. The same frames serve
three readers: each worked example on the site (beside its written narration), one sample
game per game on the site, and `cartiera replay FILE --html OUT` (one self-contained page).

Cards are written as indices into the board's own card list (code, name, face and back
image), so a long game stays light. Which keys of the view are hidden from a spectator
(hands, the draw pile, secret roles) and their Italian labels are presentation data
(templates/board/etichette.yaml), not engine code. The viewer is vanilla JS and CSS
(templates/board/board.js, board.css): no framework, no network, works from file://.
"""

from __future__ import annotations

import base64
import hashlib
import html
import io
import json
import shutil
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from itertools import pairwise
from pathlib import Path
from typing import Any

import yaml

from pipeline.common.project import Project
from pipeline.database.catalog import GameInfo
from pipeline.engine.core import (
    CardRecord,
    Chance,
    Replay,
    State,
    _expanded_all,
    card_digest,
    play_replay,
)
from pipeline.engine.plugin import Engine
from pipeline.publish.site.cards import IMAGE_DPI  # the gallery's: one cached PNG serves both

from .markup import terminal_text

ASSETS = ("board.js", "board.css")  # templates/board/ -> the site's generated assets
SITE_ASSETS = "giochi/tavolo"  # their folder in the site's docs (a generated part)
THUMB_WIDTH = 180  # px of a card image embedded in a replay page
SAMPLE_SEED = 7  # the site's sample games: the same game on every build
SAMPLE_TRIES, SAMPLE_MIN_STEPS = 10, 20  # the first of these seeds whose game is this long


@dataclass
class Board:
    """A sequence of frames and what the viewer needs to draw them."""

    slug: str
    title: str
    players: int
    cards: list[list[Any]] = field(default_factory=list)  # [code, name, face, back]
    keys: dict[str, str] = field(default_factory=dict)  # view key -> zona | carta | valore
    frames: list[dict[str, Any]] = field(default_factory=list)

    def data(self, labels: Mapping[str, Any]) -> dict[str, Any]:
        """The board as the viewer reads it (JSON values only)."""
        return {
            "gioco": self.slug,
            "titolo": self.title,
            "giocatori": self.players,
            "carte": self.cards,
            "chiavi": self.keys,
            "etichette": labels["labels"],
            "nascoste": labels["hidden"],
            "pubblici": labels["shown_values"],
            "passi": _deltas(self.frames),
        }


def _deltas(frames: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The frames as written: a seat's key or a pile that did not change since the frame
    before is left out (the viewer carries it forward), so a long game stays light."""
    out = [dict(frames[0])] if frames else []
    for before, frame in pairwise(frames):
        seats = [
            {k: v for k, v in seat.items() if k not in old or old[k] != v}
            for seat, old in zip(frame["posti"], before["posti"], strict=True)
        ]
        piles = {k: v for k, v in frame["pile"].items() if before["pile"].get(k) != v}
        out.append({**frame, "posti": seats, "pile": piles})
    return out


@cache
def _labels_file(templates: Path) -> dict[str, Any]:
    loaded = yaml.safe_load((templates / "board" / "etichette.yaml").read_text(encoding="utf-8"))
    return loaded if isinstance(loaded, dict) else {}


def labels(project: Project, slug: str) -> dict[str, Any]:
    """The game's Italian labels, hidden keys and public values of hidden keys."""
    data = _labels_file(project.templates_dir)
    game = (data.get("games") or {}).get(slug) or {}
    words = {**(data.get("default") or {}).get("labels", {}), **(game.get("labels") or {})}
    return {
        "labels": words,
        "hidden": list(game.get("hidden") or ["hand", "pile:draw"]),
        "shown_values": dict(game.get("shown_values") or {}),
    }


class Recorder:
    """Turns states into frames: the view, the narration since the last frame, the changes."""

    def __init__(self, rules: Engine[Any], board: Board, names: Mapping[str, str]):
        self.rules = rules
        self.board = board
        self.names = names  # card code -> name: which strings of the view are cards
        self.index: dict[str, int] = {}
        self.mark = 0
        self.last: dict[str, Any] | None = None

    def card(self, code: str) -> int:
        found = self.index.get(code)
        if found is None:
            found = self.index[code] = len(self.board.cards)
            self.board.cards.append([code, self.names.get(code, code), None, None])
        return found

    def value(self, key: str, value: Any) -> Any:
        """A view value as a frame holds it: zones and card attributes as card indices."""
        if isinstance(value, list) and all(isinstance(v, str) for v in value):
            self.board.keys.setdefault(key, "zona")
            return [self.card(v) for v in value]
        if isinstance(value, str) and value in self.names:
            self.board.keys[key] = "carta"
            return self.card(value)
        if value is None and self.board.keys.get(key) == "carta":
            return None
        self.board.keys.setdefault(key, "valore")
        return value

    def snap(self, state: State, actor: int | None = None, lines: Sequence[str] | None = None):
        """One frame of `state`; its text is the narration of the events since the last."""
        if lines is None:
            lines = self.rules.narrate(state.log[self.mark :], state.num_players)
        self.mark = len(state.log)
        view = self.rules.view(state)
        seats = [{k: self.value(k, v) for k, v in seat.items()} for seat in view.seats]
        piles = {k: [self.card(c) for c in v] for k, v in view.piles.items()}
        frame: dict[str, Any] = {
            "testo": [terminal_text(line) for line in lines],
            "turno": view.turn,
            "numero": view.turn_number,
            "chi": actor,
            "posti": seats,
            "pile": piles,
            "fine": state.is_terminal(),
        }
        frame["cambi"], frame["nuove"] = _changes(self.last, frame)
        self.last = frame
        self.board.frames.append(frame)
        return frame


def _changes(before: dict[str, Any] | None, now: dict[str, Any]) -> tuple[list[str], dict]:
    """What changed since `before`: the keys ("1.hand", "pile.draw", "turno") whose value
    changed, and for each zone the positions of the cards that arrived in it."""
    if before is None:
        return [], {}
    changed, arrived = [], {}
    places: list[tuple[str, Any, Any]] = [
        (f"{s}.{k}", v, before["posti"][s - 1].get(k))
        for s, seat in enumerate(now["posti"], 1)
        for k, v in seat.items()
    ]
    places += [(f"pile.{k}", v, before["pile"].get(k)) for k, v in now["pile"].items()]
    for name, value, old in places:
        if value == old:
            continue
        changed.append(name)
        if isinstance(value, list):
            left = Counter(old if isinstance(old, list) else [])
            new = []
            for position, card in enumerate(value):
                if left[card]:
                    left[card] -= 1
                else:
                    new.append(position)
            if new:
                arrived[name] = new
    if now["turno"] != before["turno"]:
        changed.append("turno")
    return changed, arrived


_NAMES: dict[str, dict[str, str]] = {}


def _names(rules: Engine[Any], project: Project, slug: str) -> dict[str, str]:
    """Card code -> name of the rules' cards (read once per card set: `rules.digest`)."""
    found = _NAMES.get(rules.digest)
    if found is None:
        from pipeline.play.records import card_records

        found = _NAMES[rules.digest] = {c.code: c.name for c in card_records(project, slug)}
    return found


# -- the three sources of frames -------------------------------------------------------


def example_board(project: Project, slug: str, name: str, rules: Engine[Any]) -> Board:
    """A worked example as frames: the placed position (with what the engine then played by
    itself), then one frame per move, as pipeline.play.examples plays it."""
    from pipeline.play.examples import SCENARIO_ERRORS, Move, examples_dir, load_scenario

    scenario, _ = load_scenario(examples_dir(project, slug) / f"{name}.yaml", project, slug)
    players = scenario.players or rules.info.min_players
    state = rules.setup(scenario.position.model_dump(exclude_unset=True), players, scenario.options)
    board = Board(slug, scenario.title, players)
    recorder = Recorder(rules, board, _names(rules, project, slug))
    recorder.snap(state)
    for step in scenario.steps:
        if not isinstance(step, Move):
            continue
        try:
            action = rules.parse_action(state, step.play)
        except SCENARIO_ERRORS:
            continue
        if action not in state.legal_actions():
            continue
        actor = state.current_player() + 1
        state.apply(action)
        recorder.snap(state, actor)
    return board


def replay_board(project: Project, replay: Replay, title: str) -> Board:
    """A recorded game as frames: the deal, then one frame per decision."""
    from pipeline.play.records import load_rules

    rules = load_rules(project, replay.slug)
    play_replay(rules, replay)  # checks cards, actions and chance; raises ReplayError
    chance = Chance(outcomes=_expanded_all(replay.chance))
    state = rules.new_game(replay.seed, replay.players, replay.options, chance=chance)
    board = Board(replay.slug, title, replay.players)
    recorder = Recorder(rules, board, _names(rules, project, replay.slug))
    recorder.snap(state)
    for index in replay.actions:
        actor = state.current_player() + 1
        state.apply(state.legal_actions()[index])
        recorder.snap(state, actor)
    return board


def sample_board(
    project: Project,
    slug: str,
    players: int,
    seed: int = SAMPLE_SEED,
    rules: Engine[Any] | None = None,
) -> Board:
    """One whole game between the game's own agent (the first after random and search),
    for the site: the same seed gives the same game on every build."""
    from pipeline.engine import registry
    from pipeline.play.records import load_rules

    rules = rules or load_rules(project, slug)
    names = registry.agent_names(slug)
    agent_name = names[2] if len(names) > 2 else "random"
    cards = _names(rules, project, slug)
    board = Board(slug, "", players)
    for tried in range(seed, seed + SAMPLE_TRIES):  # a game long enough to show the game
        agents = [registry.make_agent(slug, agent_name, tried * 100 + p) for p in range(players)]
        state = rules.new_game(tried, players)
        board = Board(slug, f"Una partita a {players} giocatori", players)
        recorder = Recorder(rules, board, cards)
        recorder.snap(state)
        while not state.is_terminal():
            actor = state.current_player()
            state.apply(agents[actor].act(state))
            recorder.snap(state, actor + 1)
        if len(board.frames) > SAMPLE_MIN_STEPS:
            break
    return board


# -- images ----------------------------------------------------------------------------


def site_images(board: Board, manifest: Mapping[str, tuple[str, str]]) -> None:
    """Give the board's cards the site's own card images (file names in the game's img/)."""
    for card in board.cards:
        face, back = manifest.get(card[0], (None, None))
        card[2], card[3] = face, back


def embedded_images(project: Project, board: Board) -> None:
    """Give the board's cards small images as data: URIs, made from the cached faces (the
    same PNGs as the site's gallery, rendered only if the cache lacks them)."""
    from PIL import Image

    from pipeline.publish.render.images import ImageOptions, build_images

    folder = project.build_dir / "board" / board.slug / "img"
    build_images(project, board.slug, ImageOptions(dpi=IMAGE_DPI, bleed=False), folder)
    manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
    files = {c["code"]: (c["front"], c["back"]) for c in manifest["cards"]}
    uris: dict[str, str] = {}

    def uri(name: str) -> str:
        if name not in uris:
            with Image.open(folder / name) as image:
                height = round(image.height * THUMB_WIDTH / image.width)
                small = image.convert("RGB").resize((THUMB_WIDTH, height), Image.Resampling.LANCZOS)
            out = io.BytesIO()
            small.save(out, format="WEBP", quality=82, method=4)
            uris[name] = "data:image/webp;base64," + base64.b64encode(out.getvalue()).decode()
        return uris[name]

    for card in board.cards:
        face, back = files.get(card[0], (None, None))
        card[2] = uri(face) if face else None
        card[3] = uri(back) if back else None


# -- HTML ------------------------------------------------------------------------------


def board_json(project: Project, board: Board) -> str:
    return json.dumps(board.data(labels(project, board.slug)), ensure_ascii=False)


def site_html(project: Project, board: Board, dom_id: str, base_image: str | None) -> str:
    """The board's place on a site page, on one line: a div whose data attribute holds the
    frames (the page's sanitizer keeps data-* attributes, never a script), and a hidden
    image of the game's img/ folder, whose link MkDocs resolves, so the viewer knows where
    the images are from any page, served or offline."""
    data = html.escape(board_json(project, board), quote=True)
    base = (
        f'<img class="cartiera-tavolo-base" src="img/{html.escape(base_image)}" alt="" hidden>'
        if base_image
        else ""
    )
    return (
        f'<div class="cartiera-tavolo" id="{dom_id}" data-passo="{dom_id}-passo" '
        f'data-tavolo="{data}">{base}</div>'
    )


def write_site_assets(project: Project, docs: Path) -> None:
    """Copy the viewer's script and style into the site's generated assets."""
    target = docs / SITE_ASSETS
    target.mkdir(parents=True, exist_ok=True)
    for name in ASSETS:
        shutil.copyfile(project.templates_dir / "board" / name, target / name)


def replay_html(project: Project, board: Board) -> str:
    """One self-contained page stepping through `board`: style, script, frames and images
    inside it, nothing fetched."""
    folder = project.templates_dir / "board"
    style = (folder / "board.css").read_text(encoding="utf-8")
    script = (folder / "board.js").read_text(encoding="utf-8")
    data = html.escape(board_json(project, board), quote=True)
    title = html.escape(board.title)
    return (
        "<!doctype html>\n"
        '<html lang="it">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{title}</title>\n<style>\n{REPLAY_PAGE_STYLE}{style}</style>\n</head>\n<body>\n"
        f'<main class="cartiera-partita">\n<h1>{title}</h1>\n'
        f'<div class="cartiera-tavolo" id="tavolo" data-passo="passo" data-tavolo="{data}">'
        "</div>\n"
        f"{_narration_html(board)}"
        f"</main>\n<script>\n{_script_safe(script)}</script>\n</body>\n</html>\n"
    )


REPLAY_PAGE_STYLE = (
    "body{margin:0;font:16px/1.5 system-ui,sans-serif;color:#1b1b1f;background:#fafafa}"
    ".cartiera-partita{max-width:1100px;margin:0 auto;padding:12px}"
    "h1{font-size:1.4rem;margin:.3em 0}\n"
)


def _narration_html(board: Board) -> str:
    """The whole game as text too: for search, screen readers and a page without script."""
    items = []
    for number, frame in enumerate(board.frames):
        text = " ".join(frame["testo"]) or ("Posizione iniziale." if number == 0 else "")
        if text:
            items.append(f'<li value="{number}">{html.escape(text)}</li>')
    return '<ol class="cartiera-tavolo-testo">\n' + "\n".join(items) + "\n</ol>\n"


def _script_safe(script: str) -> str:
    return script.replace("</", "<\\/")


def write_replay_html(project: Project, path: Path, out: Path) -> Board:
    """`cartiera replay FILE --html OUT`: the recorded game as one self-contained page,
    written beside OUT and renamed into place."""
    from pipeline.common.output import atomic_write
    from pipeline.play.records import replay_problems

    with replay_problems(project, path):
        replay = Replay.from_json(path.read_text(encoding="utf-8"))
        board = replay_board(project, replay, f"Partita registrata: {path.name}")
    embedded_images(project, board)
    atomic_write(out, replay_html(project, board).encode("utf-8"))
    return board


# -- the site --------------------------------------------------------------------------


def example_boards(
    project: Project, game: GameInfo, codes: Sequence[str], folder: Path
) -> dict[str, str]:
    """Each stored worked example's board as site HTML, by example code (`folder`: the
    game's folder of the site, whose img/ the boards show)."""
    from pipeline.engine import registry
    from pipeline.play.examples import examples_dir
    from pipeline.play.records import load_rules

    slug = game.slug
    if not codes:
        return {}
    images = site_manifest(folder / "img")
    sources = [
        (examples_dir(project, slug) / f"{code}.yaml").read_bytes() for code in sorted(codes)
    ]
    key = _cache_key(project, game, "esempi", images, *sources)
    cached = _cached(project, key)
    if cached is not None:
        return dict(json.loads(cached))
    if slug not in registry.engine_slugs():
        return {}
    rules = load_rules(project, slug)
    base = _base_image(images)
    out = {}
    for code in codes:
        board = example_board(project, slug, code, rules)
        site_images(board, images)
        out[code] = site_html(project, board, f"tavolo-{code}", base)
    _keep(project, key, json.dumps(out, ensure_ascii=False))
    return out


def _cache_key(project: Project, game: GameInfo, kind: str, *parts: Any) -> str:
    """What a board on the site depends on: the game's cards, the sources given, the
    images, and the code and templates that make frames (any change: made again)."""
    cards = [
        CardRecord(c.number, c.code, c.name, c.kind, c.copies, c.deck, c.status,
                   c.attributes, c.texts, c.data)
        for c in game.cards
    ]  # fmt: skip
    digest = hashlib.sha256(f"{game.slug}|{kind}|{SAMPLE_SEED}|{game.players}".encode())
    digest.update(card_digest(cards).encode())
    for part in parts:
        digest.update(part if isinstance(part, bytes) else json.dumps(part).encode())
    digest.update(_code_digest(project.templates_dir))
    return digest.hexdigest()[:32]


@cache
def _code_digest(templates: Path) -> bytes:
    """The Python sources that make frames (the engines and their narration, the
    examples' runner, this module) and the board's templates, as one digest: read once per
    process."""
    digest = hashlib.sha256()
    package = Path(__file__).resolve().parents[1]  # pipeline/
    sources = [
        package / name
        for name in ("publish/board.py", "play/examples.py", "publish/markup.py", "play/records.py")
    ]
    sources += [*(package / "engine").rglob("*.py"), *(package / "games").rglob("*.py")]
    for path in sorted([*sources, *(templates / "board").glob("*")]):
        digest.update(str(path.relative_to(path.parents[1])).encode())
        digest.update(path.read_bytes())
    return digest.digest()


def _cached(project: Project, key: str) -> str | None:
    path = project.cache_dir / "board" / f"{key}.json"
    return path.read_text(encoding="utf-8") if path.exists() else None


def _keep(project: Project, key: str, text: str) -> None:
    from pipeline.common.output import atomic_write

    atomic_write(project.cache_dir / "board" / f"{key}.json", text.encode("utf-8"))


def sample_page(project: Project, game: GameInfo, folder: Path) -> str | None:
    """The site's page of sample games (partita.md), a whole game at every table size the
    game allows; None for a game without a rules engine."""
    from pipeline.engine import registry

    slug = game.slug
    images = site_manifest(folder / "img")
    players = list(range(game.players_min, game.players_max + 1))
    key = _cache_key(project, game, "partite", images, game.name, list(players))
    cached = _cached(project, key)
    if cached is not None:
        page: str | None = json.loads(cached)
        return page
    if slug not in registry.engine_slugs():
        _keep(project, key, "null")
        return None
    title = f"Partite di esempio di {game.name}"
    lines = [
        "---",
        f"title: {json.dumps(title, ensure_ascii=False)}",
        # whole games of automatic players: out of the search index, which serves the rules
        "search:",
        "  exclude: true",
        "---",
        "",
        f"# {_md(title)}",
        "",
        "Partite intere giocate dal motore delle regole, con i giocatori automatici del "
        "progetto al posto delle persone: si scorrono passo per passo con i pulsanti, con le "
        "frecce della tastiera o con il cursore, e ogni passo ha il suo link. Sotto ogni "
        "tavolo c'è la cronaca completa della partita.",
        "",
    ]
    for board, html_line in sample_boards(project, slug, players, images):
        count = board.players
        lines += [f"## A {count} giocatori {{ #partita-a-{count} }}", "", html_line, ""]
        lines += ["**Cronaca della partita**", ""]
        for number, frame in enumerate(board.frames[1:], 1):
            text = " ".join(frame["testo"]) or "Nessun evento da raccontare."
            lines.append(f"{number}. {_md(text)}")
        lines.append("")
    made = "\n".join(lines)
    _keep(project, key, json.dumps(made, ensure_ascii=False))
    return made


def _md(text: str) -> str:
    """Plain text inside Markdown: no markup, no raw HTML."""
    from .markup import escape_html, escape_markdown

    return escape_markdown(escape_html(text))


def sample_boards(
    project: Project, slug: str, players: Sequence[int], images: Mapping[str, tuple[str, str]]
) -> list[tuple[Board, str]]:
    """The site's sample games (one per player count asked), with their site HTML."""
    out = []
    from pipeline.play.records import load_rules

    rules = load_rules(project, slug)
    for count in players:
        board = sample_board(project, slug, count, rules=rules)
        site_images(board, images)
        out.append((board, site_html(project, board, f"partita-{count}", _base_image(images))))
    return out


def _base_image(images: Mapping[str, tuple[str, str]]) -> str | None:
    return next((back for _, back in images.values() if back), None)


def site_manifest(folder: Path) -> dict[str, tuple[str, str]]:
    """Card code -> (face, back) file names of the site's images in `folder` (empty when
    the site is built without images: the board then names the cards)."""
    path = folder / "manifest.json"
    if not path.exists():
        return {}
    manifest = json.loads(path.read_text(encoding="utf-8"))
    return {c["code"]: (c["front"], c["back"]) for c in manifest["cards"]}
