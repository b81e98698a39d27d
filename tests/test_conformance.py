"""Every registered rules engine, through its public interface only (after OpenSpiel's
random-simulation tests): seeded random games to the end, checked after every action.

No code here knows a game: an engine registered in the ``cartiera.games`` entry points gets
all of it. Per engine: legal actions until the end, the game's invariants, the cards
conserved, an outcome for every game; and on some games: clones independent of the
original, same seed same log, replays, and observations that hide what they must.
"""

from __future__ import annotations

import json
import random
import signal
import threading
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from itertools import chain
from typing import Any

import pytest

from pipeline.common.project import open_project
from pipeline.engine import registry
from pipeline.engine.agents import many_games
from pipeline.engine.core import Estimating, Replay, State, play_replay
from pipeline.engine.plugin import Engine
from pipeline.play.examples import example_names, examples_dir, load_scenario
from pipeline.play.records import load_rules

DEEP_EVERY = 80  # one game in this many also gets the costly checks
# No engine can loop forever: a random game, from the deal or from a worked example's
# position, ends within MAX_ACTIONS actions; and no single call into an engine (a draw loop
# inside apply, say) may spin: a game gets at most CPU_SECONDS of CPU time (not wall time:
# the machine is shared), else it fails as "spins".
MAX_ACTIONS = 20_000
CPU_SECONDS = 120
SCENARIO_SEEDS = 3  # random continuations of every worked example
# Each engine plays --conformance-games seeded random games: 500 by default, some 10 s of
# CPU for the five engines; CI plays 2,000, four times as long, on the pure engines and
# again on the compiled ones. They are played in PARTS runs of consecutive games (game
# index, seed and player count as in one run), each its own xdist group, so the two
# workers share them.
PARTS = 4


