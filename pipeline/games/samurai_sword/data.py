"""The structured ``data`` of Samurai Sword cards: what the engine reads to play each card.

Every effect the engine applies comes from these fields (never from a card's code), so a
designer who changes a card's data changes the game. Characters and properties share the
three bonuses a table position can carry; the rest is particular to one card family.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Bonus(_Strict):
    """What a property in front of a player, or a character, adds at the table."""

    armi_extra: int = Field(0, ge=0, description="Armi in più che si possono giocare per turno.")
    difesa: int = Field(0, ge=0, description="Difficoltà in più per chi attacca questo giocatore.")
    ferite_inflitte: int = Field(0, ge=0, description="Ferite in più di ogni arma che va a segno.")


class ProprietaData(Bonus):
    """A property (blue card). ``prova_onore``: the Bushido test at the end of recovery."""

    prova_onore: bool = Field(False, description="Bushido: prova dopo il recupero, una in gioco.")


class PersonaggioData(Bonus):
    """A character's ability, as the engine applies it."""

    ferite_subite: int = Field(0, le=0, description="Ferite in meno subite da un'arma (min. 1).")
    solo_armi: bool = Field(False, description="Solo le armi lo feriscono (Grido, Jujitsu no).")
    parata_con_arma: bool = Field(False, description="Un'arma vale da Parata, se non è l'ultima.")
    pesca_extra: int = Field(0, ge=0, description="Carte in più nella fase di pesca.")
    pesca_dagli_scarti: bool = Field(False, description="La prima carta può venire dagli scarti.")
    portata_illimitata: bool = Field(False, description="Le sue armi raggiungono chiunque.")
    resistenza_per_carta: bool = Field(
        False, description="Nel suo turno cede 1 resistenza, mai l'ultima, per pescare 1 carta."
    )
    pesca_se_ferisce: int = Field(0, ge=0, description="Carte pescate quando una sua arma ferisce.")
    pesca_per_ferita: int = Field(0, ge=0, description="Carte pescate per ogni ferita da arma.")


class AzioneData(_Strict):
    """An action (yellow card): its effect, and the numbers that effect takes."""

    effetto: Literal["parata", "scarta", "prendi", "pesca", "richiesta", "cura"]
    pesca: int = Field(0, ge=0, description="Carte che pesca chi la gioca.")
    pescano_altri: int = Field(0, ge=0, description="Carte che pesca ciascuno degli altri.")
    pesca_scelto: int = Field(0, ge=0, description="Carte che pesca un altro giocatore scelto.")
    richiede: Literal["parata", "arma"] | None = Field(
        None, description="Che cosa deve scartare ogni altro giocatore non indifeso."
    )
    ferite: int = Field(0, ge=0, description="Ferite di chi non scarta quanto richiesto.")
    onore_in_mano: int = Field(0, ge=0, description="Punti a fine partita se resta in mano.")


class RuoloData(_Strict):
    """A role: which of the four it is, and its honour multiplier by number of players."""

    ruolo: Literal["shogun", "samurai", "ninja", "ronin"]
    moltiplicatore: dict[int, int] = Field(description="Giocatori -> moltiplicatore dell'onore.")


DATA_MODELS: dict[str, type[BaseModel]] = {
    "ruolo": RuoloData,
    "personaggio": PersonaggioData,
    "proprieta": ProprietaData,
    "azione": AzioneData,
}
