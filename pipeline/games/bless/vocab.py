"""Bless: the effect vocabulary that the rules engine executes, and its checks against the text.

Every card carries two lists of abilities, one for each way of playing it: ``maledizione``
(used while it is in the Zona Maledizione) and ``preghiera`` (used as its Preghiera type says).
An ability is a ``trigger``, an optional ``condition``, an optional ``cost`` and a list of
``effects``; a step of a cost or of the effects is an ``op`` with its parameters.

Conventions the engine relies on:

- The *user* (``self``) is the player who uses the effect, the controller of the card. A
  Legame transfers its effect to its host, so in its abilities ``self`` is the host's controller.
- ``on_play`` is CALO: it fires only when the card is calata (played from the hand).
- A selector picks cards: default zone ``maledizioni``, any controller, ``pick: chosen`` (a
  bersaglio chosen by ``chooser``, the user unless said otherwise), ``count: 1``. Duali match
  both Forme. ``pick: all`` on a lasting effect is re-read continuously (the seed: effects that
  read a value update continuously); chosen targets are fixed once chosen.
- Card references: ``this`` (the card with the ability), ``host`` (the Maledizione a Legame is
  bound to), ``it`` (the card a filter or a per-card value is being evaluated for), ``target``
  (what the same step's selector picked), ``cost`` (what the ability's cost picked).
- Cards played, calate or invoked by an effect cost no Action (gratuitamente).
- Lasting ops hold for their ``duration``; in static and bond abilities they hold while the
  card stays in its zone, so their duration must stay ``permanent``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictInt,
    Tag,
    model_validator,
)

Forma = Literal["Luce", "Ombra", "Duale"]
PrayerType = Literal["Impulso", "Eco", "Legame"]
Stat = Literal["occhio", "karma"]
Keyword = Literal["Rivalita", "Impatto", "Barriera", "Fato"]
Zone = Literal["maledizioni", "preghiere", "field", "hand", "vuoto", "mazzo", "altare"]
Controller = Literal["self", "opponent", "any"]
Player = Literal["self", "opponent"]
CardRef = Literal["this", "host", "it", "target", "cost"]
Duration = Literal["permanent", "this_turn", "until_end_of_next_turn", "next_turn"]

MALEDIZIONE_TRIGGERS = (
    "static",  # always on while the card is a Maledizione
    "in_hand",  # works while the card is in its owner's hand
    "on_play",  # CALO
    "on_break",  # this card Spezza (goes from the field to the Vuoto)
    "on_bless",  # this card Blessa
    "on_attacked",
    "on_attacking",
    "on_corrupted",  # this card becomes Corrotta
    "at_turn_start",  # start of its controller's turn
    "on_you_play",  # its controller plays a card matching `watch`
)
PREGHIERA_TRIGGERS = (
    "resolve",  # Impulso: on play, then it breaks; Eco: on play, on Invocazione, by chain
    "bond",  # Legame: a static effect on the host
    "on_host_break",
    "on_host_bless",
    "on_host_attacked",
)
if TYPE_CHECKING:
    Trigger = str
else:
    Trigger = Literal[MALEDIZIONE_TRIGGERS + PREGHIERA_TRIGGERS]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)


def _by_key(**tags: str) -> Discriminator:
    """Discriminator for unions told apart by the key a mapping has (or by being an int)."""

    def tag(value: Any) -> str | None:
        if isinstance(value, bool):
            return None
        if isinstance(value, int):
            return "const"
        keys = type(value).model_fields if isinstance(value, BaseModel) else value
        if not isinstance(keys, dict):
            return None
        return next((tag for key, tag in tags.items() if key in keys), None)

    return Discriminator(tag)


# -- values -------------------------------------------------------------------------------


class Count(_Strict):
    """How many cards match `count`, times `times` (e.g. +1 Occhio per other Preghiera)."""

    count: Filter
    times: StrictInt = 1


class StatOf(_Strict):
    """The Occhio or Karma of one card (current or original)."""

    stat: Stat
    of: Target
    original: bool = False


class Extreme(_Strict):
    """The highest (`max`) or lowest (`min`) value among the cards matching `among`."""

    max: Stat | None = None
    min: Stat | None = None
    among: Filter
    original: bool = False

    @model_validator(mode="after")
    def _one(self) -> Extreme:
        if (self.max is None) == (self.min is None):
            raise ValueError("give exactly one of max, min")
        return self


class Diff(_Strict):
    """The first value minus the second, never below 0."""

    diff: list[Expr] = Field(min_length=2, max_length=2)


Expr = Annotated[
    Annotated[StrictInt, Tag("const")]
    | Annotated[Count, Tag("count")]
    | Annotated[StatOf, Tag("stat")]
    | Annotated[Extreme, Tag("extreme")]
    | Annotated[Diff, Tag("diff")],
    _by_key(count="count", stat="stat", max="extreme", min="extreme", diff="diff"),
]


class Compare(_Strict):
    """Comparisons against values; every one given must hold."""

    eq: Expr | None = None
    ne: Expr | None = None
    lt: Expr | None = None
    le: Expr | None = None
    gt: Expr | None = None
    ge: Expr | None = None

    @model_validator(mode="after")
    def _some(self) -> Compare:
        if not self.model_fields_set & {"eq", "ne", "lt", "le", "gt", "ge"}:
            raise ValueError("give at least one of eq, ne, lt, le, gt, ge")
        return self


# -- which cards ----------------------------------------------------------------------------


class Clash(_Strict):
    """The card is in a clash, in this role, against a card matching `vs`."""

    role: Literal["attacking", "attacked", "any"] = "any"
    vs: Filter | None = None


class Filter(_Strict):
    """What a card must be to match. Duali match both Forme."""

    zone: Zone = "maledizioni"
    controller: Controller = "any"
    opposite_of: CardRef | None = None  # controlled by the player who does not control it
    forma: Forma | None = None
    forma_not: Forma | None = None
    preghiera: list[PrayerType] | None = None  # printed Preghiera type
    state: Literal["pura", "corrotta"] | None = None
    stasi: bool | None = None
    occhio: Compare | None = None
    karma: Compare | None = None
    occhio_original: Compare | None = None
    karma_original: Compare | None = None
    # only among the top N of a pile (Vuoto, Mazzo), counted after `exclude`
    top: Annotated[StrictInt, Field(ge=1)] | None = None
    exclude: list[CardRef] = []
    clash: Clash | None = None


class Selector(Filter):
    """Which of the matching cards an effect picks, how many, and who chooses."""

    pick: Literal["chosen", "all", "random", "highest", "lowest", "top"] = "chosen"
    count: Expr = 1
    by: Stat | None = None  # for highest / lowest; ties: the chooser picks
    by_original: bool = False
    chooser: Literal["user", "opponent"] = "user"

    @model_validator(mode="after")
    def _ranked(self) -> Selector:
        if (self.pick in ("highest", "lowest")) != (self.by is not None):
            raise ValueError("`by` goes with pick highest or lowest, and only there")
        return self


Target = Annotated[
    Annotated[CardRef, Tag("ref")] | Annotated[Selector, Tag("select")],
    Discriminator(lambda v: "ref" if isinstance(v, str) else "select"),
]


# -- conditions -----------------------------------------------------------------------------


class CompareCondition(Compare):
    """A value compared with others, e.g. the number of your Maledizioni Ombra equals 1."""

    compare: Expr


class Matches(_Strict):
    """A card matches a filter (its Forma, state, zone ...)."""

    card: CardRef
    matches: Filter


class NoneMatch(_Strict):
    """No card matches the filter."""

    none: Filter


class Turn(_Strict):
    """Whose turn it is."""

    turn: Player


class AllOf(_Strict):
    all: list[Condition] = Field(min_length=2)


Condition = Annotated[
    Annotated[CompareCondition, Tag("compare")]
    | Annotated[Matches, Tag("card")]
    | Annotated[NoneMatch, Tag("none")]
    | Annotated[Turn, Tag("turn")]
    | Annotated[AllOf, Tag("all")],
    _by_key(compare="compare", card="card", none="none", turn="turn", all="all"),
]


# -- steps: lasting effects ---------------------------------------------------------------


class _Lasting(_Strict):
    duration: Duration = "permanent"


class Modify(_Lasting):
    """Add to or set Occhio/Karma (or their original value), only `when` the card matches."""

    op: Literal["modify"]
    stat: Stat
    add: Expr | None = None
    set: Expr | None = None
    original: bool = False
    always: bool = False  # «sempre»: other settings cannot override it
    target: Target = "this"
    when: Filter | None = None

    @model_validator(mode="after")
    def _one(self) -> Modify:
        if (self.add is None) == (self.set is None):
            raise ValueError("give exactly one of add, set")
        if self.always and self.set is None:
            raise ValueError("`always` («sempre») goes with set")
        return self


class Grant(_Lasting):
    op: Literal["grant"]
    keyword: Keyword
    target: Target = "this"


class Wins(_Lasting):
    """«Vince» (or «Vince sempre») in a clash against cards matching `vs`."""

    op: Literal["wins"]
    vs: Filter
    always: bool = False
    target: Target = "this"


class TieWins(_Lasting):
    """A tied clash counts as a win for the target."""

    op: Literal["tie_wins"]
    target: Target = "this"


class CannotAttack(_Lasting):
    op: Literal["cannot_attack"]
    target: Target = "this"


class CannotBeAttacked(_Lasting):
    op: Literal["cannot_be_attacked"]
    target: Target = "this"
    by: Filter | None = None  # only by attackers matching it


class Taunt(_Lasting):
    """The opponent may attack only the target."""

    op: Literal["taunt"]
    target: Target = "this"


class DirectAttack(_Lasting):
    """The target may attack the opponent directly even if they control Maledizioni."""

    op: Literal["direct_attack"]
    target: Target = "this"


class Suppress(_Lasting):
    """The target loses its effect."""

    op: Literal["suppress"]
    target: Target


class SetForma(_Lasting):
    op: Literal["set_forma"]
    target: Target
    forma: Literal["Luce", "Ombra", "chosen", "opposite"]  # chosen: the user picks Luce/Ombra


class FreePlay(_Lasting):
    """Calare the matching cards in the given way costs 0 Actions."""

    op: Literal["free_play"]
    target: Target
    into: Literal["maledizione", "preghiera"]


# -- steps: one-shot ------------------------------------------------------------------------


class Break(_Strict):
    op: Literal["break"]
    target: Target


class Corrupt(_Strict):
    op: Literal["corrupt"]
    target: Target


class Purify(_Strict):
    op: Literal["purify"]
    target: Target


class Draw(_Strict):
    op: Literal["draw"]
    count: Expr = 1


class Discard(_Strict):
    """A player discards from their hand: chosen by that player, or at random."""

    op: Literal["discard"]
    player: Player = "self"
    count: Expr = 1
    random: bool = False


class Take(_Strict):
    """The user takes cards into their hand from a zone (`top: N` = look at the top N)."""

    op: Literal["take"]
    target: Selector
    shuffle: bool = False  # shuffle the zone afterwards


class Play(_Strict):
    """The user plays cards from a zone, as Maledizione, Preghiera or either (their choice)."""

    op: Literal["play"]
    target: Selector
    into: Literal["maledizione", "preghiera", "any"] = "any"


class Score(_Strict):
    op: Literal["score"]
    amount: Expr


class GainAction(_Strict):
    op: Literal["gain_action"]
    amount: Expr = 1


class EndTurn(_Strict):
    """The turn goes to its Fine Turno at once."""

    op: Literal["end_turn"]


class Control(_Strict):
    """The user gains control of the target, which moves to the same zone on their side."""

    op: Literal["control"]
    target: Target


class Convert(_Strict):
    op: Literal["convert"]
    target: Target
    into: Literal["maledizione", "preghiera"]
    stasi: bool = True  # a converted Maledizione enters Stasi unless this is false


class Return(_Strict):
    op: Literal["return"]
    target: Target
    to: Literal["hand", "mazzo"]
    shuffle: bool = False


class Invoke(_Strict):
    """The target Eco uses its effect as when Invocata, without spending an Action."""

    op: Literal["invoke"]
    target: Target


class Copy(_Strict):
    """The user uses the printed effect of the target card, once, as its own."""

    op: Literal["copy"]
    target: Target
    text: Literal["maledizione", "preghiera"] = "preghiera"


class Rebind(_Strict):
    """This Legame binds to the target instead of its host."""

    op: Literal["rebind"]
    target: Target


Step = Annotated[
    Modify
    | Grant
    | Wins
    | TieWins
    | CannotAttack
    | CannotBeAttacked
    | Taunt
    | DirectAttack
    | Suppress
    | SetForma
    | FreePlay
    | Break
    | Corrupt
    | Purify
    | Draw
    | Discard
    | Take
    | Play
    | Score
    | GainAction
    | EndTurn
    | Control
    | Convert
    | Return
    | Invoke
    | Copy
    | Rebind,
    Field(discriminator="op"),
]


class Ability(_Strict):
    """When it applies, under what condition, at what cost ("puoi": optional), and what it does."""

    trigger: Trigger
    watch: Filter | None = None  # on_you_play: the played card must match it
    condition: Condition | None = None
    cost: list[Step] = []
    optional: bool = False
    effects: list[Step] = Field(min_length=1)

    @model_validator(mode="after")
    def _watch(self) -> Ability:
        if (self.trigger == "on_you_play") != (self.watch is not None):
            raise ValueError("`watch` goes with trigger on_you_play, and only there")
        return self


class BlessEffects(_Strict):
    """The `data` of a Bless card: its Maledizione and Preghiera abilities."""

    maledizione: list[Ability]
    preghiera: list[Ability] = Field(min_length=1)


DATA_MODELS: dict[str, type[BaseModel]] = {"carta": BlessEffects}

STANDING_TRIGGERS = ("static", "in_hand", "bond")
LEGAME_TRIGGERS = ("bond", "on_host_break", "on_host_bless", "on_host_attacked")
