"""Bless's own simulation figures (FigureHooks): the first player's edge, points, how the
Final Turns began, and per card how it was played and how its player fared."""

from __future__ import annotations

import statistics
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.engine.plugin import FigureTable, rate

from .compiler import MAL
from .deck import BlessDeck
from .state import BlessGame

HOW = {"altare": "Altare", "mazzo": "Mazzo esaurito", "": "mai"}


def summarize(state: BlessGame) -> dict[str, Any]:
    codes = [c.code for c in state.info]
    plays = [
        [codes[e.args[0]], "M" if e.args[1] == MAL else "P", e.player]
        for e in state.log
        if e.kind == "enter" and e.args[2] in ("cala", "play")
    ]
    return {
        "first": state.first,
        "winner": state.winner,
        "scores": list(state.scores),
        "final": state.final_how,
        "plays": plays,
    }


def figures(
    deck: BlessDeck, summaries: Sequence[Mapping[str, Any]], players: int
) -> list[FigureTable]:
    done = [s for s in summaries if s["winner"] >= 0]
    first_wins = sum(s["winner"] == s["first"] for s in done)
    first = FigureTable(
        "primo",
        "Vittorie di chi gioca per primo",
        ("chi", "vittorie"),
        (("Primo Giocatore", rate(first_wins, len(done))),),
        chart="bars",
    )
    winners = [s["scores"][s["winner"]] for s in done] or [0]
    losers = [s["scores"][1 - s["winner"]] for s in done] or [0]
    margins = [w - v for w, v in zip(winners, losers, strict=True)]
    points = FigureTable(
        "punti",
        "Punti Vittoria a fine partita",
        ("chi", "media", "mediana"),
        (
            ("vincitore", round(statistics.fmean(winners), 2), statistics.median(winners)),
            ("perdente", round(statistics.fmean(losers), 2), statistics.median(losers)),
            ("scarto", round(statistics.fmean(margins), 2), statistics.median(margins)),
        ),
    )
    triggers = Counter(s["final"] for s in summaries)
    final = FigureTable(
        "turni-finali",
        "Che cosa ha dato il via ai Turni Finali",
        ("come", "partite"),
        tuple((HOW.get(k, k), triggers[k]) for k in sorted(triggers)),
        chart="histogram",
    )
    return [first, points, final, _card_table(deck, summaries)]


def _card_table(deck: BlessDeck, summaries: Sequence[Mapping[str, Any]]) -> FigureTable:
    ways: Counter[tuple[str, str]] = Counter()
    games: Counter[str] = Counter()
    wins: Counter[str] = Counter()
    for s in summaries:
        seen = set()
        for code, way, player in s["plays"]:
            ways[code, way] += 1
            if s["winner"] >= 0 and (code, player) not in seen:
                seen.add((code, player))
                games[code] += 1
                wins[code] += s["winner"] == player
    names = {c.code: c.name for c in deck.cards}  # Bless's names are its cards' own
    rows = tuple(
        (
            name,
            ways[code, "M"],
            ways[code, "P"],
            rate(wins[code], games[code]),
        )
        for code, name in names.items()
    )
    return FigureTable(
        "carte",
        "Le carte: calate come Maledizione (M) o Preghiera (P), e vittorie di chi le gioca",
        ("carta", "M", "P", "vittorie"),
        rows,
    )
