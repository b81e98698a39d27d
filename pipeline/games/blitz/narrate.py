"""BLITZ events told in Italian, for replays and worked examples (our own sentences)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from pipeline.engine.core import Event

from .cards import COLLECTIONS_NEEDED, RAINBOW, CardTable


def player_name(p: int) -> str:
    return f"Giocatore {p + 1}"


def _the(players: Sequence[int], prep: str = "", cap: bool = False, hand: bool = False) -> str:
    """ "il Giocatore 2", "ai Giocatori 2 e 3", "dalla mano del Giocatore 1": with the
    article and preposition joined as Italian wants them."""
    many = len(players) > 1
    numbers = _join([str(p + 1) for p in players])
    if hand:
        word = "dalla mano" if prep == "da" else "la mano"
        return f"{word} {'dei Giocatori' if many else 'del Giocatore'} {numbers}"
    article = {"": ("il", "i"), "a": ("al", "ai"), "di": ("del", "dei"), "da": ("dal", "dai")}
    text = f"{article[prep][many]} {'Giocatori' if many else 'Giocatore'} {numbers}"
    return text[0].upper() + text[1:] if cap else text


def _join(words: Sequence[str]) -> str:
    words = list(words)
    if not words:
        return "nessuna carta"
    if len(words) == 1:
        return words[0]
    return ", ".join(words[:-1]) + " e " + words[-1]


class Narrator:
    """Card and collection names from the card table; one sentence per event (or none)."""

    def __init__(self, table: CardTable, instance_card: Callable[[int], int]):
        self.table = table
        self.of = instance_card

    def card(self, c: int) -> str:
        return self.table.records[self.of(c)].name

    def cards(self, cs: Sequence[int]) -> str:
        return _join([self.card(c) for c in cs])

    def collection(self, key: int) -> str:
        if key == RAINBOW:
            return "collezione di quattro tipologie diverse (8 punti)"
        return f"collezione di quattro {self.table.types[key]} (10 punti)"

    def sentence(self, e: Event) -> str | None:
        who = _the([e.player], cap=True) if e.player >= 0 else ""
        a = e.args
        kind = e.kind
        if kind == "setup":
            decks, needed, teams, rush = a
            mode = {"none": "tutti contro tutti", "pairs": "a coppie", "teams": "a squadre"}
            text = (
                f"Si gioca {mode.get(teams, teams)} con {decks} mazz{'o' if decks == 1 else 'i'}:"
                f" per chiudere la partita servono {needed} collezioni complete"
            )
            return text + (", ed è stato concordato il Rush BLITZ." if rush else ".")
        if kind == "deal":
            return f"{who} riceve {len(a[0])} carte coperte."
        if kind == "turn":
            return f"Turno {a[0]}: tocca {_the([e.player], 'a')}."
        if kind == "skip":
            return f"{who} salta questo turno per effetto di un Blocca."
        if kind == "draw":
            source, cs = a
            if source >= 0:
                whose = _the([source], "da", hand=True)
                return f"{who} pesca alla cieca {whose}: {self.cards(cs)}."
            if not cs:
                return f"{who} non trova più carte nel mazzo di pesca."
            return f"{who} pesca dal mazzo: {self.cards(cs)}."
        if kind == "no_draw":
            return f"{who} non ha da dove pescare e passa alle altre fasi."
        if kind == "expose":
            c, owner = a
            if owner == e.player:
                return f"{who} espone sul tavolo {self.card(c)}."
            return (
                f"{who} espone {self.card(c)} nell'area {_the([owner], 'di')}, suo compagno, "
                "per iniziare o ampliare una sua collezione."
            )
        if kind == "complete":
            return f"{who} ha ora una {self.collection(a[0])}."
        if kind == "play":
            c, target, mode = a
            if target < 0:
                return f"{who} gioca {self.card(c)}."
            how = {"mano": ", mano con mano", "tavolo": ", sul tavolo"}.get(mode, "")
            return f"{who} gioca {self.card(c)} contro {_the([target])}{how}."
        if kind == "block":
            return f"{who} posa un {self.card(a[0])} contro {_the([a[1]])}."
        if kind == "let":
            return f"{who} lascia passare senza bloccare."
        if kind == "resolve":
            effective, skips = a
            text = "L'azione va a segno" if effective else "L'azione resta senza effetto"
            if skips:
                verb = "salta" if len(skips) == 1 else "saltano"
                text += f"; {_the(skips)} {verb} il prossimo turno"
            return text + "."
        if kind == "reveal":
            return f"{_the([a[0]], cap=True)} mostra a tutti la sua mano: {self.cards(a[1])}."
        if kind == "swap_hand":
            q, took, gave = a
            return (
                f"{who} prende {self.card(took)} {_the([q], 'da', hand=True)} "
                f"e in cambio gli cede {self.card(gave)}."
            )
        if kind == "swap_table":
            q, gave, took, broke = a
            text = (
                f"{who} scambia sul tavolo il suo {self.card(gave)} con {self.card(took)} "
                f"{_the([q], 'di')}"
            )
            return text + (", la cui collezione completa si disfa." if broke else ".")
        if kind == "steal":
            q, key, _ = a
            return f"{who} porta via {_the([q], 'a')} la sua {self.collection(key)}."
        if kind == "blitz":
            targets, cs = a
            if not targets:
                return (
                    f"{who} gioca la carta BLITZ, ma nessun avversario ha carte sciolte sul "
                    "tavolo: non prende nulla. Da qui in avanti vale la modalità BLITZ."
                )
            whom = _the(targets, "a")
            choice = "sceglie un solo avversario" if len(targets) == 1 else "sceglie due avversari"
            return (
                f"{who} gioca la carta BLITZ, {choice} e prende {whom} le carte sciolte sul "
                f"tavolo: {self.cards(cs)}. Da qui in avanti vale la modalità BLITZ."
            )
        if kind == "fizzle":
            return f"{self.card(a[0])} non ha effetto: una delle due mani è rimasta vuota."
        if kind == "pass":
            return f"{who} chiude il turno."
        if kind == "rush":
            return (
                "Il mazzo è finito e tutti hanno meno di 3 carte: parte il Rush BLITZ, "
                f"con un nuovo mazzo di {a[0]} carte azione rimescolate."
            )
        if kind == "end":
            return self.ending(*a)
        return None  # chance outcomes and actions are told by the events they cause

    def ending(self, how: str, winners: Sequence[int], scores: Sequence[int]) -> str:
        points = ", ".join(f"{player_name(p)} {s}" for p, s in enumerate(scores))
        names = _the(winners)
        plural = len(winners) > 1
        reach = "raggiungono" if plural else "raggiunge"
        cause = {
            "collezioni": f"{names} {reach} le collezioni complete richieste",
            "rush": f"durante il Rush BLITZ {names} {reach} le collezioni richieste",
            "mazzo-esaurito": "il mazzo è finito e nessuno ha più di due carte in mano",
            "rush-esaurito": "anche il mazzo del Rush BLITZ è finito",
        }.get(how, how)
        if how == "interrotta":
            return (
                "La partita si interrompe dopo 60 turni a testa: nessuna regola l'ha chiusa "
                "(di solito a mazzo finito qualcuno tiene 3 o più carte che nessuno riesce a "
                "giocare) e il motore la ferma per sicurezza. Non ci sono vincitori; i punti "
                f"sul tavolo, solo per memoria: {points}."
            )
        verdict = (
            "" if how in ("collezioni", "rush") else f"; {'vincono' if plural else 'vince'} {names}"
        )
        return f"Fine della partita: {cause}{verdict}. Punti: {points}."


def narrate(table: CardTable, events: Sequence[Event]) -> list[str]:
    """The events as sentences (instance ids of the first deck are the same with two)."""
    card = table.instances(max(COLLECTIONS_NEEDED)).card
    teller = Narrator(table, card.__getitem__)
    return [s for s in map(teller.sentence, events) if s]
