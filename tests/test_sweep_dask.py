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
import textwrap
import time
from pathlib import Path

import fabricsim
import pandas as pd
import pytest
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


@pytest.mark.parametrize("address", ["notanaddress", "tcp://", "tcp://10.0.0.5", "foo://host:8786", "tcp://:8786",
                                     "tcp://host:99999"])
def test_a_scheduler_address_that_cannot_be_one_is_refused_before_anything(small_toml, tmp_path, address):
    out = tmp_path / "s.csv"
    proc = run_cli("sweep", str(small_toml), "--grid", "workload.offered_load=0.1", "--out", str(out),
                   "--scheduler", address, timeout=60)
    assert proc.returncode == 2 and proc.stderr.startswith("error: ") and "Traceback" not in proc.stderr, proc.stderr
    assert f"--scheduler `{address}`: not a Dask scheduler address" in proc.stderr, proc.stderr
    assert "allowed: tcp://HOST:PORT" in proc.stderr, proc.stderr
    assert list(tmp_path.iterdir()) == [small_toml]  # no table, journal or lock


def test_a_local_cluster_the_machine_cannot_run_is_refused_with_the_reason(small_toml, tmp_path):
    # 200 thread-workers once hung for ever: each got 1/200 of the memory and Dask paused them all.
    start = time.monotonic()
    proc = run_cli("sweep", str(small_toml), "--grid", "workload.offered_load=0.1,0.2", "--out",
                   str(tmp_path / "s.csv"), "--dask-local", "200", timeout=60)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
    most = int(re.search(r"--dask-local 200: more workers than this machine can run; allowed: 1 to (\d+)\.",
                         proc.stderr).group(1))
    assert 1 <= most < 200 and "per CPU" in proc.stderr and "run.memory_budget_mb = 1024 MiB" in proc.stderr
    assert time.monotonic() - start < 30


def test_local_workers_run_however_large_the_process_grows(small_toml):
    # Dask gives each worker a share of the machine's memory by default and measures the whole process
    # against it: with 64 MiB on the machine, two workers of 32 MiB in a process of more than that were
    # paused for ever. Runs of 16 MiB at most fit the machine twice over.
    script = textwrap.dedent(f"""
        import distributed.system, fabricsim
        distributed.system.MEMORY_LIMIT = 64 * 2**20
        sc = fabricsim.Scenario.load({str(small_toml)!r}).with_overrides({{"run.memory_budget_mb": 16}})
        res = fabricsim.sweep(sc, {{"workload.offered_load": [0.1, 0.2]}}, reps=10, dask_local=2, progress=False)
        print("ran", res.ran)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=90)
    assert proc.returncode == 0 and "ran 20" in proc.stdout, proc.stderr
