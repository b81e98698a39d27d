"""Mazzo in Italian: one sentence per event that a reader of a replay or an example needs.

Face-down cards are named only once they are shown, as at the table: the attack says the
declared ability, and the card appears when the clash or the doubt turns it over.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.common.words import count
from pipeline.engine.core import Event

from .scenario import MazzoPosition, MazzoSeat
from .state import MazzoCards

ABILITY_NAMES = ("Forza", "Astuzia", "Velocità", "Magia", "Coraggio")
HOW = {
    "bottino": "ha il bottino più grande",
    "spareggio": "a parità di bottino ha il Mazziere",
    "mazziere": "ha pescato il Mazziere",
}


def player_name(p: int) -> str:
    return f"Giocatore {p + 1}"


def _cards(rules: MazzoCards, cards: Sequence[int]) -> str:
    names = [rules.names[c] for c in cards]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " e " + names[-1]


def _sentence(rules: MazzoCards, e: Event) -> str | None:
    who = player_name(e.player) if e.player >= 0 else ""
    other = player_name(1 - e.player) if e.player >= 0 else ""
    a: Any = e.args
    match e.kind:
        case "remove":
            return f"Si toglie dal mazzo la {rules.names[a[0]]}."
        case "deal":
            n = len(a[0])
            return f"{who} riceve {count(n, 'carta', 'carte')}."
        case "first":
            return f"Il sorteggio fa attaccare per primo {who}."
        case "turn":
            return f"Turno {a[0]}: attacca {who}, difende {other}."
        case "attack":
            return f"{who} posa una carta coperta e sfida su {ABILITY_NAMES[a[1]]}."
        case "last_card":
            return (
                f"Resta una carta a testa: senza dichiarare nulla {who} gira "
                f"{rules.names[a[0]]} e {other} gira {rules.names[a[1]]}."
            )
        case "open":
            return f"{who} risponde scoperto con {rules.names[a[0]]}."
        case "nonce":
            return f"{who} dice «non ce l'ho» e posa una carta coperta."
        case "believe":
            return f"{who} gli crede e si girano le carte."
        case "doubt":
            return (
                f"{who} dice «dubito», gira {rules.names[a[0]]} e la riprende in mano; "
                f"{other} riprende la sua carta."
            )
        case "show":
            return f"{who} mostra la mano: {_cards(rules, a[0])}."
        case "doubt_right":
            return f"Il dubbio è giusto: {other} aveva {ABILITY_NAMES[a[0]]} e ha mentito."
        case "doubt_wrong":
            return f"Il dubbio è sbagliato: {other} non aveva {ABILITY_NAMES[a[0]]}."
        case "clash":
            return _clash(rules, e)
        case "bottino":
            return f"{who} mette nel suo bottino {_cards(rules, a[0])}."
        case "blind_draw":
            return f"{who} pesca a caso, senza guardarla, {rules.names[a[0]]}."
        case "end":
            return _end(*a)
    return None


def _end(sizes: Sequence[int], winner: int, how: str, left: Sequence[int] = (0, 0)) -> str:
    """The result, and the cards still in a hand: they go into no bottino (rule 5.2)."""
    score = f"bottini {sizes[0]} a {sizes[1]}"
    if winner < 0:
        text = f"Partita finita, {score}: pari."
    else:
        text = f"Partita finita, {score}: vince {player_name(winner)}, che {HOW[how]}."
    if how == "mazziere":
        return text
    for p in (0, 1):
        if left[p]:
            where = f"in mano al {player_name(p)}"
            if left[p] == 1:
                text += f" La carta rimasta {where} non entra in nessun bottino e non conta."
            else:
                text += (
                    f" Le {left[p]} carte rimaste {where} non entrano in nessun bottino"
                    " e non contano."
                )
    return text


def _clash(rules: MazzoCards, e: Event) -> str:
    mine, theirs, k, va, vd, winner = e.args
    if k < 0:
        what = f"{rules.names[mine]} vale {va}, {rules.names[theirs]} vale {vd}"
    else:
        ability = ABILITY_NAMES[k]

        def value(c: int, v: int) -> str:
            if rules.mazziere[c]:
                return f"{rules.names[c]}, che vince ogni scontro,"
            return (
                f"{rules.names[c]} ({ability} {v})" if v else f"{rules.names[c]} (senza {ability})"
            )

        what = f"{value(mine, va)} contro {value(theirs, vd)}"
    if winner < 0:
        return f"Scontro: {what}; pareggio."
    side = "l'attaccante" if winner == e.player else "il difensore"
    return f"Scontro: {what}; vince {side}, {player_name(winner)}.".replace(",;", ";")


def position_lines(cards: MazzoCards, position: Mapping[str, Any]) -> list[str]:
    """A scenario's starting position in Italian, for the rulebook and the site."""
    spec = MazzoPosition.model_validate(position)
    lines = []
    for p in (0, 1):
        seat = spec.seats.get(p + 1, MazzoSeat())
        held = [cards.names[cards.card(c)] for c in seat.hand]
        n = len(seat.loot)
        loot = f"{count(n, 'carta', 'carte')} nel bottino" if n else "bottino vuoto"
        hand = "in mano " + ", ".join(held) if held else "nessuna carta in mano"
        lines.append(f"- {player_name(p)}: {hand}; {loot}.")
    left = len(spec.piles.draw or [])
    lines.append(f"- Riserva: {left} carte." if left else "- La riserva è vuota.")
    lines.append(f"- Attacca {player_name((spec.turn or 1) - 1)}.")
    return lines


def narrate(rules: MazzoCards, events: Sequence[Event]) -> list[str]:
    """The events as Italian sentences (chance and actions show through what they cause)."""
    return [s for e in events if (s := _sentence(rules, e))]
