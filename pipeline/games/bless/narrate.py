"""Italian narration of engine events: worked examples, replays and logs read as prose."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from pipeline.common.words import a
from pipeline.engine.core import Event

from .compiler import ALT, MAL, MAZZO, PRE, VUOTO, CardInfo

ZONE_WORDS = {MAL: "Maledizione", PRE: "Preghiera"}
REASONS = {
    "offerta": "con l'Offerta",
    "diretto": "con l'Attacco Diretto",
    "impatto": "per Impatto",
}
DURATIONS = {
    "this_turn": "in questo turno",
    "until_end_of_next_turn": "fino alla fine del prossimo turno",
    "next_turn": "nel prossimo turno",
    "permanent": "finché resta in campo",
}
KIND_WORDS = {
    "occhio": "Occhio modificato",
    "karma": "Karma modificato",
    "occhio_original": "Occhio originale modificato",
    "karma_original": "Karma originale modificato",
    "grant": "nuova abilità",
    "wins": "«Vince»",
    "tie_wins": "vince i pareggi",
    "cannot_attack": "non può attaccare",
    "cannot_be_attacked": "non può essere attaccata",
    "taunt": "unico bersaglio possibile",
    "direct_attack": "può attaccare direttamente",
    "suppress": "perde il suo effetto",
    "set_forma": "Forma cambiata",
    "free_play": "si cala gratuitamente",
}


def player_name(p: int) -> str:
    return f"Giocatore {p + 1}"


def points_word(points: int) -> str:
    return "1 Punto Vittoria" if points == 1 else f"{points} Punti Vittoria"


class BlessNarrator:
    """Turns Bless events into Italian sentences, one per event that a reader needs."""

    def __init__(self, cards: Sequence[CardInfo], texts: Mapping[int, Mapping[str, str]]):
        self.cards = cards
        self.texts = texts
        self.last: Event | None = None

    def name(self, c: int) -> str:
        return self.cards[c].name

    def names(self, cards: Sequence[int]) -> str:
        names = [self.name(c) for c in cards]
        if not names:
            return "nessuna carta"
        sep = "; " if any("," in n for n in names) else ", "
        return names[0] if len(names) == 1 else sep.join(names[:-1]) + " e " + names[-1]

    def line(self, e: Event) -> str | None:
        method: Callable[[Event], str | None] | None = getattr(self, f"_{e.kind}", None)
        text = method(e) if method is not None else None
        self.last = e
        return text

    def _setup(self, e: Event) -> str:
        altar, cards = e.args
        return (
            f"Si mescola il Mazzo di {cards} carte e si danno 4 carte a testa. "
            f"I Turni Finali scattano con la {altar}ª carta in un Altare."
        )

    def _first(self, e: Event) -> str:
        return f"Primo Giocatore: {player_name(e.player)}, che nel suo primo turno ha 2 Azioni."

    def _turn(self, e: Event) -> str:
        turn, actions = e.args
        return f"**Turno {turn}** di {player_name(e.player)} ({actions} Azioni)."

    def _mulligan(self, e: Event) -> str:
        aside, drawn = e.args
        who = player_name(e.player)
        if not aside:
            text = f"{who} fa il Mulligan senza mettere da parte carte"
            return text + (f" e pesca {self.names(drawn)}." if drawn else ".")
        text = f"{who} fa il Mulligan: mette da parte {self.names(aside)}"
        if drawn:
            text += f", pesca {self.names(drawn)}"
        if aside:
            text += " e rimescola nel Mazzo le carte messe da parte"
        return text + "."

    def _draw(self, e: Event) -> str | None:
        (cards,) = e.args
        if not cards:
            return None
        return f"{player_name(e.player)} pesca {self.names(cards)}."

    def _refill(self, e: Event) -> str:
        return (
            f"Il Mazzo è finito: le {len(e.args[0])} carte del Vuoto si mescolano e diventano "
            "il nuovo Mazzo."
        )

    def _cala(self, e: Event) -> str:
        card, into, cost = e.args
        free = " gratuitamente" if cost == 0 else ""
        return f"{player_name(e.player)} cala{free} {self.name(card)} come {into.capitalize()}."

    def _enter(self, e: Event) -> str | None:
        card, zone, how = e.args
        if self.last is not None and self.last.kind == "cala" and self.last.args[0] == card:
            return None
        as_what = ZONE_WORDS[zone]
        if how == "convert":
            return f"{self.name(card)} viene Convertita in {as_what}."
        verb = "cala" if how == "cala" else "gioca"
        return f"{player_name(e.player)} {verb} gratuitamente {self.name(card)} come {as_what}."

    def _stasi(self, e: Event) -> str:
        who, card = player_name(e.player), self.name(e.args[0])
        return f"{who} spende 1 Azione per togliere la Stasi {a(card)}."

    def _stasi_end(self, e: Event) -> str:
        return "Fine Turno: la Stasi lascia tutte le Maledizioni."

    def _attack(self, e: Event) -> str:
        a, d = e.args
        return f"{player_name(e.player)}: {self.name(a)} attacca {self.name(d)}."

    def _direct(self, e: Event) -> str:
        return f"{player_name(e.player)}: {self.name(e.args[0])} fa un Attacco Diretto."

    def _fato(self, e: Event) -> str:
        card, guess, roll, hit = e.args
        said = "Dispari" if guess else "Pari"
        outcome = "ha indovinato: vince lo scontro" if hit else "ha sbagliato"
        return (
            f"Fato di {self.name(card)}: {player_name(e.player)} dichiara {said}, il dado dà "
            f"{roll}, {outcome}."
        )

    def _clash(self, e: Event) -> str:
        a, d, eye_a, eye_d, result = e.args
        head = f"Scontro: {self.name(a)} (Occhio {eye_a}) contro {self.name(d)} (Occhio {eye_d})"
        if result == 2:
            return head + ": pareggio, perdono entrambe."
        return head + f": vince {self.name(a if result == 0 else d)}."

    def _clash_void(self, e: Event) -> str:
        return "Lo scontro non avviene: una delle due carte ha lasciato il campo."

    def _corrupt(self, e: Event) -> str:
        return f"{self.name(e.args[0])} si Corrompe."

    def _barrier(self, e: Event) -> str:
        card = self.name(e.args[0])
        return f"{card} ha Barriera: fino alla fine del turno non può essere attaccata."

    def _purify(self, e: Event) -> str:
        return f"{self.name(e.args[0])} viene Purificata."

    def _break(self, e: Event) -> str | None:
        card, dest = e.args
        if dest >> 1 == ALT:
            return None
        if self.last is not None and self.last.kind == "limit" and self.last.args[0] == card:
            return None
        return f"{self.name(card)} si Spezza e va nel Vuoto."

    def _offer(self, e: Event) -> str:
        return f"{player_name(e.player)} Offre {self.name(e.args[0])} al proprio Altare."

    def _decline_offer(self, e: Event) -> str:
        return f"{player_name(e.player)} rinuncia all'Offerta."

    def _bless(self, e: Event) -> str:
        card, points, reason = e.args
        return (
            f"{self.name(card)} Blessa {REASONS.get(reason, '')}: {player_name(e.player)} "
            f"guadagna {points_word(points)}."
        ).replace("  ", " ")

    def _score(self, e: Event) -> str:
        points, card = e.args
        return f"{player_name(e.player)} guadagna {points_word(points)} ({self.name(card)})."

    def _invoke(self, e: Event) -> str:
        card, by = e.args
        if by < 0:
            return f"{player_name(e.player)} spende 1 Azione per Invocare {self.name(card)}."
        return f"{self.name(by)} fa Invocare gratuitamente {self.name(card)}."

    def _respond(self, e: Event) -> str:
        return f"{self.name(e.args[0])} risponde a catena."

    def _effect(self, e: Event) -> str:
        card, side, _, this = e.args
        text = self.texts.get(card, {}).get(side, "")
        who = self.name(card)
        if this != card:
            who = f"{self.name(this)}, con l'effetto di {self.name(card)},"
        return f"{who} usa il suo effetto: «{text}»" if text else f"{who} usa il suo effetto."

    def _decline(self, e: Event) -> str:
        return f"{player_name(e.player)} non usa l'effetto facoltativo di {self.name(e.args[0])}."

    def _lasting(self, e: Event) -> str | None:
        _, kind, targets, duration = e.args
        if not targets:
            return None
        return (
            f"Su {self.names(targets)}: {KIND_WORDS.get(kind, kind)} {DURATIONS.get(duration, '')}."
        )

    def _bind(self, e: Event) -> str:
        legame, host = e.args
        return f"{self.name(legame)} si lega {a(self.name(host))}."

    def _no_host(self, e: Event) -> str:
        return f"{self.name(e.args[0])} non ha una Maledizione a cui legarsi e si Spezza."

    def _limit(self, e: Event) -> str:
        return f"Limite superato: {self.name(e.args[0])} va nel Vuoto."

    def _take(self, e: Event) -> str:
        card, zone = e.args
        where = {VUOTO: "dal Vuoto", MAZZO: "dal Mazzo"}.get(zone, "")
        return f"{player_name(e.player)} prende {self.name(card)} {where} e lo aggiunge alla mano."

    def _discard(self, e: Event) -> str:
        return f"{player_name(e.player)} Scarta {self.name(e.args[0])}."

    def _return(self, e: Event) -> str:
        card, to = e.args
        where = f"in mano a {player_name(e.player)}" if to == "hand" else "nel Mazzo"
        return f"{self.name(card)} torna {where}."

    def _control(self, e: Event) -> str:
        return f"{player_name(e.player)} prende il controllo di {self.name(e.args[0])}."

    def _copy(self, e: Event) -> str:
        card, of, side = e.args
        return f"{self.name(card)} usa l'effetto {side.capitalize()} stampato su {self.name(of)}."

    def _actions(self, e: Event) -> str:
        amount, card = e.args
        return f"{player_name(e.player)} guadagna {amount} Azione ({self.name(card)})."

    def _end_now(self, e: Event) -> str:
        return f"Il turno di {player_name(e.player)} finisce subito."

    def _end_turn(self, e: Event) -> str:
        return f"{player_name(e.player)} passa al Fine Turno."

    def _final(self, e: Event) -> str:
        how, last, altar = e.args
        cause = f"la {altar}ª carta nel suo Altare" if how == "altare" else "il Mazzo esaurito"
        return (
            f"{player_name(e.player)} attiva i Turni Finali ({cause}): la partita finisce "
            f"con il turno {last}."
        )

    def _end(self, e: Event) -> str:
        (a, b), winner = e.args
        if winner < 0:
            return (
                f"Il motore interrompe la partita al limite di turni, sul {a} a {b}: è una "
                "salvaguardia delle simulazioni, non una regola di Bless, quindi la partita "
                "resta senza risultato."
            )
        text = f"Fine della partita, {a} a {b}: vince {player_name(winner)}"
        if a == b:
            text += ", che aveva attivato i Turni Finali"
        return text + "."


def narrate_bless(
    events: Sequence[Event],
    cards: Sequence[CardInfo],
    texts: Mapping[int, Mapping[str, str]] | None = None,
) -> list[str]:
    """One Italian sentence per event worth telling, in order."""
    narrator = BlessNarrator(cards, texts or {})
    return [line for e in events if (line := narrator.line(e)) is not None]
