"""The engine commands (simulate, record, replay, example): every bad value of every option
is one line and exit 1 (bad data) or 2 (bad usage); the good paths write what they say."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.conftest import invoke

BAD = [
    # (name, arguments, exit status, what the one line must say)
    ("sim-game", ["simulate", "nessuno"], 2, "unknown game"),
    ("sim-games", ["simulate", "bless", "--games", "0"], 2, "--games"),
    ("sim-seed", ["simulate", "bless", "--seed", "uno"], 2, "--seed"),
    ("sim-jobs", ["simulate", "bless", "--jobs", "0"], 2, "--jobs"),
    ("sim-agent", ["simulate", "bless", "--agents", "furbo"], 2, "agents: random, search, greedy"),
    ("sim-agents", ["simulate", "bless", "--agents", "random,random,random"], 2, "one per"),
    ("sim-players", ["simulate", "bless", "--players", "3"], 2, "played by 2 players"),
    ("sim-players-word", ["simulate", "bless", "--players", "tre"], 2, "--players"),
    # games/blitz/game.yaml says 2-5: the engine reads it (it could deal 10, with two decks)
    ("sim-players-yaml", ["simulate", "blitz", "--players", "8"], 2, "played by 2-5 players"),
    ("sim-match", ["simulate", "mazzo", "--match", "rounds"], 2, "no match mode 'rounds'"),
    ("sim-match-mode", ["simulate", "blitz", "--match", "tornei"], 2, "modes: rounds, points"),
    ("sim-teams", ["simulate", "bless", "--teams", "pairs"], 2, "no team mode 'pairs'"),
    ("sim-option", ["simulate", "bless", "--option", "altar"], 2, "key=value"),
    ("sim-option-key", ["simulate", "bless", "--option", "nope=1"], 2, "no option 'nope'"),
    ("sim-option-value", ["simulate", "bless", "--option", "altar=4"], 2, "3, 5 or 7"),
    ("rec-game", ["record", "nessuno", "--out", "{tmp}/r.json"], 2, "unknown game"),
    ("rec-no-out", ["record", "bless"], 2, "--out"),
    ("rec-seed", ["record", "bless", "--out", "{tmp}/r.json", "--seed", "x"], 2, "--seed"),
    ("rec-out-dir", ["record", "bless", "--out", "{tmp}"], 2, "--out"),
    ("rec-agent", ["record", "bless", "--out", "{tmp}/r.json", "--agents", "x"], 2, "agents:"),
    ("rec-players", ["record", "bless", "--out", "{tmp}/r.json", "--players", "5"], 2, "not 5"),
    ("rec-teams", ["record", "bless", "--out", "{tmp}/r.json", "--teams", "x"], 2, "team mode"),
    ("rec-option", ["record", "bless", "--out", "{tmp}/r.json", "--option", "altar=9"], 2, "altar"),
    ("replay-missing", ["replay", "{tmp}/nessuna.json"], 1, "cannot read the replay"),
    ("replay-not-json", ["replay", "{tmp}/rotto.json"], 1, "not a Cartiera replay"),
    ("replay-old", ["replay", "{tmp}/vecchia.json"], 1, "format 1, not 2"),
    ("replay-bad-index", ["replay", "{tmp}/indice.json"], 1, "not a legal choice"),
    ("replay-other-cards", ["replay", "{tmp}/carte.json"], 1, "cards changed"),
    ("replay-dir", ["replay", "{tmp}"], 2, "directory"),
    ("example-game", ["example", "nessuno"], 2, "unknown game"),
    ("example-name", ["example", "bless", "nessuno"], 1, "no example 'nessuno'"),
]


@pytest.fixture(scope="module")
def replays(shared_project: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("replays")
    run = invoke(shared_project, "record", "bless", "--out", str(folder / "buona.json"))
    assert run.exit_code == 0, run.output
    good = json.loads((folder / "buona.json").read_text(encoding="utf-8"))
    (folder / "rotto.json").write_text("{non è json", encoding="utf-8")
    (folder / "vecchia.json").write_text(json.dumps({**good, "format": 1}), encoding="utf-8")
    bad_index = {**good, "actions": [*good["actions"][:5], 999]}
    (folder / "indice.json").write_text(json.dumps(bad_index), encoding="utf-8")
    other = {**good, "cards": "0" * 64}
    (folder / "carte.json").write_text(json.dumps(other), encoding="utf-8")
    return folder


@pytest.mark.parametrize(("args", "status", "says"), [b[1:] for b in BAD], ids=[b[0] for b in BAD])
def test_a_bad_value_is_one_line(shared_project: Path, replays: Path, args, status, says):
    run = invoke(shared_project, *(a.replace("{tmp}", str(replays)) for a in args))
    assert run.exit_code == status, run.output
    assert says in run.output, run.output
    assert "Traceback" not in run.output
    assert len(run.stderr.strip().splitlines()) == 1, run.stderr


@pytest.mark.parametrize("command", ["simulate", "record", "example"])
def test_a_game_without_an_engine_is_one_line(
    shared_project: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, command: str
):
    from pipeline.engine import registry

    monkeypatch.setattr(registry, "engine_slugs", lambda: ["bless"])
    extra = ["--out", str(tmp_path / "r.json")] if command == "record" else []
    run = invoke(shared_project, command, "bldng", *extra)
    assert run.exit_code == 2, run.output
    assert run.stderr.strip() == (
        f"cartiera {command}: error: no rules engine for 'bldng' yet (engines: bless) "
        f"(fix: see `cartiera {command} --help`)"
    )


def test_record_then_replay_narrates_the_game(shared_project: Path, replays: Path):
    path = replays / "buona.json"
    assert path.stat().st_size <= 4096
    run = invoke(shared_project, "replay", str(path))
    assert run.exit_code == 0, run.output
    assert run.stdout.splitlines()[-1].startswith("Fine della partita")


def test_simulate_json_has_the_figures_every_game_gets(shared_project: Path):
    run = invoke(
        shared_project, "simulate", "bless", "--games", "6", "--json", "--option", "altar=3"
    )
    assert run.exit_code == 0, run.output
    data = json.loads(run.stdout)
    assert data["games"] == 6 and data["options"] == {"altar": 3}
    assert len(data["seats"]) == 2 and sum(data["how"].values()) == 6
    assert {t["key"] for t in data["tables"]} >= {"primo", "carte"}


def test_simulate_lines_up_every_table_whatever_its_labels(shared_project: Path):
    """Each table's first column was 34 characters whatever its labels: Mazzo's "chi ha il
    Mazziere nel bottino a fine partita" pushed its figure out of line. And a rate's
    interval is as wide as its digits ("(9-22)", "(42-62)"), so right-aligned whole cells
    put the rates of one column out of line. Now the figures of a column end in the same
    place, and its rates stand one under the other."""
    run = invoke(shared_project, "simulate", "samurai-sword", "--players", "5", "--games", "60")
    assert run.exit_code == 0, run.output
    assert "ultimo in piedi 1" in run.stdout  # an ending as words, not its id ("-in-")
    assert run.stdout.startswith("Simulazione di Samurai Sword: 60 partite")  # not its slug
    # its teams are named in its own table, not numbered again above it
    assert "Vittorie della squadra 1:" not in run.stdout and "\nShogun " in run.stdout
    mazzo = invoke(shared_project, "simulate", "mazzo", "--games", "20")
    assert "Mazziere nel bottino a fine partita" in mazzo.stdout
    tables = [
        *run.stdout.split("\n\n")[1:],  # after the summary, one block per table
        *mazzo.stdout.split("\n\n")[1:],
    ]
    assert len(tables) >= 7
    # an Italian report writes Italian numbers: "45,0%", "50,5 turni" (they had points)
    assert not re.search(r"\d\.\d", run.stdout + mazzo.stdout)
    widths = set()
    for block in tables:
        _title, _header, *lines = block.strip("\n").splitlines()
        rates = {tuple(m.start() for m in re.finditer("%", line)) for line in lines}
        assert len(rates) == 1, block  # every row's rates at the same places
        # and the figures of a column with as many decimals: "0,70" under "1,25"
        commas = {tuple(m.start() for m in re.finditer(r"\d,\d", line)) for line in lines}
        assert len(commas) == 1, block
        ends = {len(line.split(" (")[0]) for line in lines}  # the figure before an interval
        assert len(ends) == 1 or not rates - {()}, block
        widths.add(len({len(line.partition(" (")[2]) for line in lines}))
    assert max(widths) > 1  # intervals of several widths were seen, and lined up


def test_blitz_chance_is_a_percentage_beside_the_rates_it_is_read_against(
    shared_project: Path,
):
    """The BLITZ card's table set "vince chi la gioca 85,7% (69-94)" above "vittoria
    attesa a caso 0,33": the win rate chance would give, as a fraction, under the rate it
    is there to be read against. It is a percentage, on the rates' % sign, and in the
    JSON a share of its own kind (worked out, so with no interval)."""

    def chance(*args: str) -> tuple[str, list[str]]:
        run = invoke(shared_project, "simulate", "blitz", *args, "--games", "12")
        assert run.exit_code == 0, run.output
        block = next(b for b in run.stdout.split("\n\n") if b.startswith("La carta BLITZ"))
        lines = block.splitlines()[2:]
        row = next(line for line in lines if line.startswith("vittoria attesa a caso"))
        return row.split()[-1], lines

    alone, lines = chance("--players", "3")
    assert alone == "33,3%"
    assert len({line.index("%") for line in lines if "%" in line}) == 1
    assert chance("--players", "4", "--teams", "pairs")[0] == "50,0%"
    run = invoke(shared_project, "simulate", "blitz", "--players", "3", "--games", "4", "--json")
    table = next(t for t in json.loads(run.stdout)["tables"] if t["key"] == "blitz")
    row = next(r for r in table["rows"] if r[0] == "vittoria attesa a caso")
    assert row[1] == {"share": pytest.approx(1 / 3)}


def test_team_lines_only_where_teams_are_more_than_seats(shared_project: Path):
    """BLITZ's four players without a team mode are four teams of one: their team lines
    were the seat lines again. In pairs, the two teams have their lines."""
    alone = invoke(shared_project, "simulate", "blitz", "--players", "4", "--games", "8")
    assert alone.exit_code == 0 and "Vittorie della squadra" not in alone.stdout
    pairs = invoke(
        shared_project, "simulate", "blitz", "--players", "4", "--teams", "pairs", "--games", "8"
    )
    teams = [line for line in pairs.stdout.splitlines() if "della squadra" in line]
    assert [line.split(":")[0] for line in teams] == [
        "Vittorie della squadra 1",
        "Vittorie della squadra 2",
    ]
