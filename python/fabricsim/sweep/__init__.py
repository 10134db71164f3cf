"""Parameter sweeps: grid x replications, run on local worker processes or Dask, tidy tables out.

- :mod:`.plan`: the runs, their seeds (common random numbers) and run keys;
- :mod:`.executors`: running them inline, on the local :mod:`.worker_pool` or
  on a Dask cluster (:mod:`.dask_cluster`), one ``concurrent.futures`` path;
- :mod:`.runner`: a whole sweep against its output, resumed from the results
  file and the :mod:`.journal`, under the :mod:`.output_lock`;
- :mod:`.table`: the tidy rows and the results file;
- :mod:`.results`: what a sweep returns and what a rerun would do about its failures.
"""

from __future__ import annotations

from .executors import execute, run_many
from .journal import journal_path
from .output_lock import lock_path
from .plan import RunPoint, plan_sweep, run_key
from .results import FailedRun, SweepResult, failure_advice
from .runner import run_sweep
from .table import run_rows
from .worker_pool import WorkerPool

__all__ = [
    "RunPoint",
    "FailedRun",
    "SweepResult",
    "WorkerPool",
    "run_sweep",
    "run_many",
    "plan_sweep",
    "execute",
    "failure_advice",
    "journal_path",
    "lock_path",
    "run_key",
    "run_rows",
]
