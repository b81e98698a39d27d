"""The BLITZ and Mazzo sources: valid, consistent, and true to the counts of their seeds."""

from __future__ import annotations

from collections import Counter
from itertools import permutations
from pathlib import Path

import pytest
import yaml

from pipeline.sources.formats import CardSource, CardsSource, GameSource, RulingsSource

GAMES = Path(__file__).resolve().parent.parent / "games"
SLUGS = ["blitz", "mazzo"]
ABILITIES = ["forza", "astuzia", "velocita", "magia", "coraggio"]
SCHEMA_LINES = {
    "game.yaml": "# yaml-language-server: $schema=../../schemas/game.schema.json",
    "cards.yaml": "# yaml-language-server: $schema=../../schemas/{slug}/cards.schema.json",
    "rulings.yaml": "# yaml-language-server: $schema=../../schemas/rulings.schema.json",
}


def read(slug: str, name: str) -> dict:
    return yaml.safe_load((GAMES / slug / name).read_text(encoding="utf-8"))


def game(slug: str) -> GameSource:
    return GameSource.model_validate(read(slug, "game.yaml"))


def cards(slug: str) -> list[CardSource]:
    return CardsSource.model_validate(read(slug, "cards.yaml")).cards


def rulings(slug: str) -> RulingsSource:
    return RulingsSource.model_validate(read(slug, "rulings.yaml"))


def copies_by(cards_: list[CardSource], key) -> Counter:
    counts: Counter = Counter()
    for card in cards_:
        counts[key(card)] += card.copies
    return counts


@pytest.mark.parametrize("slug", SLUGS)
@pytest.mark.parametrize("name", sorted(SCHEMA_LINES))
def test_first_line_is_the_schema_line(slug, name):
    first = (GAMES / slug / name).read_text(encoding="utf-8").splitlines()[0]
    assert first == SCHEMA_LINES[name].format(slug=slug)


@pytest.mark.parametrize("slug", SLUGS)
def test_game_is_reconstructed_and_says_so(slug):
    source = game(slug)
    assert source.slug == slug
    assert source.status == "reconstructed"
    assert source.status_note and len(source.status_note) > 80
    for deck in source.decks.values():
        assert deck.status == "reconstructed"


@pytest.mark.parametrize("slug", SLUGS)
def test_every_card_fits_its_kind(slug):
    source = game(slug)
    for card in cards(slug):
        kind = source.kinds[card.kind]
        allowed = set(kind.attributes) | set(kind.optional)
        assert set(kind.attributes) <= set(card.attributes), card.id
        assert set(card.attributes) <= allowed, card.id
        assert set(card.text) == set(kind.texts), card.id
        assert card.deck in (None, *source.decks), card.id
        for key, value in card.attributes.items():
            spec = source.attributes[key]
            if spec.type == "enum":
                assert value in spec.values, (card.id, key, value)
            elif spec.type == "int":
                assert isinstance(value, int) and not isinstance(value, bool), (card.id, key)
                assert spec.min <= value <= spec.max, (card.id, key, value)
        for text in card.text.values():
            assert text.strip() and "\n" not in text, card.id


@pytest.mark.parametrize("slug", SLUGS)
def test_ids_and_numbers_are_unique_and_in_order(slug):
    cards_ = cards(slug)
    numbers = [card.number for card in cards_]
    ids = [card.id for card in cards_]
    assert numbers == sorted(numbers)
    assert len(set(numbers)) == len(numbers)
    assert len(set(ids)) == len(ids)


@pytest.mark.parametrize("slug", SLUGS)
def test_decks_match_their_declared_totals(slug):
    source = game(slug)
    first_deck = next(iter(source.decks))
    cards_ = cards(slug)
    for name, deck in source.decks.items():
        in_deck = [card for card in cards_ if (card.deck or first_deck) == name]
        assert sum(card.copies for card in in_deck) == deck.total
        assert dict(copies_by(in_deck, lambda card: card.kind)) == deck.kinds


@pytest.mark.parametrize("slug", SLUGS)
def test_cards_yaml_keeps_a_regular_layout(slug):
    """Another tool rewrites single values in place: flow attributes and one-line texts."""
    lines = (GAMES / slug / "cards.yaml").read_text(encoding="utf-8").splitlines()
    attribute_lines = [line for line in lines if line.strip().startswith("attributes:")]
    assert len(attribute_lines) == len(cards(slug))
    for line in attribute_lines:
        assert line.startswith("    attributes: {") and line.endswith("}"), line
    for line in lines[1:]:
        indent = len(line) - len(line.lstrip(" "))
        assert indent % 2 == 0 and "\t" not in line, line


@pytest.mark.parametrize("slug", SLUGS)
def test_rulings_are_valid_and_point_at_real_cards(slug):
    ids = {card.id for card in cards(slug)}
    source = rulings(slug)
    ruling_ids = [ruling.id for ruling in source.rulings]
    assert len(set(ruling_ids)) == len(ruling_ids)
    for ruling in source.rulings:
        assert ruling.id.startswith(f"{slug}-")
        assert set(ruling.cards) <= ids, ruling.id
        assert ruling.question.strip() and ruling.answer.strip()


