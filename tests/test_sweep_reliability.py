"""Sweeps under stress: concurrent sweeps, crashes, killed processes, unguarded scripts, bad paths."""

from __future__ import annotations

import importlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import fabricsim
import pandas as pd
import pytest
from conftest import FRAMES, SMALL, longer, run_cli, set_args, spawn_cli
from fabricsim import SweepError

sweep_mod = importlib.import_module("fabricsim.sweep")

GRID = {"workload.offered_load": [0.1, 0.2]}
WALL_METRICS = {"run.wall_time_s", "run.events_per_s", "run.frames_per_s"}


def _runs(table: pd.DataFrame) -> set[str]:
    return set(table["run_key"])


def _stable(table: pd.DataFrame) -> pd.DataFrame:
    return table[~table["metric"].isin(WALL_METRICS)].reset_index(drop=True)


def _wait_for(condition, timeout: float = 60, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.01)


def _journal_lines(out: Path) -> int:
    journal = sweep_mod.journal_path(out)
    try:
        return journal.read_bytes().count(b"\n")
    except FileNotFoundError:
        return 0

# ---- two sweeps, one output ------------------------------------------------------------
# A sweep in another process whose first run waits for a gate file: it holds
# the output for as long as the test needs, with no timing guesswork.
GATED_SWEEP = textwrap.dedent(
    """
    import importlib, json, sys, time
    from pathlib import Path
    import fabricsim

    scenario, grid, out, ready, gate = sys.argv[1:]
    sweep_mod = importlib.import_module("fabricsim.sweep")
    real = sweep_mod._worker_run

    def gated(scenario_json, source):
        Path(ready).touch()
        deadline = time.monotonic() + 60
        while not Path(gate).exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return real(scenario_json, source)

    sweep_mod._worker_run = gated
    res = fabricsim.sweep(scenario, json.loads(grid), reps=2, jobs=1, out=out, progress=False)
    print(res.report())
    """
)


def test_second_sweep_on_the_same_out_is_refused_and_the_first_loses_nothing(small, small_toml, tmp_path):
    out = tmp_path / "s.csv"
    ready, gate = tmp_path / "ready", tmp_path / "gate"
    script = tmp_path / "gated.py"
    script.write_text(GATED_SWEEP)
    first = subprocess.Popen(
        [sys.executable, str(script), str(small_toml), json.dumps(GRID), str(out), str(ready), str(gate)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )
    try:
        _wait_for(ready.exists, what="the first sweep to start its first run")
        with pytest.raises(SweepError, match="another sweep") as exc:
            fabricsim.sweep(small, GRID, reps=2, jobs=1, out=out, progress=False)
        assert str(out) in str(exc.value) and f"pid {first.pid}" in str(exc.value)

        proc = run_cli("sweep", str(small_toml), "--grid", "workload.offered_load=0.1,0.2", "--reps", "2",
                       "--jobs", "1", "--out", str(out))
        assert proc.returncode == 2, proc.stderr
        assert proc.stderr.startswith("error: ") and "another sweep" in proc.stderr and str(out) in proc.stderr
        assert "Traceback" not in proc.stderr
    finally:
        gate.touch()
        stdout, stderr = first.communicate(timeout=60)
    assert first.returncode == 0, stderr
    assert "ran 4, skipped 0" in stdout
    assert len(_runs(pd.read_csv(out))) == 4
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith("s.csv")) == ["s.csv"]


def test_a_lock_file_left_by_a_dead_process_does_not_block(small, tmp_path):
    out = tmp_path / "s.csv"
    lock = sweep_mod.lock_path(out)
    # A process that died without cleaning up; its pid is long gone.
    lock.write_text("pid 999999999 on this host\n")
    res = fabricsim.sweep(small, GRID, jobs=1, out=out, progress=False)
    assert res.ok and res.ran == 2
    assert not lock.exists()


