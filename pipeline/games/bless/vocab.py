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

import re
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING, Annotated, Any, Literal, get_args

from pydantic import (
    BaseModel,
    ConfigDict,
    Discriminator,
    Field,
    StrictInt,
    Tag,
    ValidationError,
    model_validator,
)

from pipeline.games import CardProblem
from pipeline.sources import CardSource, GameSource

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
    model_config = ConfigDict(extra="forbid")


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


def _rebuild(cls: type[BaseModel]) -> None:
    """Resolve the forward references between the models (values, filters, conditions)."""
    for sub in cls.__subclasses__():
        sub.model_rebuild()
        _rebuild(sub)


_rebuild(_Strict)

DATA_MODELS: dict[str, type[BaseModel]] = {"carta": BlessEffects}

STANDING_TRIGGERS = ("static", "in_hand", "bond")
LEGAME_TRIGGERS = ("bond", "on_host_break", "on_host_bless", "on_host_attacked")


# -- checks ---------------------------------------------------------------------------------

NO_EFFECT = "Nessun effetto."

KEYWORD_WORDS = {
    "Rivalita": "Rivalità",
    "Impatto": "Impatto",
    "Barriera": "Barriera",
    "Fato": "Fato",
}
TRIGGER_WORDS: dict[str, tuple[str, ...]] = {
    "in_hand": ("mano",),
    "on_play": ("CALO",),
    "on_break": ("si spezza",),
    "on_bless": ("blessa",),
    "on_attacked": ("attaccata",),
    "on_attacking": ("attacca",),
    "on_corrupted": ("si corrompe",),
    "at_turn_start": ("all'inizio",),
    "on_you_play": ("quando giochi",),
    "bond": ("legata",),
    "on_host_break": ("legata", "si spezza"),
    "on_host_bless": ("legata", "blessa"),
    "on_host_attacked": ("legata", "attaccata"),
}
DURATION_WORDS = {
    "this_turn": "in questo turno",
    "until_end_of_next_turn": "fino alla fine del prossimo turno",
    "next_turn": "nel prossimo turno",
}
OP_WORDS: dict[str, tuple[str, ...]] = {
    "tie_wins": ("pareggi",),
    "cannot_attack": ("non può attaccare",),
    "cannot_be_attacked": ("non può essere attaccata",),
    "taunt": ("solo",),
    "direct_attack": ("direttamente",),
    "suppress": ("perde",),
    "set_forma": ("forma",),
    "free_play": ("0 azioni",),
    "break": ("spezz",),
    "corrupt": ("corromp",),
    "purify": ("purific",),
    "draw": ("pesca",),
    "discard": ("scart",),
    "take": ("prend",),
    "score": ("punt",),
    "gain_action": ("azion",),
    "end_turn": ("turno finisce",),
    "control": ("controllo",),
    "convert": ("convert",),
    "invoke": ("invoca",),
    "copy": ("effetto",),
    "rebind": ("lega",),
}
ZONE_WORDS = {
    "preghiere": "preghier",
    "field": "campo",
    "hand": "mano",
    "vuoto": "vuoto",
    "mazzo": "mazzo",
    "altare": "altare",
}
STAT_WORDS = {"occhio": "occhio", "karma": "karma"}