# BLITZ


def test_blitz_players_and_deck_as_in_the_seed():
    source = game("blitz")
    assert (source.players.min, source.players.max) == (2, 5)
    assert source.decks["base"].total == 54
    assert source.decks["base"].kinds == {"collezione": 36, "azione": 16, "blitz": 1, "regole": 1}


def test_blitz_totals_per_kind():
    assert copies_by(cards("blitz"), lambda card: card.kind) == {
        "collezione": 36,
        "azione": 16,
        "blitz": 1,
        "regole": 1,
    }


def test_blitz_four_collection_types_nine_each():
    collection = [card for card in cards("blitz") if card.kind == "collezione"]
    per_type = copies_by(collection, lambda card: card.attributes["tipologia"])
    assert set(per_type) == set(game("blitz").attributes["tipologia"].values)
    assert list(per_type.values()) == [9, 9, 9, 9]
    # each type looks different on the table
    assert len({card.attributes["colore"] for card in collection}) == 4
    assert len({card.attributes["simbolo"] for card in collection}) == 4


def test_blitz_action_cards_as_the_seed_lists_them():
    actions = [card for card in cards("blitz") if card.kind == "azione"]
    per_action = copies_by(
        actions, lambda card: (card.attributes["azione"], card.attributes["valore"])
    )
    assert per_action == {("Pesca", 2): 4, ("Scambia", 1): 4, ("Ruba", 1): 4, ("Blocca", 1): 4}
    for card in actions:
        assert card.name == f"{card.attributes['azione']} x{card.attributes['valore']}"


def test_blitz_texts_fit_a_poker_card():
    for card in cards("blitz"):
        for text in card.text.values():
            assert len(text) <= 200, card.id


def test_blitz_rulings_cover_what_the_seed_leaves_open():
    ids = {ruling.id for ruling in rulings("blitz").rulings}
    assert {
        "blitz-tipologie-di-collezione",
        "blitz-collezioni-per-vincere",
        "blitz-pescare-da-avversario",
        "blitz-blocca-due-secondi",
    } <= ids


# Mazzo


def characters() -> list[CardSource]:
    return [card for card in cards("mazzo") if card.kind == "personaggio"]


def abilities(card: CardSource) -> dict[str, int]:
    return {key: value for key, value in card.attributes.items() if key in ABILITIES}


def test_mazzo_abilities_are_declared_as_optional_ints():
    source = game("mazzo")
    kind = source.kinds["personaggio"]
    assert sorted(kind.optional) == sorted(ABILITIES)
    for key in ABILITIES:
        assert source.attributes[key].type == "int"


def test_mazzo_every_character_has_an_ability():
    for card in characters():
        assert abilities(card), card.id


def test_mazzo_every_ability_allows_a_bluff():
    """An ability must be common enough to be declared and missing often enough to deny it."""
    chars = characters()
    per_ability = Counter(key for card in chars for key in abilities(card))
    assert set(per_ability) == set(ABILITIES)
    for key, count in per_ability.items():
        assert len(chars) // 3 <= count <= 2 * len(chars) // 3, key
    assert max(per_ability.values()) - min(per_ability.values()) <= 2


def test_mazzo_values_spread_and_no_character_dominates():
    chars = characters()
    values = {value for card in chars for value in abilities(card).values()}
    assert values == set(range(1, 11))
    for strong, weak in permutations(chars, 2):
        a, b = abilities(strong), abilities(weak)
        dominates = set(b) <= set(a) and all(a[key] >= b[key] for key in b)
        assert not dominates, f"{strong.id} domina {weak.id}"


def test_mazzo_ability_sets_are_all_different():
    sets = [frozenset(abilities(card)) for card in characters()]
    assert len(set(sets)) == len(sets)


def test_mazzo_deck_deals_evenly():
    source = game("mazzo")
    deck = source.decks["base"]
    cards_ = cards("mazzo")
    kinds = copies_by(cards_, lambda card: card.kind)
    assert sum(card.copies for card in cards_) == deck.total
    assert kinds["mazziere"] == 1 and kinds["regole"] == 1
    playable = deck.total - kinds["regole"]
    assert playable % 2 == 0
    assert playable >= 2 * 3
    assert (source.players.min, source.players.max) == (2, 2)


def test_mazzo_factions_have_one_colour_each():
    colour_of = {}
    for card in characters():
        faction, colour = card.attributes["fazione"], card.attributes["colore"]
        assert colour_of.setdefault(faction, colour) == colour, card.id
    assert len(set(colour_of.values())) == len(colour_of)


def test_mazzo_rulings_cover_what_the_seed_leaves_open():
    ids = {ruling.id for ruling in rulings("mazzo").rulings}
    assert {
        "mazzo-carte-ricostruite",
        "mazzo-non-ce-lho-creduto",
        "mazzo-pareggio-nello-scontro",
        "mazzo-mazziere-in-difesa",
        "mazzo-mazziere-in-attacco",
        "mazzo-distribuire-equamente",
        "mazzo-bottino-piu-grande",
    } <= ids
