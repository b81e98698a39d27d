"""The balance figures of Samurai Sword: side win rates, endings, characters, weapons (the
platform adds seats, teams, endings by word and length in turns).

``summarize`` reads one finished game (its log and final table); ``figures`` turns many
summaries into tables, rates with their 95% Wilson intervals.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

from pipeline.engine.plugin import FigureTable, rate

from .cards import TEAMS
from .state import SamuraiState

ENDINGS = ("ferita", "mazzo", "bushido", "ultimo-in-piedi")
ENDING_NAMES = {
    "ferita": "onore perso per una ferita",
    "mazzo": "onore perso a mazzo esaurito",
    "bushido": "onore perso alla prova del Bushido",
    "ultimo-in-piedi": "un solo giocatore con resistenza",
}


def summarize(state: SamuraiState) -> dict[str, Any]:
    """What one finished game gives the figures, as plain JSON values."""
    cards, n = state.cards, state.num_players
    outcome = state.outcome()
    winners = set(outcome.winners) if outcome else set()
    weapons: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for event in state.log:
        if event.kind == "attack":
            weapons[cards.name[event.args[1]]][0] += 1
        elif event.kind == "wound" and cards.is_weapon[event.args[3]]:
            weapons[cards.name[event.args[3]]][1] += event.args[0]
    return {
        "players": n,
        "winner": state.team(next(iter(winners))) if winners else "",
        "teams": sorted({state.team(p) for p in range(n)}),
        "members": dict(sorted(Counter(state.team(p) for p in range(n)).items())),
        "how": outcome.how if outcome else "",
        "characters": [[cards.name[state.char[p]], p in winners] for p in range(n)],
        "weapons": dict(weapons),
    }


def figures(summaries: Sequence[Mapping[str, Any]], players: int) -> list[FigureTable]:
    games = len(summaries)
    by_count: dict[int, list[Mapping[str, Any]]] = defaultdict(list)
    for s in summaries:
        by_count[int(s["players"])].append(s)
    sides = []
    for count in sorted(by_count):
        group = by_count[count]
        wins = Counter(s["winner"] for s in group)
        present = [t for t in TEAMS if any(t in s["teams"] for s in group)]
        members = {t: max(s["members"].get(t, 0) for s in group) for t in present}
        sides += [(members[t], t, rate(wins[t], len(group))) for t in present]
    endings = Counter(s["how"] for s in summaries)
    played: Counter[str] = Counter()
    won: Counter[str] = Counter()
    for s in summaries:
        for code, side_won in s["characters"]:
            played[code] += 1
            won[code] += bool(side_won)
    weapon_plays: Counter[str] = Counter()
    weapon_damage: Counter[str] = Counter()
    for s in summaries:
        for code, (plays, damage) in s["weapons"].items():
            weapon_plays[code] += plays
            weapon_damage[code] += damage
    per_game = max(games, 1)
    return [
        FigureTable(
            "lati",
            "Vittorie di ogni squadra",
            ("squadra", "giocatori", "vittorie"),
            tuple((t, c, r) for c, t, r in sides),
            chart="bars",
        ),
        FigureTable(
            "modi",
            "Come finisce la partita: chi perde l'ultimo onore, e perché",
            ("fine", "partite", "quota"),
            tuple(
                (ENDING_NAMES[h], endings[h], rate(endings[h], games))
                for h in ENDINGS
                if endings[h]
            ),
            chart="bars",
        ),
        FigureTable(
            "personaggi",
            "Vittorie della squadra di ogni personaggio",
            ("personaggio", "partite", "vittorie"),
            tuple((code, played[code], rate(won[code], played[code])) for code in sorted(played)),
            chart="bars",
        ),
        FigureTable(
            "armi",
            "Le armi: attacchi e ferite per partita, ferite per attacco",
            ("arma", "attacchi", "ferite", "per colpo"),
            tuple(
                (
                    code,
                    round(weapon_plays[code] / per_game, 3),
                    round(weapon_damage[code] / per_game, 3),
                    round(weapon_damage[code] / weapon_plays[code], 3)
                    if weapon_plays[code]
                    else 0.0,
                )
                for code in sorted(weapon_plays, key=lambda c: (-weapon_plays[c], c))
            ),
        ),
    ]
