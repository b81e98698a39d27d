"""The balance report (pipeline/play/balance.py, `cartiera balance`): every player count, figures
marked off parity, paired "what if" variants, the same report on one or two workers."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from pipeline.common.project import open_project
from pipeline.play.balance import (
    BalanceError,
    balance,
    off_parity,
    paired_difference,
    parse_change,
    seat_agents,
)


@pytest.fixture(scope="module")
def built_once(built_copy: Any) -> Path:
    return built_copy("balance")


def test_a_variant_equal_to_the_baseline_changes_nothing(built_once: Path) -> None:
    report = balance(open_project(built_once), "bless", 12, 5, variants=["re-luce.occhio=3"])
    (count,) = report.counts
    (variant,) = count.variants
    for seat in variant.seats:
        assert seat["difference"] == {"mean": 0.0, "low": 0.0, "high": 0.0, "n": 12}
        assert seat["baseline"] == seat["variant"]
    assert variant.turns == {"mean": 0.0, "low": 0.0, "high": 0.0, "n": 12}


def test_lowering_re_luce_occhio_reports_a_paired_difference(cli: Any, built_once: Path) -> None:
    run = cli(
        built_once, "balance", "bless", "--games", "40", "--variant", "re-luce.occhio=2",
        "--format", "json",
    )  # fmt: skip
    assert run.exit_code == 0, run.output
    data = json.loads(run.stdout)
    (count,) = data["counts"]
    (variant,) = count["variants"]
    assert variant["changes"] == ["re-luce.occhio=2"]
    assert variant["digest"] != data["cards"]  # the variant's games ran on other cards
    first = variant["seats"][0]
    d = first["difference"]
    assert d["n"] == 40 and d["low"] < d["mean"] < d["high"]  # some games came out otherwise
    assert d["mean"] == pytest.approx(first["variant"]["rate"] - first["baseline"]["rate"])
    text = cli(built_once, "balance", "bless", "--games", "40", "--variant", "re-luce.occhio=2")
    assert text.stdout.startswith("Bilanciamento di Bless: 40 partite")
    assert "Variante re-luce.occhio=2:" in text.stdout
    assert "invece di" in text.stdout and "IC 95%" in text.stdout
    # the card table names the cards as they are printed, not by their ids
    rows = [line.split("  ")[0] for line in text.stdout.splitlines()]
    assert "Re Luce" in rows and "Zoreo, Campione della Luce" in rows
    assert not any(row.startswith("re-luce") for row in rows)


def test_every_player_count_and_the_last_agent_fills_the_seats(built_once: Path) -> None:
    report = balance(open_project(built_once), "samurai-sword", 4, 2, agents="search:4,random")
    assert [c.players for c in report.counts] == [3, 4, 5, 6, 7]
    assert report.counts[-1].agents == ["search:4"] + ["random"] * 6
    for count in report.counts:
        assert count.result.games == 4 and len(count.result.seats) == count.players


def test_one_or_two_workers_give_the_same_report(cli: Any, built_once: Path) -> None:
    args = ("balance", "mazzo", "--games", "60", "--format", "json")  # two chunks of games
    one, two = cli(built_once, *args, "--jobs", "1"), cli(built_once, *args, "--jobs", "2")
    assert one.exit_code == two.exit_code == 0, one.output + two.output
    assert one.stdout == two.stdout


def test_a_local_dask_cluster_gives_the_same_report(cli: Any, built_once: Path) -> None:
    pytest.importorskip("distributed", reason="the extra cartiera[cluster] is needed")
    args = ("balance", "mazzo", "--games", "60", "--variant", "spia.copies=2", "--format", "json")
    one, dask = cli(built_once, *args), cli(built_once, *args, "--cluster", "local:2")
    assert one.exit_code == dask.exit_code == 0, one.output + dask.output
    assert one.stdout == dask.stdout


def test_off_parity_figures_are_marked_past_the_threshold(built_once: Path) -> None:
    report = balance(open_project(built_once), "mazzo", 60, 1, threshold=0.0)
    (count,) = report.counts
    assert count.flags  # 60 random games: some characters' interval excludes 50%
    for flag in count.flags:
        assert flag["low"] > flag["parity"] or flag["high"] < flag["parity"]
    # each is one line of the report, whose n is the figure's own: BLDNG's What happens
    # cards said "23 partite" for 23 draws
    lines = [line for line in report.report().splitlines() if line.startswith("  * ")]
    assert len(lines) == len(count.flags)
    for line, flag in zip(lines, count.flags, strict=True):
        assert line.startswith(f"  * {flag['figure']}: ") and f", n = {flag['n']}, " in line
        assert "partite)" not in line
    assert not balance(open_project(built_once), "mazzo", 60, 1, threshold=1.0).counts[0].flags


@pytest.mark.parametrize(
    ("variant", "words"),
    [
        ("re-luce=2", "card.field=value"),
        ("nessuna.occhio=2", "no card 'nessuna'"),
        ("re-luce.colore=2", "has no 'colore'"),
        ("re-luce.occhio=tanto", "is int"),
        ("re-luce.copies=-1", "whole number"),
        ("re-luce.occhio=99", "occhio 99 is above the maximum 10"),  # played, before
        ("re-luce.forma=Viola", "'Viola' is not one of: Luce, Ombra, Duale"),
    ],
)
def test_a_bad_variant_is_one_line_exit_2(
    cli: Any, built_once: Path, variant: str, words: str
) -> None:
    run = cli(built_once, "balance", "bless", "--games", "2", "--variant", variant)
    assert run.exit_code == 2
    assert words in run.output and "Traceback" not in run.output
    assert len(run.output.strip().splitlines()) == 1


def test_a_whole_other_cards_file_is_a_variant(cli: Any, built_once: Path, tmp_path: Path) -> None:
    """`--variant other/cards.yaml`: the game loaded with that file, checked as validate
    checks it, and its cards played on the same seeded games. A file that differs only in
    Re Luce's Occhio gives, figure for figure, what `re-luce.occhio=2` gives; the game's own
    file, a difference of exactly 0; changes written beside a file apply to its cards."""
    text = (built_once / "games/bless/cards.yaml").read_text("utf-8")
    line = "attributes: {forma: Luce, occhio: 3, karma: 2, preghiera: Eco}"
    assert text.count(line) == 1
    lowered = tmp_path / "occhio-2.yaml"
    lowered.write_text(text.replace(line, line.replace("occhio: 3", "occhio: 2")), "utf-8")
    same = tmp_path / "uguale.yaml"
    same.write_text(text, "utf-8")
    project = open_project(built_once)

    def variant(*variants: str) -> dict[str, Any]:
        (count,) = balance(project, "bless", 30, 3, variants=list(variants)).counts
        (found,) = count.variants
        return dataclasses.asdict(found)

    by_file, by_change = variant(str(lowered)), variant("re-luce.occhio=2")
    assert by_file.pop("changes") == [str(lowered)]
    assert by_change.pop("changes") == ["re-luce.occhio=2"]
    assert by_file == by_change and by_file["digest"] != variant(str(same))["digest"]
    for seat in variant(str(same))["seats"]:
        assert seat["difference"] == {"mean": 0.0, "low": 0.0, "high": 0.0, "n": 30}
    both = variant(str(same), "re-luce.occhio=2")
    assert both["changes"] == [str(same), "re-luce.occhio=2"]
    assert both["digest"] == by_file["digest"]
    # a file validate refuses: its problems, at its own lines, exit 1; no file: exit 2
    bad = tmp_path / "sbagliato.yaml"
    bad.write_text(text.replace(line, line.replace("occhio: 3", "occhio: 12")), "utf-8")
    run = cli(built_once, "balance", "bless", "--games", "2", "--variant", str(bad))
    number = text.splitlines().index(next(t for t in text.splitlines() if line in t)) + 1
    assert run.exit_code == 1 and run.output.startswith(f"{bad}:{number}:"), run.output
    assert "occhio 12 is above the maximum 10" in run.output and "Traceback" not in run.output
    for args in ([str(tmp_path / "manca.yaml")], [str(same), str(lowered)]):
        run = cli(
            built_once,
            "balance",
            "bless",
            "--games",
            "2",
            *(a for arg in args for a in ("--variant", arg)),
        )
        assert run.exit_code == 2 and len(run.output.strip().splitlines()) == 1, run.output


def test_paired_difference_and_parity() -> None:
    assert paired_difference([1, 0, 1, 0], [1, 0, 1, 0]) == {
        "mean": 0.0,
        "low": 0.0,
        "high": 0.0,
        "n": 4,
    }
    d = paired_difference([0, 0, 0, 0], [1, 0, 1, 0])  # differences 1, 0, 1, 0
    assert d["mean"] == 0.5
    assert d["high"] - d["mean"] == pytest.approx(1.96 * (1 / 3) ** 0.5 / 2)
    assert off_parity(0.56, 0.7, 0.5, 0.05) and not off_parity(0.54, 0.7, 0.5, 0.05)
    assert off_parity(0.3, 0.44, 0.5, 0.05) and not off_parity(0.3, 0.46, 0.5, 0.05)


def test_seat_agents_and_change_parsing() -> None:
    assert seat_agents("search,random", 4) == "search,random,random,random"
    assert seat_agents("random", 2) == "random,random"
    with pytest.raises(BalanceError):
        seat_agents("a,b,c", 2)
    change = parse_change("re-luce.occhio=2")
    assert (change.code, change.field, change.value) == ("re-luce", "occhio", 2)


# -- games an engine's safeguard stopped (Outcome.stopped): apart from wins and draws ---------


class _NoTables:
    def figures(self, summaries: Any, players: int) -> list[Any]:
        return []


class _Tables:
    """A game's figures hook that keeps what it was given."""

    def __init__(self) -> None:
        self.given: list[Any] = []

    def figures(self, summaries: Any, players: int) -> list[Any]:
        self.given = list(summaries)
        return []


