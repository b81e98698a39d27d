"""BLITZ balance figures (FigureHooks) and whole matches of rounds (rules 8.1 and 8.2).

A game's summary keeps what the tables need: how it ended, its length, every player's
collections by kind, the BLITZ card (who played it, what it took, whether they won) and
every Blocca chain (how many Blocca answered each blockable action).
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from pipeline.engine.plugin import Agent, FigureTable

from .cards import RAINBOW

if TYPE_CHECKING:
    from .engine import BlitzRules
    from .state import BlitzState

ENDINGS = (
    ("collezioni", "collezioni complete"),
    ("mazzo-esaurito", "mazzo esaurito"),
    ("rush", "collezioni complete nel Rush BLITZ"),
    ("rush-esaurito", "Rush BLITZ esaurito"),
    ("limite", "stallo (limite di turni)"),
)
ROUNDS_IN_A_ROW = 5  # 8.1
CHAMPIONSHIP_POINTS = 255  # 8.2
MATCH_MODES = ("rounds", "points")


def rate(successes: int, trials: int, z: float = 1.96) -> dict[str, float]:
    """A rate cell with its 95% Wilson score interval."""
    if not trials:
        return {"rate": 0.0, "low": 0.0, "high": 0.0, "n": 0}
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    half /= 1 + z * z / trials
    return {"rate": p, "low": max(0.0, centre - half), "high": min(1.0, centre + half), "n": trials}


def _mean(values: Sequence[float]) -> float:
    return round(statistics.fmean(values), 2) if values else 0.0


class FiguresMixin:
    """FigureHooks of the BLITZ rules."""

    def summarize(self, state: BlitzState) -> dict[str, Any]:
        outcome = state.outcome()
        winners = list(outcome.winners) if outcome else []
        chains: list[int] = []
        blitz: dict[str, Any] | None = None
        turn = 0
        for e in state.log:
            if e.kind == "turn":
                turn = e.args[0]
            elif e.kind == "play" and e.args[1] >= 0:
                chains.append(0)
            elif e.kind == "block":
                chains[-1] += 1
            elif e.kind == "blitz":
                blitz = {"player": e.player, "taken": len(e.args[1]), "turn": turn}
                blitz["won"] = e.player in winners
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

    def figures(self, summaries: Sequence[Mapping[str, Any]], players: int) -> list[FigureTable]:
        n = len(summaries)
        tables = [self._endings(summaries, n), self._kinds(summaries)]
        tables += [self._blitz_card(summaries, n), self._blocks(summaries, n)]
        tables += self._seats(summaries, n, players)
        tables.append(self._lengths(summaries))
        return tables

    def _endings(self, summaries: Sequence[Mapping[str, Any]], n: int) -> FigureTable:
        rows = tuple(
            (label, rate(sum(1 for s in summaries if s["how"] == how), n)) for how, label in ENDINGS
        )
        return FigureTable("fine", "Come finiscono le partite", ("fine", "quota"), rows, "bars")

    def _kinds(self, summaries: Sequence[Mapping[str, Any]]) -> FigureTable:
        rows = []
        for kind, label, worth in (
            ("uguali", "quattro carte uguali", 10),
            ("diverse", "quattro tipologie diverse", 8),
            ("singole", "carte sciolte", 1),
        ):
            every = [k[kind] * worth for s in summaries for k in s["kinds"]]
            won = [s["kinds"][p][kind] * worth for s in summaries for p in s["winners"]]
            rows.append((label, worth, _mean([v / worth for v in every]), _mean(every), _mean(won)))
        columns = (
            "tipo",
            "punti l'una",
            "per giocatore",
            "punti per giocatore",
            "punti per vincitore",
        )
        return FigureTable("collezioni", "Punti medi per tipo di collezione", columns, tuple(rows))

    def _blitz_card(self, summaries: Sequence[Mapping[str, Any]], n: int) -> FigureTable:
        played = [s["blitz"] for s in summaries if s["blitz"]]
        others = [s for s in summaries if not s["blitz"]]
        sides = [len(set(s["teams"])) for s in summaries]
        rows = (
            ("partite in cui si gioca", rate(len(played), n)),
            ("vince chi la gioca", rate(sum(1 for b in played if b["won"]), len(played))),
            ("vittoria attesa a caso", round(1 / _mean(sides), 3) if sides else 0.0),
            ("carte prese in media", _mean([b["taken"] for b in played])),
            ("turno medio in cui si gioca", _mean([b["turn"] for b in played])),
            ("turni per partita senza BLITZ", _mean([s["turns"] for s in others])),
        )
        return FigureTable("blitz", "La carta BLITZ", ("voce", "valore"), rows)

    def _blocks(self, summaries: Sequence[Mapping[str, Any]], n: int) -> FigureTable:
        chains = [c for s in summaries for c in s["chains"]]
        blocked = [c for c in chains if c >= 1]
        rows = (
            ("Ruba e Scambia giocati per partita", _mean([len(s["chains"]) for s in summaries])),
            ("azioni a cui risponde un Blocca", rate(len(blocked), len(chains))),
            (
                "Blocca a cui risponde un altro Blocca",
                rate(sum(c >= 2 for c in blocked), len(blocked)),
            ),
            ("azioni che vanno a segno", rate(sum(c % 2 == 0 for c in chains), len(chains))),
        )
        return FigureTable("blocca", "Il Blocca", ("voce", "valore"), rows)

    def _seats(
        self, summaries: Sequence[Mapping[str, Any]], n: int, players: int
    ) -> list[FigureTable]:
        seats = tuple(
            (f"Giocatore {p + 1}", rate(sum(p in s["winners"] for s in summaries), n))
            for p in range(players)
        )
        out = [
            FigureTable(
                "posti",
                "Vittorie per posto (a turno dal primo)",
                ("posto", "vittorie"),
                seats,
                "bars",
            )
        ]
        teams = summaries[0]["teams"] if summaries else []
        if len(set(teams)) < len(teams):
            rows = []
            for t in sorted(set(teams)):
                seats_of = [p + 1 for p, u in enumerate(teams) if u == t]
                wins = sum(any(teams[p] == t for p in s["winners"]) for s in summaries)
                rows.append((f"squadra dei posti {seats_of}", rate(wins, n)))
            out.append(
                FigureTable(
                    "squadre", "Vittorie per squadra", ("squadra", "vittorie"), tuple(rows), "bars"
                )
            )
        return out

    def _lengths(self, summaries: Sequence[Mapping[str, Any]]) -> FigureTable:
        turns = sorted(s["turns"] for s in summaries)
        width = 10
        rows = []
        if turns:
            for low in range(turns[0] // width * width, turns[-1] + 1, width):
                count = sum(low <= t < low + width for t in turns)
                rows.append((f"{low}-{low + width - 1}", count))
        median = statistics.median(turns) if turns else 0
        title = f"Durata in turni (media {_mean(turns)}, mediana {median})"
        return FigureTable("durata", title, ("turni", "partite"), tuple(rows), "histogram")


def play_match(
    rules: BlitzRules,
    mode: str,
    seed: int,
    players: int,
    options: Mapping[str, Any],
    agents: Sequence[Agent],
    max_rounds: int = 100_000,
) -> dict[str, Any]:
    """One match of seeded rounds (8.1: first side to win 5 rounds in a row; 8.2: first to
    255 points). The deal passes left every round, so match player m sits at seat m - round;
    sides are whole teams. Returns the winners (match players), the rounds with their winners
    and, for a championship, every match player's side total."""
    if mode not in MATCH_MODES:
        raise ValueError(f"match must be one of {', '.join(MATCH_MODES)}, not '{mode}'")
    from pipeline.engine.agents import play

    rng = random.Random(seed)
    streak: dict[int, int] = {}
    totals: dict[int, int] = {}
    tiebreak = False
    side: tuple[int, ...] = ()
    history: list[list[int]] = []
    for played in range(1, max_rounds + 1):
        state = rules.new_game(rng.randrange(2**32), players, options)
        side = side or state.team  # a match player's side: their team in the first round
        shift = played - 1
        play(state, [agents[(s + shift) % players] for s in range(players)])
        outcome = state.outcome()
        assert outcome is not None
        won = {side[(s + shift) % players] for s in outcome.winners}
        history.append(sorted(m for m in range(players) if side[m] in won))
        points: dict[int, int] = {}
        for s in range(players):
            t = side[(s + shift) % players]
            points[t] = points.get(t, 0) + state.points(s)
        if mode == "rounds":
            for t in points:
                streak[t] = streak.get(t, 0) + 1 if t in won else 0
            done = {t for t, k in streak.items() if k >= ROUNDS_IN_A_ROW}
        elif tiebreak:  # ruling blitz-campionato: the extra game's points decide
            best = max(points.values())
            done = {t for t, v in points.items() if v == best}
            done = done if len(done) == 1 else set()
        else:
            for t, v in points.items():
                totals[t] = totals.get(t, 0) + v
            over = {t: v for t, v in totals.items() if v >= CHAMPIONSHIP_POINTS}
            best = max(over.values()) if over else 0
            done = {t for t, v in over.items() if v == best}
            tiebreak = len(done) > 1
            done = set() if tiebreak else done
        if done:
            break
    else:
        done = set()
    return {
        "mode": mode,
        "winners": [m for m in range(players) if side[m] in done],
        "rounds": len(history),
        "history": history,  # per round, the match players who won it
        "totals": [totals.get(side[m], 0) for m in range(players)],
    }