def parts(games: int) -> list[range]:
    size = -(-games // PARTS)
    return [range(start, min(start + size, games)) for start in range(0, games, size)]


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "part" not in metafunc.fixturenames:
        return
    runs = [
        pytest.param(
            slug,
            part,
            id=f"{slug}-{part.start}",
            marks=pytest.mark.xdist_group(f"conformance-{slug}-{part.start}"),
        )
        for slug in registry.engine_slugs()
        for part in parts(metafunc.config.getoption("--conformance-games"))
    ]
    metafunc.parametrize(("slug", "part"), runs)


@pytest.fixture
def games(request: pytest.FixtureRequest) -> int:
    """How many random games each engine plays (--conformance-games)."""
    return request.config.getoption("--conformance-games")


@pytest.fixture(scope="module")
def project(built_copy):
    """A private copy of the session's built project (see conftest.built_copy)."""
    return open_project(built_copy("conformance"))


def cards_of(state: State) -> list[int]:
    """The multiset of every card instance in the game, as a sorted list (cheap to compare)."""
    cards = list(chain.from_iterable(state.zones().values()))
    cards.sort()
    return cards


def conservation(start: State) -> Callable[[State], bool]:
    """A check that a state holds the card instances of `start`, each as often (the same
    multiset as cards_of), made once per game and run after every action. When the cards
    of `start` are all different (every engine's are), the same number of cards and the
    same set is the same multiset, and quicker to see than a sorted list; otherwise the
    sorted lists are compared."""
    cards = cards_of(start)
    distinct = set(cards)
    if len(distinct) != len(cards):
        return lambda state: cards_of(state) == cards
    count = len(cards)

    def holds(state: State) -> bool:
        zones = state.zones().values()
        return sum(map(len, zones)) == count and set(chain.from_iterable(zones)) == distinct

    return holds


class _Zones:
    """A stand-in state: only zones(), which is all the conservation check reads."""

    def __init__(self, **zones: list[int]):
        self._zones = zones

    def zones(self) -> dict[str, list[int]]:
        return self._zones


def test_conservation_sees_a_card_lost_doubled_or_added():
    held = conservation(_Zones(a=[0, 1], b=[2]))
    assert held(_Zones(a=[2], b=[1, 0]))  # moved and reordered: the same cards
    assert not held(_Zones(a=[0, 1], b=[]))  # one lost
    assert not held(_Zones(a=[0, 1], b=[1]))  # one doubled in place of another
    assert not held(_Zones(a=[0, 1, 2], b=[3]))  # one added
    twice = conservation(_Zones(a=[5, 5]))  # not all different: sorted lists compared
    assert twice(_Zones(a=[5], b=[5]))
    assert not twice(_Zones(a=[5, 6]))


class Spins(Exception):
    """A game used more than CPU_SECONDS of CPU time: some loop does not end."""


@contextmanager
def cpu_bound(what: str, seconds: float = CPU_SECONDS) -> Iterator[None]:
    """Fail with Spins when the block uses more than `seconds` of this process's CPU time, a
    loop inside an engine call included (a SIGPROF timer: only in the main thread)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def spin(*_: Any) -> None:
        raise Spins(f"{what}: more than {seconds} s of CPU time, a loop does not end")

    old = signal.signal(signal.SIGPROF, spin)
    signal.setitimer(signal.ITIMER_PROF, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        signal.signal(signal.SIGPROF, old)


def test_the_cpu_guard_stops_a_loop_that_never_ends():
    with pytest.raises(Spins, match="a loop does not end"), cpu_bound("endless", 0.2):
        while True:
            pass


def players_for(rules: Engine[Any], index: int) -> int:
    low, high = rules.info.min_players, rules.info.max_players
    return low + index % (high - low + 1)


def play_random(
    rules: Engine[Any], seed: int, players: int, checks: bool = True, keep: bool = False
) -> tuple[State, list[State]]:
    """One seeded random game to its end; with `checks`, every action is checked; with
    `keep`, a clone of every seventh state is returned for the costlier checks."""
    with cpu_bound(f"{rules.slug} seed {seed}"):
        return _play_random(rules, rules.new_game(seed, players), seed, players, checks, keep)


def _play_random(
    rules: Engine[Any], state: State, seed: int, players: int, checks: bool, keep: bool
) -> tuple[State, list[State]]:
    rng = random.Random(seed)
    conserved = conservation(state)
    states = []
    for step in range(MAX_ACTIONS):
        if state.is_terminal():
            break
        legal = state.legal_actions()
        assert legal, f"seed {seed}: no legal action before the end"
        if checks:
            assert 0 <= state.current_player() < players
            if keep and step % 7 == 0:
                states.append(state.clone())
        state.apply(rng.choice(legal))
        if checks:
            problems = rules.invariants(state)
            assert not problems, f"seed {seed}, action {step + 1}: {problems}"
            assert conserved(state), f"seed {seed}, action {step + 1}: cards changed"
    assert state.is_terminal(), f"seed {seed}: the game did not end in {MAX_ACTIONS} actions"
    assert state.legal_actions() == []
    outcome = state.outcome()
    assert outcome is not None and len(state.returns()) == players
    assert all(0 <= p < players for p in outcome.winners)
    return state, states


def test_every_player_count_is_played(project, games: int):
    """The bound on actions holds at every player count: each engine's random games cycle
    through all the counts game.yaml allows."""
    for slug in registry.engine_slugs():
        rules = load_rules(project, slug)
        info = rules.info
        counts = {players_for(rules, i) for i in range(games)}
        assert counts == set(range(info.min_players, info.max_players + 1)), slug


SCENARIOS = [
    pytest.param(slug, id=slug, marks=pytest.mark.xdist_group(f"conformance-{slug}-scenarios"))
    for slug in registry.engine_slugs()
]


@pytest.mark.parametrize("slug", SCENARIOS)
def test_every_worked_example_ends_under_random_play(project, slug: str):
    """From every worked example's position (after its own moves), random play ends within
    MAX_ACTIONS actions and CPU_SECONDS, keeping the invariants (no engine loops forever)."""
    rules = load_rules(project, slug)
    names = example_names(project, slug)
    assert names, f"{slug} has no worked example"
    with many_games():
        for name in names:
            scenario, _ = load_scenario(examples_dir(project, slug) / f"{name}.yaml", project, slug)
            players = scenario.players or rules.info.min_players
            position = scenario.position.model_dump(exclude_unset=True)
            for seed in range(SCENARIO_SEEDS):
                what = f"{slug} example {name}, seed {seed}"
                with cpu_bound(what):
                    state = rules.setup(position, players, scenario.options)
                    for step in scenario.steps:
                        play = getattr(step, "play", None)
                        if play is None or state.is_terminal():
                            continue
                        try:
                            action = rules.parse_action(state, play)
                        except (ValueError, KeyError, LookupError):
                            break  # a move the example plays only if asked
                        if action not in state.legal_actions():
                            break
                        state.apply(action)
                    rng = random.Random(seed)
                    for _ in range(MAX_ACTIONS):
                        if state.is_terminal():
                            break
                        legal = state.legal_actions()
                        assert legal, f"{what}: no legal action before the end"
                        state.apply(rng.choice(legal))
                    assert state.is_terminal(), f"{what}: no end in {MAX_ACTIONS} actions"
                    assert state.outcome() is not None


def test_the_parts_play_every_game_once(games: int):
    played = [index for part in parts(games) for index in part]
    assert played == list(range(games)) and len(parts(games)) == PARTS


def test_random_games_keep_the_rules(project, slug: str, part: range):
    rules = load_rules(project, slug)
    hows: Counter[str] = Counter()
    hidden_changed = 0
    with many_games():
        for index in part:
            players = players_for(rules, index)
            deep = index % DEEP_EVERY == 0
            state, states = play_random(rules, 1000 + index, players, keep=deep)
            hows[state.outcome().how] += 1
            if deep:
                check_determinism(rules, 1000 + index, players, state)
                hidden_changed += check_observations(rules, states, index)
                check_clones(states, index)
                check_estimates([*states, state], index)
    assert sum(hows.values()) == len(part)
    if rules.info.hidden_information:  # in each part, not only in all the games
        assert hidden_changed, "determinize never changed anything hidden"


def check_determinism(rules: Engine[Any], seed: int, players: int, state: State) -> None:
    again, _ = play_random(rules, seed, players, checks=False)
    assert again.log == state.log, f"seed {seed}: same seed, another game"
    replay = Replay.from_json(Replay.of(state, rules, seed, {}, players).to_json())
    replayed = play_replay(rules, replay)
    assert replayed.log == state.log and replayed.zones() == state.zones()
    assert replayed.outcome() == state.outcome()


def check_observations(rules: Engine[Any], states: list[State], index: int) -> int:
    """Observations survive determinize; returns how many states it really changed."""
    changed = 0
    for k, state in enumerate(states):
        for p in range(state.num_players):
            seen = json.dumps(state.observation(p), sort_keys=True, default=str)
            other = state.determinize(p, index * 1000 + k)
            again = json.dumps(other.observation(p), sort_keys=True, default=str)
            assert again == seen, f"game {index}: player {p + 1} sees what determinize changed"
            changed += other.zones() != state.zones()
            mine = f"hand-{p + 1}"  # the zone convention of State.zones()
            if mine in state.zones():
                assert sorted(other.zones()[mine]) == sorted(state.zones()[mine]), (
                    f"game {index}: determinize changed player {p + 1}'s own hand"
                )
            assert cards_of(other) == cards_of(state)
    return changed


def check_estimates(states: list[State], index: int) -> None:
    """A game that estimates its returns (the search agent's horizon) gives each player's
    in [-1, 1], changes nothing by it, and at the end gives the returns themselves."""
    for k, state in enumerate(states):
        if not isinstance(state, Estimating):
            return
        before = list(state.log)
        guess = state.estimate()
        assert len(guess) == state.num_players, f"game {index}, state {k}: {guess}"
        assert all(-1.0 <= g <= 1.0 for g in guess), f"game {index}, state {k}: {guess}"
        assert state.log == before, f"game {index}, state {k}: estimate changed the game"
        if state.is_terminal():
            assert guess == state.returns(), f"game {index}: the end estimated otherwise"


def check_clones(states: list[State], index: int) -> None:
    for k, state in enumerate(states[:5]):
        if state.is_terminal():
            continue
        before = (list(state.log), state.zones(), state.legal_actions())
        copy = state.clone()
        rng = random.Random(index * 31 + k)
        for _ in range(10):
            if copy.is_terminal():
                break
            copy.apply(rng.choice(copy.legal_actions()))
        assert (list(state.log), state.zones(), state.legal_actions()) == before, (
            f"game {index}: playing on a clone changed the original"
        )
