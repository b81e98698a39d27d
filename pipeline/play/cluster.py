"""Balance runs beyond one machine: the chunks of a simulation on a Dask distributed cluster.

A chunk is a plain-data task (the setup, the card records, the seed, the game indices), the
same unit `--jobs` hands its worker processes, and chunk results are merged in game order, so
a seed gives the same figures on one core, on N processes and on a cluster. The engines
travel as data: a worker needs Cartiera installed, not the project folder nor the database.
Dask retries the chunk of a worker that dies on another worker.

Requires the optional extra ``cartiera[cluster]``.
"""

from __future__ import annotations

import contextlib
import os
import re
import uuid
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from pipeline.common.problems import Problem, SourceError

CLUSTER_EXTRA = "pip install 'cartiera[cluster]'"
# How a local cluster starts its worker processes, as Dask reads it from the environment.
START_METHOD = "DASK_DISTRIBUTED__WORKER__MULTIPROCESSING_METHOD"
Chunk = Callable[..., list[dict[str, Any]]]


def parse_address(address: str) -> tuple[str, int | str]:
    """("local", N) for `local:N`, else ("remote", the scheduler's address)."""
    if address.startswith("local"):
        _, _, count = address.partition(":")
        try:
            workers = int(count or "2")
        except ValueError:
            workers = 0
        if workers < 1:
            raise ValueError(f"'{address}': write local:N with N workers, e.g. local:2")
        return "local", workers
    found = SCHEDULER.fullmatch(address)
    if found is None or not 0 < int(found["port"]) < 65536:
        raise ValueError(f"'{address}': give the scheduler as tcp://HOST:PORT or local:N")
    return "remote", address


# A scheduler's address as Dask takes it: [protocol://]host:port, the host a name, an IPv4
# address or a bracketed IPv6 one.
SCHEDULER = re.compile(r"(?:[a-z]+://)?(?:\[[0-9A-Fa-f:.]+\]|[^\s:/\[\]]+):(?P<port>[0-9]{1,5})")


def local_cluster(workers: int) -> Any:
    """A Dask cluster of `workers` processes on this machine, one thread each (the engines
    are pure Python), its dashboard on a free port of this machine only: None does not turn
    it off (dask/distributed#8136), and the default port 8787 warns when two run at once.

    Its workers fork from a server process that imported Dask once, unless the environment
    sets the start method (START_METHOD): spawned, each worker would start a new interpreter
    and import Dask again, about a second of CPU per worker."""
    import dask
    from distributed import LocalCluster

    if START_METHOD not in os.environ:
        dask.config.set({"distributed.worker.multiprocessing-method": "forkserver"})
    return LocalCluster(
        n_workers=workers, threads_per_worker=1, processes=True, dashboard_address="127.0.0.1:0"
    )


@contextlib.contextmanager
def client_for(address: str) -> Iterator[Any]:
    """A Dask client on the scheduler at `address`, or on a local cluster (`local:N`)."""
    try:
        from distributed import Client
    except ModuleNotFoundError:
        raise SourceError(
            Problem("error", "Dask distributed is not installed", hint=CLUSTER_EXTRA)
        ) from None
    kind, where = parse_address(address)
    if kind == "local":
        cluster = local_cluster(int(where))
        with cluster, Client(cluster) as client:
            yield client
        return
    try:
        client = Client(str(where), timeout="10s")
    except OSError as exc:
        raise SourceError(
            Problem("error", f"cannot reach the Dask scheduler at {where}: {exc}",
                    hint="start it with `dask scheduler` or check the address")
        ) from None  # fmt: skip
    with client:
        yield client


def map_chunks(
    client: Any,
    chunk: Chunk,
    arguments: Sequence[Any],
    pieces: Sequence[Sequence[int]],
    progress: Callable[[int], None] | None = None,
) -> list[list[dict[str, Any]]]:
    """Run `chunk(*arguments, piece)` for every piece on the cluster; results in piece order.

    The shared arguments are scattered once (broadcast to every worker), not sent per task.
    A worker lost with them cancels the tasks that need them: the inputs are sent again
    for the pieces not yet done (RESENDS times), then the run ends in one line.
    """
    from concurrent.futures import CancelledError

    from distributed import KilledWorker

    results: dict[int, list[dict[str, Any]]] = {}
    for _ in range(RESENDS + 1):
        try:
            _run_pieces(client, chunk, arguments, pieces, results, progress)
        except (CancelledError, KilledWorker) as exc:
            lost = exc
        else:
            return [results[i] for i in range(len(pieces))]
    raise SourceError(
        Problem(
            "error",
            f"the Dask cluster lost the run's workers {RESENDS + 1} times "
            f"({type(lost).__name__}); {len(results)} of {len(pieces)} chunks were done",
            hint="check the workers' logs (memory limits?) and run again",
        )
    )


RESENDS = 2


def _run_pieces(
    client: Any,
    chunk: Chunk,
    arguments: Sequence[Any],
    pieces: Sequence[Sequence[int]],
    results: dict[int, list[dict[str, Any]]],
    progress: Callable[[int], None] | None,
) -> None:
    """Submit the pieces not in `results` and add each one's result as it comes."""
    from distributed import as_completed

    shared = client.scatter(list(arguments), broadcast=True)
    run = uuid.uuid4().hex[:12]  # task keys unique to this run on a shared scheduler
    futures = {
        client.submit(
            chunk, *shared, list(piece), key=f"cartiera-{run}-{i}", retries=2, pure=False
        ): i
        for i, piece in enumerate(pieces)
        if i not in results
    }
    for future in as_completed(futures):
        results[futures[future]] = future.result()
        if progress is not None:
            progress(len(results[futures[future]]))
