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

import importlib
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


# A local worker is a thread running one simulation at a time: beyond this many per CPU they only share
# the cores, and Dask's event loop, which they share too, falls behind (200 on two CPUs could not
# connect within Dask's 30 s timeout; 150 took 7 s to run one trivial task).
LOCAL_WORKERS_PER_CPU = 4
SCHEDULER_SCHEMES = ("tcp", "tls", "ws", "wss", "ucx")
ADDRESS_ALLOWED = (
    "tcp://HOST:PORT (or tls://, ws://, wss://, ucx://; HOST:PORT alone is tcp://), e.g. tcp://10.0.0.5:8786"
)


def _require_dask() -> None:
    try:
        importlib.import_module("distributed")
    except ImportError:
        raise SweepError(
            "sweeps on Dask need the dask extra: pip install 'fabricsim[dask]' (dask and distributed)"
        ) from None


def check_scheduler_address(address: object) -> None:
    """Refuses, before connecting, what cannot be a Dask scheduler's address."""
    _require_dask()
    from distributed.comm.addressing import parse_address, parse_host_port

    def refuse(why: str) -> SweepError:
        return SweepError(f"--scheduler `{address}`: not a Dask scheduler address ({why}); allowed: {ADDRESS_ALLOWED}")

    if not isinstance(address, str) or not address.strip():
        raise refuse("no address")
    try:
        scheme, location = parse_address(address, strict=False)
        if scheme not in SCHEDULER_SCHEMES:
            raise ValueError(f"scheme {scheme}:// is not one a scheduler on another process listens on")
        host, port = parse_host_port(location)
    except ValueError as exc:
        raise refuse(str(exc).rstrip(".")) from None
    if not host:
        raise refuse("no host")
    if not 0 < int(port) < 65536:
        raise refuse(f"port {port} is not 1 to 65535")


def check_local_cluster(workers: int, run_budget_mib: float) -> None:
    """Refuses a local cluster this machine cannot run: more worker threads than
    LOCAL_WORKERS_PER_CPU per CPU, or more than its memory holds runs of
    ``run_budget_mib`` (the sweep's largest run.memory_budget_mb) at once."""
    _require_dask()
    from dask.system import CPU_COUNT
    from distributed.system import MEMORY_LIMIT

    by_cpus = LOCAL_WORKERS_PER_CPU * CPU_COUNT
    by_memory = int(MEMORY_LIMIT / (run_budget_mib * 2**20))
    most = min(by_cpus, by_memory)
    if workers <= most:
        return
    raise SweepError(
        f"--dask-local {workers}: more workers than this machine can run; allowed: 1 to {max(most, 1)}. "
        f"Each worker is a thread running one simulation at a time: its {CPU_COUNT} CPUs run {by_cpus} "
        f"({LOCAL_WORKERS_PER_CPU} per CPU; more only share the cores), and its {MEMORY_LIMIT / 2**30:.1f} GiB hold "
        f"{by_memory} runs at once that may each grow to run.memory_budget_mb = {run_budget_mib:g} MiB before the "
        "engine stops them (a lower budget lets more run)"
    )


@contextmanager
def dask_cluster(scheduler: str | None, local_workers: int | None) -> Iterator[DaskCluster]:
    """A client of the scheduler at ``scheduler``, or of a local cluster of ``local_workers`` workers."""
    _require_dask()
    from distributed import Client, LocalCluster

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
            # No memory limit per worker: Dask would hold each thread's share of the machine against the
            # whole process's memory and pause them all (for ever) once the process outgrew one share;
            # the engine's run.memory_budget_mb bounds each run, and check_local_cluster their number.
            cluster = LocalCluster(
                n_workers=local_workers, threads_per_worker=1, processes=False, dashboard_address=None, memory_limit=0
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