def _game(winners: list[int], stopped: bool = False, turns: int = 10) -> dict[str, Any]:
    how = "interrotta" if stopped else ("progetto" if winners else "pari")
    return {
        "index": 0, "seats": ["random", "random"], "winners": winners, "how": how,
        "stopped": stopped, "teams": [], "turns": turns, "decisions": 1,
        "own": {"how": how},
    }  # fmt: skip


def test_stopped_games_are_counted_apart_from_wins_and_draws() -> None:
    from pipeline.engine.core import Seats
    from pipeline.play.simulate import Setup, summarise

    setup = Setup("x", Seats(2, 2), 2, ("random", "random"))
    games = [_game([0]), _game([0]), _game([1]), _game([]), _game([], stopped=True, turns=400)]
    tables = _Tables()
    result = summarise(tables, setup, 1, games)  # type: ignore[arg-type]
    assert result.finished == 4
    # nor do they count in any other figure: a stopped game's length is the safeguard's cap
    # (BLITZ's page gave 54 turns on average where its finished games took 22), and the
    # game's own tables get the finished games only (BLDNG counted one as a loss for
    # whoever drew its cards)
    assert result.turns["mean"] == 10 and result.turns["max"] == 10
    assert 400 not in result.turns["histogram"]
    assert [g["how"] for g in tables.given] == ["progetto", "progetto", "progetto", "pari"]
    assert result.stopped["count"] == 1 and result.stopped["n"] == 5
    assert result.stopped["rate"] == pytest.approx(0.2)
    assert [s["rate"] for s in result.seats] == [0.5, 0.25] and result.seats[0]["n"] == 4
    assert result.draws["rate"] == 0.25 and result.draws["n"] == 4  # the stopped one is none
    data = json.loads(result.to_json())
    assert data["stopped"]["count"] == 1 and data["finished"] == 4
    text = result.report("it")
    assert "Interrotte da una salvaguardia del motore, senza risultato: 1 su 5" in text
    assert "le 4 partite finite" in text and "Pareggi: 25,0%" in text
    assert "Durata delle partite finite: 10,0 turni in media (10-10)" in text
    assert "Stopped by an engine safeguard, no result: 1 of 5" in result.report("en")
    # older summaries, without the field, are games that finished
    old = [{k: v for k, v in g.items() if k != "stopped"} for g in games[:4]]
    assert summarise(_NoTables(), setup, 1, old).stopped["count"] == 0  # type: ignore[arg-type]


