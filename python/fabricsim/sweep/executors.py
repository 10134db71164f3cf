"""Running a sweep's points: inline, on the local :class:`WorkerPool`, or on a
Dask client's executor (:mod:`.dask_cluster`), one code path for the last two."""

from __future__ import annotations

import collections
import concurrent.futures
import json
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import _worker
from ..errors import FabricsimError, SweepError, WorkerError, unwrap
from ..result import RunResult
from ..scenario import Scenario
from .plan import RunPoint
from .worker_pool import WorkerPool


def _worker_run(scenario_json: str, source: str) -> str:
    """Run one scenario in this process; return the engine's JSON reply (errors included, never raised)."""
    return _worker.run_one(scenario_json, source)



def _run_on_executor(
    points: Sequence[RunPoint],
    executor: concurrent.futures.Executor,
    in_flight: int,
    deliver: Callable[[RunPoint, str | None, FabricsimError | None], None],
    lost: Callable[[], str | None] = lambda: None,
    explain: Callable[[BaseException], str] = lambda exc: f"lost with its worker ({type(exc).__name__}: {exc})",
) -> None:
    """Run ``points`` on ``executor`` (the worker pool, a Dask client's, or any
    ``concurrent.futures`` executor), at most ``in_flight`` at a time, and
    ``deliver`` each reply (or WorkerError) in this thread, in completion order.

    A run whose future fails (its worker died, its cluster went away) gets a
    WorkerError and the others go on. ``lost()`` says why the executor can run
    nothing more, if so: then every run still out gets a WorkerError at once.
    """
    pending = collections.deque(points)
    running: dict[concurrent.futures.Future, RunPoint] = {}
    try:
        while pending or running:
            while pending and len(running) < in_flight:
                point = pending.popleft()
                running[executor.submit(_worker_run, point.scenario_json, point.source)] = point
            # A bounded wait keeps Ctrl-C prompt everywhere.
            done, _ = concurrent.futures.wait(running, timeout=1.0, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in sorted(done, key=lambda f: running[f].key):
                point = running.pop(future)
                try:
                    reply = future.result()
                except WorkerError as exc:
                    deliver(point, None, exc)
                except BaseException as exc:  # the executor's own way of losing a run (Dask cancels them)
                    if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                        raise
                    deliver(point, None, WorkerError(f"{point.source}: {explain(exc)}"))
                else:
                    deliver(point, reply, None)
            why = lost() if not done else None
            if why is not None:
                for future, point in list(running.items()) + [(None, p) for p in pending]:
                    if future is not None:
                        future.cancel()
                    deliver(point, None, WorkerError(f"{point.source}: not finished: {why}"))
                running.clear()
                pending.clear()
    except BaseException:
        for future in running:
            future.cancel()
        raise


def _progress_bar(total: int, desc: str | None, progress: bool):
    from tqdm import tqdm

    enabled = progress and sys.stderr.isatty()
    return tqdm(total=total, desc=desc, unit="run", disable=not enabled, file=sys.stderr, leave=False)


def _reply_to_outcome(point: RunPoint, reply: str) -> tuple[RunResult | None, FabricsimError | None]:
    try:
        return RunResult(unwrap(reply, point.source), point.source), None
    except FabricsimError as exc:
        return None, exc


def check_executor_options(jobs: int | None, scheduler: str | None, dask_local: int | None) -> None:
    """Refuses, before anything runs, executor options that cannot work (see also check_local_cluster)."""
    if scheduler is not None and dask_local is not None:
        raise SweepError("give a Dask scheduler address or a local cluster size (dask_local), not both")
    if jobs is not None and (not isinstance(jobs, int) or jobs < 1):
        raise SweepError(f"jobs must be a positive integer, got {jobs!r}")
    if dask_local is not None and (not isinstance(dask_local, int) or dask_local < 1):
        raise SweepError(f"dask_local must be a positive number of workers, got {dask_local!r}")
    if scheduler is not None:
        from .dask_cluster import check_scheduler_address

        check_scheduler_address(scheduler)


def _largest_memory_budget_mib(points: Sequence[RunPoint]) -> float:
    """The largest run.memory_budget_mb of ``points``: what one worker may need for a run."""
    from .. import _core

    default = next(k["default"] for k in unwrap(_core.keys())["keys"] if k["key"] == "run.memory_budget_mb")
    budgets = {(json.loads(p.scenario_json).get("run") or {}).get("memory_budget_mb", default) for p in points}
    return max(float(b) for b in budgets)


def execute(
    points: Sequence[RunPoint],
    on_done: Callable[[RunPoint, RunResult | None, FabricsimError | None], None],
    jobs: int | None = None,
    progress: bool = True,
    desc: str | None = None,
    scheduler: str | None = None,
    dask_local: int | None = None,
) -> None:
    """Run ``points``, calling ``on_done`` in this process as each finishes:
    inline if ``jobs == 1``, else on worker processes, or on a Dask cluster at
    the ``scheduler`` address, or on a local one of ``dask_local`` workers.

    ``on_done`` runs in completion order. If it raises, or on Ctrl-C, the
    remaining runs are cancelled, the workers stopped and the exception
    propagates. A run whose worker died, or whose cluster went away, gets a
    WorkerError.
    """
    check_executor_options(jobs, scheduler, dask_local)
    if jobs is None:
        jobs = os.cpu_count() or 1
    if not points:
        return
    if dask_local is not None:
        from .dask_cluster import check_local_cluster

        check_local_cluster(dask_local, _largest_memory_budget_mib(points))
    bar = _progress_bar(len(points), desc, progress)

    def deliver(point: RunPoint, reply: str | None, error: FabricsimError | None) -> None:
        if error is None:
            assert reply is not None
            result, error = _reply_to_outcome(point, reply)
            on_done(point, result, error)
        else:
            on_done(point, None, error)
        bar.update(1)

    try:
        if scheduler is not None or dask_local is not None:
            from .dask_cluster import dask_cluster

            with dask_cluster(scheduler, dask_local) as cluster:
                _run_on_executor(
                    points, cluster.executor, cluster.in_flight(), deliver, lost=cluster.lost, explain=cluster.explain
                )
        elif jobs == 1 or len(points) == 1:
            for point in points:
                deliver(point, _worker_run(point.scenario_json, point.source), None)
        else:
            pool = WorkerPool(min(jobs, len(points)))
            try:
                _run_on_executor(points, pool, min(jobs, len(points)), deliver)
            except BaseException:
                pool.shutdown(wait=True, cancel_futures=True)
                raise
            pool.shutdown(wait=True)
    finally:
        bar.close()


def run_many(
    scenarios: Sequence[Scenario | str | Path | Mapping[str, Any]],
    jobs: int | None = None,
    progress: bool = True,
    desc: str | None = None,
) -> list[RunResult]:
    """Run several scenarios in parallel; results in input order. The first failure is raised."""
    points = []
    for i, s in enumerate(scenarios):
        sc = Scenario.coerce(s)
        points.append(RunPoint(key=str(i), params={}, rep=0, seed=None, scenario_json=sc.to_json(), source=sc.source))
    results: list[RunResult | None] = [None] * len(points)

    def on_done(point: RunPoint, result: RunResult | None, error: FabricsimError | None) -> None:
        if error is not None:
            raise error
        results[int(point.key)] = result

    execute(points, on_done, jobs=jobs, progress=progress, desc=desc)
    return [r for r in results if r is not None]

