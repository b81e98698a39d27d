"""Bless: the checks that a card's structured effects agree with its Italian text and are
well formed (run by `cartiera validate` through the plugin's ``check``)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any, get_args

from pydantic import (
    BaseModel,
    ValidationError,
)

from pipeline.engine.plugin import CardProblem
from pipeline.sources.formats import CardSource, GameSource

from .vocab import (
    LEGAME_TRIGGERS,
    MALEDIZIONE_TRIGGERS,
    STANDING_TRIGGERS,
    Ability,
    BlessEffects,
    CardRef,
    Clash,
    Discard,
    Extreme,
    Filter,
    Grant,
    Invoke,
    Modify,
    Play,
    Return,
    Selector,
    SetForma,
    StatOf,
    Take,
    Turn,
    Wins,
    _Lasting,
)

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
