"""Sweeps on a Dask cluster: an existing one at a scheduler address, or a
local one started for the sweep. Runs go through the Dask client's
``concurrent.futures`` executor, the same path as the local worker pool
(:func:`fabricsim.sweep.executors._run_on_executor`); each run is the same
``_worker_run`` call a pool worker makes, so results are the same bit for bit.

A local cluster's workers are threads of this process: the engine releases
the GIL while it simulates, so they run in parallel, and no interpreter is
started that could re-run a caller's unguarded script.

Dask is an optional extra: ``pip install 'fabricsim[dask]'``.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..errors import SweepError, WorkerError

# How long the client may stay cut off from its scheduler before the runs
# still out are given up (they are retried by rerunning the sweep).
LOST_AFTER_S = 10.0


class DaskCluster:
    """A connected client and what the sweep loop needs of it."""

    def __init__(self, client: Any, address: str) -> None:
        self.client = client
        self.address = address
        self.executor = client.get_executor(pure=False)
        self._cut_off_since: float | None = None

    def in_flight(self) -> int:
        """Runs to keep submitted: two per worker thread, so none idles between runs."""
        threads = sum(self.client.nthreads().values())
        return max(2, 2 * threads)

    def lost(self) -> str | None:
        """Why the cluster can run nothing more, once the client has been cut off for a while."""
        if self.client.status == "running":
            self._cut_off_since = None
            return None
        now = time.monotonic()
        if self._cut_off_since is None:
            self._cut_off_since = now
        if now - self._cut_off_since < LOST_AFTER_S:
            return None
        return f"the Dask scheduler at {self.address} went away"

    def explain(self, exc: BaseException) -> str:
        """Why a run's future failed, in a line."""
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        if self.client.status != "running":
            return f"not finished: the Dask scheduler at {self.address} went away ({type(exc).__name__})"
        return f"lost on the Dask cluster ({type(exc).__name__}{': ' + first if first else ''})"


@contextmanager
def dask_cluster(scheduler: str | None, local_workers: int | None) -> Iterator[DaskCluster]:
    """A client of the scheduler at ``scheduler``, or of a local cluster of ``local_workers`` workers."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise SweepError(
            "sweeps on Dask need the dask extra: pip install 'fabricsim[dask]' (dask and distributed)"
        ) from None
    cluster = None
    # The sweep reports lost runs itself, one line each: keep Dask's own
    # reconnection tracebacks off the terminal.
    loggers = [logging.getLogger("distributed")] + [
        logging.getLogger(name) for name in list(logging.root.manager.loggerDict) if name.startswith("distributed.")
    ]
    levels = [log.level for log in loggers]
    for log in loggers:
        log.setLevel(logging.CRITICAL)
    try:
        if local_workers is not None:
            cluster = LocalCluster(
                n_workers=local_workers, threads_per_worker=1, processes=False, dashboard_address=None
            )
            client = Client(cluster)
            address = f"a local cluster of {local_workers} workers"
        else:
            try:
                client = Client(scheduler, timeout="10s")
            except (OSError, TimeoutError) as exc:
                raise WorkerError(f"cannot reach the Dask scheduler at {scheduler}: {exc}") from None
            address = str(scheduler)
        try:
            yield DaskCluster(client, address)
        finally:
            try:
                client.close(timeout=5)
            except Exception:  # a scheduler that went away cannot be told goodbye
                pass
    finally:
        if cluster is not None:
            cluster.close()
        for log, level in zip(loggers, levels):
            log.setLevel(level)
