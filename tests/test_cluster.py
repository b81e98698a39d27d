"""Simulations on a Dask distributed cluster give exactly the figures of one process, even
when a worker dies in the middle of a run."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path

import pytest
from conftest import invoke

from pipeline.common.project import open_project

distributed = pytest.importorskip("distributed", reason="the extra cartiera[cluster] is needed")

GAMES = "200"


def _figures(project: Path, *how: str) -> dict:
    run = invoke(project, "simulate", "bless", "--games", GAMES, "--seed", "7", "--json", *how)
    assert run.exit_code == 0, run.output
    return json.loads(run.stdout)


def test_local_cluster_equals_one_process_and_two(shared_project: Path) -> None:
    one = _figures(shared_project, "--jobs", "1")
    assert one["games"] == int(GAMES)
    assert _figures(shared_project, "--cluster", "local:2") == one
    assert _figures(shared_project, "--jobs", "2") == one


def test_a_killed_worker_changes_nothing(shared_project: Path) -> None:
    """A worker killed mid-run: its chunks run again on the other. The workers of a local
    cluster are forked from one server process that imported Dask, not spawned each as a
    new interpreter (a second of CPU each)."""
    from distributed import Client

    from pipeline.play import simulate
    from pipeline.play.cluster import local_cluster

    project = open_project(shared_project)
    want = simulate.simulate(project, "bless", int(GAMES), 7).to_json()
    with local_cluster(2) as cluster, Client(cluster) as client:
        pids = list(client.run(os.getpid).values())
        for parent in set(client.run(os.getppid).values()):
            assert b"forkserver" in Path(f"/proc/{parent}/cmdline").read_bytes()
        killed: list[int] = []

        def progress(done: int, total: int) -> None:
            if not killed and done >= simulate.CHUNK:  # the first chunk is back: kill one
                os.kill(pids[0], signal.SIGKILL)
                killed.append(pids[0])

        got = simulate.simulate(
            project, "bless", int(GAMES), 7, cluster=cluster.scheduler_address, progress=progress
        ).to_json()
    assert killed
    assert got == want


def test_bad_cluster_addresses_are_one_line(shared_project: Path) -> None:
    for address in ("local:0", "local:x", "nowhere"):
        run = invoke(shared_project, "simulate", "bless", "--games", "2", "--cluster", address)
        assert run.exit_code == 2, run.output
        assert "Traceback" not in run.output
