"""Samurai Sword source data: the three YAML files validate and match the reference counts."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from pipeline.sources.formats import CardsSource, GameSource, RulingsSource

GAME_DIR = Path(__file__).resolve().parent.parent / "games" / "samurai-sword"

# Majority values of the reference table: name -> (difficolta, ferite, copies).
WEAPONS = {
    "Bokken": (1, 1, 6),
    "Bo": (2, 1, 5),
    "Kiseru": (1, 2, 5),
    "Kusarigama": (2, 2, 4),
    "Shuriken": (3, 1, 3),
    "Naginata": (4, 1, 2),
    "Nagayari": (4, 2, 1),
    "Kanabo": (3, 2, 1),
    "Katana": (2, 3, 1),
    "Wakizashi": (1, 3, 1),
    "Nodachi": (3, 3, 1),
    "Daikyu": (5, 2, 1),
    "Tanegashima": (5, 1, 1),
}
BASE_KINDS = {
    "ruolo": 7,
    "personaggio": 12,
    "arma": 32,
    "proprieta": 15,
    "azione": 43,
    "punteggio": 1,
}
SCHEMA_LINES = {
    "game.yaml": "# yaml-language-server: $schema=../../schemas/game.schema.json",
    "cards.yaml": "# yaml-language-server: $schema=../../schemas/samurai-sword/cards.schema.json",
    "rulings.yaml": "# yaml-language-server: $schema=../../schemas/rulings.schema.json",
}


def _load(name: str):
    # ruamel.yaml is a declared dependency; its safe loader gives plain dicts and lists.
    return YAML(typ="safe").load((GAME_DIR / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def game() -> GameSource:
    return GameSource.model_validate(_load("game.yaml"))


@pytest.fixture(scope="module")
def cards() -> CardsSource:
    return CardsSource.model_validate(_load("cards.yaml"))


@pytest.fixture(scope="module")
def rulings() -> RulingsSource:
    return RulingsSource.model_validate(_load("rulings.yaml"))


def _deck(card, game: GameSource) -> str:
    return card.deck or next(iter(game.decks))


def _base(cards: CardsSource, game: GameSource):
    return [c for c in cards.cards if _deck(c, game) == "base"]


@pytest.mark.parametrize("name", sorted(SCHEMA_LINES))
def test_first_line_is_schema_line(name):
    first = (GAME_DIR / name).read_text(encoding="utf-8").splitlines()[0]
    assert first == SCHEMA_LINES[name]


def test_game_declares_decks_and_kinds(game):
    assert game.slug == "samurai-sword"
    assert next(iter(game.decks)) == "base"
    assert game.decks["base"].total == 110
    assert game.decks["base"].kinds == BASE_KINDS
    assert game.decks["rising-sun"].status == "incomplete"
    assert game.decks["rising-sun"].total == 60
    assert sum(game.decks["rising-sun"].kinds.values()) == 60
    for kind in game.kinds.values():
        assert set(kind.attributes) | set(kind.optional) <= set(game.attributes)
        assert set(kind.texts) <= set(game.texts)


def test_base_deck_has_110_cards(cards, game):
    assert sum(c.copies for c in _base(cards, game)) == 110


def test_base_deck_per_kind(cards, game):
    per_kind = Counter()
    for c in _base(cards, game):
        per_kind[c.kind] += c.copies
    assert dict(per_kind) == BASE_KINDS


def test_weapons_match_reference_majority(cards, game):
    weapons = {c.name: c for c in _base(cards, game) if c.kind == "arma"}
    assert set(weapons) == set(WEAPONS)
    for name, (difficolta, ferite, copies) in WEAPONS.items():
        card = weapons[name]
        assert (card.attributes["difficolta"], card.attributes["ferite"], card.copies) == (
            difficolta,
            ferite,
            copies,
        ), name


def test_ninja_roles_are_three_cards_with_stars(cards, game):
    roles = [c for c in _base(cards, game) if c.kind == "ruolo"]
    ninja = [c for c in roles if c.attributes["squadra"] == "Ninja"]
    assert sorted(c.attributes["stelle"] for c in ninja) == [1, 2, 3]
    assert all(c.copies == 1 for c in ninja)
    samurai = next(c for c in cards.cards if c.id == "samurai")
    assert samurai.copies == 2


def test_ids_and_numbers_unique_and_in_order(cards):
    numbers = [c.number for c in cards.cards]
    assert numbers == sorted(numbers)
    assert len(set(numbers)) == len(numbers)
    ids = [c.id for c in cards.cards]
    assert len(set(ids)) == len(ids)


def test_cards_use_declared_kinds_attributes_and_decks(cards, game):
    for c in cards.cards:
        assert c.kind in game.kinds, c.id
        assert _deck(c, game) in game.decks, c.id
        kind = game.kinds[c.kind]
        assert set(c.attributes) <= set(kind.attributes) | set(kind.optional), c.id
        assert set(c.text) <= set(kind.texts), c.id
        for key, value in c.attributes.items():
            spec = game.attributes[key]
            if spec.type == "int":
                assert isinstance(value, int), (c.id, key)
                assert spec.min is None or value >= spec.min, (c.id, key)
                assert spec.max is None or value <= spec.max, (c.id, key)
            elif spec.type == "enum":
                assert value in spec.values, (c.id, key)


def test_base_cards_are_complete(cards, game):
    for c in _base(cards, game):
        kind = game.kinds[c.kind]
        assert set(kind.attributes) <= set(c.attributes), c.id
        assert set(kind.texts) <= set(c.text), c.id
        assert all(t.strip() for t in c.text.values()), c.id


def test_colours_follow_card_families(cards, game):
    expected = {"arma": "rosso", "proprieta": "blu", "azione": "giallo"}
    roles = {"Shogun": "giallo", "Ninja": "blu", "Ronin": "rosso"}
    for c in cards.cards:
        if c.kind in expected:
            assert c.attributes["colore"] == expected[c.kind], c.id
        if c.kind == "ruolo":
            assert c.attributes["colore"] == roles[c.attributes["squadra"]], c.id


def test_texts_fit_on_a_card(cards):
    for c in cards.cards:
        for field, text in c.text.items():
            assert len(text) <= 180, (c.id, field, len(text))
            assert "\n" not in text, (c.id, field)


def test_rising_sun_lists_only_known_cards(cards, game):
    rising = [c for c in cards.cards if _deck(c, game) == "rising-sun"]
    per_kind = Counter(c.kind for c in rising)
    assert per_kind == {"personaggio": 8, "arma": 9}
    assert "rikyu" not in {c.id for c in cards.cards}


def test_every_ruling_card_exists(cards, rulings):
    ids = {c.id for c in cards.cards}
    for ruling in rulings.rulings:
        assert set(ruling.cards) <= ids, (ruling.id, set(ruling.cards) - ids)


def test_rulings_cover_the_disagreements(rulings):
    ids = {r.id for r in rulings.rulings}
    assert len(ids) == len(rulings.rulings)
    required = {
        "daikyu-valori",
        "shuriken-valori",
        "proprieta-azioni-15-43",
        "segnalini-resistenza",
        "segnalini-onore",
        "ninja-doppio-in-quattro",
        "nomi-concentrazione-armatura",
        "regole-tre-giocatori",
        "rikyu-escluso",
        "parita-rising-sun",
        "formato-carte",
    }
    assert required <= ids


def test_components_have_the_chosen_quantities(game):
    quantities = {c.id: c.quantity for c in game.components}
    assert quantities == {"segnalini-resistenza": 36, "segnalini-onore": 30}
