"""A sweep's worker process: runs the scenarios its sweep sends, one at a time.

A sweep starts each worker as a fresh interpreter that loads this file and the
engine extension by path, and nothing else of fabricsim (see
``fabricsim.sweep.worker_pool._worker_command``): it starts fast, runs exactly
the sweep's own engine, and, started without ``multiprocessing``, never imports
the user's ``__main__``, so a script that calls ``fabricsim.sweep`` without an
``if __name__ == "__main__":`` guard is not run again in every worker. This
module therefore imports nothing from the package at import time.

Protocol: one JSON line per request on stdin,
``{"id": n, "scenario": <scenario JSON>, "source": <file name>}``, and one JSON
line per reply on stdout, ``{"id": n, "reply": <the engine's reply text>}``.

A worker lives exactly as long as its sweep wants it: when its stdin closes
(the sweep is done with it, or the sweep died, however abruptly) it exits at
once, even in the middle of a run. On Linux the kernel also kills it when the
process that started it dies.
"""

from __future__ import annotations

import json
import os
import queue
import signal
import sys
import threading
from typing import Any

__all__ = ["run_one", "main"]

_engine: Any = None  # fabricsim._core, given to main() or imported on first use


def run_one(scenario_json: str, source: str) -> str:
    """Run one scenario; return the engine's JSON reply (errors included, never raised)."""
    global _engine
    if _engine is None:
        from fabricsim import _core

        _engine = _core
    try:
        return _engine.run(scenario_json, source)
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as exc:  # a Rust panic arrives as a BaseException subclass
        return json.dumps({"error": {"kind": "internal", "message": f"{type(exc).__name__}: {exc}", "file": source}})


def _die_with_parent(parent: int | None) -> None:
    """On Linux, have the kernel kill this process when its parent dies (PR_SET_PDEATHSIG)."""
    if parent is None or not sys.platform.startswith("linux"):
        return
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        pr_set_pdeathsig = 1
        if libc.prctl(pr_set_pdeathsig, int(signal.SIGKILL), 0, 0, 0) != 0:
            return
    except (OSError, AttributeError):
        return
    if os.getppid() != parent:  # the parent died before the request took effect
        os._exit(0)


def main(parent: int | None = None, engine: Any = None) -> None:
    """Serve requests until stdin closes. ``parent``: the sweep's pid, to die with it;
    ``engine``: the ``fabricsim._core`` module, if already loaded."""
    global _engine
    if engine is not None:
        _engine = engine
    # Ctrl-C reaches the whole process group; the sweep reacts to it (saving
    # finished runs) and stops its workers itself.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _die_with_parent(parent)
    requests = sys.stdin.buffer
    replies = os.fdopen(os.dup(sys.stdout.fileno()), "wb")
    os.dup2(sys.stderr.fileno(), sys.stdout.fileno())  # stray output goes to stderr, never into the replies
    inbox: queue.SimpleQueue[bytes] = queue.SimpleQueue()

    def read() -> None:
        for line in requests:
            inbox.put(line)
        # The sweep closed the pipe or is gone: nothing more will be asked and
        # no answer can be delivered. The engine releases the GIL while it runs,
        # so this exits even in the middle of a run.
        os._exit(0)

    threading.Thread(target=read, name="fabricsim-requests", daemon=True).start()
    while True:
        request = json.loads(inbox.get())
        reply = run_one(request["scenario"], request["source"])
        try:
            replies.write(json.dumps({"id": request["id"], "reply": reply}).encode() + b"\n")
            replies.flush()
        except OSError:  # the sweep is gone
            os._exit(0)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else None)
