"""Loading a game's sources and checking them against its own declarations.

Every problem is collected, not only the first, each with its file and line, so one run
of `cartiera validate` tells a designer everything that is wrong.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import tempfile
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from pipeline.common.problems import Problem, SourceError
from pipeline.common.project import Project
from pipeline.engine.plugin import CardProblem
from pipeline.engine.registry import plugin as game_plugin

from . import gamespec, rule_text
from .formats import (
    CardSource,
    GameSource,
    GlossarySource,
    RulingSource,
    RulingsSource,
    SeedMapSource,
    TermSource,
)
from .yamlfile import YamlDoc, read_yaml


@dataclass
class LoadedGame:
    """One game's sources as read, and every problem found in them."""

    slug: str
    game: GameSource | None = None
    cards: list[CardSource] = field(default_factory=list)
    rulings: list[RulingSource] = field(default_factory=list)
    docs: dict[str, YamlDoc] = field(default_factory=dict)
    problems: list[Problem] = field(default_factory=list)
    card_index: dict[str, int] = field(default_factory=dict)  # card id -> position in cards.yaml
    clauses: list[rule_text.Clause] = field(default_factory=list)
    terms: list[TermSource] = field(default_factory=list)
    # What could not be read, so the checks that would only repeat it stay quiet: the ids
    # of card entries that failed to load, whether cards.yaml was read at all, whether
    # rules.md gave clauses (one root cause, one line).
    unread_cards: set[str] = field(default_factory=set)
    cards_read: bool = False
    rules_read: bool = False

    @property
    def ok(self) -> bool:
        return not any(p.is_error for p in self.problems)

    def deck_of(self, card: CardSource) -> str:
        assert self.game is not None
        return card.deck or next(iter(self.game.decks))

    def card_status(self, card: CardSource) -> str:
        assert self.game is not None
        deck = self.game.decks.get(self.deck_of(card))
        return card.status or (deck.status if deck else self.game.status)

    def deck_counts(self) -> dict[str, int]:
        counts: Counter[str] = Counter()
        for card in self.cards:
            counts[self.deck_of(card)] += card.copies
        return dict(counts)

    def summaries(self) -> list[dict[str, Any]]:
        """One line per deck for the validate summary: counted vs expected."""
        errors = sum(p.is_error for p in self.problems)
        warnings = len(self.problems) - errors
        if self.game is None:
            return [
                {
                    "game": self.slug,
                    "deck": None,
                    "cards": None,
                    "expected": None,
                    "errors": errors,
                    "warnings": warnings,
                }
            ]
        counts = self.deck_counts()
        return [
            {
                "game": self.slug,
                "name": self.game.name,
                "deck": deck.name,
                "status": deck.status,
                "cards": counts.get(key, 0),
                "expected": deck.total,
                "errors": errors,
                "warnings": warnings,
            }
            for key, deck in self.game.decks.items()
        ]


def load_games(project: Project, slugs: Sequence[str] | None = None) -> list[LoadedGame]:
    known = project.game_slugs()
    if slugs:
        unknown = [s for s in slugs if s not in known]
        if unknown:
            raise SourceError(
                Problem(
                    "error", f"unknown game '{unknown[0]}'", hint=f"use one of: {', '.join(known)}"
                )
            )
    return [load_game(project, slug) for slug in (slugs or known)]


def load_game(project: Project, slug: str) -> LoadedGame:
    loaded = LoadedGame(slug=slug)
    folder = project.games_dir / slug
    doc = _read(project, loaded, folder / "game.yaml")
    if doc is None:
        return loaded
    game = _model(loaded, doc, GameSource, doc.data, (), slug=slug)
    if game is None:
        return loaded
    loaded.game = game
    for finding in gamespec.check_declarations(game, slug):
        loaded.problems.append(_at(doc, (), finding, slug))
    if not loaded.ok:
        return loaded  # cards cannot be checked against broken declarations
    _load_cards(project, loaded, folder / "cards.yaml")
    _check_decks(loaded)
    _load_rules(project, loaded, folder)
    rulings_path = folder / "rulings.yaml"
    if rulings_path.exists():
        _load_rulings(project, loaded, rulings_path)
    return loaded


def load_game_with_cards(project: Project, slug: str, cards: bytes) -> LoadedGame:
    """The game as it loads with `cards` for its cards.yaml, the project left untouched: from
    a scratch copy of its folder (an import checks an edited table this way, and a balance
    variant a whole other cards file). Problems in the cards name games/SLUG/cards.yaml."""
    with tempfile.TemporaryDirectory(prefix="cartiera-cards-") as tmp:
        scratch = Path(tmp)
        shutil.copytree(project.games_dir / slug, scratch / "games" / slug)
        (scratch / "games" / slug / "cards.yaml").write_bytes(cards)
        return load_game(dataclasses.replace(project, root=scratch), slug)


