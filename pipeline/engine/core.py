"""The game-agnostic engine interface: games, actions, typed events, chance and replays.

Every game module offers the same few methods (after OpenSpiel): who decides now, which
actions are legal, apply one, whether the game is over and how it ended, what one player may
see, and a cheap clone. Actions are tiny tuples such as ``("attack", 4, 37)``. Every random
outcome goes through one :class:`Chance` per game and is written to the log, so a replay
reads chance back from the log and never depends on the random number generator.
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol

Action = tuple[Any, ...]

REPLAY_FORMAT = 1


class Event(NamedTuple):
    """One thing that happened: its kind, the player it concerns (-1: nobody) and its fields.

    A game declares the fields of each kind (``EVENT_FIELDS``); the replay file and the
    narration read them by name.
    """

    kind: str
    player: int
    args: tuple[Any, ...] = ()


class IllegalAction(ValueError):
    """An action that the current decision does not allow."""


class ReplayError(ValueError):
    """A replay that does not fit the rules it is replayed with."""


class Chance:
    """The one source of randomness of a game: a seeded RNG, or outcomes read from a log.

    Every outcome is appended to ``log`` as a ``chance`` event (what was drawn, the outcome),
    which is what makes a replay independent of the RNG.
    """

    __slots__ = ("forced", "log", "outcomes", "position", "rng")

    def __init__(
        self,
        seed: int | None = None,
        outcomes: Sequence[Any] | None = None,
        forced: Mapping[str, Sequence[int]] | None = None,
    ):
        self.rng = random.Random(seed)
        self.outcomes = list(outcomes) if outcomes is not None else None
        self.forced = {k: list(v) for k, v in (forced or {}).items()}  # e.g. scripted dice
        self.position = 0
        self.log: list[Event] = []

    def copy(self, log: list[Event]) -> Chance:
        other = Chance.__new__(Chance)
        other.rng = random.Random()
        other.rng.setstate(self.rng.getstate())
        other.outcomes = self.outcomes
        other.forced = {k: list(v) for k, v in self.forced.items()}
        other.position = self.position
        other.log = log
        return other

    def reseed(self, seed: int) -> None:
        """Forget the real future: used by agents that look ahead on a copy of the game."""
        self.rng.seed(seed)
        self.outcomes = None
        self.forced = {}

    def _recorded(self, what: str) -> Any:
        if self.position >= len(self.outcomes):  # type: ignore[arg-type]
            raise ReplayError(f"the replay has no more chance outcomes (needed: {what})")
        value = self.outcomes[self.position]  # type: ignore[index]
        self.position += 1
        return value

    def integer(self, what: str, low: int, high: int) -> int:
        """A uniform integer in [low, high], e.g. a die roll."""
        if self.outcomes is not None:
            value = int(self._recorded(what))
            if not low <= value <= high:
                raise ReplayError(f"recorded {what} {value} is outside {low}..{high}")
        elif self.forced.get(what):
            value = self.forced[what].pop(0)
        else:
            value = self.rng.randint(low, high)
        self.log.append(Event("chance", -1, (what, value)))
        return value

    def sample(self, what: str, items: Sequence[int], count: int) -> list[int]:
        """`count` distinct items chosen at random (all of them when there are fewer)."""
        count = min(count, len(items))
        if self.outcomes is not None:
            value = list(self._recorded(what))
            if len(value) != count or not set(value) <= set(items):
                raise ReplayError(f"recorded {what} {value} is not a choice among {list(items)}")
        else:
            value = self.rng.sample(list(items), count)
        self.log.append(Event("chance", -1, (what, tuple(value))))
        return value

    def shuffle(self, what: str, pile: list[int]) -> None:
        """Shuffle `pile` in place; the new order (bottom first) is the logged outcome."""
        if self.outcomes is not None:
            value = list(self._recorded(what))
            if sorted(value) != sorted(pile):
                raise ReplayError(f"recorded {what} does not hold the same cards")
            pile[:] = value
        else:
            self.rng.shuffle(pile)
        self.log.append(Event("chance", -1, (what, tuple(pile))))


class Game(Protocol):
    """What every game offers to agents, simulations, examples and replays."""

    slug: str
    log: list[Event]

    def current_player(self) -> int:
        """The player who takes the next decision; -1 when the game is over."""
        ...

    def legal_actions(self) -> list[Action]: ...

    def decision_kind(self) -> str:
        """What the current decision is about: "main" for a turn's own choice of action,
        else a follow-up ("target", "offer", ...) of the move under way."""
        ...

    def apply(self, action: Action) -> None:
        """Take one decision; the game then runs until the next real decision or the end."""
        ...

    def is_terminal(self) -> bool: ...

    def returns(self) -> list[float]:
        """+1 for the winner, -1 for the loser, 0 each when unfinished."""
        ...

    def view(self, player: int) -> dict[str, Any]:
        """What `player` may see: no opponent's hand, no order of hidden piles."""
        ...

    def clone(self) -> Game: ...


