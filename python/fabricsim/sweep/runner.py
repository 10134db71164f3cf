"""A whole sweep against its output: lock, what is already done (table and
journal), the runs still to do, the journal as they finish, the table at the end.

Resume. Every finished run is appended at once to ``<out>.journal.jsonl``; a
restarted sweep skips the runs found in ``<out>`` or in the journal. The table
is written atomically (temporary file + rename) at the end and on Ctrl-C, after
which the journal is no longer needed and is removed. A results file holding
runs that the current plan does not contain belongs to another sweep and is
refused.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from ..errors import FabricsimError, SweepError
from ..result import METRIC_COLUMNS, RunResult
from ..scenario import Scenario
from .executors import check_executor_options, execute
from .journal import JournalWriter, journal_path, read_journal, repair_journal
from .output_lock import OutputLock
from .plan import RunPoint, normalize_grid, plan_sweep
from .results import FailedRun, SweepResult, failure_advice
from .table import (
    FIXED_COLUMNS,
    TAIL_COLUMNS,
    assemble,
    check_out_dir,
    format_of,
    read_table,
    run_rows,
    to_json_row,
    write_atomic,
)


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
    """Run every grid point ``reps`` times: seeds as :mod:`.plan` says, resume as this module's docstring
    says, the output locked by :mod:`.output_lock`.

    Runs go to ``jobs`` local worker processes, or to the Dask cluster whose
    scheduler is at ``scheduler`` (e.g. ``"tcp://10.0.0.5:8786"``), or to a
    local Dask cluster of ``dask_local`` workers started for the sweep
    (``pip install 'fabricsim[dask]'``); the table is the same either way.

    A run that fails is reported and left out of the table; the others go on.
    Check ``SweepResult.failed`` (the CLI exits 1 when it is not empty). When
    every run failed, so that the table holds none, SweepError is raised, its
    ``failed`` listing them.
    """
    check_executor_options(jobs, scheduler, dask_local)  # before the output is touched
    sc = Scenario.coerce(scenario).with_overrides(overrides)
    out_path = Path(out) if out is not None else None
    lock = None
    if out_path is not None:
        format_of(out_path)
        check_out_dir(out_path)
        lock = OutputLock(out_path)  # before anything is read: the output is this sweep's alone
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

    fmt = format_of(out_path) if out_path is not None else None
    points = plan_sweep(sc, grid, reps=reps, base_seed=base_seed)
    order = {p.key: i for i, p in enumerate(points)}
    columns = list(normalize_grid(grid)) + FIXED_COLUMNS + METRIC_COLUMNS + TAIL_COLUMNS
    say = log or (lambda msg: print(msg, file=sys.stderr))

    # What is already done: rows in the results file, plus runs in the journal.
    existing = pd.DataFrame(columns=columns)
    journal = journal_path(out_path) if out_path is not None else None
    if out_path is not None and fmt is not None and out_path.exists():
        existing = read_table(out_path, fmt)
        _refuse_foreign(set(existing["run_key"].astype(str)), order, f"{out_path}", "file")
    in_table = set(existing["run_key"].astype(str))
    journaled: dict[str, list[dict[str, Any]]] = {}
    if journal is not None:
        repair_journal(journal)  # a record cut short by a crash must not swallow the next one
        journaled, unreadable = read_journal(journal)
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
        jfh = JournalWriter(journal)

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
            rows_json = [to_json_row(r) for r in rows]
            jfh.append({"key": point.key, "params": point.params, "rep": point.rep, "rows": rows_json})
            recorded.add(point.key)
        else:
            new_rows.extend(rows)

    def finish() -> pd.DataFrame:
        if out_path is None or fmt is None or journal is None:
            return assemble([pd.DataFrame(new_rows)], order, columns)
        if jfh is not None:
            jfh.close()
        # The journal, not memory, is the record of finished runs: Ctrl-C may
        # land between a run's journal line and any in-memory bookkeeping.
        runs, _ = read_journal(journal)
        lost = recorded - runs.keys()
        if lost:  # the journal is kept: nothing in it is lost
            raise SweepError(f"{journal}: {len(lost)} finished runs cannot be read back; rerun to run them again")
        parts = [existing] + [pd.DataFrame(rows) for key, rows in runs.items() if key not in in_table]
        table = assemble(parts, order, columns)
        if len(table) or out_path.exists():  # no empty table where there was none
            kept = f"every finished run is kept in {journal}" if journal.exists() else f"{out_path} is as it was"
            hint = f"{kept}: rerun the same command to write it once the disk can take it"
            write_atomic(table, out_path, fmt, hint=hint)
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
        if jfh is not None:
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
