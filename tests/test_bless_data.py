"""Bless LuceOmbra source data: the YAML validates, matches the reference facts, and every
card's Italian text agrees with its structured effects."""

from __future__ import annotations

import copy
import csv
import io
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError
from ruamel.yaml import YAML

from pipeline.games import bless
from pipeline.sources.formats import CardsSource, GameSource

ROOT = Path(__file__).resolve().parents[1]
GAME_DIR = ROOT / "games" / "bless"
SCHEMA_LINES = {
    "game.yaml": "# yaml-language-server: $schema=../../schemas/game.schema.json",
    "cards.yaml": "# yaml-language-server: $schema=../../schemas/bless/cards.schema.json",
}


def _load(name: str) -> Any:
    return YAML(typ="safe").load((GAME_DIR / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def game() -> GameSource:
    return GameSource.model_validate(_load("game.yaml"))


@pytest.fixture(scope="module")
def raw_cards() -> dict[str, Any]:
    return _load("cards.yaml")


@pytest.fixture(scope="module")
def cards(raw_cards: dict[str, Any]) -> CardsSource:
    return CardsSource.model_validate(raw_cards)


def _problems(game: GameSource, raw: dict[str, Any]) -> list[bless.CardProblem]:
    return list(bless.check(game, CardsSource.model_validate(raw).cards))


@pytest.mark.parametrize("name", sorted(SCHEMA_LINES))
def test_first_line_points_at_schema(name: str) -> None:
    first = (GAME_DIR / name).read_text(encoding="utf-8").splitlines()[0]
    assert first == SCHEMA_LINES[name]


def test_game_declares_the_deck(game: GameSource) -> None:
    assert (game.slug, game.status, game.card_size) == ("bless", "official", "poker")
    assert (game.players.min, game.players.max) == (2, 2)
    assert set(game.attributes) == {"forma", "occhio", "karma", "preghiera"}
    assert game.attributes["forma"].values == ["Luce", "Ombra", "Duale"]
    assert game.attributes["preghiera"].values == ["Impulso", "Eco", "Legame"]
    assert game.kinds["carta"].texts == ["maledizione", "preghiera"]
    deck = game.decks["luceombra"]
    assert (deck.name, deck.total, deck.kinds) == ("LuceOmbra", 62, {"carta": 62})


def test_every_card_validates(cards: CardsSource, game: GameSource) -> None:
    required = game.kinds["carta"].attributes
    for card in cards.cards:
        assert card.kind == "carta"
        assert sorted(card.attributes) == sorted(required), card.id
        assert set(card.text) == {"maledizione", "preghiera"}, card.id
        bless.BlessEffects.model_validate(card.data)


def test_composition(cards: CardsSource) -> None:
    assert [c.number for c in cards.cards] == list(range(1, 63))
    assert len({c.id for c in cards.cards}) == 62
    assert Counter(c.attributes["forma"] for c in cards.cards) == {
        "Luce": 29,
        "Ombra": 29,
        "Duale": 4,
    }
    assert Counter(c.attributes["preghiera"] for c in cards.cards) == {
        "Impulso": 25,
        "Eco": 20,
        "Legame": 17,
    }


def test_attributes_match_the_reference(cards: CardsSource, reference: Path) -> None:
    table = reference / "bless-luceombra.tsv"
    assert table.exists(), f"the reference table {table.name} must be in {reference}"
    lines = [
        line
        for line in table.read_text(encoding="utf-8").splitlines()
        if line.strip() and not line.startswith("#")
    ]
    facts = {
        int(row["id"]): row for row in csv.DictReader(io.StringIO("\n".join(lines)), delimiter="\t")
    }
    assert sorted(facts) == [c.number for c in cards.cards]
    for card in cards.cards:
        row = facts[card.number]
        assert card.name == row["name"]
        assert card.attributes == {
            "forma": row["form"],
            "occhio": int(row["eye"]),
            "karma": int(row["karma"]),
            "preghiera": row["prayer_type"],
        }, card.id
        has_effect = row["malediction_effect"] != "none"
        assert bool(card.data["maledizione"]) == has_effect, card.id


def test_cards_without_maledizione_effect(cards: CardsSource) -> None:
    empty = {c.number for c in cards.cards if not c.data["maledizione"]}
    assert empty == {11, 51, 61}
    for card in cards.cards:
        assert (card.text["maledizione"] == bless.NO_EFFECT) == (card.number in empty)


def test_texts_fit_a_poker_card(cards: CardsSource) -> None:
    for card in cards.cards:
        for field, text in card.text.items():
            assert 0 < len(text) <= 160, (card.id, field, len(text))


def test_shipped_data_passes_the_check(game: GameSource, cards: CardsSource) -> None:
    assert [p for p in bless.check(game, cards.cards)] == []


def test_check_catches_a_number_changed_only_in_the_structure(
    game: GameSource, raw_cards: dict[str, Any]
) -> None:
    broken = copy.deepcopy(raw_cards)
    step = broken["cards"][0]["data"]["preghiera"][0]["effects"][0]  # Re Luce: +2 Occhio
    assert step["add"] == 2
    step["add"] = 3
    problems = _problems(game, broken)
    assert [(p.card_id, p.field) for p in problems] == [("re-luce", "text.preghiera")]
    assert "3" in problems[0].message


def test_check_catches_a_keyword_missing_from_the_text(
    game: GameSource, raw_cards: dict[str, Any]
) -> None:
    broken = copy.deepcopy(raw_cards)
    broken["cards"][1]["text"]["maledizione"] = "Impatto."  # Zoreo grants Rivalità
    problems = _problems(game, broken)
    assert [(p.card_id, p.field) for p in problems] == [
        ("zoreo-campione-della-luce", "text.maledizione")
    ]
    assert "Rivalità" in problems[0].message


def test_check_catches_a_structure_that_does_not_fit_the_prayer_type(
    game: GameSource, raw_cards: dict[str, Any]
) -> None:
    broken = copy.deepcopy(raw_cards)
    card = broken["cards"][4]  # Battito d'Ali, an Impulso
    assert card["attributes"]["preghiera"] == "Impulso"
    card["data"]["preghiera"][0]["trigger"] = "bond"
    messages = [p.message for p in _problems(game, broken) if p.field == "data.preghiera"]
    assert any("Impulso uses triggers resolve" in m for m in messages)
    assert any("one-shot" in m for m in messages)


def test_check_catches_a_bond_that_misses_its_host(
    game: GameSource, raw_cards: dict[str, Any]
) -> None:
    broken = copy.deepcopy(raw_cards)
    broken["cards"][2]["data"]["preghiera"][0]["effects"][0]["target"] = "this"
    messages = [p.message for p in _problems(game, broken)]
    assert messages == ["preghiera ability 1: a bond's grant must apply to the host"]


def test_check_catches_a_card_said_to_have_no_effect(
    game: GameSource, raw_cards: dict[str, Any]
) -> None:
    broken = copy.deepcopy(raw_cards)
    broken["cards"][10]["text"]["maledizione"] = "Barriera."  # Voce del Guru has none
    assert [p.field for p in _problems(game, broken)] == ["text.maledizione"]


@pytest.mark.parametrize(
    "step",
    [
        {"op": "heal", "target": "this"},
        {"op": "modify", "stat": "occhio", "add": 1, "set": 2},
        {"op": "break", "target": {"zone": "graveyard"}},
        {"op": "break", "target": {"pick": "highest"}},
        {"op": "draw", "count": 1, "text": "pesca"},
    ],
)
def test_vocabulary_rejects_malformed_steps(step: dict[str, Any]) -> None:
    with pytest.raises(ValidationError):
        bless.BlessEffects.model_validate(
            {"maledizione": [], "preghiera": [{"trigger": "resolve", "effects": [step]}]}
        )


def test_every_ability_has_a_summary(cards: CardsSource) -> None:
    for card in cards.cards:
        effects = bless.BlessEffects.model_validate(card.data)
        for ability in effects.maledizione + effects.preghiera:
            line = bless.summary(ability)
            assert line.startswith(ability.trigger) and "(" in line, card.id
