"""BLDNG in Italian: one sentence per event a reader of a replay or an example needs.

Projects are secret: the narration says that one was drawn or passed on, and names it only
when the builder shows it at the end.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.common.words import count
from pipeline.engine.core import Event

from .cards import BldngCards, element_name
from .scenario import BldngPosition
from .state import ROUNDS

REASONS = {
    "limite": "per restare nel limite",
    "pesca-e-scarta": "per Take three cards",
    "una-da-ognuno": "per Take one card from each player",
    "restituisci": "per Give 5 cards back",
}


def player_name(p: int) -> str:
    return f"Giocatore {p + 1}"


def _sentence(rules: BldngCards, e: Event, players: int) -> str | None:
    who = player_name(e.player) if e.player >= 0 else ""
    a: Any = e.args
    name = rules.names
    match e.kind:
        case "project":
            return f"{who} pesca in segreto il suo progetto."
        case "first":
            return f"Comincia {who}; si gioca in senso orario."
        case "turn":
            return f"Turno {a[0]}: tocca a {who}."
        case "draw":
            return f"{who} pesca {name[a[0]]} e lo mette nel cantiere."
        case "take":
            return f"{who} prende dagli scarti {name[a[0]]}, appena scartato."
        case "no_card":
            return f"Non ci sono carte da pescare: {who} non pesca."
        case "reshuffle":
            return f"Il mazzo Forme è finito: si mescolano i {a[0]} scarti e diventano il mazzo."
        case "discard":
            return f"{who} scarta {name[a[0]]} {REASONS.get(a[1], '')}".rstrip() + "."
        case "whathappens":
            return f"{who} pesca la What happens {name[a[0]]}."
        case "whdone":
            return f"{who} mette {name[a[0]]} negli scarti."
        case "keep":
            return f"{who} tiene {name[a[0]]} accanto al cantiere: il suo limite è ora 15."
        case "skip":
            return f"{who} perde il resto del turno."
        case "pick":
            return f"{who} prende {name[a[0]]} dal cantiere di {player_name(a[1])}."
        case "steal":
            return f"{who} ruba {name[a[0]]} a {player_name(a[1])}."
        case "nothing":
            return f"Nessuno ha carte da prendere: {name[a[0]]} non ha effetto."
        case "shift":
            return "Tutti i progetti passano, coperti, al vicino di destra."
        case "change":
            return f"{who} mette il suo progetto in fondo al mazzo Progetti e ne pesca un altro."
        case "reverse":
            way = "orario" if a[0] > 0 else "antiorario"
            note = " (in due non cambia nulla)" if players == 2 else ""
            return f"Il senso di gioco si inverte: ora è {way}{note}."
        case "end":
            winner, how, card, jolly = a
            if how == "interrotta":
                return (
                    f"Dopo {ROUNDS} giri nessuno ha completato il progetto e il motore interrompe "
                    "la partita: è una salvaguardia delle simulazioni, non una regola del gioco, "
                    "quindi la partita resta senza risultato, né vittoria né pareggio."
                )
            if winner < 0:
                return "La partita finisce senza un builder: è pari."
            shown = f"mostra il progetto {name[card]} completo"
            values = "; ".join(f"{name[c]} vale {element_name(k)}" for c, k in jolly)
            return f"{player_name(winner)} {shown} e vince: è un builder!" + (
                f" ({values})" if values else ""
            )
    return None


def narrate(rules: BldngCards, events: Sequence[Event], players: int) -> list[str]:
    """The events as Italian sentences (chance and actions show through what they cause)."""
    return [s for e in events if (s := _sentence(rules, e, players))]


def position_lines(cards: BldngCards, position: Mapping[str, Any], players: int) -> list[str]:
    """A scenario's starting position in Italian, for the rulebook and the site."""
    spec = BldngPosition.model_validate(position)

    def name(code: str) -> str:
        return str(cards.names[cards.card(code)[0]])

    lines = []
    for p in range(players):
        seat = spec.seats.get(p + 1)
        parts = []
        if seat is not None:
            project = cards.card(seat.project)[0]
            parts.append(f"progetto {cards.names[project]} ({cards.size[project]} elementi)")
        site = [name(c) for c in seat.site] if seat is not None else []
        parts.append("cantiere: " + ", ".join(site) if site else "cantiere vuoto")
        if seat is not None and seat.keep:
            parts.append("tiene You can have up to 15 cards")
        lines.append(f"- {player_name(p)}: " + "; ".join(parts) + ".")
    deck = spec.piles.draw or []
    if deck:
        lines.append("- In cima al mazzo Forme: " + ", ".join(name(c) for c in deck) + ".")
    else:
        lines.append("- Il mazzo Forme è vuoto.")
    discard = spec.piles.discard
    if discard:
        top = name(discard[-1])
        lines.append(f"- Negli scarti {count(len(discard), 'carta', 'carte')}; in cima {top}.")
    lines.append(f"- È il turno di {player_name((spec.turn or 1) - 1)}.")
    return lines