def _read(project: Project, loaded: LoadedGame, path: Path) -> YamlDoc | None:
    try:
        doc = read_yaml(path, project.rel(path), loaded.slug, project.yaml_cache)
    except SourceError as exc:
        loaded.problems.append(exc.problem)
        return None
    loaded.docs[path.name] = doc
    return doc


def _model(
    loaded: LoadedGame,
    doc: YamlDoc,
    model: type[BaseModel],
    value: Any,
    prefix: tuple[str | int, ...],
    slug: str,
    card: str | None = None,
) -> Any:
    """Validate `value` with a pydantic model; record each error at its line.

    A value whose only faults are unknown fields is still returned, read without them
    (the errors are recorded), so the checks that need it report its other problems
    instead of everything downstream failing for want of it."""
    try:
        return model.model_validate(value)
    except ValidationError as exc:
        errors = exc.errors()
        for err in errors:
            loc = prefix + tuple(err["loc"])
            message, hint = _describe(err)
            loaded.problems.append(doc.problem(loc, message, game=slug, card=card, hint=hint))
    unknown = [e["loc"] for e in errors if e["type"] == "extra_forbidden" and len(e["loc"]) == 1]
    if len(unknown) < len(errors) or not isinstance(value, dict):
        return None
    try:
        return model.model_validate({k: v for k, v in value.items() if (k,) not in unknown})
    except ValidationError:
        return None


def _describe(err: Any) -> tuple[str, str | None]:
    loc = [str(part) for part in err["loc"] if not str(part).startswith("function-")]
    name = loc[-1] if loc else "value"
    where = ".".join(loc)
    if err["type"] == "missing":
        return f"missing field '{where}'", f"add {name}: …"
    if err["type"] == "extra_forbidden":
        return f"unknown field '{where}'", "remove it or check its spelling"
    message = err["msg"][0].lower() + err["msg"][1:]
    return (f"{where}: {message}" if where else message), None


def _at(
    doc: YamlDoc,
    prefix: tuple[str | int, ...],
    finding: gamespec.Finding,
    slug: str,
    card: str | None = None,
) -> Problem:
    return doc.problem(
        prefix + finding.loc,
        finding.message,
        severity=finding.severity,
        game=slug,
        card=card,
        hint=finding.hint,
    )


def _load_cards(project: Project, loaded: LoadedGame, path: Path) -> None:
    game = loaded.game
    assert game is not None
    doc = _read(project, loaded, path)
    if doc is None:
        return
    entries = doc.data.get("cards") if isinstance(doc.data, dict) else None
    if not isinstance(entries, list):
        loaded.problems.append(
            doc.problem(
                (),
                "cards.yaml must hold `cards:` with a list of cards",
                game=loaded.slug,
                hint="see games/README.md",
            )
        )
        return
    extra = sorted(set(doc.data) - {"cards"})
    if extra:
        loaded.problems.append(
            doc.problem(
                (extra[0],), f"unknown field '{extra[0]}'", game=loaded.slug, hint="remove it"
            )
        )
    plugin = game_plugin(loaded.slug)
    data_models: dict[str, type[BaseModel]] = dict(plugin.data_models) if plugin else {}
    numbers: dict[int, str] = {}
    for index, raw in enumerate(entries):
        label = str(raw.get("id", f"#{index + 1}")) if isinstance(raw, dict) else f"#{index + 1}"
        prefix: tuple[str | int, ...] = ("cards", index)
        card = _model(loaded, doc, CardSource, raw, prefix, loaded.slug, card=label)
        if card is None:
            loaded.unread_cards.add(label)
            continue
        too_large = _too_large(card)
        if too_large:
            loaded.problems.append(
                doc.problem(
                    prefix + too_large,
                    f"{'.'.join(map(str, too_large))} is too large for the database",
                    game=loaded.slug,
                    card=card.id,
                    hint=f"use a whole number below {DB_INT_LIMIT:,}",
                )
            )
            loaded.unread_cards.add(card.id)
            continue
        if card.id in loaded.card_index:
            loaded.problems.append(
                doc.problem(
                    prefix + ("id",),
                    f"duplicate card id '{card.id}'",
                    game=loaded.slug,
                    card=card.id,
                    hint="every card needs its own id",
                )
            )
            loaded.cards.append(card)  # still a card of its deck: the counts stay right
            continue
        if card.number in numbers:
            loaded.problems.append(
                doc.problem(
                    prefix + ("number",),
                    f"duplicate card number {card.number} (also on '{numbers[card.number]}')",
                    game=loaded.slug,
                    card=card.id,
                    hint="give the card an unused number",
                )
            )
        numbers.setdefault(card.number, card.id)
        deck_key = loaded.deck_of(card)
        deck = game.decks.get(deck_key)
        if deck is None:
            loaded.problems.append(
                doc.problem(
                    prefix + ("deck",),
                    f"unknown deck '{deck_key}'",
                    game=loaded.slug,
                    card=card.id,
                    hint=f"use one of: {', '.join(game.decks)}",
                )
            )
        incomplete = deck is not None and deck.status == "incomplete"
        for finding in gamespec.check_card(game, card, incomplete):
            loaded.problems.append(_at(doc, prefix, finding, loaded.slug, card.id))
        model = data_models.get(card.kind)
        if model is not None and card.data is not None:
            _model(loaded, doc, model, card.data, prefix + ("data",), loaded.slug, card.id)
        elif model is None and card.data is not None:
            loaded.problems.append(
                doc.problem(
                    prefix + ("data",),
                    f"kind '{card.kind}' takes no data",
                    game=loaded.slug,
                    card=card.id,
                    hint="remove data",
                )
            )
        loaded.card_index[card.id] = index
        loaded.cards.append(card)
    loaded.cards_read = True
    if plugin is not None and plugin.check is not None and loaded.ok:
        _record_game_checks(loaded, doc, plugin.check(game, loaded.cards))


