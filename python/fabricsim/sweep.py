"""Parameter sweeps: grid x replications, run on local worker processes, tidy tables out.

Seeds. Replication ``r`` of a grid point runs with ``run.seed = base + r``, where
``base`` is the ``base_seed`` argument if given, else that point's ``run.seed``
(the scenario's, or the grid's when ``run.seed`` is an axis, or the engine's
default). Every grid point therefore sees the same seed sequence (common random
numbers), which sharpens comparisons between points.

Resume. Every finished run is appended at once to ``<out>.journal.jsonl``; a
restarted sweep skips the runs found in ``<out>`` or in the journal. A record
cut short by a crash is cut off before anything is appended, so only its run
runs again. The table is written atomically (temporary file + rename) at the
end and on Ctrl-C, after which the journal is no longer needed and is removed.

Locking. A sweep holds ``<out>.lock`` (an exclusive ``flock``) from before it
reads ``<out>`` until the table is written; a second sweep on the same output
is refused at once. The kernel drops the lock when its holder dies, however it
dies, so a lock file left by a killed sweep is no obstacle.

Workers. Runs go through a ``concurrent.futures`` executor: the local
:class:`WorkerPool`, or a Dask client's (``scheduler=``, ``dask_local=``; see
:mod:`fabricsim._dask`), one code path for both. With ``jobs > 1`` runs go to fresh interpreters running
:mod:`fabricsim._worker`, fed one run at a time over a pipe. They never import
the caller's ``__main__`` (a script without an ``if __name__ == "__main__":``
guard works), and they exit when the sweep closes their pipe or dies.

The run key identifies a run: JSON of a digest of the base scenario, the grid
values, the replication and the seed. A results file holding runs that the
current plan does not contain belongs to another sweep and is refused.
"""

from __future__ import annotations

import collections
import concurrent.futures
import errno
import hashlib
import itertools
import json
import math
import os
import queue
import re
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import _worker
from .errors import FabricsimError, SweepError, WorkerError, unwrap
from .result import METRIC_COLUMNS, RunResult, metric_rows
from .scenario import Scenario

try:
    import fcntl
except ImportError:  # Windows
    fcntl = None  # type: ignore[assignment]

if TYPE_CHECKING:  # pandas costs half a second to import; only table code pays it
    import pandas as pd

__all__ = ["RunPoint", "FailedRun", "SweepResult", "run_sweep", "run_many", "plan_sweep", "execute"]

FIXED_COLUMNS = ["rep", "seed"]
TAIL_COLUMNS = ["stop_reason", "flags", "run_key"]
_FORMATS = {".csv": "csv", ".parquet": "parquet"}


@dataclass(frozen=True)
class RunPoint:
    """One run to execute: its key, grid values, replication, seed and scenario."""

    key: str
    params: dict[str, Any]
    rep: int
    seed: int | None
    scenario_json: str
    source: str


@dataclass
class FailedRun:
    key: str
    params: dict[str, Any]
    rep: int
    seed: int | None
    error: FabricsimError

    def describe(self) -> str:
        where = ", ".join(f"{k}={_short(v)}" for k, v in self.params.items())
        return f"run [{where}{', ' if where else ''}rep {self.rep}, seed {self.seed}] failed: {self.error}"

    @property
    def retryable(self) -> bool:
        """Whether a rerun may succeed: only if the worker died. The engine is
        deterministic, so a scenario or model error comes back the same."""
        return isinstance(self.error, WorkerError)


def failure_advice(failed: Sequence[FailedRun]) -> str:
    """What a rerun of the sweep would do about ``failed``, in a phrase."""
    retry = sum(f.retryable for f in failed)
    permanent = len(failed) - retry
    if not permanent:
        return "their workers were lost (a worker process died or a Dask cluster went away); rerun the same command to retry them"
    fix = "a rerun will not fix them (the same scenario and seed fail the same way): fix the scenario or the grid"
    if not retry:
        return fix
    return (
        f"{retry} of them failed because their worker was lost and a rerun retries them; "
        f"the other {permanent} a rerun will not fix (the same scenario and seed fail the same way)"
    )


