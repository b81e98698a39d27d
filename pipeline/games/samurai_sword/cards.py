"""The Samurai Sword cards as the engine reads them: flat per-card tables built once.

A card is an index into ``Cards.records`` (the rules' cards, in number order). The tables
give each index the few numbers the rules need, read from the card's kind, attributes and
structured data, so the state never looks at a card's code.
"""

from __future__ import annotations

from collections.abc import Sequence

from pipeline.engine.core import CardRecord

from .data import AzioneData, PersonaggioData, ProprietaData, RuoloData

BASE = "base"
ARMA, PROPRIETA, AZIONE = "arma", "proprieta", "azione"
PLAYING_KINDS = (ARMA, PROPRIETA, AZIONE)
TEAMS = ("Shogun", "Ninja", "Ronin")  # the role cards' `squadra`, in tie-break order below
NO_ABILITY = PersonaggioData.model_validate({})
# How a card is played in the play phase (see Turn._main_actions), one code per card.
WEAPON, ON_SELF, ON_ANYONE, ANSWER_ONLY, DISCARD_ONE, TAKE_ONE, FOR_ANOTHER, PLAIN = range(8)
# Rule 9.7 with the ruling parita-gioco-base: Ninja beat the Shogun's side, the Ronin loses.
TIE_RANK = {"Ninja": 2, "Shogun": 1, "Ronin": 0}


class Cards:
    """Per-card tables of the base game (Rising Sun cards are kept out: see rising-sun-parziale)."""

    def __init__(self, records: Sequence[CardRecord]):
        self.records = list(records)
        size = len(self.records)
        self.code = [c.code for c in self.records]
        self.name = [c.name for c in self.records]
        self.index = {c.code: i for i, c in enumerate(self.records)}
        self.kind = [c.kind for c in self.records]
        self.is_weapon = [c.kind == ARMA for c in self.records]
        self.difficulty = [int(c.attributes.get("difficolta", 0) or 0) for c in self.records]
        self.damage = [int(c.attributes.get("ferite", 0) or 0) for c in self.records]
        self.prop: list[ProprietaData | None] = [None] * size
        self.action: list[AzioneData | None] = [None] * size
        self.character = [NO_ABILITY] * size  # a card that is no character has no ability
        self.role: list[RuoloData | None] = [None] * size
        self.team = [""] * size
        self.stars = [int(c.attributes.get("stelle", 0) or 0) for c in self.records]
        self.deck: list[int] = []  # the 90 playing cards, one entry per copy
        self.characters: list[int] = []
        self.roles: dict[str, list[int]] = {}  # "ninja" -> its cards, one entry per copy
        for i, c in enumerate(self.records):
            if c.deck != BASE:
                continue
            data = c.data or {}
            if c.kind == PROPRIETA:
                self.prop[i] = ProprietaData.model_validate(data)
            elif c.kind == AZIONE:
                self.action[i] = AzioneData.model_validate(data)
            elif c.kind == "personaggio":
                self.character[i] = PersonaggioData.model_validate(data)
                self.characters.extend([i] * c.copies)
            elif c.kind == "ruolo":
                role = RuoloData.model_validate(data)
                self.role[i] = role
                self.team[i] = str(c.attributes["squadra"])
                self.roles.setdefault(role.ruolo, []).extend([i] * c.copies)
            if c.kind in PLAYING_KINDS:
                self.deck.extend([i] * c.copies)
        # Per-card bonuses as plain ints: read on every attack, so no attribute lookups.
        self.extra_weapons = [p.armi_extra if p else 0 for p in self.prop]
        self.defence = [p.difesa if p else 0 for p in self.prop]
        self.extra_wounds = [p.ferite_inflitte if p else 0 for p in self.prop]
        self.honour_test = [bool(p and p.prova_onore) for p in self.prop]
        self.is_parry = [bool(a and a.effetto == "parata") for a in self.action]
        self.end_points = [a.onore_in_mano if a else 0 for a in self.action]
        self.resistance = [int(c.attributes.get("resistenza", 0) or 0) for c in self.records]
        self.play = [self._play_code(i) for i in range(size)]

    def _play_code(self, i: int) -> int:
        prop, action = self.prop[i], self.action[i]
        if self.is_weapon[i]:
            return WEAPON
        if prop is not None:
            return ON_ANYONE if prop.prova_onore else ON_SELF
        if action is None or action.effetto == "parata":
            return ANSWER_ONLY  # a Parata is only an answer to a weapon (rule 6.5)
        if action.effetto == "scarta":
            return DISCARD_ONE
        if action.effetto == "prendi":
            return TAKE_ONE
        return FOR_ANOTHER if action.pesca_scelto else PLAIN

    def effect(self, c: int) -> AzioneData:
        """The effect of an action card (ValueError for any other card)."""
        effect = self.action[c]
        if effect is None:
            raise ValueError(f"'{self.code[c]}' is not an action")
        return effect

    def role_data(self, c: int) -> RuoloData:
        role = self.role[c]
        if role is None:
            raise ValueError(f"'{self.code[c]}' is not a role")
        return role

    def codes(self, cards: Sequence[int]) -> list[str]:
        return [self.code[c] for c in cards]

    def card(self, code: str) -> int:
        """The index of a base-game card by code; ValueError naming it otherwise."""
        index = self.index.get(code)
        if index is None or self.records[index].deck != BASE:
            raise ValueError(f"no base-game Samurai Sword card with the code '{code}'")
        return index
