"""The game-agnostic engine interface: games, actions, typed events, chance and replays.

Every game module offers the same few methods (after OpenSpiel): who decides now, which
actions are legal, apply one, whether the game is over and how it ended, what one player may
see, and a cheap clone. Actions are tiny tuples such as ``("attack", 4, 37)``. Every random
outcome goes through one :class:`Chance` per game and is written to the log, so a replay
reads chance back from the log and never depends on the random number generator.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, Protocol, TypeVar, runtime_checkable

Action = tuple[Any, ...]

REPLAY_FORMAT = 2


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
        self.log.append(Event("chance", -1, (what, list(value))))  # a list: not a shuffle
        return value

    def shuffle(self, what: str, pile: list[int]) -> None:
        """Shuffle `pile` in place; the new order (bottom first) is the logged outcome."""
        if self.outcomes is not None:
            recorded = self._recorded(what)
            value = recorded.order(pile) if isinstance(recorded, _Shuffled) else list(recorded)
            if sorted(value) != sorted(pile):
                raise ReplayError(f"recorded {what} does not hold the same cards")
            pile[:] = value
        else:
            shuffle(self.rng, pile)
        self.log.append(Event("chance", -1, (what, tuple(pile))))


def shuffle(rng: random.Random, pile: list[int]) -> None:
    """Shuffle in place with CPython 3.11's algorithm for Random.shuffle (Fisher-Yates,
    each index drawn by rejection from getrandbits), written out: the same draws, with
    fewer steps, and a seed that keeps meaning the same game whatever Python runs it."""
    getrandbits = rng.getrandbits
    k = len(pile).bit_length()  # the bits of n below, kept without a call: n only falls
    for i in range(len(pile) - 1, 0, -1):
        n = i + 1
        if n >> (k - 1) == 0:
            k -= 1
        j = getrandbits(k)
        while j >= n:
            j = getrandbits(k)
        pile[i], pile[j] = pile[j], pile[i]


T = TypeVar("T")


def choose(rng: random.Random, options: Sequence[T]) -> T:
    """One of `options` at random, with CPython 3.11's algorithm for Random.choice written
    out (the same draws as the shuffle above): the random agent's every decision."""
    n = len(options)
    if not n:
        raise IndexError("no option to choose from")
    getrandbits, k = rng.getrandbits, n.bit_length()
    j = getrandbits(k)
    while j >= n:
        j = getrandbits(k)
    return options[j]


TERMINAL = -1


@dataclass(frozen=True)
class Seats:
    """How many may play: what the game's game.yaml declares (``players: {min, max}``), read
    from cards.db with the cards. The one declaration of a game's player counts."""

    min: int
    max: int


@dataclass(frozen=True)
class GameInfo:
    """What a game is, before any state: what agents, simulations and the CLI may rely on."""

    slug: str
    min_players: int
    max_players: int
    team_modes: tuple[str, ...] = ("none",)  # e.g. "none", "pairs", "teams", "roles"
    hidden_information: bool = True
    chance: bool = True
    option_names: tuple[str, ...] = ()  # the names `new_game(options=...)` accepts

    @classmethod
    def of(cls, slug: str, seats: Seats, **traits: Any) -> GameInfo:
        """The game's info with its player counts from game.yaml (`seats`)."""
        return cls(slug, seats.min, seats.max, **traits)

    def players(self, players: int | None) -> int:
        """The player count (the minimum by default) if game.yaml allows it; else
        ValueError, one sentence, the same for every game."""
        n = self.min_players if players is None else players
        if not self.min_players <= n <= self.max_players:
            span = str(self.min_players)
            if self.max_players != self.min_players:
                span += f"-{self.max_players}"
            raise ValueError(f"{self.slug} is played by {span} players, not {n}")
        return n

    def start(
        self,
        seed: int,
        players: int | None,
        options: Mapping[str, Any] | None,
        chance: Chance | None,
    ) -> tuple[int, dict[str, Any], Chance]:
        """What every ``new_game`` does first: the player count (the minimum by default)
        within game.yaml's, option names among the declared ones, the game's one Chance.
        Raises ValueError with one sentence, the same for every game."""
        n = self.players(players)
        chosen = dict(options or {})
        unknown = sorted(set(chosen) - set(self.option_names))
        if unknown:
            known = ", ".join(self.option_names) or "none"
            raise ValueError(f"{self.slug} has no option '{unknown[0]}' (options: {known})")
        return n, chosen, chance if chance is not None else Chance(seed)