DB_INT_LIMIT = 2**63  # SQLite (and PostgreSQL's bigint) hold signed 64-bit integers


def _too_large(card: CardSource) -> tuple[str, ...] | None:
    """Where the card holds an integer the database cannot store, or None."""
    values: list[tuple[tuple[str, ...], Any]] = [(("number",), card.number)]
    values += [(("copies",), card.copies)]
    for key, value in card.attributes.items():
        for item in value if isinstance(value, list) else [value]:
            values.append((("attributes", key), item))
    for where, value in values:
        if isinstance(value, int) and not -DB_INT_LIMIT <= value < DB_INT_LIMIT:
            return where
    return None


def _record_game_checks(loaded: LoadedGame, doc: YamlDoc, found: Iterable[CardProblem]) -> None:
    for item in found:
        index = loaded.card_index.get(item.card_id or "")
        loc: tuple[str | int, ...] = ("cards", index) if index is not None else ()
        if index is not None and item.field:
            loc += tuple(item.field.split("."))
        loaded.problems.append(
            doc.problem(
                loc,
                item.message,
                game=loaded.slug,
                card=item.card_id,
                severity="warning" if item.warning else "error",
            )
        )


def _check_decks(loaded: LoadedGame) -> None:
    """Totals per deck and per kind against the expected ones."""
    game = loaded.game
    doc = loaded.docs.get("game.yaml")
    if game is None or doc is None or not loaded.cards_read or loaded.unread_cards:
        return  # the counts would only repeat why a card could not be read
    counts = loaded.deck_counts()
    for key, deck in game.decks.items():
        severity = "warning" if deck.status == "incomplete" else "error"
        by_kind: Counter[str] = Counter()
        for card in loaded.cards:
            if loaded.deck_of(card) == key:
                by_kind[card.kind] += card.copies
        if deck.total is not None and counts.get(key, 0) != deck.total:
            loaded.problems.append(
                doc.problem(
                    ("decks", key, "total"),
                    f"deck '{deck.name}' has {counts.get(key, 0)} cards, expected {deck.total}",
                    severity=severity,
                    game=loaded.slug,
                    hint="add or remove cards (copies count) or correct the total",
                )
            )
        for kind, expected in deck.kinds.items():
            if by_kind.get(kind, 0) != expected:
                loaded.problems.append(
                    doc.problem(
                        ("decks", key, "kinds", kind),
                        f"deck '{deck.name}' has {by_kind.get(kind, 0)} "
                        f"cards of kind '{kind}', expected {expected}",
                        severity=severity,
                        game=loaded.slug,
                        hint="check the copies of that kind's cards",
                    )
                )


def _load_rulings(project: Project, loaded: LoadedGame, path: Path) -> None:
    doc = _read(project, loaded, path)
    if doc is None:
        return
    source = _model(loaded, doc, RulingsSource, doc.data, (), loaded.slug)
    if source is None:
        return
    seen: set[str] = set()
    for index, ruling in enumerate(source.rulings):
        prefix: tuple[str | int, ...] = ("rulings", index)
        if ruling.id in seen:
            loaded.problems.append(
                doc.problem(
                    prefix + ("id",), f"duplicate ruling id '{ruling.id}'", game=loaded.slug
                )
            )
        seen.add(ruling.id)
        for i, card_id in enumerate(ruling.cards):
            if card_id not in loaded.card_index and _unknown_card(loaded, card_id):
                loaded.problems.append(
                    doc.problem(
                        prefix + ("cards", i),
                        f"ruling '{ruling.id}' names unknown card '{card_id}'",
                        game=loaded.slug,
                        hint="use the id of a card in cards.yaml",
                    )
                )
        anchors = {c.anchor for c in loaded.clauses}
        for i, anchor in enumerate(ruling.clauses):
            if loaded.rules_read and anchor not in anchors:
                loaded.problems.append(
                    doc.problem(
                        prefix + ("clauses", i),
                        f"ruling '{ruling.id}' names unknown clause '{anchor}'",
                        game=loaded.slug,
                        hint="use an anchor from rules.md",
                    )
                )
    loaded.rulings = source.rulings


