"""Mazzo's balance figures (who starts, bluffs and doubts, the Mazziere, bottini, each
character) and the invariants the conformance test checks after every action."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from itertools import pairwise
from typing import Any

from pipeline.engine.plugin import FigureTable, rate

from .state import HAND, OVER, MazzoCards, MazzoState

# -- figures --------------------------------------------------------------------------------


def summarize(cards: MazzoCards, state: MazzoState) -> dict[str, Any]:
    """One game: who attacked first, the defences, the Mazziere, the bottini, and per
    character the turns it was played in and whether its player won the game."""
    first = next(e.player for e in state.log if e.kind == "first")
    start = [
        next(e.args[0] for e in state.log if e.kind == "deal" and e.player == p) for p in (0, 1)
    ]
    mazz = cards.mazziere
    outcome = state.outcome()
    winners = list(outcome.winners) if outcome else []
    played: list[list[str]] = [[], []]
    attacker = first
    for e in state.log:
        if e.kind == "turn":
            attacker = e.player
        elif e.kind in ("clash", "doubt", "last_card"):
            shown = e.args[:2] if e.kind != "doubt" else e.args[:1]
            for i, c in enumerate(shown):
                if not mazz[c]:
                    played[attacker if i == 0 else 1 - attacker].append(cards.codes[c])
    nonces = [e for e in state.log if e.kind == "nonce"]
    judged = [e.kind for e in state.log if e.kind in ("believe", "doubt")]
    lies = [e.args[1] for e in nonces]
    return {
        "first": first,
        "winners": winners,
        "how": outcome.how if outcome else "",
        "bottini": [len(b) for b in state.bottini],
        "mazziere_start": [p for p in (0, 1) if any(mazz[c] for c in start[p])],
        "mazziere_bottino": [p for p in (0, 1) if any(mazz[c] for c in state.bottini[p])],
        "nonce": len(nonces),
        "bluffs": sum(lies),
        "bluffs_doubted": sum(
            1 for lie, j in zip(lies, judged, strict=False) if lie and j == "doubt"
        ),
        "doubts": judged.count("doubt"),
        "doubts_right": sum(1 for e in state.log if e.kind == "doubt_right"),
        "played": played,
    }


def figures(
    cards: MazzoCards, summaries: Sequence[Mapping[str, Any]], players: int = 2
) -> list[FigureTable]:
    n = len(summaries)
    tables = [
        _starts(cards, summaries, n),
        _bluffs(cards, summaries),
        _mazziere(cards, summaries),
    ]
    sizes = Counter(s for g in summaries for s in g["bottini"])
    tables.append(
        FigureTable(
            "bottini",
            "Dimensione dei bottini a fine partita (entrambi i giocatori)",
            ("carte", "bottini"),
            tuple((size, sizes[size]) for size in range(min(sizes), max(sizes) + 1))
            if sizes
            else (),
            chart="histogram",
        )
    )
    tables.append(_characters(cards, summaries))
    return tables


def _starts(cards: MazzoCards, summaries: Sequence[Mapping[str, Any]], n: int) -> FigureTable:
    """Each row of a "vittorie" column is the win rate of the players it names, which the
    balance report holds against parity: drawn games are not a side (they are among how
    the games ended)."""
    first = sum(1 for g in summaries if g["first"] in g["winners"])
    draws = sum(1 for g in summaries if not g["winners"])
    return FigureTable(
        "primo-attacco",
        "Chi attacca per primo",
        ("chi", "vittorie"),
        (
            ("chi attacca per primo", rate(first, n)),
            ("chi difende per primo", rate(n - first - draws, n)),
        ),
        chart="bars",
    )


def _bluffs(cards: MazzoCards, summaries: Sequence[Mapping[str, Any]]) -> FigureTable:
    total = {
        k: sum(g[k] for g in summaries)
        for k in ("nonce", "bluffs", "bluffs_doubted", "doubts", "doubts_right")
    }
    return FigureTable(
        "bluff",
        "Bluff e dubbi",
        ("che cosa", "quota"),
        (
            ("«non ce l'ho» che erano bluff", rate(total["bluffs"], total["nonce"])),
            ("bluff a cui si è detto «dubito»", rate(total["bluffs_doubted"], total["bluffs"])),
            ("«dubito» giusti", rate(total["doubts_right"], total["doubts"])),
        ),
        chart="bars",
    )


def _mazziere(cards: MazzoCards, summaries: Sequence[Mapping[str, Any]]) -> FigureTable:
    def won(key: str) -> tuple[int, int]:
        games = [g for g in summaries if g[key]]
        return sum(1 for g in games if g[key][0] in g["winners"]), len(games)

    start_won, start_n = won("mazziere_start")
    loot_won, loot_n = won("mazziere_bottino")
    return FigureTable(  # the games won at once by the Mazziere are among how games end
        "mazziere",
        "Quanto vale il Mazziere",
        ("chi", "vittorie"),
        (
            ("chi ha il Mazziere nella mano iniziale", rate(start_won, start_n)),
            ("chi ha il Mazziere nel bottino a fine partita", rate(loot_won, loot_n)),
        ),
        chart="bars",
    )


def _characters(cards: MazzoCards, summaries: Sequence[Mapping[str, Any]]) -> FigureTable:
    plays: Counter[str] = Counter()
    wins: Counter[str] = Counter()
    for g in summaries:
        for p in (0, 1):
            for code in g["played"][p]:
                plays[code] += 1
                wins[code] += p in g["winners"]
    names = dict(zip(cards.codes, cards.names, strict=True))
    rows = [
        (names[c], plays[c], rate(wins[c], plays[c]))
        for c in dict.fromkeys(cards.codes[i] for i in cards.characters)
    ]
    return FigureTable(
        "personaggi",
        "Personaggi: partite vinte da chi li ha giocati",
        ("personaggio", "giocato", "vittorie"),
        tuple(sorted(rows, key=lambda row: -row[2]["rate"])),
        chart="bars",
    )


# -- invariants -----------------------------------------------------------------------------


def invariants(cards: MazzoCards, state: MazzoState) -> list[str]:
    out = []
    if any(len(h) > HAND for h in state.hands):
        out.append(f"a hand holds more than {HAND} cards: {[len(h) for h in state.hands]}")
    if state.phase != OVER and (not state.hands[0] and not state.hands[1]):
        out.append("both hands are empty but the game goes on")
    outcome = state.outcome()
    if outcome and outcome.how != "mazziere" and state.reserve:
        out.append("the game ended by the count with cards left in the reserve")
    on_table = [c for c in (state.attacker_card, state.defender_card) if c >= 0]
    if state.phase in ("attack", "take") and on_table:
        out.append(f"cards left on the table at the {state.phase}: {on_table}")
    if state.turn and state.phase != OVER:
        turns = [e.player for e in state.log if e.kind == "turn"]
        if any(a == b for a, b in pairwise(turns)):
            out.append("the same player attacked two turns in a row")
    for p in (0, 1):
        stray = state.seen[p] & ~sum(1 << c for c in state.hands[1 - p])
        if state.phase == "attack" and stray:
            out.append(f"player {p + 1} 'knows' cards that are not in the other's hand")
    return out