class Rules(Protocol):
    """A game's rules and cards, read once from the database; makes games."""

    slug: str
    digest: str  # identifies the card data: a replay is only valid with the same cards

    def new_game(
        self, seed: int, options: Mapping[str, Any] | None = None, chance: Chance | None = None
    ) -> Game: ...

    def narrate(self, events: Sequence[Event]) -> list[str]: ...


@dataclass
class Replay:
    """A finished (or unfinished) game as its log: enough to play it again, move by move."""

    slug: str
    digest: str
    seed: int
    options: dict[str, Any]
    fields: dict[str, list[str]]
    events: list[Event] = field(default_factory=list)

    @classmethod
    def of(cls, game: Game, rules: Rules, seed: int, options: Mapping[str, Any]) -> Replay:
        fields = getattr(game, "EVENT_FIELDS", {})
        return cls(rules.slug, rules.digest, seed, dict(options), dict(fields), list(game.log))

    def actions(self) -> Iterator[tuple[int, Action]]:
        for event in self.events:
            if event.kind == "action":
                yield event.player, tuple(event.args)

    def chance_outcomes(self) -> list[Any]:
        return [event.args[1] for event in self.events if event.kind == "chance"]

    def to_json(self) -> str:
        """Compact JSON: one array per event, ``[kind, player, *fields]``."""
        return json.dumps(
            {
                "format": REPLAY_FORMAT,
                "game": self.slug,
                "cards": self.digest,
                "seed": self.seed,
                "options": self.options,
                "fields": self.fields,
                "events": [[e.kind, e.player, *map(_plain, e.args)] for e in self.events],
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> Replay:
        try:
            data = json.loads(text)
            if data.get("format") != REPLAY_FORMAT:
                raise ReplayError(f"unknown replay format {data.get('format')!r}")
            events = [Event(row[0], row[1], tuple(map(_tupled, row[2:]))) for row in data["events"]]
            return cls(
                data["game"], data["cards"], data["seed"], data["options"], data["fields"], events
            )
        except (KeyError, TypeError, IndexError, json.JSONDecodeError) as exc:
            raise ReplayError(f"not a Cartiera replay: {exc}") from exc


def _plain(value: Any) -> Any:
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _tupled(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_tupled(v) for v in value)
    return value


def play_replay(rules: Rules, replay: Replay) -> Game:
    """Play a replay again with these rules; the log it produces must be the recorded one."""
    if replay.slug != rules.slug:
        raise ReplayError(f"this replay is a game of {replay.slug}, not {rules.slug}")
    if replay.digest != rules.digest:
        raise ReplayError(
            "the cards changed since this replay was recorded "
            f"(recorded {replay.digest[:12]}, now {rules.digest[:12]})"
        )
    chance = Chance(outcomes=replay.chance_outcomes())
    game = rules.new_game(replay.seed, replay.options, chance=chance)
    for player, action in replay.actions():
        if game.current_player() != player:
            raise ReplayError(
                f"the replay has player {player} move where {game.current_player()} must"
            )
        if action not in game.legal_actions():
            raise ReplayError(f"the replayed action {action} is not legal here")
        game.apply(action)
    if list(game.log) != list(replay.events):
        raise ReplayError("the replayed game differs from the recorded log")
    return game