def _words(node: BaseModel) -> Iterator[tuple[str, ...]]:
    """Words the text must contain because of this one node (each: any of the alternatives)."""
    op = getattr(node, "op", None)
    if op in OP_WORDS:
        yield OP_WORDS[op]
    if isinstance(node, _Lasting) and node.duration in DURATION_WORDS:
        yield (DURATION_WORDS[node.duration],)
    if isinstance(node, Ability):
        yield from ((word,) for word in TRIGGER_WORDS.get(node.trigger, ()))
        if node.optional:
            yield ("puoi",)
    elif isinstance(node, Modify):
        yield (STAT_WORDS[node.stat],)
        if node.always:
            yield ("sempre",)
    elif isinstance(node, Grant):
        yield (KEYWORD_WORDS[node.keyword],)
    elif isinstance(node, Wins):
        yield ("vince sempre",) if node.always else ("vince",)
    elif isinstance(node, Play):
        yield ("cala",) if node.target.zone == "hand" else ("gioca",)
        yield ("gratuitamente",)
    elif isinstance(node, Invoke):
        yield ("gratuitamente",)
    elif isinstance(node, Discard):
        if node.random:
            yield ("a caso",)
        if node.player == "opponent":
            yield ("avversari",)
    elif isinstance(node, Return):
        yield (ZONE_WORDS[node.to],)
    elif isinstance(node, Clash) and node.role != "any":
        yield ("attaccata",) if node.role == "attacked" else ("attacca",)
    elif isinstance(node, SetForma):
        yield {"chosen": ("scegli",), "opposite": ("opposta",)}.get(node.forma, (node.forma,))
    elif isinstance(node, Turn):
        yield ("turno dell'avversario",) if node.turn == "opponent" else ("tuo turno",)
    elif isinstance(node, StatOf | Extreme):
        yield (STAT_WORDS[str(node.stat if isinstance(node, StatOf) else (node.max or node.min))],)
        if isinstance(node, Extreme):
            yield ("più alto",) if node.max else ("più basso",)
    if isinstance(node, Take | Return) and node.shuffle:
        yield ("mescol",)
    if isinstance(node, Filter):
        yield from _filter_words(node)
    if getattr(node, "original", False) or getattr(node, "by_original", False):
        yield ("originale",)


def _filter_words(node: Filter) -> Iterator[tuple[str, ...]]:
    if "zone" in node.model_fields_set and node.zone in ZONE_WORDS:
        yield (ZONE_WORDS[node.zone],)
    if node.controller == "opponent":
        yield ("avversari",)
    for forma in (node.forma, node.forma_not):
        if forma is not None:
            yield (forma,)
    if node.state is not None:
        yield ("pura",) if node.state == "pura" else ("corrott",)
    if node.stasi:
        yield ("stasi",)
    for kind in node.preghiera or ():
        yield (kind,)
    for stat in STAT_WORDS:
        if getattr(node, stat) is not None:
            yield (STAT_WORDS[stat],)
        if getattr(node, f"{stat}_original") is not None:
            yield (STAT_WORDS[stat], "originale")
    if isinstance(node, Selector):
        if node.pick in ("highest", "lowest"):
            yield ("più alto",) if node.pick == "highest" else ("più basso",)
        elif node.pick == "top":
            yield ("più in alto", "prima")
        elif node.pick == "random":
            yield ("a caso",)


def _children(node: Any) -> Iterator[Any]:
    if isinstance(node, BaseModel):
        for name in node.model_fields_set:
            yield getattr(node, name)
    elif isinstance(node, list):
        yield from node


def _walk(node: Any) -> Iterator[Any]:
    yield node
    for child in _children(node):
        yield from _walk(child)


def _numbers(node: Any) -> Iterator[int]:
    """Every number written in the structure (amounts, thresholds, counts)."""
    for item in _walk(node):
        for child in _children(item):
            if isinstance(child, int) and not isinstance(child, bool):
                yield child


def _has(text: str, word: str) -> bool:
    # Words are matched case-insensitively, except the all-caps CALO marker.
    return word in text if word.isupper() else word.lower() in text.lower()


def text_problems(abilities: list[Ability], text: str) -> Iterator[str]:
    """Where `text` fails to say something that `abilities` do (numbers, keywords, terms)."""
    if not abilities:
        if text.strip() != NO_EFFECT:
            yield f"no abilities, so the text should be {NO_EFFECT!r}"
        return
    if text.strip() == NO_EFFECT:
        yield f"the text says {NO_EFFECT!r} but the structure has abilities"
    for number in sorted({abs(n) for n in _numbers(abilities)}):
        if not re.search(rf"(?<!\d){number}(?!\d)", text):
            yield f"the structure uses the number {number}, the text does not"
    missing: list[str] = []
    for node in _walk(abilities):
        if isinstance(node, BaseModel):
            for alternatives in _words(node):
                if not any(_has(text, word) for word in alternatives):
                    label = " / ".join(repr(word) for word in alternatives)
                    if label not in missing:
                        missing.append(label)
    for label in missing:
        yield f"the structure implies {label}, the text does not say it"