@dataclass
class SweepResult:
    """``table``: one row per run and metric; ``failed``: runs that raised; ``out``: file written."""

    table: pd.DataFrame
    failed: list[FailedRun] = field(default_factory=list)
    out: Path | None = None
    ran: int = 0
    skipped: int = 0
    total: int = 0

    @property
    def ok(self) -> bool:
        return not self.failed

    def report(self) -> str:
        text = f"ran {self.ran}, skipped {self.skipped} already finished, failed {len(self.failed)} (of {self.total} runs)"
        if self.out is not None:
            text += f"; wrote {self.out} ({len(self.table)} rows)"
        return text


# ---- planning -------------------------------------------------------------------
def _short(v: Any) -> str:
    return json.dumps(v) if not isinstance(v, str) else v


def _digest(sc: Scenario) -> str:
    return hashlib.sha256(json.dumps(sc.to_dict(), sort_keys=True).encode()).hexdigest()[:12]


def _normalize_grid(grid: Mapping[str, Iterable[Any]]) -> dict[str, list[Any]]:
    axes: dict[str, list[Any]] = {}
    for key, values in grid.items():
        dotted = key.replace("__", ".")
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise SweepError(f"grid axis `{dotted}` must be a list of values, got {values!r}")
        values = list(values)
        if not values:
            raise SweepError(f"grid axis `{dotted}` has no values")
        axes[dotted] = values
    return axes


def run_key(digest: str, params: Mapping[str, Any], rep: int, seed: int | None) -> str:
    return json.dumps(
        {"base": digest, "params": dict(params), "rep": rep, "seed": seed},
        sort_keys=True,
        separators=(",", ":"),
    )


def plan_sweep(
    scenario: Scenario,
    grid: Mapping[str, Iterable[Any]],
    reps: int = 1,
    base_seed: int | None = None,
) -> list[RunPoint]:
    """Expand grid x reps into run points, validating every grid point up front.

    Validation before running means a misspelt grid key fails in a second, not
    after the first hour of a sweep.
    """
    if not isinstance(reps, int) or reps < 1:
        raise SweepError(f"reps must be a positive integer, got {reps!r}")
    axes = _normalize_grid(grid)
    digest = _digest(scenario)
    points: list[RunPoint] = []
    for combo in itertools.product(*axes.values()):
        params = dict(zip(axes.keys(), combo))
        point_sc = scenario.with_overrides(params)
        if base_seed is not None:
            base = int(base_seed)
            point_sc.with_overrides({"run.seed": base}).validate()
        else:
            normalized = point_sc.validate()
            seed = (normalized.get("run") or {}).get("seed")
            if not isinstance(seed, int):
                raise SweepError(f"{scenario.source}: the normalized scenario has no integer run.seed to derive seeds from")
            base = seed
        for rep in range(reps):
            seed = base + rep
            rep_sc = point_sc.with_overrides({"run.seed": seed})
            points.append(
                RunPoint(
                    key=run_key(digest, params, rep, seed),
                    params=params,
                    rep=rep,
                    seed=seed,
                    scenario_json=rep_sc.to_json(),
                    source=scenario.source,
                )
            )
    return points


# ---- execution ------------------------------------------------------------------
def _worker_run(scenario_json: str, source: str) -> str:
    """Run one scenario in this process; return the engine's JSON reply (errors included, never raised)."""
    return _worker.run_one(scenario_json, source)


