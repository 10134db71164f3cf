"""The local worker processes of a sweep, behind the ``concurrent.futures`` executor interface.

With ``jobs > 1`` runs go to fresh interpreters running :mod:`fabricsim._worker`,
fed one run at a time over a pipe. They never import the caller's ``__main__``
(a script without an ``if __name__ == "__main__":`` guard works), and they exit
when the sweep closes their pipe or dies.
"""

from __future__ import annotations

import collections
import concurrent.futures
import itertools
import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

from .. import _worker
from ..errors import WorkerError


def _worker_command() -> list[str]:
    """How a worker process starts: a fresh interpreter that loads ``_worker.py``
    and the engine extension of this very fabricsim by path, and nothing else of
    it (a tenth of a second sooner than importing the package), and never this
    process's ``__main__``."""
    from .. import _core

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
        from .executors import _worker_run  # the one call a run is; it runs this pool

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