@dataclass(frozen=True)
class CardRecord:
    """One distinct card as an engine needs it: plain values read from cards.db by the stage
    that builds the engine (the core never reads the database)."""

    number: int
    code: str
    name: str
    kind: str
    copies: int
    deck: str
    status: str
    attributes: Mapping[str, Any]
    texts: Mapping[str, str]
    data: Mapping[str, Any] | None  # the card's structured data (a JSON object), if any


def card_digest(cards: Sequence[CardRecord]) -> str:
    """What identifies a card set for replays: any change to a card's values gives another."""
    payload = [
        [c.number, c.code, dict(c.attributes), c.data, c.copies]
        for c in sorted(cards, key=lambda c: c.number)
    ]
    blob = json.dumps(payload, sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(blob).hexdigest()


@dataclass(frozen=True)
class Outcome:
    """How a finished game ended, for any number of players.

    ``winners`` are the players who won (a whole team when a team wins); empty for a draw.
    ``ranking`` optionally orders every player in groups, best first (ties share a group).
    ``scores`` are the game's own points per player, when it has them. ``how`` is the game's
    word for the way it ended (e.g. "altare", "collezioni", "mazzo-vuoto").

    ``stopped`` marks a game that no rule ended: a safeguard of the engine (a cap on turns or
    rounds that exists only so that random play terminates) cut it short. A stopped game has
    no result: no winners, zero returns, and simulations count it apart from wins and draws.
    """

    winners: tuple[int, ...]
    how: str
    ranking: tuple[tuple[int, ...], ...] = ()
    scores: tuple[float, ...] = ()
    teams: tuple[int, ...] = ()  # team index of each player, when sides matter
    stopped: bool = False

    @property
    def draw(self) -> bool:
        """Ended by the rules with nobody winning (a stopped game is not a draw)."""
        return not self.winners and not self.stopped

    def returns(self, players: int) -> list[float]:
        """+1 for each winner and -1 for each other player; 0 for all in a draw. With a
        ranking, returns run evenly from +1 (first group) to -1 (last group)."""
        if self.stopped:
            return [0.0] * players
        if self.ranking and len(self.ranking) > 1:
            last = len(self.ranking) - 1
            values = [0.0] * players
            for place, group in enumerate(self.ranking):
                for p in group:
                    values[p] = 1.0 - 2.0 * place / last
            return values
        if not self.winners:
            return [0.0] * players
        return [1.0 if p in self.winners else -1.0 for p in range(players)]


class State(Protocol):
    """One game in progress: what every engine offers agents, simulations, examples, replays.

    Players are numbered 0..num_players-1 inside the engine (1.. in scenario files and in
    narration). Chance is resolved inside ``apply`` through the game's :class:`Chance` and
    logged, so ``current_player`` is always a player or TERMINAL.
    """

    slug: str
    num_players: int
    log: list[Event]

    def current_player(self) -> int:
        """The player who takes the next decision; TERMINAL (-1) when the game is over."""
        ...

    def legal_actions(self) -> list[Action]:
        """Never empty until the game is over; a stable order (replays store indices)."""
        ...

    def decision_kind(self) -> str:
        """What the current decision is about: "main" for a turn's own choice of action,
        else a follow-up ("target", "respond", ...) of the move under way."""
        ...

    def apply(self, action: Action) -> None:
        """Take one decision; the game then runs until the next real decision or the end.
        Raises IllegalAction for an action that is not legal now."""
        ...

    def is_terminal(self) -> bool: ...

    def outcome(self) -> Outcome | None:
        """How the game ended; None while it goes on."""
        ...

    def returns(self) -> list[float]:
        """Per player: ``outcome().returns(num_players)``, zeros while unfinished."""
        ...

    def turn_number(self) -> int:
        """Turns begun so far (the length figure of simulations)."""
        ...

    def observation(self, player: int) -> dict[str, Any]:
        """What `player` may see, as plain JSON values: no other player's hand or secret role,
        no order of a hidden pile. Must not change when only hidden things change."""
        ...

    def determinize(self, player: int, seed: int) -> State:
        """A copy in which everything hidden from `player` (other hands, secret roles, pile
        orders, future chance) is drawn again at random, consistently with what `player` saw.
        Agents look ahead on such copies; the conformance test checks ``observation(player)``
        is unchanged by it."""
        ...

    def zones(self) -> dict[str, list[int]]:
        """Every card instance of the game, by zone name: the conformance test checks that the
        multiset of all cards never changes. Instances are indices into the rules' cards.
        A player's hand is named ``hand-<player, 1-based>`` (determinize keeps one's own)."""
        ...

    def clone(self) -> State:
        """An independent copy (cheap: ints and small lists, no deepcopy)."""
        ...


_SEAT_ZONES: dict[tuple[int, tuple[str, ...]], tuple[tuple[str, ...], ...]] = {}


@runtime_checkable
class Estimating(Protocol):
    """A State that can judge an unfinished game (optional): the search agent may stop a
    play-out early and take this instead of the game's end (ismcts, ``horizon``)."""

    def estimate(self) -> list[float]:
        """Each player's expected return from here, in [-1, 1] as ``returns`` gives them."""
        ...


def seat_zones(players: int, *zones: str) -> tuple[tuple[str, ...], ...]:
    """For each seat, the names State.zones() gives its zones (``hand-1``, ``front-1``…),
    made once per player count: zones() runs after every action of the conformance test,
    and formatting the names took half of its time."""
    key = (players, zones)
    names = _SEAT_ZONES.get(key)
    if names is None:
        names = tuple(tuple(f"{z}-{p}" for z in zones) for p in range(1, players + 1))
        _SEAT_ZONES[key] = names
    return names


class Rules(Protocol):
    """A game's rules and cards, built once from plain card records; makes states."""

    info: GameInfo
    digest: str  # identifies the card data: a replay is only valid with the same cards

    @property
    def slug(self) -> str: ...

    def new_game(
        self,
        seed: int,
        players: int | None = None,
        options: Mapping[str, Any] | None = None,
        chance: Chance | None = None,
    ) -> State:
        """A new game dealt with `seed`; `players` defaults to ``info.min_players``. Raises
        ValueError with one clear sentence for a player count or option it does not take."""
        ...

    def narrate(self, events: Sequence[Event], players: int) -> list[str]:
        """The events as Italian sentences, for replays and worked examples."""
        ...


@dataclass
class Replay:
    """A game as what determines it: seed, players, options, cards and chosen action indices.

    Chance outcomes are stored too, compactly (a shuffle as one base-36 number, the rank of
    its order), so a replay never depends on the random number generator; the card digest
    makes it refuse to run against changed cards.
    """

    slug: str
    digest: str
    seed: int
    players: int
    options: dict[str, Any]
    actions: list[int] = field(default_factory=list)  # index into legal_actions(), in turn
    chance: list[Any] = field(default_factory=list)  # compact chance outcomes, in turn

    @classmethod
    def of(
        cls,
        state: State,
        rules: Rules,
        seed: int,
        options: Mapping[str, Any],
        players: int | None = None,
    ) -> Replay:
        """The replay of a game played from ``rules.new_game(seed, players, options)``."""
        players = players or state.num_players
        chance = [_compact(e.args[1]) for e in state.log if e.kind == "chance"]
        again = rules.new_game(
            seed, players, options, chance=Chance(outcomes=_expanded_all(chance))
        )
        indices = []
        for event in state.log:
            if event.kind == "action":
                legal = again.legal_actions()
                indices.append(legal.index(tuple(event.args)))
                again.apply(tuple(event.args))
        return cls(rules.slug, rules.digest, seed, players, dict(options), indices, chance)

    def to_json(self) -> str:
        return json.dumps(
            {
                "format": REPLAY_FORMAT,
                "game": self.slug,
                "cards": self.digest,
                "seed": self.seed,
                "players": self.players,
                "options": self.options,
                "actions": self.actions,
                "chance": self.chance,
            },
            ensure_ascii=False,
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> Replay:
        try:
            data = json.loads(text)
            if not isinstance(data, dict) or data.get("format") != REPLAY_FORMAT:
                found = data.get("format") if isinstance(data, dict) else None
                raise ReplayError(f"not a Cartiera replay (format {found!r}, not {REPLAY_FORMAT})")
            replay = cls(
                str(data["game"]),
                str(data["cards"]),
                _whole(data["seed"], "seed"),
                _whole(data["players"], "players"),
                dict(data["options"]),
                [_whole(i, "actions", ACTION_MAX) for i in data["actions"]],
                [_chance(c) for c in data["chance"]],
            )
        except (KeyError, TypeError, ValueError, json.JSONDecodeError) as exc:
            if isinstance(exc, ReplayError):
                raise
            raise ReplayError(f"not a Cartiera replay: {exc}") from exc
        except RecursionError:  # json recurses once per level of nesting
            raise ReplayError("not a Cartiera replay: nested too deep") from None
        return replay


ACTION_MAX = 2**31  # an action is an index into a list of legal actions
SEED_MAX = 2**64
SHUFFLE = re.compile(r"s[0-9a-z]{1,400}")  # 400 base-36 digits rank a pile of 260 cards


def _whole(value: Any, name: str, limit: int = SEED_MAX) -> int:
    """A replay's integer as written: a float (1.7, 1e999) or a bool is refused, not
    rounded into some other game."""
    if isinstance(value, bool) or not isinstance(value, int) or not -limit < value < limit:
        shown = str(value)[:40]
        raise ReplayError(f"not a Cartiera replay: {name} holds {shown!r}, not an integer")
    return value


def _chance(value: Any) -> Any:
    """A recorded chance outcome: a shuffle's rank ("s" and base-36 digits) or a roll or
    sample as recorded (numbers and lists of them)."""
    if isinstance(value, str) and not SHUFFLE.fullmatch(value):
        raise ReplayError(f"not a Cartiera replay: chance entry {value[:40]!r} is not a shuffle")
    return value


DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def _compact(outcome: Any) -> Any:
    """A shuffled pile (a tuple) as its rank among the orders of its cards (base 36,
    prefixed "s"); a die roll or a sample (a list) as it is."""
    if not isinstance(outcome, tuple):
        return outcome
    pool = sorted(outcome)
    rank = 0
    for card in outcome:
        i = pool.index(card)
        rank = rank * len(pool) + i
        pool.pop(i)
    digits = ""
    while rank:
        rank, d = divmod(rank, 36)
        digits = DIGITS[d] + digits
    return "s" + (digits or "0")


def _expanded_all(chance: Sequence[Any]) -> list[Any]:
    return [_Shuffled(int(c[1:], 36)) if isinstance(c, str) else c for c in chance]


class _Shuffled(int):
    """A recorded shuffle's rank: ``Chance.shuffle`` turns it back into the order."""

    def order(self, cards: Sequence[int]) -> list[int]:
        pool = sorted(cards)
        n = len(pool)
        picks = []
        rank = int(self)
        for size in range(1, n + 1):
            rank, i = divmod(rank, size)
            picks.append(i)
        if rank:
            raise ReplayError("a recorded shuffle does not fit the pile it shuffles")
        return [pool.pop(i) for i in reversed(picks)]


def play_replay(rules: Rules, replay: Replay) -> State:
    """Play a replay again with these rules, taking the recorded action indices in turn."""
    if replay.slug != rules.slug:
        raise ReplayError(f"this replay is a game of {replay.slug}, not {rules.slug}")
    if replay.digest != rules.digest:
        raise ReplayError(
            "the cards changed since this replay was recorded "
            f"(recorded {replay.digest[:12]}, now {rules.digest[:12]})"
        )
    chance = Chance(outcomes=_expanded_all(replay.chance))
    try:
        state = rules.new_game(replay.seed, replay.players, replay.options, chance=chance)
    except ValueError as exc:
        raise ReplayError(f"the replay's game cannot be set up: {exc}") from exc
    for number, index in enumerate(replay.actions, 1):
        legal = state.legal_actions()
        if not 0 <= index < len(legal):
            raise ReplayError(f"action {number} of the replay ({index}) is not a legal choice")
        state.apply(legal[index])
    return state