def _worker_command() -> list[str]:
    """How a worker process starts: a fresh interpreter that loads ``_worker.py``
    and the engine extension of this very fabricsim by path, and nothing else of
    it (a tenth of a second sooner than importing the package), and never this
    process's ``__main__``."""
    from . import _core

    if not sys.executable:
        raise WorkerError("cannot start worker processes: sys.executable is not set (run with jobs=1)")
    bootstrap = (
        "import signal; signal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        "import sys; sys.path[:] = [p for p in sys.path if p]  # not the current directory\n"
        "import importlib.util\n"
        "def load(name, path):\n"
        "    spec = importlib.util.spec_from_file_location(name, path)\n"
        "    module = importlib.util.module_from_spec(spec)\n"
        "    sys.modules[name] = module\n"
        "    spec.loader.exec_module(module)\n"
        "    return module\n"
        "engine = load('fabricsim._core', sys.argv[1])\n"
        "load('fabricsim._worker', sys.argv[2]).main(int(sys.argv[3]), engine)\n"
    )
    return [sys.executable, "-c", bootstrap, _core.__file__, _worker.__file__, str(os.getpid())]


class _Worker:
    """One worker process and the two pipes to it."""

    def __init__(self, command: list[str]) -> None:
        try:
            self.proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        except OSError as exc:
            raise WorkerError(f"cannot start a worker process: {exc}") from None
        self.replied = False

    def call(self, request_id: int, scenario_json: str, source: str) -> str:
        """Have the worker run a scenario; its reply, or WorkerError if the worker died."""
        assert self.proc.stdin is not None and self.proc.stdout is not None
        request = {"id": request_id, "scenario": scenario_json, "source": source}
        try:
            self.proc.stdin.write(json.dumps(request).encode() + b"\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except OSError:
            line = b""
        if not line:
            raise WorkerError(f"{source}: the worker process {self._how_it_ended()} during the run")
        answer = json.loads(line)
        if answer.get("id") != request_id:
            raise WorkerError(f"{source}: the worker answered request {answer.get('id')} for {request_id}")
        self.replied = True
        return answer["reply"]

    def _how_it_ended(self) -> str:
        try:
            code = self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = self.proc.wait()
        if code < 0:
            try:
                return f"was killed by {signal.Signals(-code).name}"
            except ValueError:
                return f"was killed by signal {-code}"
        return f"exited with code {code}"

    def close(self, kill: bool = False) -> None:
        """Stop the worker: closing its stdin makes it exit; ``kill`` does not wait for that."""
        if kill:
            self.proc.kill()
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()


class WorkerPool(concurrent.futures.Executor):
    """``jobs`` worker processes behind the ``concurrent.futures`` executor
    interface, for ``submit(_worker_run, scenario_json, source)``: each future
    holds the engine's JSON reply, or WorkerError if its worker died.

    Each worker has a thread here that feeds it one run at a time, starts it
    and owns it until it is closed. A worker that dies fails only the run it
    held; the next run gets a fresh worker. ``shutdown(cancel_futures=True)``
    kills the workers at once (Ctrl-C, or an error in the caller).
    """

    def __init__(self, jobs: int) -> None:
        self._command = _worker_command()
        self._tasks: collections.deque = collections.deque()
        self._cv = threading.Condition()
        self._stopping = False
        self._live: set[_Worker] = set()
        self._requests = itertools.count()
        # Workers that die before they ever answered, while no worker of this
        # pool has: the environment cannot run workers at all (e.g. fabricsim
        # cannot be imported there). Then the remaining runs fail at once
        # instead of each starting a worker that dies.
        self._stillborn = 0
        self._any_replied = False
        self._give_up_after = jobs + 2
        self._threads = [
            threading.Thread(target=self._slot, name=f"fabricsim-worker-{k}", daemon=True) for k in range(jobs)
        ]
        for t in self._threads:
            t.start()

    def submit(self, fn: Callable[..., str], /, *args: Any, **kwargs: Any) -> concurrent.futures.Future:
        if fn is not _worker_run or kwargs or len(args) != 2:
            raise TypeError("a WorkerPool runs fabricsim runs only: submit(_worker_run, scenario_json, source)")
        future: concurrent.futures.Future = concurrent.futures.Future()
        with self._cv:
            if self._stopping:
                raise RuntimeError("cannot submit a run to a worker pool that was shut down")
            self._tasks.append((future, args))
            self._cv.notify()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        with self._cv:
            self._stopping = True
            if cancel_futures:
                for future, _ in self._tasks:
                    future.cancel()
                self._tasks.clear()
                doomed = list(self._live)
            else:
                doomed = []
            self._cv.notify_all()
        for worker in doomed:
            worker.proc.kill()  # the threads see their worker die, clean up and end
        if wait:
            for t in self._threads:
                t.join(timeout=30)

    def _next_task(self, has_worker: bool):
        """The next run for a slot (None: the slot ends), or a run to fail at once with its error."""
        with self._cv:
            while not self._tasks and not self._stopping:
                self._cv.wait()
            if not self._tasks:
                return None
            future, args = self._tasks.popleft()
            if not has_worker and not self._any_replied and self._stillborn >= self._give_up_after:
                why = f"{self._stillborn} worker processes in a row died before finishing a run (see their messages above)"
                doomed = [(future, args)] + list(self._tasks)
                self._tasks.clear()
                for f, (_, source) in doomed:
                    if f.set_running_or_notify_cancel():
                        f.set_exception(WorkerError(f"{source}: not run: {why}"))
                return ()
            return future, args

    def _slot(self) -> None:
        worker: _Worker | None = None
        try:
            while True:
                task = self._next_task(worker is not None)
                if task is None:
                    return
                if task == ():
                    continue
                future, (scenario_json, source) = task
                if not future.set_running_or_notify_cancel():
                    continue
                if worker is None:
                    try:
                        worker = _Worker(self._command)
                    except WorkerError as exc:
                        with self._cv:
                            self._stillborn += 1
                        future.set_exception(exc)
                        continue
                    with self._cv:
                        self._live.add(worker)
                try:
                    reply = worker.call(next(self._requests), scenario_json, source)
                except WorkerError as exc:
                    with self._cv:
                        self._live.discard(worker)
                        if not worker.replied:
                            self._stillborn += 1
                    worker.close(kill=True)
                    worker = None
                    future.set_exception(exc)
                    continue
                with self._cv:
                    self._any_replied = True
                future.set_result(reply)
        finally:
            if worker is not None:
                with self._cv:
                    self._live.discard(worker)
                worker.close(kill=self._stopping)


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
    if scheduler is not None and dask_local is not None:
        raise SweepError("give a Dask scheduler address or a local cluster size (dask_local), not both")
    if jobs is None:
        jobs = os.cpu_count() or 1
    if not isinstance(jobs, int) or jobs < 1:
        raise SweepError(f"jobs must be a positive integer, got {jobs!r}")
    if dask_local is not None and (not isinstance(dask_local, int) or dask_local < 1):
        raise SweepError(f"dask_local must be a positive number of workers, got {dask_local!r}")
    if not points:
        return
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
            from ._dask import dask_cluster

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


# ---- tidy rows --------------------------------------------------------------------
def _cell(v: Any) -> Any:
    # Lists/tables as grid values are stored as JSON text so CSV and Parquet agree.
    return json.dumps(v) if isinstance(v, (list, dict, tuple)) else v


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def run_rows(point: RunPoint, result: RunResult) -> list[dict[str, Any]]:
    """The tidy rows of one run: its metrics, then ``counter.*`` and ``run.*`` rows (mean only)."""
    nan = float("nan")
    rows = metric_rows(result.raw.get("metrics", {}))
    extra = {c: nan for c in METRIC_COLUMNS if c != "metric"}
    for name, value in result.counters.items():
        if _is_number(value):
            rows.append({"metric": f"counter.{name}", **extra, "mean": float(value)})
    for name, value in result.run_info.items():
        if _is_number(value):
            rows.append({"metric": f"run.{name}", **extra, "mean": float(value)})
    head = {k: _cell(v) for k, v in point.params.items()}
    head["rep"] = point.rep
    head["seed"] = point.seed
    tail = {
        "stop_reason": result.run_info.get("stop_reason"),
        "flags": ";".join(result.run_info.get("flags") or []),
        "run_key": point.key,
    }
    return [{**head, **{c: r[c] for c in METRIC_COLUMNS}, **tail} for r in rows]


def _to_json_row(row: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}


# ---- files ----------------------------------------------------------------------
def _format_of(out: Path) -> str:
    fmt = _FORMATS.get(out.suffix.lower())
    if fmt is None:
        raise SweepError(f"{out}: output must end in .parquet or .csv")
    return fmt


def journal_path(out: Path) -> Path:
    return out.with_name(out.name + ".journal.jsonl")


def lock_path(out: Path) -> Path:
    return out.with_name(out.name + ".lock")


class _OutputLock:
    """The right to write ``out``, its journal and its temporary files, held by one sweep at a time.

    An exclusive ``flock`` on ``<out>.lock``, taken before anything is read and
    held until the table is written. The kernel drops it when its holder exits,
    however it exits, so the file a killed sweep leaves behind is no obstacle;
    the file only says who holds it, for the message of a sweep turned away.
    Where ``flock`` is missing (Windows, some network file systems) the file
    itself is the lock, created exclusively; one naming a process of this host
    that no longer runs is stale and taken over.
    """

    def __init__(self, out: Path) -> None:
        self.out = out
        self.path = lock_path(out)
        fd = self._flock() if fcntl is not None else None
        self.fd = fd if fd is not None else self._create_exclusive()
        os.ftruncate(self.fd, 0)
        stamp = time.strftime("%Y-%m-%d %H:%M:%S")
        os.write(self.fd, f"pid {os.getpid()} on {socket.gethostname()}, since {stamp}\n".encode())

    def _open(self, flags: int) -> int:
        try:
            return os.open(self.path, os.O_RDWR | os.O_CREAT | flags, 0o644)
        except FileExistsError:
            raise
        except OSError as exc:
            raise SweepError(f"{self.out}: cannot write there: {exc.strerror}") from None

    def _refuse(self, holder: str, hint: str = "") -> SweepError:
        return SweepError(
            f"{self.out}: another sweep ({holder or 'unknown process'}) is writing this table; "
            f"wait for it to finish or choose another --out{hint}"
        )

    def _flock(self) -> int | None:
        """The locked file's descriptor; None where the file system has no flock."""
        assert fcntl is not None
        while True:
            fd = self._open(0)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as exc:
                holder = _read_text(self.path)
                os.close(fd)
                if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                    raise self._refuse(holder) from None
                if exc.errno in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
                    return None
                raise SweepError(f"{self.out}: cannot lock {self.path.name}: {exc.strerror}") from None
            # The previous holder may have removed the file between our open and
            # our flock: then the lock is on a file nobody else sees. Start over.
            try:
                if os.path.samestat(os.fstat(fd), os.stat(self.path)):
                    return fd
            except FileNotFoundError:
                pass
            os.close(fd)

    def _create_exclusive(self) -> int:
        for _ in range(3):
            try:
                return self._open(os.O_EXCL)
            except FileExistsError:
                holder = _read_text(self.path)
            if not _holder_is_gone(holder):
                raise self._refuse(holder, f"; if no sweep is running, remove {self.path}")
            try:
                self.path.unlink()
            except FileNotFoundError:
                pass
        raise self._refuse(_read_text(self.path), f"; if no sweep is running, remove {self.path}")

    def release(self) -> None:
        # Removed while still held, so nobody can take a lock on the old file.
        try:
            self.path.unlink()
        except FileNotFoundError:
            pass
        os.close(self.fd)


def _holder_is_gone(holder: str) -> bool:
    """Whether a lock file's ``pid N on HOST`` names a process of this host that has exited."""
    m = re.match(r"pid (\d+) on (\S+?),", holder)
    if m is None or m.group(2) != socket.gethostname() or os.name != "posix":
        return False  # another host's, or no safe way to ask (os.kill on Windows terminates)
    try:
        os.kill(int(m.group(1)), 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False
    return False


def _read_text(path: Path) -> str:
    try:
        return path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return ""


def _check_out_dir(out: Path) -> None:
    """Clear errors for an --out whose directory is missing or is not one; writability is the lock's test."""
    if out.is_dir():
        raise SweepError(f"{out}: is a directory; --out names the results file (FILE.parquet or FILE.csv)")
    parent = out.parent
    if not parent.exists():
        raise SweepError(f"{out}: cannot write there: directory {parent} does not exist")
    if not parent.is_dir():
        raise SweepError(f"{out}: cannot write there: {parent} is not a directory")


def _read_table(out: Path, fmt: str) -> pd.DataFrame:
    import pandas as pd

    try:
        table = pd.read_parquet(out) if fmt == "parquet" else pd.read_csv(out)
    except Exception as exc:  # unreadable: say so rather than overwrite someone's data
        raise SweepError(f"{out}: exists but cannot be read as a sweep table ({exc})") from None
    if "run_key" not in table.columns:
        raise SweepError(f"{out}: exists but is not a fabricsim sweep table (no run_key column)")
    if "flags" in table.columns:
        table["flags"] = table["flags"].astype(object).fillna("").astype(str)  # CSV reads a clean run's "" as NaN
    return table


# The journal holds one JSON record per line, {"key": ..., "rows": [...]}, each
# written whole, flushed and fsynced. A crash can still cut the last line short.
_RECORD_START = '{"key"'


def _journal_record(line: str) -> tuple[str, list[dict[str, Any]]] | None:
    """The (key, rows) of one journal line, or None if it holds no whole record.

    A line may also hold a whole record glued after a torn one, as sweeps of
    earlier versions wrote when resuming after a crash: that record counts.
    """
    decoder = json.JSONDecoder()
    text = line.strip()
    start = 0
    while start >= 0:
        try:
            entry, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError:
            entry, end = None, -1
        if end == len(text) and isinstance(entry, dict):
            key, rows = entry.get("key"), entry.get("rows")
            if isinstance(key, str) and isinstance(rows, list) and all(isinstance(r, dict) for r in rows):
                return key, rows
        start = text.find(_RECORD_START, start + 1)
    return None


def _read_journal(path: Path) -> tuple[dict[str, list[dict[str, Any]]], int]:
    """The runs recorded in the journal, and the number of lines that held none."""
    done: dict[str, list[dict[str, Any]]] = {}
    unreadable = 0
    if not path.exists():
        return done, unreadable
    with path.open("rb") as fh:
        for raw in fh:
            line = raw.decode("utf-8", errors="replace")
            if not line.strip():
                continue
            record = _journal_record(line)
            if record is None:
                unreadable += 1
            else:
                done[record[0]] = record[1]
    return done, unreadable


def _repair_journal(path: Path) -> None:
    """Make the journal end with a whole line, so the next record starts a line of its own.

    A crash can cut the last record short: that piece is cut off (its run
    simply runs again). A whole last record that lost only its newline gets it.
    """
    try:
        size = path.stat().st_size
    except FileNotFoundError:
        return
    if size == 0:
        return
    with path.open("rb+") as fh:
        fh.seek(size - 1)
        if fh.read(1) == b"\n":
            return
        start, pos = 0, size
        while pos > 0:  # find where the last line begins, reading back from the end
            step = min(1 << 16, pos)
            pos -= step
            fh.seek(pos)
            newline = fh.read(step).rfind(b"\n")
            if newline >= 0:
                start = pos + newline + 1
                break
        fh.seek(start)
        tail = fh.read()
        if _journal_record(tail.decode("utf-8", errors="replace")) is not None:
            fh.seek(size)
            fh.write(b"\n")
        else:
            fh.truncate(start)
        fh.flush()
        os.fsync(fh.fileno())


def _write_atomic(table: pd.DataFrame, out: Path, fmt: str) -> None:
    tmp = out.with_name(f".{out.name}.{os.getpid()}.tmp")
    try:
        if fmt == "parquet":
            try:
                table.to_parquet(tmp, index=False)
            except (TypeError, ValueError) as exc:  # e.g. a grid axis mixing numbers and text
                import pyarrow as pa

                if not isinstance(exc, (pa.ArrowTypeError, pa.ArrowInvalid)):
                    raise
                mixed = {c: table[c].astype(str) for c in table.columns if table[c].dtype == object}
                table.assign(**mixed).to_parquet(tmp, index=False)
        else:
            table.to_csv(tmp, index=False)
        os.replace(tmp, out)
    finally:
        if tmp.exists():
            tmp.unlink()


def _assemble(
    parts: list[pd.DataFrame], order: Mapping[str, int], columns: list[str]
) -> pd.DataFrame:
    import pandas as pd

    parts = [p for p in parts if len(p)]
    if not parts:
        return pd.DataFrame(columns=columns)
    table = pd.concat(parts, ignore_index=True)
    for c in METRIC_COLUMNS[1:]:
        table[c] = pd.to_numeric(table[c], errors="coerce").astype(float)
    table = table[[c for c in columns if c in table.columns] + [c for c in table.columns if c not in columns]]
    # Plan order, then the order rows had within their run.
    rank = table["run_key"].map(order).fillna(len(order))
    table = table.assign(_rank=rank).sort_values("_rank", kind="stable").drop(columns="_rank")
    return table.reset_index(drop=True)


# ---- the sweep ----------------------------------------------------------------------
def run_sweep(
    scenario: Scenario | str | Path | Mapping[str, Any] | None,
    grid: Mapping[str, Iterable[Any]],
    reps: int = 1,
    jobs: int | None = None,
    out: str | Path | None = None,
    progress: bool = True,
    base_seed: int | None = None,
    overrides: Mapping[str, Any] | Iterable[str] | None = None,
    log: Callable[[str], None] | None = None,
    scheduler: str | None = None,
    dask_local: int | None = None,
) -> SweepResult:
    """Run every grid point ``reps`` times; see the module docstring for seeds, resume and locking.

    Runs go to ``jobs`` local worker processes, or to the Dask cluster whose
    scheduler is at ``scheduler`` (e.g. ``"tcp://10.0.0.5:8786"``), or to a
    local Dask cluster of ``dask_local`` workers started for the sweep
    (``pip install 'fabricsim[dask]'``); the table is the same either way.

    A run that fails is reported and left out of the table; the others go on.
    Check ``SweepResult.failed`` (the CLI exits 1 when it is not empty). When
    every run failed, so that the table holds none, SweepError is raised, its
    ``failed`` listing them.
    """
    sc = Scenario.coerce(scenario).with_overrides(overrides)
    out_path = Path(out) if out is not None else None
    lock = None
    if out_path is not None:
        _format_of(out_path)
        _check_out_dir(out_path)
        lock = _OutputLock(out_path)  # before anything is read: the output is this sweep's alone
    try:
        result = _sweep_locked(sc, grid, reps, jobs, out_path, progress, base_seed, log, scheduler, dask_local)
    finally:
        if lock is not None:
            lock.release()
    if result.failed and result.table.empty:
        error = SweepError(
            f"all {len(result.failed)} runs failed; {failure_advice(result.failed)}; "
            f"the first {result.failed[0].describe()}"
        )
        error.failed = tuple(result.failed)
        raise error
    return result


def _sweep_locked(
    sc: Scenario,
    grid: Mapping[str, Iterable[Any]],
    reps: int,
    jobs: int | None,
    out_path: Path | None,
    progress: bool,
    base_seed: int | None,
    log: Callable[[str], None] | None,
    scheduler: str | None = None,
    dask_local: int | None = None,
) -> SweepResult:
    import pandas as pd

    fmt = _format_of(out_path) if out_path is not None else None
    points = plan_sweep(sc, grid, reps=reps, base_seed=base_seed)
    order = {p.key: i for i, p in enumerate(points)}
    columns = list(_normalize_grid(grid)) + FIXED_COLUMNS + METRIC_COLUMNS + TAIL_COLUMNS
    say = log or (lambda msg: print(msg, file=sys.stderr))

    # What is already done: rows in the results file, plus runs in the journal.
    existing = pd.DataFrame(columns=columns)
    journal = journal_path(out_path) if out_path is not None else None
    if out_path is not None and fmt is not None and out_path.exists():
        existing = _read_table(out_path, fmt)
        _refuse_foreign(set(existing["run_key"].astype(str)), order, f"{out_path}", "file")
    in_table = set(existing["run_key"].astype(str))
    journaled: dict[str, list[dict[str, Any]]] = {}
    if journal is not None:
        _repair_journal(journal)  # a record cut short by a crash must not swallow the next one
        journaled, unreadable = _read_journal(journal)
        if unreadable:
            say(f"{journal}: skipped {unreadable} unreadable lines; their runs will run again")
    _refuse_foreign(set(journaled), order, f"{journal}", "journal")
    done = in_table | set(journaled)
    todo = [p for p in points if p.key not in done]

    new_rows: list[dict[str, Any]] = []
    failed: list[FailedRun] = []
    recorded: set[str] = set()  # runs of this call written to the journal
    ran = 0
    jfh = None
    if journal is not None and todo:
        jfh = journal.open("a", encoding="utf-8")

    def on_done(point: RunPoint, result: RunResult | None, error: FabricsimError | None) -> None:
        nonlocal ran
        ran += 1
        if error is not None:
            fr = FailedRun(point.key, point.params, point.rep, point.seed, error)
            failed.append(fr)
            _echo(fr.describe())
            return
        assert result is not None
        rows = run_rows(point, result)
        if jfh is not None:
            entry = {"key": point.key, "params": point.params, "rep": point.rep, "rows": [_to_json_row(r) for r in rows]}
            jfh.write(json.dumps(entry) + "\n")
            jfh.flush()
            os.fsync(jfh.fileno())
            recorded.add(point.key)
        else:
            new_rows.extend(rows)

    def finish() -> pd.DataFrame:
        if out_path is None or fmt is None or journal is None:
            return _assemble([pd.DataFrame(new_rows)], order, columns)
        if jfh is not None:
            jfh.close()
        # The journal, not memory, is the record of finished runs: Ctrl-C may
        # land between a run's journal line and any in-memory bookkeeping.
        runs, _ = _read_journal(journal)
        lost = recorded - runs.keys()
        if lost:  # the journal is kept: nothing in it is lost
            raise SweepError(f"{journal}: {len(lost)} finished runs cannot be read back; rerun to run them again")
        parts = [existing] + [pd.DataFrame(rows) for key, rows in runs.items() if key not in in_table]
        table = _assemble(parts, order, columns)
        if len(table) or out_path.exists():  # no empty table where there was none
            _write_atomic(table, out_path, fmt)
        if journal.exists():
            journal.unlink()  # the table now holds everything the journal had
        return table

    try:
        execute(
            todo,
            on_done,
            jobs=jobs,
            progress=progress,
            desc=sc.name or "sweep",
            scheduler=scheduler,
            dask_local=dask_local,
        )
    except KeyboardInterrupt:
        if out_path is not None:
            table = finish()
            say(f"interrupted: {table['run_key'].nunique()} of {len(points)} runs saved in {out_path}")
        raise
    finally:
        if jfh is not None and not jfh.closed:
            jfh.close()
    table = finish()
    return SweepResult(table=table, failed=failed, out=out_path, ran=ran, skipped=len(done), total=len(points))


def _refuse_foreign(keys: set[str], order: Mapping[str, int], where: str, what: str) -> None:
    foreign = keys - order.keys()
    if foreign:
        raise SweepError(
            f"{where}: holds {len(foreign)} runs that are not part of this sweep "
            f"(different scenario, grid or seeds); choose another --out or remove the {what}"
        )


def _echo(msg: str) -> None:
    from tqdm import tqdm

    tqdm.write(msg, file=sys.stderr)
