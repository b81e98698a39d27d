"""BLITZ balance figures (FigureHooks): what `cartiera simulate blitz` adds to the
platform's seat and team win rates.

A game's summary keeps what the tables need: how it ended, its length, every player's
collections by kind, the BLITZ card (who played it, what it took, whether they won) and
every Blocca chain (how many Blocca answered each blockable action).
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.common.words import decimal
from pipeline.engine.plugin import FigureTable, rate, share

from .cards import RAINBOW
from .state import BlitzState

ENDINGS = (
    ("collezioni", "collezioni complete"),
    ("mazzo-esaurito", "mazzo esaurito"),
    ("rush", "collezioni complete nel Rush BLITZ"),
    ("rush-esaurito", "Rush BLITZ esaurito"),
)  # a game the safeguard stopped has no end: simulate counts it apart


def _mean(values: Sequence[float]) -> float:
    return round(statistics.fmean(values), 2) if values else 0.0


def summarize(state: BlitzState) -> dict[str, Any]:
    outcome = state.outcome()
    winners = list(outcome.winners) if outcome else []
    chains: list[int] = []
    blitz: dict[str, Any] | None = None
    turn = 0
    just_played = False  # the events right after the BLITZ card: what it completed
    for e in state.log:
        if just_played and e.kind == "complete":
            blitz["formed"] += 1  # type: ignore[index]
        elif e.kind not in ("chance", "action"):
            just_played = False
        if e.kind == "turn":
            turn = e.args[0]
        elif e.kind == "play" and e.args[1] >= 0:
            chains.append(0)
        elif e.kind == "block":
            chains[-1] += 1
        elif e.kind == "blitz":
            blitz = {"player": e.player, "taken": len(e.args[1]), "turn": turn, "formed": 0}
            blitz["won"] = e.player in winners
            just_played = True
    kinds = [
        {
            "uguali": sum(1 for k, _ in state.comp[p] if k != RAINBOW),
            "diverse": sum(1 for k, _ in state.comp[p] if k == RAINBOW),
            "singole": len(state.loose[p]),
        }
        for p in range(state.num_players)
    ]
    return {
        "how": outcome.how if outcome else "",
        "turns": state.turn,
        "winners": winners,
        "teams": list(state.team),
        "scores": [state.points(p) for p in range(state.num_players)],
        "kinds": kinds,
        "blitz": blitz,
        "chains": chains,
    }


def figures(summaries: Sequence[Mapping[str, Any]], players: int) -> list[FigureTable]:
    n = len(summaries)
    tables = [_endings(summaries, n), _kinds(summaries)]
    tables += [_blitz_card(summaries, n), _blocks(summaries, n)]
    tables.append(_lengths(summaries))
    return tables


def _endings(summaries: Sequence[Mapping[str, Any]], n: int) -> FigureTable:
    rows = tuple(
        (label, rate(sum(1 for s in summaries if s["how"] == how), n)) for how, label in ENDINGS
    )
    return FigureTable("fine", "Come finiscono le partite", ("fine", "quota"), rows, "bars")


def _kinds(summaries: Sequence[Mapping[str, Any]]) -> FigureTable:
    rows = []
    for kind, label, worth in (
        ("uguali", "quattro carte uguali", 10),
        ("diverse", "quattro tipologie diverse", 8),
        ("singole", "carte sciolte", 1),
    ):
        every = [k[kind] * worth for s in summaries for k in s["kinds"]]
        won = [s["kinds"][p][kind] * worth for s in summaries for p in s["winners"]]
        rows.append((label, worth, _mean([v / worth for v in every]), _mean(every), _mean(won)))
    columns = ("tipo", "vale", "quante", "punti", "vincitori")
    title = (
        "Punti medi per tipo di collezione, a fine partita: quante ne ha e quanti punti ne"
        " ricava un giocatore, e quanti un vincitore"
    )
    return FigureTable("collezioni", title, columns, tuple(rows))


def _blitz_card(summaries: Sequence[Mapping[str, Any]], n: int) -> FigureTable:
    played = [s["blitz"] for s in summaries if s["blitz"]]
    others = [s for s in summaries if not s["blitz"]]
    sides = [len(set(s["teams"])) for s in summaries]
    rows = (
        ("partite in cui si gioca", rate(len(played), n)),
        ("vince chi la gioca", rate(sum(1 for b in played if b["won"]), len(played))),
        ("vittoria attesa a caso", share(1 / _mean(sides) if sides else 0.0)),
        ("carte prese in media", _mean([b["taken"] for b in played])),
        ("collezioni formate subito", _mean([b["formed"] for b in played])),
        ("turno medio in cui si gioca", _mean([b["turn"] for b in played])),
        ("turni per partita senza BLITZ", _mean([s["turns"] for s in others])),
    )
    return FigureTable("blitz", "La carta BLITZ", ("voce", "valore"), rows)


def _blocks(summaries: Sequence[Mapping[str, Any]], n: int) -> FigureTable:
    chains = [c for s in summaries for c in s["chains"]]
    blocked = [c for c in chains if c >= 1]
    rows = (
        ("Ruba e Scambia per partita", _mean([len(s["chains"]) for s in summaries])),
        ("azioni a cui risponde un Blocca", rate(len(blocked), len(chains))),
        (
            "Blocca fermati da un altro Blocca",
            rate(sum(c >= 2 for c in blocked), len(blocked)),
        ),
        ("azioni che vanno a segno", rate(sum(c % 2 == 0 for c in chains), len(chains))),
    )
    return FigureTable("blocca", "Il Blocca", ("voce", "valore"), rows)


def _lengths(summaries: Sequence[Mapping[str, Any]]) -> FigureTable:
    turns = sorted(s["turns"] for s in summaries)
    width = 10
    rows = []
    if turns:
        for low in range(turns[0] // width * width, turns[-1] + 1, width):
            count = sum(low <= t < low + width for t in turns)
            rows.append((f"{low}-{low + width - 1}", count))
    median = statistics.median(turns) if turns else 0
    title = f"Durata in turni (media {decimal(_mean(turns))}, mediana {decimal(median)})"
    return FigureTable("durata", title, ("turni", "partite"), tuple(rows), "histogram")
