"""Sweeps on Dask: a local cluster gives the process pool's table bit for
bit, a failed run is reported with its parameters, and a scheduler that goes
away mid-sweep loses no finished run (the next invocation resumes)."""

from __future__ import annotations

import importlib
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import fabricsim
import pandas as pd
from conftest import FRAMES, GRID, SMALL, longer, run_cli, run_keys, stable

sweep_mod = importlib.import_module("fabricsim.sweep")
executors = importlib.import_module("fabricsim.sweep.executors")


def test_a_two_worker_local_cluster_equals_the_process_pool_bit_for_bit(small, tmp_path):
    pooled = fabricsim.sweep(small, GRID, reps=2, jobs=2, progress=False)
    on_dask = fabricsim.sweep(small, GRID, reps=2, dask_local=2, out=tmp_path / "d.parquet", progress=False)
    assert on_dask.ok and on_dask.ran == 4
    pd.testing.assert_frame_equal(stable(on_dask.table), stable(pooled.table), check_exact=True)
    pd.testing.assert_frame_equal(stable(pd.read_parquet(tmp_path / "d.parquet")), stable(pooled.table), check_dtype=False)


def test_a_failed_run_on_dask_is_reported_with_its_parameters_and_the_rest_kept(small, tmp_path, monkeypatch, capsys):
    real = executors._worker_run

    def fails_at_high_load(scenario_json, source):
        if json.loads(scenario_json)["workload"]["offered_load"] == 0.2:
            return json.dumps({"error": {"kind": "model", "message": "deadlock detected", "file": source}})
        return real(scenario_json, source)

    # The local cluster's workers are threads of this process: they call the patched function.
    monkeypatch.setattr(executors, "_worker_run", fails_at_high_load)
    out = tmp_path / "s.csv"
    res = fabricsim.sweep(small, GRID, reps=2, dask_local=2, out=out, progress=False)
    assert len(res.failed) == 2 and all(isinstance(f.error, fabricsim.ModelError) for f in res.failed)
    err = capsys.readouterr().err
    assert "run [workload.offered_load=0.2, rep 0, seed" in err and "deadlock detected" in err
    assert set(pd.read_csv(out)["workload.offered_load"]) == {0.1}


def _wait_for(condition, timeout: float = 120, what: str = "") -> None:
    end = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > end:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def _journal_lines(out: Path) -> int:
    journal = sweep_mod.journal_path(out)
    return journal.read_text().count("\n") if journal.exists() else 0


def test_a_scheduler_that_goes_away_loses_no_finished_run_and_the_rerun_resumes(small_toml, tmp_path):
    out = tmp_path / "s.csv"
    scheduler_file = tmp_path / "scheduler.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("DASK_")}
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    scheduler = subprocess.Popen(
        [*dask, "--scheduler-file", str(scheduler_file), "--host", "127.0.0.1", "--port", "0", "--no-dashboard"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True,
    )
    worker = None
    try:
        _wait_for(scheduler_file.exists, what="the scheduler")
        address = json.loads(scheduler_file.read_text())["address"]
        worker = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", address, "--nthreads", "1", "--nworkers", "1",
             "--no-dashboard"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True,
        )
        # Two quick runs, then long ones: the scheduler goes while they run.
        short, long_ = SMALL[FRAMES], longer(400)[FRAMES]
        args = ["sweep", str(small_toml), "--grid", f"{FRAMES}={short},{long_}", "--reps", "2",
                "--scheduler", address, "--out", str(out), "--no-progress"]
        sweep = subprocess.Popen([sys.executable, "-m", "fabricsim", *args], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True)
        _wait_for(lambda: _journal_lines(out) >= 2, what="the two short runs")
        os.killpg(scheduler.pid, signal.SIGKILL)
        os.killpg(worker.pid, signal.SIGKILL)
        started = time.monotonic()
        stdout, stderr = sweep.communicate(timeout=120)
        assert sweep.returncode == 1, stderr
        assert time.monotonic() - started < 90
        assert "the Dask scheduler at" in stderr and "went away" in stderr, stderr
        assert "rerun the same command to retry them" in stderr and "Traceback" not in stderr, stderr
        finished = len(run_keys(pd.read_csv(out)))
        assert 2 <= finished < 4, stdout + stderr
    finally:
        for proc in (scheduler, worker):
            if proc is not None:
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                proc.wait()
    again = run_cli(*[a for a in args if a not in ("--scheduler", address)], "--dask-local", "2")
    assert again.returncode == 0, again.stderr
    ran, skipped = map(int, re.search(r"ran (\d+), skipped (\d+)", again.stdout).groups())
    assert (ran, skipped) == (4 - finished, finished)
    assert len(run_keys(pd.read_csv(out))) == 4