def test_a_variant_compares_wins_on_games_finished_in_both_runs() -> None:
    from pipeline.play.balance import _variant

    base = [_game([0]), _game([1], turns=12), _game([], stopped=True), _game([0])]
    other = [_game([0]), _game([], stopped=True), _game([], stopped=True), _game([1], turns=13)]
    variant = _variant([], [], base, other, 2, 0.02)
    # and lengths on those games alone: 13 - 10 in game 4, 0 in game 1
    assert variant.turns["n"] == 2 and variant.turns["mean"] == 1.5
    first = variant.seats[0]
    assert first["baseline"]["n"] == first["variant"]["n"] == 2  # games 1 and 4
    assert first["baseline"]["rate"] == 1.0 and first["variant"]["rate"] == 0.5
    assert variant.stopped["baseline"]["rate"] == 0.25
    assert variant.stopped["variant"]["rate"] == 0.5


def test_simulate_bldng_shows_stopped_games_apart(cli: Any, built_once: Path) -> None:
    """Issue 30: BLDNG's 200 rounds are a safeguard; with the freer option (ruling
    bldng-scelte-libere) random two-player games hit it, and simulate says so apart."""
    args = ("simulate", "bldng", "--players", "2", "--games", "12")
    run = cli(built_once, *args, "--option", "scelte-libere=true", "--format", "json")
    assert run.exit_code == 0, run.output
    data = json.loads(run.stdout)
    stopped = data["stopped"]["count"]
    assert stopped > 0 and data["how"]["interrotta"] == stopped
    assert data["finished"] == 12 - stopped
    assert all(seat["n"] == 12 - stopped for seat in data["seats"])
    assert sum(seat["rate"] for seat in data["seats"]) + data["draws"]["rate"] == pytest.approx(1)
    text = cli(built_once, *args, "--option", "scelte-libere=true").stdout
    assert f"Interrotte da una salvaguardia del motore, senza risultato: {stopped} su 12" in text


def test_balance_parity_counts_finished_games(built_once: Path) -> None:
    report = balance(
        open_project(built_once), "bldng", 12, 1, players=2, options=["scelte-libere=true"]
    )
    (count,) = report.counts
    finished = count.result.finished
    assert 0 < finished < 12
    wins = sum(round(s["rate"] * s["n"]) for s in count.result.seats)
    assert count.parity == pytest.approx(wins / (2 * finished))
    assert "Interrotte" in report.report()