def _refs(node: Any) -> set[str]:
    found: set[str] = set()
    for item in _walk(node):
        if isinstance(item, BaseModel):
            for name in item.model_fields_set:
                value = getattr(item, name)
                values = value if isinstance(value, list) else [value]
                found.update(v for v in values if isinstance(v, str) and v in get_args(CardRef))
    return found


def structure_problems(effects: BlessEffects, prayer_type: str) -> Iterator[tuple[str, str]]:
    """Where the structure does not fit the way the card is played: (side, message)."""
    for side, abilities in (("maledizione", effects.maledizione), ("preghiera", effects.preghiera)):
        for index, ability in enumerate(abilities):
            where = f"{side} ability {index + 1}"
            yield from (
                (side, f"{where}: {m}") for m in _ability_problems(ability, side, prayer_type)
            )


def _ability_problems(ability: Ability, side: str, prayer_type: str) -> Iterator[str]:
    trigger = ability.trigger
    if side == "maledizione" and trigger not in MALEDIZIONE_TRIGGERS:
        yield f"trigger {trigger} is not a Maledizione trigger"
    if side == "preghiera":
        allowed = LEGAME_TRIGGERS if prayer_type == "Legame" else ("resolve",)
        if trigger not in allowed:
            yield f"a {prayer_type} uses triggers {', '.join(allowed)}, not {trigger}"
    refs = _refs(ability)
    if "host" in refs and not (side == "preghiera" and prayer_type == "Legame"):
        yield "only a Legame has a host"
    if "cost" in refs and not ability.cost:
        yield "refers to the cost but has none"
    if trigger in STANDING_TRIGGERS:
        if ability.cost or ability.optional:
            yield f"a {trigger} ability has no cost and is not optional"
        for step in ability.effects:
            if not isinstance(step, _Lasting):
                yield f"a {trigger} ability cannot {step.op} (a one-shot step)"
            elif step.duration != "permanent":
                yield f"a {trigger} ability holds while in its zone: no duration"
            if trigger == "bond" and getattr(step, "target", "host") != "host":
                yield f"a bond's {step.op} must apply to the host"


def check(game: GameSource, cards: list[CardSource]) -> Iterable[CardProblem]:
    """Every card's effects fit its Preghiera type, and its text says what its structure does."""
    for card in cards:
        if card.kind != "carta":
            continue
        if card.data is None:
            yield CardProblem(card.id, "data", "a Bless card needs its structured effects")
            continue
        try:
            effects = BlessEffects.model_validate(card.data)
        except ValidationError as exc:
            yield CardProblem(card.id, "data", f"invalid effects: {exc.errors()[0]['msg']}")
            continue
        prayer_type = str(card.attributes.get("preghiera", ""))
        for side, message in structure_problems(effects, prayer_type):
            yield CardProblem(card.id, f"data.{side}", message)
        for side in ("maledizione", "preghiera"):
            for message in text_problems(getattr(effects, side), card.text.get(side, "")):
                yield CardProblem(card.id, f"text.{side}", message)


def summary(ability: Ability) -> str:
    """One line for debugging, e.g. 'resolve: break(zone=preghiere)'."""

    def short(value: Any) -> str:
        if isinstance(value, BaseModel):
            data = value.model_dump(exclude_defaults=True, exclude={"op"})
            return ", ".join(f"{k}={short(getattr(value, k))}" for k in data)
        if isinstance(value, list):
            return "[" + "; ".join(short(v) for v in value) + "]"
        return str(value)

    head = ability.trigger
    if ability.condition is not None:
        head += f" if ({short(ability.condition)})"
    if ability.cost:
        head += " pay " + ", ".join(f"{s.op}({short(s)})" for s in ability.cost)
    if ability.optional:
        head += " (optional)"
    return head + ": " + "; ".join(f"{s.op}({short(s)})" for s in ability.effects)
