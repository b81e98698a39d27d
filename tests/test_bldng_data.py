"""BLDNG source data: the seed's card breakdown, our 36 projects, and the game's checks."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from pipeline.engine.plugin import CardProblem
from pipeline.engine.registry import plugin as game_plugin
from pipeline.games.bldng import DATA_MODELS, Project, check
from pipeline.sources.formats import CardSource, CardsSource, GameSource, RulingsSource

GAME_DIR = Path(__file__).resolve().parents[1] / "games" / "bldng"
SHAPES = ["Triangolo", "Cerchio", "Quadrato", "Rettangolo"]
COLOURS = ["Giallo", "Verde", "Rosso", "Blu"]
WHAT_HAPPENS = {
    "Take three cards": 2,
    "Take one card from each player": 1,
    "Steal one Circle": 1,
    "Steal one Square": 1,
    "Steal one Triangle": 1,
    "Steal one Rectangle": 1,
    "Shift all subjects to the right": 1,
    "Change subject": 1,
    "Reverse": 2,
    "Give 5 cards back": 1,
    "Skip your turn": 2,
    "You can have up to 15 cards": 1,
}
SCHEMA_LINES = {
    "game.yaml": "# yaml-language-server: $schema=../../schemas/game.schema.json",
    "cards.yaml": "# yaml-language-server: $schema=../../schemas/bldng/cards.schema.json",
    "rulings.yaml": "# yaml-language-server: $schema=../../schemas/rulings.schema.json",
}


def _load(name: str) -> dict:
    return yaml.safe_load((GAME_DIR / name).read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def game() -> GameSource:
    return GameSource.model_validate(_load("game.yaml"))


@pytest.fixture(scope="module")
def cards() -> list[CardSource]:
    return CardsSource.model_validate(_load("cards.yaml")).cards


@pytest.fixture(scope="module")
def rulings() -> RulingsSource:
    return RulingsSource.model_validate(_load("rulings.yaml"))


def _of_kind(cards: list[CardSource], kind: str) -> list[CardSource]:
    return [card for card in cards if card.kind == kind]


def _copies(cards: list[CardSource]) -> int:
    return sum(card.copies for card in cards)


def _errors(problems: list[CardProblem]) -> list[CardProblem]:
    return [p for p in problems if not p.warning]


@pytest.mark.parametrize("name", sorted(SCHEMA_LINES))
def test_schema_line_comes_first(name: str) -> None:
    first = (GAME_DIR / name).read_text(encoding="utf-8").splitlines()[0]
    assert first == SCHEMA_LINES[name]


def test_game_declares_a_reconstructed_game_for_two_to_six(game: GameSource) -> None:
    assert game.slug == GAME_DIR.name == "bldng"
    assert (game.players.min, game.players.max) == (2, 6)
    assert game.status == "reconstructed" and game.status_note
    assert game.attributes["forma"].values == SHAPES and game.attributes["forma"].multiple
    assert game.attributes["colore"].values == COLOURS and game.attributes["colore"].multiple
    assert game.attributes["tipo"].values == ["ordinato", "scultura"]
    assert set(game.kinds) == {"forma", "jolly", "progetto", "evento", "link"}
    assert game_plugin(game.slug).check is check


def test_deck_totals_match_the_seed(game: GameSource, cards: list[CardSource]) -> None:
    deck = game.decks["base"]
    assert list(game.decks) == ["base"]
    assert deck.total == _copies(cards) == 126
    assert deck.kinds == {"forma": 64, "jolly": 10, "progetto": 36, "evento": 15, "link": 1}
    assert {kind: _copies(_of_kind(cards, kind)) for kind in deck.kinds} == deck.kinds


def test_cards_are_numbered_in_order_with_unique_ids(cards: list[CardSource]) -> None:
    numbers = [card.number for card in cards]
    assert numbers == sorted(numbers) and len(set(numbers)) == len(numbers)
    assert len({card.id for card in cards}) == len(cards)


def test_cards_carry_what_their_kind_declares(game: GameSource, cards: list[CardSource]) -> None:
    for card in cards:
        kind = game.kinds[card.kind]
        assert set(kind.attributes) <= set(card.attributes), card.id
        assert set(card.attributes) <= set(kind.attributes) | set(kind.optional), card.id
        assert set(card.text) == set(kind.texts), card.id
        assert all(0 < len(text) <= 200 for text in card.text.values()), card.id
        for key, value in card.attributes.items():
            attribute = game.attributes[key]
            values = value if attribute.multiple else [value]
            assert isinstance(values, list), (card.id, key)
            if attribute.type == "enum":
                assert set(values) <= set(attribute.values), (card.id, key)


def test_plain_forme_are_every_shape_in_every_colour_four_times(cards: list[CardSource]) -> None:
    forme = _of_kind(cards, "forma")
    pairs = Counter()
    for card in forme:
        (shape,), (colour,) = card.attributes["forma"], card.attributes["colore"]
        pairs[(shape, colour)] += card.copies
    assert pairs == {(s, c): 4 for s in SHAPES for c in COLOURS}


def test_jolly_complete_the_74_forme(cards: list[CardSource]) -> None:
    jolly = _of_kind(cards, "jolly")
    one_shape = [c for c in jolly if len(c.attributes["forma"]) == 1]
    one_colour = [c for c in jolly if len(c.attributes["colore"]) == 1]
    anything = [c for c in jolly if c not in one_shape and c not in one_colour]
    assert sorted(c.attributes["forma"][0] for c in one_shape) == sorted(SHAPES)
    assert all(c.attributes["colore"] == COLOURS and c.copies == 1 for c in one_shape)
    assert sorted(c.attributes["colore"][0] for c in one_colour) == sorted(COLOURS)
    assert all(c.attributes["forma"] == SHAPES and c.copies == 1 for c in one_colour)
    assert [(c.attributes["forma"], c.attributes["colore"]) for c in anything] == [
        (SHAPES, COLOURS)
    ]
    assert _copies(anything) == 2
    assert _copies(jolly) + _copies(_of_kind(cards, "forma")) == 74


def test_projects_by_type_and_size(cards: list[CardSource]) -> None:
    projects = _of_kind(cards, "progetto")
    sizes = Counter((c.attributes["tipo"], c.attributes["elementi"]) for c in projects)
    assert sizes == {
        ("ordinato", 8): 10,
        ("scultura", 8): 8,
        ("ordinato", 10): 10,
        ("scultura", 10): 8,
    }
    assert all(c.copies == 1 for c in projects)
    assert len({c.name for c in projects}) == 36


def test_project_data_validates_and_uses_every_shape_and_colour(cards: list[CardSource]) -> None:
    compositions = set()
    for card in _of_kind(cards, "progetto"):
        project = DATA_MODELS["progetto"].model_validate(card.data)
        assert len(project.elementi) == card.attributes["elementi"], card.id
        assert {e.forma for e in project.elementi} == set(SHAPES), card.id
        assert {e.colore for e in project.elementi} == set(COLOURS), card.id
        used = Counter((e.forma, e.colore) for e in project.elementi)
        assert max(used.values()) <= 3, card.id  # ruling progetti-ricostruiti
        compositions.add(frozenset(used.items()))
    assert len(compositions) == 36


def test_what_happens_by_name_and_copies(cards: list[CardSource]) -> None:
    events = _of_kind(cards, "evento")
    assert {c.name: c.copies for c in events} == WHAT_HAPPENS
    assert _copies(events) == 15
    assert [c.id for c in events if c.attributes["permanente"]] == ["you-can-have-up-to-15-cards"]
    steal = {c.name: c.attributes.get("forma") for c in events if c.name.startswith("Steal")}
    assert steal == {
        "Steal one Circle": ["Cerchio"],
        "Steal one Square": ["Quadrato"],
        "Steal one Triangle": ["Triangolo"],
        "Steal one Rectangle": ["Rettangolo"],
    }


def test_one_link_card(cards: list[CardSource]) -> None:
    (link,) = _of_kind(cards, "link")
    assert link.copies == 1 and link.text["effetto"]


def test_rulings_are_unique_and_name_real_cards(
    rulings: RulingsSource, cards: list[CardSource]
) -> None:
    ids = [r.id for r in rulings.rulings]
    assert len(set(ids)) == len(ids)
    assert {"progetto-quattro-forme-quattro-colori", "jolly-un-elemento"} <= set(ids)
    assert "steal-senza-bersaglio" in ids
    card_ids = {c.id for c in cards}
    assert all(set(r.cards) <= card_ids for r in rulings.rulings)


def test_shipped_data_passes_check_without_needing_jolly(
    game: GameSource, cards: list[CardSource]
) -> None:
    assert list(check(game, cards)) == []


def _with_project(cards: list[CardSource], card_id: str, **changes) -> list[CardSource]:
    return [c.model_copy(update=changes) if c.id == card_id else c for c in cards]


def _elements(pairs: list[tuple[str, str]]) -> dict:
    return {
        "elementi": [
            {"forma": f, "colore": c, "x": i % 5, "y": i // 5} for i, (f, c) in enumerate(pairs)
        ]
    }


FIVE_YELLOW_CIRCLES = [("Cerchio", "Giallo")] * 5 + [
    ("Triangolo", "Verde"),
    ("Quadrato", "Rosso"),
    ("Rettangolo", "Blu"),
]


def test_project_needing_a_jolly_is_a_warning(game: GameSource, cards: list[CardSource]) -> None:
    changed = _with_project(cards, "scacchiera", data=_elements(FIVE_YELLOW_CIRCLES))
    problems = list(check(game, changed))
    assert _errors(problems) == []
    assert [(p.card_id, p.warning) for p in problems] == [("scacchiera", True)]
    assert "1 Jolly" in problems[0].message


def test_project_impossible_without_jolly_is_an_error(
    game: GameSource, cards: list[CardSource]
) -> None:
    no_jolly = [c for c in cards if c.kind != "jolly"]
    changed = _with_project(no_jolly, "scacchiera", data=_elements(FIVE_YELLOW_CIRCLES))
    (error,) = _errors(list(check(game, changed)))
    assert error.card_id == "scacchiera" and "impossibile" in error.message


def test_project_beyond_every_jolly_is_an_error(game: GameSource, cards: list[CardSource]) -> None:
    # 4 plain yellow circles + 4 Jolly that can be one (cerchio, giallo, 2 universali) = 8 < 9
    pairs = [("Cerchio", "Giallo")] * 9 + [("Triangolo", "Verde")]
    changed = _with_project(cards, "castello", data=_elements(pairs))
    errors = _errors(list(check(game, changed)))
    assert any("impossibile" in e.message and "scoperti: 1" in e.message for e in errors)


def test_wrong_element_count_is_an_error(game: GameSource, cards: list[CardSource]) -> None:
    changed = _with_project(cards, "scacchiera", attributes={"tipo": "ordinato", "elementi": 10})
    (error,) = _errors(list(check(game, changed)))
    assert error.card_id == "scacchiera" and "attributo elementi" in error.message


def test_unknown_shape_and_overlap_are_errors(game: GameSource, cards: list[CardSource]) -> None:
    (torre,) = [c for c in cards if c.id == "torre"]
    elementi = [dict(e) for e in torre.data["elementi"]]
    elementi[0]["forma"] = "Esagono"
    elementi[1].update(x=0.5, y=0)  # half a cell from element 0
    changed = _with_project(cards, "torre", data={"elementi": elementi})
    fields = {p.field for p in _errors(list(check(game, changed)))}
    assert fields == {"data.elementi[0].forma", "data.elementi[1]"}


def test_ordinato_off_the_grid_is_a_warning(game: GameSource, cards: list[CardSource]) -> None:
    (muro,) = [c for c in cards if c.id == "muro"]
    elementi = [dict(e) for e in muro.data["elementi"]]
    elementi[0]["rotazione"] = 45
    changed = _with_project(cards, "muro", data={"elementi": elementi})
    problems = list(check(game, changed))
    assert [(p.field, p.warning) for p in problems] == [("data.elementi[0]", True)]


@pytest.mark.parametrize("size", [7, 9, 11])
def test_project_model_rejects_sizes_other_than_8_or_10(size: int) -> None:
    with pytest.raises(ValidationError):
        Project.model_validate(_elements([("Cerchio", "Rosso")] * size))


def test_project_model_forbids_unknown_keys() -> None:
    data = _elements([("Cerchio", "Rosso")] * 8)
    data["elementi"][0]["colour"] = "Rosso"
    with pytest.raises(ValidationError):
        Project.model_validate(data)
