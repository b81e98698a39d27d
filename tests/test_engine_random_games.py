"""The platform around a game's rules, on Bless: replays (another generator, other cards,
a file, its size, a broken one), narration, clones, views, refused actions, and the
simulation's figures. Random games of every engine to the end, with their invariants,
determinism and replays, are tests/test_conformance.py's; Bless's own checks of its random
games are in tests/test_engine_bless.py."""

from __future__ import annotations

import random
from pathlib import Path
from types import ModuleType

import pytest

from pipeline.common.problems import SourceError
from pipeline.common.project import open_project
from pipeline.engine import IllegalAction, RandomAgent, Replay, ReplayError, play
from pipeline.engine.core import play_replay
from pipeline.play.records import load_rules, replay_file
from pipeline.play.simulate import make_setup, record_game, simulate


@pytest.fixture(scope="module")
def root(built_copy) -> Path:
    """A private copy of the session's built project (see conftest.built_copy)."""
    return built_copy("random")


@pytest.fixture(scope="module")
def rules(root: Path):
    return load_rules(open_project(root), "bless")


def test_replay_does_not_use_the_random_generator(rules):
    game = play(rules.new_game(5), [RandomAgent(3), RandomAgent(4)])
    replay = Replay.from_json(Replay.of(game, rules, 5, {}).to_json())
    replay.seed = 999  # a different generator: the recorded chance outcomes decide
    assert play_replay(rules, replay).log == game.log


def test_replay_refuses_other_cards(rules):
    game = play(rules.new_game(8), [RandomAgent(1), RandomAgent(2)])
    replay = Replay.from_json(Replay.of(game, rules, 8, {}).to_json())
    edited = rules.edited("re-luce", {"occhio": 9})
    with pytest.raises(ReplayError, match="cards changed"):
        play_replay(edited, replay)


def test_replay_narrates_in_italian(rules):
    game = play(rules.new_game(4), [RandomAgent(1), RandomAgent(2)])
    lines = rules.narrate(game.log)
    assert lines[0].startswith("Si mescola il Mazzo")
    assert lines[-1].startswith("Fine della partita")
    assert any("Turno 1" in line for line in lines)


def test_clone_is_independent(rules):
    game = rules.new_game(31)
    rng = random.Random(1)
    for _ in range(60):
        game.apply(rng.choice(game.legal_actions()))
    copy = game.clone()
    assert copy.legal_actions() == game.legal_actions()
    moves = []
    for _ in range(40):
        if game.is_terminal():
            break
        action = rng.choice(game.legal_actions())
        moves.append(action)
        game.apply(action)
    for action in moves:
        copy.apply(action)
    assert copy.log == game.log and copy.zone == game.zone  # same moves, same game
    fresh = game.clone()
    if not fresh.is_terminal():
        fresh.apply(fresh.legal_actions()[-1])
        assert len(fresh.log) > len(game.log)  # the original did not move


def test_views_hide_what_they_must(rules):
    game = rules.new_game(2)
    for p in (0, 1):
        view = game.observation(p)
        mine = sorted(rules.cards[c].code for c in game.piles[4 + p])
        assert sorted(view["hand"]) == mine
        assert view["sides"][1 - p]["hand"] == 4 and view["mazzo"] == 54
        assert "options" in (view["decision"] or {}) or game.current_player() != p
        text = str(view)
        assert not any(rules.cards[c].code in text for c in game.piles[4 + 1 - p])


def test_illegal_actions_are_refused(rules):
    game = rules.new_game(3)
    with pytest.raises(IllegalAction):
        game.apply(("attack", 0, 1))
    with pytest.raises(IllegalAction):
        game.apply(("choose", (99,)))


def test_simulation_is_the_same_whatever_the_workers(root: Path, rules):
    project = open_project(root)
    one = simulate(project, "bless", 60, 11, make_setup(rules), jobs=1)
    two = simulate(project, "bless", 60, 11, make_setup(rules), jobs=2)
    assert one.to_json() == two.to_json()
    assert one.draws["n"] == 60 and one.draws["rate"] == 0
    first = one.table("primo").rows[0][1]
    assert first["n"] == 60 and 0 < first["rate"] < 1
    assert first["low"] < first["rate"] < first["high"]
    assert sum(one.table("turni-finali").rows[i][1] for i in range(2)) == 60
    cards = one.table("carte").rows
    assert sum(m + p for _, m, p, _ in cards) > 60 * 10
    assert all(0 <= r["rate"] <= 1 for *_, r in cards)
    assert sum(seat["rate"] for seat in one.seats) == pytest.approx(1)
    assert "Vittorie di chi gioca per primo" in one.report("it")
    assert "Seat 1 wins" in one.report("en")


def test_greedy_is_clearly_stronger_than_random(root: Path, rules):
    setup = make_setup(rules, agents="greedy,random")
    result = simulate(open_project(root), "bless", 30, 4, setup, jobs=2)
    assert result.agent_rates["greedy"]["rate"] >= 0.8


def test_a_recorded_game_replays_from_its_file(root: Path, rules, tmp_path: Path):
    project = open_project(root)
    setup = make_setup(rules, agents="greedy,random", options={"altar": 3})
    replay = record_game(project, "bless", 6, setup)
    path = tmp_path / "partita.json"
    path.write_text(replay.to_json(), encoding="utf-8")
    game, narration = replay_file(project, path)
    again = play_replay(rules, replay)
    assert game.is_terminal() and game.log == again.log
    assert len(replay.actions) == sum(1 for e in game.log if e.kind == "action")
    assert narration[-1].startswith("Fine della partita")


def test_a_random_game_replay_is_at_most_4_kb(root: Path):
    for seed in range(1, 6):
        size = len(record_game(open_project(root), "bless", seed).to_json().encode())
        assert size <= 4096, f"seed {seed}: {size} bytes"


def test_a_bad_replay_file_is_one_clear_error(root: Path, tmp_path: Path):
    project = open_project(root)
    path = tmp_path / "rotto.json"
    path.write_text('{"format": 2}', encoding="utf-8")
    with pytest.raises(SourceError, match=r"rotto\.json.*not a Cartiera replay"):
        replay_file(project, path)
    replay = record_game(project, "bless", 2)
    text = replay.to_json().replace(replay.digest, "0" * 64)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(SourceError, match="cards changed"):
        replay_file(project, path)


def test_the_engine_package_says_what_it_exports():
    import pipeline.engine as engine

    assert engine.__all__ == sorted(engine.__all__)
    public = {
        name
        for name, value in vars(engine).items()
        if not name.startswith("_") and not isinstance(value, ModuleType)  # its submodules
    }
    assert public == set(engine.__all__)
