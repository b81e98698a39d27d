"""Samurai Sword events told in Italian, for replays and worked examples (our own words)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pipeline.common.words import count
from pipeline.engine.core import Event

from .cards import Cards

HOW = {
    "ferita": "un giocatore ha ceduto il suo ultimo punto onore dopo l'ultima ferita",
    "mazzo": "il mazzo si è esaurito e qualcuno è rimasto senza onore",
    "bushido": "la prova del Bushido è costata l'ultimo punto onore",
    "ultimo-in-piedi": "un solo giocatore ha ancora punti resistenza",
}
WHY = {  # a Parata's discard is told by its "parry" event
    "limite": "per restare con 7 carte in mano",
    "richiesta": "per non subire la ferita",
    "bushido": "per superare la prova del Bushido",
}


def who(p: int) -> str:
    return f"il giocatore {p + 1}"


def left(points: int) -> str:
    return f"gliene resta {points}" if points == 1 else f"gliene restano {points}"


def resistance(points: int) -> str:
    return "resta senza resistenza" if points == 0 else f"resta con {points} resistenza"


def wound(p: int, lost: int, left_: int, by: int, card: int, dealt: int = 0) -> str:
    """The wounds a blow carried, and those lost past zero resistance (6.6)."""
    dealt = max(dealt, lost)
    if dealt == lost:
        return (
            f"Il giocatore {p + 1} subisce {count(lost, 'ferita', 'ferite')} e {resistance(left_)}."
        )
    wasted = count(dealt - lost, "ferita va persa", "ferite vanno perse")
    if not lost:
        return (
            f"Il giocatore {p + 1} è colpito da {count(dealt, 'ferita', 'ferite')}, ma è già "
            f"senza resistenza: {wasted}."
        )
    had, lose = (
        ("gli restava 1 punto", "lo perde")
        if lost == 1
        else (f"gli restavano {lost} punti", "li perde")
    )
    return (
        f"Il giocatore {p + 1} è colpito da {count(dealt, 'ferita', 'ferite')}, ma {had} "
        f"resistenza: {lose} e {resistance(0)}; {wasted}."
    )


def narrate_events(events: Sequence[Event], cards: Cards) -> list[str]:
    """One sentence per event worth telling; chance and bare actions are left out."""
    name = cards.name
    out: list[str] = []

    def card(c: int) -> str:
        return name[c] if c >= 0 else "nessuna carta"

    tell: dict[str, Callable[[int, tuple], str]] = {
        "setup": lambda p, a: (
            f"Il giocatore {p + 1} è {name[cards.index[a[1]]]} ({a[2]} resistenza, "
            f"{a[3]} onore, {a[4]} carte in mano)."
        ),
        "shogun": lambda p, a: f"Lo Shogun è {who(p)} e comincia la partita.",
        "turn": lambda p, a: f"Turno {a[0]}: tocca al giocatore {p + 1}.",
        "recover": lambda p, a: f"Il giocatore {p + 1} recupera fino a {a[0]} resistenza.",
        "bushido_test": lambda p, a: (
            f"Prova del Bushido: {who(p)} gira {card(a[0])}"
            + (", un'arma." if a[1] else ", che non è un'arma.")
        ),
        "bushido_pass": lambda p, a: f"Il Bushido passa al giocatore {a[0] + 1}.",
        "bushido_lost": lambda p, a: f"Il Bushido del giocatore {p + 1} finisce negli scarti.",
        "draw": lambda p, a: (
            f"Il giocatore {p + 1} prende {count(a[0], 'carta', 'carte')}"
            + (" dalla cima degli scarti." if a[1] == "scarti" else " dal mazzo.")
        ),
        "deck_out": lambda p, a: (
            f"Il mazzo è finito: si rimescolano {count(a[0], 'carta', 'carte')} degli scarti "
            "e tutti perdono 1 punto onore."
        ),
        "honour": lambda p, a: (
            f"Il giocatore {p + 1} cede 1 punto onore al giocatore {a[2] + 1} ({left(a[3])})."
            if a[2] >= 0
            else f"Il giocatore {p + 1} perde 1 punto onore ({left(a[3])})."
        ),
        "attack": lambda p, a: (
            f"Il giocatore {p + 1} attacca {who(a[0])} con {card(a[1])} "
            f"(difficoltà dell'attacco {a[2]})."
        ),
        "parry": lambda p, a: f"Il giocatore {p + 1} para l'attacco con {card(a[0])}.",
        "wound": lambda p, a: wound(p, *a),
        "harmless": lambda p, a: f"Il giocatore {p + 1} è indifeso.",
        "place": lambda p, a: (
            f"Il giocatore {p + 1} mette {card(a[0])} davanti "
            + ("a sé." if a[1] == p else f"al giocatore {a[1] + 1}.")
        ),
        "play": lambda p, a: (
            f"Il giocatore {p + 1} gioca {card(a[0])}"
            + (f" scegliendo {who(a[1])}." if a[1] >= 0 else ".")
        ),
        "discard": lambda p, a: (
            f"Il giocatore {p + 1} scarta {card(a[0])} {WHY[a[1]]}."
            if a[1] in WHY
            else f"Il giocatore {p + 1} perde {card(a[0])}, che finisce negli scarti."
            if a[1] == "scartata"
            else ""
        ),
        "take": lambda p, a: (
            f"Il giocatore {p + 1} prende {card(a[0])} dalla mano del giocatore {a[1] + 1}."
        ),
        "heal": lambda p, a: f"Il giocatore {p + 1} torna a {a[0]} resistenza.",
        "ability": lambda p, a: (
            f"Il giocatore {p + 1} rinuncia a 1 resistenza per pescare una carta."
        ),
        "end_turn": lambda p, a: f"Il giocatore {p + 1} chiude il turno.",
        "score": lambda p, a: f"Punteggio della squadra {a[0]}: {a[1]}.",
        "end": lambda p, a: (
            f"La partita finisce perché {HOW.get(a[0], a[0])}: vince la squadra {a[1]}."
            + (" " + reveal(a[2]) if len(a) > 2 else "")
        ),
    }

    def reveal(roles: Sequence[str]) -> str:
        """9.3: at the end every role card is turned face up."""
        told = [f"{who(p)} è {name[cards.index[code]]}" for p, code in enumerate(roles)]
        return "Si scoprono i ruoli: " + ", ".join(told[:-1]) + " e " + told[-1] + "."

    for event in events:
        sentence = tell.get(event.kind)
        text = sentence(event.player, event.args) if sentence is not None else ""
        if text:
            out.append(text)
    return out