def test_the_lock_is_released_on_every_way_out(small, tmp_path, monkeypatch):
    out = tmp_path / "s.csv"
    lock = sweep_mod.lock_path(out)

    def interrupted(scenario_json, source):
        raise KeyboardInterrupt

    monkeypatch.setattr(sweep_mod, "_worker_run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fabricsim.sweep(small, GRID, jobs=1, out=out, progress=False)
    assert not lock.exists()
    monkeypatch.undo()

    def disk_full(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(sweep_mod, "_write_atomic", disk_full)
    with pytest.raises(OSError):
        fabricsim.sweep(small, GRID, jobs=1, out=out, progress=False)
    assert not lock.exists()
    monkeypatch.undo()

    res = fabricsim.sweep(small, GRID, jobs=1, out=out, progress=False)
    assert res.ok and (res.ran, res.skipped) == (0, 2)  # the journal survived the failed write
    assert not lock.exists()


def test_without_flock_the_lock_file_itself_locks(small, tmp_path, monkeypatch):
    monkeypatch.setattr(sweep_mod, "fcntl", None)
    out = tmp_path / "s.csv"
    lock = sweep_mod.lock_path(out)
    host = socket.gethostname()
    lock.write_text(f"pid {os.getpid()} on {host}, since today\n")  # a live holder
    with pytest.raises(SweepError, match="another sweep") as exc:
        fabricsim.sweep(small, GRID, jobs=1, out=out, progress=False)
    assert f"remove {lock}" in str(exc.value)

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    lock.write_text(f"pid {int(dead.stdout)} on {host}, since today\n")  # a holder that has exited
    res = fabricsim.sweep(small, GRID, jobs=1, out=out, progress=False)
    assert res.ok and res.ran == 2 and not lock.exists()


# ---- a journal cut by a crash -------------------------------------------------------------
@pytest.fixture
def full_journal(small, tmp_path, monkeypatch):
    """A finished sweep's journal, its table never written: (out, journal lines, reference table)."""
    out = tmp_path / "s.parquet"
    reference = fabricsim.sweep(small, GRID, reps=2, jobs=1, progress=False).table

    def disk_full(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(sweep_mod, "_write_atomic", disk_full)
    with pytest.raises(OSError):
        fabricsim.sweep(small, GRID, reps=2, jobs=1, out=out, progress=False)
    monkeypatch.undo()
    lines = sweep_mod.journal_path(out).read_bytes().splitlines(keepends=True)
    assert len(lines) == 4 and all(line.endswith(b"\n") for line in lines)
    return out, lines, reference


@pytest.mark.parametrize(
    "cut, reruns",
    [
        (lambda line: line[: len(line) // 2], 1),  # the crash cut the last record in half
        (lambda line: line[:1], 1),  # ... or right after it began
        (lambda line: line[:-1], 0),  # the record is whole, only its newline is missing
    ],
    ids=["half", "first-byte", "newline"],
)
def test_resume_after_a_torn_journal_line_reruns_exactly_what_is_missing(full_journal, small, cut, reruns):
    out, lines, reference = full_journal
    journal = sweep_mod.journal_path(out)
    journal.write_bytes(b"".join(lines[:3]) + cut(lines[3]))

    res = fabricsim.sweep(small, GRID, reps=2, jobs=1, out=out, progress=False)
    assert res.ok and (res.ran, res.skipped) == (reruns, 4 - reruns)
    on_disk = pd.read_parquet(out)
    assert len(_runs(on_disk)) == 4
    pd.testing.assert_frame_equal(_stable(on_disk), _stable(reference), check_dtype=False)
    assert not journal.exists()


def test_records_glued_to_a_torn_line_are_recovered(full_journal, small):
    # What earlier versions left behind: the resumed sweep's record appended
    # straight after the torn one, on the same line.
    out, lines, reference = full_journal
    journal = sweep_mod.journal_path(out)
    journal.write_bytes(b"".join(lines[:2]) + lines[3][:40] + lines[2] + lines[3])

    res = fabricsim.sweep(small, GRID, reps=2, jobs=1, out=out, progress=False)
    assert res.ok and (res.ran, res.skipped) == (0, 4)
    pd.testing.assert_frame_equal(_stable(pd.read_parquet(out)), _stable(reference), check_dtype=False)


def test_a_damaged_line_inside_the_journal_reruns_only_its_run(full_journal, small, capsys):
    out, lines, reference = full_journal
    journal = sweep_mod.journal_path(out)
    journal.write_bytes(lines[0] + b'{"key": "garbage\n' + b"".join(lines[2:]))

    res = fabricsim.sweep(small, GRID, reps=2, jobs=1, out=out, progress=False)
    assert res.ok and (res.ran, res.skipped) == (1, 3)
    assert "unreadable" in capsys.readouterr().err
    pd.testing.assert_frame_equal(_stable(pd.read_parquet(out)), _stable(reference), check_dtype=False)


# ---- outputs that cannot be written ---------------------------------------------------------------
def _read_only_dir(tmp_path: Path) -> Path:
    if os.geteuid() == 0:  # root writes through permission bits; sysfs takes no new files from anyone
        return Path("/sys")
    d = tmp_path / "read-only"
    d.mkdir()
    d.chmod(0o555)
    return d


@pytest.fixture(params=["missing-dir", "under-a-file", "read-only", "a-directory"])
def unwritable_out(request, tmp_path) -> Path:
    if request.param == "missing-dir":
        return tmp_path / "no" / "such" / "s.csv"
    if request.param == "under-a-file":
        (tmp_path / "plain").write_text("")
        return tmp_path / "plain" / "s.csv"
    if request.param == "a-directory":
        (tmp_path / "d.csv").mkdir()
        return tmp_path / "d.csv"
    return _read_only_dir(tmp_path) / "fabricsim-test-s.csv"


def test_an_unwritable_out_fails_before_any_run(small, unwritable_out, monkeypatch):
    calls = []
    monkeypatch.setattr(sweep_mod, "_worker_run", lambda *a: calls.append(a))
    with pytest.raises(SweepError) as exc:
        fabricsim.sweep(small, GRID, jobs=1, out=unwritable_out, progress=False)
    assert str(unwritable_out) in str(exc.value)
    assert calls == []
    assert not unwritable_out.parent.joinpath(unwritable_out.name + ".journal.jsonl").exists()


def test_cli_unwritable_out_exits_2_naming_the_path(small_toml, unwritable_out):
    proc = run_cli("sweep", str(small_toml), "--grid", "workload.offered_load=0.1", "--jobs", "1",
                   "--out", str(unwritable_out), *set_args(longer(100)))
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error: ") and str(unwritable_out) in proc.stderr
    assert "Traceback" not in proc.stderr and "sweep:" not in proc.stdout