def _unknown_card(loaded: LoadedGame, card_id: str) -> bool:
    """Whether a card id missing from the index is an error of its own, not one that
    follows from a card (or the whole cards.yaml) that could not be read."""
    return loaded.cards_read and card_id not in loaded.unread_cards


def _load_rules(project: Project, loaded: LoadedGame, folder: Path) -> None:
    """rules.md, glossary.yaml and seedmap.yaml: structure, links and seed coverage."""
    path = folder / "rules.md"
    shown = project.rel(path)
    if not path.exists():
        loaded.problems.append(
            Problem(
                "warning", "no rule text yet", file=shown, game=loaded.slug, hint="write rules.md"
            )
        )
        return
    try:
        text = path.read_bytes().decode("utf-8")
    except UnicodeDecodeError:
        loaded.problems.append(
            Problem(
                "error", "not UTF-8", file=shown, game=loaded.slug, hint="save the file as UTF-8"
            )
        )
        return
    if not text.strip():
        loaded.problems.append(
            Problem(
                "error",
                "rules.md is empty",
                file=shown,
                game=loaded.slug,
                hint="write the rules, one numbered section per heading",
            )
        )
        return
    clauses, found = rule_text.parse_rules(text)
    for item in found:
        loaded.problems.append(
            Problem(
                "error", item.message, file=shown, line=item.line, game=loaded.slug, hint=item.hint
            )
        )
    loaded.clauses = clauses
    loaded.rules_read = bool(clauses)
    if not clauses:
        return  # every link to a clause would fail for the one reason already reported
    anchors = {c.anchor for c in clauses}
    glossary_path = folder / "glossary.yaml"
    if glossary_path.exists() and (doc := _read(project, loaded, glossary_path)) is not None:
        glossary = _model(loaded, doc, GlossarySource, doc.data, (), loaded.slug)
        if glossary is not None:
            _check_glossary(loaded, doc, glossary, anchors)
    seedmap_path = folder / "seedmap.yaml"
    if seedmap_path.exists() and (doc := _read(project, loaded, seedmap_path)) is not None:
        seedmap = _model(loaded, doc, SeedMapSource, doc.data, (), loaded.slug)
        if seedmap is not None:
            _check_seedmap(project, loaded, doc, seedmap, anchors)


def _check_glossary(
    loaded: LoadedGame, doc: YamlDoc, glossary: GlossarySource, anchors: set[str]
) -> None:
    seen: set[str] = set()
    for index, term in enumerate(glossary.terms):
        prefix: tuple[str | int, ...] = ("terms", index)
        if term.term in seen:
            loaded.problems.append(
                doc.problem(
                    prefix + ("term",), f"term '{term.term}' is defined twice", game=loaded.slug
                )
            )
        seen.add(term.term)
        if term.clause is not None and term.clause not in anchors:
            loaded.problems.append(
                doc.problem(
                    prefix + ("clause",),
                    f"term '{term.term}' links to unknown clause '{term.clause}'",
                    game=loaded.slug,
                    hint="use an anchor from rules.md",
                )
            )
    loaded.terms = glossary.terms


def _check_seedmap(
    project: Project, loaded: LoadedGame, doc: YamlDoc, seedmap: SeedMapSource, anchors: set[str]
) -> None:
    folder = project.seeds_dir
    seed = folder / seedmap.seed if folder is not None else None
    if seed is None or not seed.exists():
        where = f"in {folder}" if folder is not None else "(CARTIERA_SEEDS is not set)"
        loaded.problems.append(
            doc.problem(
                ("seed",),
                f"seed document {seedmap.seed} not found {where}; coverage not checked",
                severity="warning",
                game=loaded.slug,
                hint="set CARTIERA_SEEDS to the seeds folder",
            )
        )
        return
    for item in rule_text.check_coverage(seedmap, rule_text.seed_paragraphs(seed), anchors):
        loc: tuple[str | int, ...] = ("paragraphs", item.entry) if item.entry is not None else ()
        loaded.problems.append(doc.problem(loc, item.message, game=loaded.slug, hint=item.hint))


def canonical_json(value: Any) -> str:
    """JSON with sorted keys: the same data always gives the same text."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
