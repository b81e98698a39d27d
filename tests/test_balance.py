"""The balance report (pipeline/balance.py, `cartiera balance`): every player count, figures
marked off parity, paired "what if" variants, the same report on one or two workers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from pipeline.balance import (
    BalanceError,
    balance,
    off_parity,
    paired_difference,
    parse_change,
    seat_agents,
)
from pipeline.project import open_project


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
    assert "Variante re-luce.occhio=2:" in text.stdout
    assert "invece di" in text.stdout and "IC 95%" in text.stdout


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
    assert not balance(open_project(built_once), "mazzo", 60, 1, threshold=1.0).counts[0].flags


@pytest.mark.parametrize(
    ("variant", "words"),
    [
        ("re-luce=2", "card.field=value"),
        ("nessuna.occhio=2", "no card 'nessuna'"),
        ("re-luce.colore=2", "has no 'colore'"),
        ("re-luce.occhio=tanto", "is int"),
        ("re-luce.copies=-1", "whole number"),
    ],
)
def test_a_bad_variant_is_one_line_exit_2(
    cli: Any, built_once: Path, variant: str, words: str
) -> None:
    run = cli(built_once, "balance", "bless", "--games", "2", "--variant", variant)
    assert run.exit_code == 2
    assert words in run.output and "Traceback" not in run.output
    assert len(run.output.strip().splitlines()) == 1


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
