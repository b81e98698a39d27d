"""BLDNG's balance figures (each What happens card, 8 against 10 elements, ordered against
sculpture projects) and the invariants the conformance test checks after every action."""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.common.words import decimal
from pipeline.engine.plugin import FigureTable, rate

from .cards import BldngCards
from .state import BldngState


def summarize(cards: BldngCards, state: BldngState) -> dict[str, Any]:
    """One game: the winner, who drew which What happens, and each starting project."""
    outcome = state.outcome()
    start: dict[int, int] = {}
    for e in state.log:
        if e.kind == "project":
            start.setdefault(e.player, e.args[0])
    return {
        "players": state.num_players,
        "winners": list(outcome.winners) if outcome else [],
        "how": outcome.how if outcome else "",
        "turns": state.turn,
        "drawn": [[e.player, cards.codes[e.args[0]]] for e in state.log if e.kind == "whathappens"],
        "start": [[cards.size[start[p]], cards.tipo[start[p]]] for p in sorted(start)],
    }


def figures(
    cards: BldngCards, summaries: Sequence[Mapping[str, Any]], players: int = 2
) -> list[FigureTable]:
    return [_events(cards, summaries, players), *_projects(cards, summaries)]


def _events(cards: BldngCards, summaries: Sequence[Mapping[str, Any]], players: int) -> FigureTable:
    """Per What happens card: how often it is drawn, how often its drawer then wins, and
    how far that is (in points) from every player's win rate in the same games."""
    drawn: Counter[str] = Counter()
    won: Counter[str] = Counter()
    for g in summaries:
        for player, code in g["drawn"]:
            drawn[code] += 1
            won[code] += player in g["winners"]
    seats = sum(g["players"] for g in summaries) or 1
    average = sum(len(g["winners"]) for g in summaries) / seats
    names = dict(zip(cards.codes, cards.names, strict=True))
    games = len(summaries) or 1
    rows = []
    for code in dict.fromkeys(c for c, e in zip(cards.codes, cards.is_event, strict=True) if e):
        share = rate(won[code], drawn[code])
        shift = round(100 * (share["rate"] - average), 1) if drawn[code] else 0.0
        rows.append((names[code], round(drawn[code] / games, 2), share, shift))
    return FigureTable(
        "what-happens",
        "What happens: pescate a partita, vittorie di chi le pesca, scarto in punti dalla "
        f"media di tutti i giocatori ({decimal(100 * average, '.1f')}%)",
        ("carta", "a partita", "vittorie", "scarto"),
        tuple(rows),
        chart="bars",
    )


def _projects(cards: BldngCards, summaries: Sequence[Mapping[str, Any]]) -> list[FigureTable]:
    tables = []
    for key, title, index, values in (
        ("progetti-elementi", "Progetti da 8 e da 10 elementi", 0, (8, 10)),
        ("progetti-tipo", "Progetti ordinati e sculture", 1, ("ordinato", "scultura")),
    ):
        played: Counter[Any] = Counter()
        won: Counter[Any] = Counter()
        for g in summaries:
            for p, start in enumerate(g["start"]):
                played[start[index]] += 1
                won[start[index]] += p in g["winners"]
        rows = tuple((str(v), played[v], rate(won[v], played[v])) for v in values)
        tables.append(
            FigureTable(
                key,
                f"{title}: vittorie di chi comincia con quel progetto",
                ("progetto", "giocatori", "vittorie"),
                rows,
                chart="bars",
            )
        )
    return tables


def invariants(cards: BldngCards, state: BldngState) -> list[str]:
    out = []
    n = state.num_players
    if len(set(state.project)) != n or not cards.project_set.issuperset(state.project):
        out.append(f"players do not hold one project each: {state.project}")
    owed = {t[1] for t in state.tasks if t[0] in ("discard", "excess", "pick")}
    for p in range(n):
        if len(state.site[p]) > state.limit(p) + state.extra[p] and p not in owed:
            out.append(f"player {p + 1} holds more Forme than the limit and owes no discard")
        if not cards.forma_set.issuperset(state.site[p]):
            out.append(f"player {p + 1} has a card that is no Forma in the cantiere")
        if state.keep[p] >= 0 and cards.effect[state.keep[p]] != "limite":
            out.append(f"player {p + 1} keeps a card that is not kept")
        if not state.result and cards.complete(state.project[p], state.site[p]):
            out.append(f"player {p + 1} completed the project but the game goes on")
    if not state.result and not state.legal:
        out.append("no decision pending before the end")
    if not cards.deck_set.issuperset(state.deck) or not cards.deck_set.issuperset(state.discard):
        out.append("a card that is no Forma nor What happens is in the Forme deck or discards")
    return out
