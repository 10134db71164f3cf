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
from conftest import FRAMES, GRID, SMALL, longer, run_cli, run_keys, set_args, spawn_cli, stable
from fabricsim import SweepError

sweep_mod = importlib.import_module("fabricsim.sweep")
executors = importlib.import_module("fabricsim.sweep.executors")
output_lock = importlib.import_module("fabricsim.sweep.output_lock")
runner = importlib.import_module("fabricsim.sweep.runner")
worker_pool = importlib.import_module("fabricsim.sweep.worker_pool")


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
    executors = importlib.import_module("fabricsim.sweep.executors")
    real = executors._worker_run

    def gated(scenario_json, source):
        Path(ready).touch()
        deadline = time.monotonic() + 60
        while not Path(gate).exists() and time.monotonic() < deadline:
            time.sleep(0.01)
        return real(scenario_json, source)

    executors._worker_run = gated
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
    assert len(run_keys(pd.read_csv(out))) == 4
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

    monkeypatch.setattr(executors, "_worker_run", interrupted)
    with pytest.raises(KeyboardInterrupt):
        fabricsim.sweep(small, GRID, jobs=1, out=out, progress=False)
    assert not lock.exists()
    monkeypatch.undo()

    def disk_full(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(runner, "write_atomic", disk_full)
    with pytest.raises(OSError):
        fabricsim.sweep(small, GRID, jobs=1, out=out, progress=False)
    assert not lock.exists()
    monkeypatch.undo()

    res = fabricsim.sweep(small, GRID, jobs=1, out=out, progress=False)
    assert res.ok and (res.ran, res.skipped) == (0, 2)  # the journal survived the failed write
    assert not lock.exists()


def test_without_flock_the_lock_file_itself_locks(small, tmp_path, monkeypatch):
    monkeypatch.setattr(output_lock, "fcntl", None)
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

    monkeypatch.setattr(runner, "write_atomic", disk_full)
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
    assert len(run_keys(on_disk)) == 4
    pd.testing.assert_frame_equal(stable(on_disk), stable(reference), check_dtype=False)
    assert not journal.exists()


def test_records_glued_to_a_torn_line_are_recovered(full_journal, small):
    # What earlier versions left behind: the resumed sweep's record appended
    # straight after the torn one, on the same line.
    out, lines, reference = full_journal
    journal = sweep_mod.journal_path(out)
    journal.write_bytes(b"".join(lines[:2]) + lines[3][:40] + lines[2] + lines[3])

    res = fabricsim.sweep(small, GRID, reps=2, jobs=1, out=out, progress=False)
    assert res.ok and (res.ran, res.skipped) == (0, 4)
    pd.testing.assert_frame_equal(stable(pd.read_parquet(out)), stable(reference), check_dtype=False)


def test_a_damaged_line_inside_the_journal_reruns_only_its_run(full_journal, small, capsys):
    out, lines, reference = full_journal
    journal = sweep_mod.journal_path(out)
    journal.write_bytes(lines[0] + b'{"key": "garbage\n' + b"".join(lines[2:]))

    res = fabricsim.sweep(small, GRID, reps=2, jobs=1, out=out, progress=False)
    assert res.ok and (res.ran, res.skipped) == (1, 3)
    assert "unreadable" in capsys.readouterr().err
    pd.testing.assert_frame_equal(stable(pd.read_parquet(out)), stable(reference), check_dtype=False)


# ---- failures ----------------------------------------------------------------------------
def _model_error(scenario_json, source):
    return json.dumps({"error": {"kind": "model", "message": "deadlock detected", "file": source}})


def test_a_sweep_whose_every_run_failed_raises(small, tmp_path, monkeypatch):
    out = tmp_path / "s.csv"
    monkeypatch.setattr(executors, "_worker_run", _model_error)
    with pytest.raises(SweepError, match=r"all 4 runs failed") as exc:
        fabricsim.sweep(small, GRID, reps=2, jobs=1, out=out, progress=False)
    message = str(exc.value)
    assert "deadlock detected" in message and "rerun" in message and "will not" in message
    assert len(exc.value.failed) == 4 and not any(f.retryable for f in exc.value.failed)
    assert not out.exists() and not sweep_mod.journal_path(out).exists() and not sweep_mod.lock_path(out).exists()


def test_some_runs_failing_is_reported_not_raised(small, monkeypatch):
    real = executors._worker_run

    def fails_at_high_load(scenario_json, source):
        if json.loads(scenario_json)["workload"]["offered_load"] == 0.2:
            return _model_error(scenario_json, source)
        return real(scenario_json, source)

    monkeypatch.setattr(executors, "_worker_run", fails_at_high_load)
    res = fabricsim.sweep(small, GRID, reps=2, jobs=1, progress=False)
    assert len(res.failed) == 2 and len(run_keys(res.table)) == 2


# A worker that runs everything but dies on the runs at load 0.2: what the
# kernel's OOM killer or a crash in the engine would look like.
DYING_WORKER = (
    "import json, os, fabricsim._worker as w\n"
    "real = w.run_one\n"
    "def run_one(scenario_json, source):\n"
    "    if json.loads(scenario_json)['workload']['offered_load'] == 0.2:\n"
    "        os._exit(9)\n"
    "    return real(scenario_json, source)\n"
    "w.run_one = run_one\n"
    "w.main()\n"
)


def test_a_worker_that_dies_fails_only_its_run_and_the_pool_goes_on(small, tmp_path, monkeypatch):
    monkeypatch.setattr(worker_pool, "_worker_command", lambda: [sys.executable, "-c", DYING_WORKER])
    out = tmp_path / "s.csv"
    res = fabricsim.sweep(small, GRID, reps=3, jobs=2, out=out, progress=False)
    assert len(res.failed) == 3 and all(f.retryable for f in res.failed)
    assert all(isinstance(f.error, fabricsim.WorkerError) and "exit" in str(f.error) for f in res.failed)
    assert set(pd.read_csv(out)["workload.offered_load"]) == {0.1}
    assert len(run_keys(pd.read_csv(out))) == 3
    monkeypatch.undo()

    retry = fabricsim.sweep(small, GRID, reps=3, jobs=2, out=out, progress=False)
    assert retry.ok and (retry.ran, retry.skipped) == (3, 3)


def test_workers_that_cannot_start_fail_the_sweep_quickly(small, monkeypatch):
    monkeypatch.setattr(worker_pool, "_worker_command", lambda: [sys.executable, "-c", "raise SystemExit(3)"])
    grid = {"workload.offered_load": [round(0.05 * i, 2) for i in range(1, 17)]}
    start = time.monotonic()
    with pytest.raises(SweepError, match="all 16 runs failed") as exc:
        fabricsim.sweep(small, grid, jobs=2, progress=False)
    assert all(f.retryable for f in exc.value.failed)
    assert "worker" in str(exc.value)
    assert time.monotonic() - start < 30


def test_run_many_raises_a_worker_death(small, monkeypatch):
    monkeypatch.setattr(worker_pool, "_worker_command", lambda: [sys.executable, "-c", "raise SystemExit(3)"])
    with pytest.raises(fabricsim.WorkerError):
        sweep_mod.run_many([small, small], jobs=2, progress=False)


# ---- killed sweeps -------------------------------------------------------------------------
def _session_processes(sid: int) -> dict[int, str]:
    """Live processes (pid -> command line) of session ``sid``; zombies have already exited."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        fields = stat[stat.rindex(")") + 2 :].split()
        state, session = fields[0], int(fields[3])
        if session == sid and state != "Z":
            found[int(entry.name)] = cmdline
    return found


def test_workers_exit_when_the_sweep_is_killed_and_the_rerun_finishes_it(small_toml, tmp_path):
    out = tmp_path / "s.csv"
    # Two quick runs, then two that take seconds: the kill lands while both
    # workers are busy on the long ones, even on a machine slowed several times.
    short, long_ = SMALL[FRAMES], longer(300)[FRAMES]
    args = ["sweep", str(small_toml), "--grid", f"{FRAMES}={short},{long_}", "--reps", "2", "--jobs", "2",
            "--out", str(out)]
    proc = spawn_cli(*args, start_new_session=True)
    sid = proc.pid
    try:
        _wait_for(lambda: _journal_lines(out) >= 2, what="the two short runs")
        assert len(_session_processes(sid)) >= 3, _session_processes(sid)  # the sweep and its two workers
        proc.send_signal(signal.SIGKILL)
        assert _journal_lines(out) < 4, "the long runs ended before the kill: it tested nothing"
        proc.wait(timeout=30)  # not communicate(): processes left behind would hold its pipes open
        _wait_for(lambda: not _session_processes(sid), timeout=15, what="the sweep's processes to exit")
    finally:
        try:
            os.killpg(sid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.stdout.close()
        proc.stderr.close()
    assert sweep_mod.lock_path(out).exists()  # left behind by the killed sweep ...

    again = run_cli(*args)  # ... and no obstacle to the rerun
    assert again.returncode == 0, again.stderr
    ran, skipped = map(int, re.search(r"ran (\d+), skipped (\d+)", again.stdout).groups())
    assert ran + skipped == 4 and skipped >= 2
    assert len(run_keys(pd.read_csv(out))) == 4


# ---- scripts without a __main__ guard ------------------------------------------------------------
def _readme_python_example() -> str:
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", readme, flags=re.S)
    example = next(b for b in blocks if "fabricsim.sweep(" in b)
    return example


def test_the_readme_example_works_as_a_plain_script(small, tmp_path):
    example = _readme_python_example()
    assert "__main__" not in example
    (tmp_path / "my.toml").write_text(small.to_toml())
    (tmp_path / "example.py").write_text(example + "\nprint('runs', s.table['run_key'].nunique(), 'failed', len(s.failed))\n")
    proc = subprocess.run([sys.executable, "example.py"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    sweep_call = re.search(r"fabricsim\.sweep\((.*)\)", example).group(1)
    out = tmp_path / re.search(r'out="([^"]+)"', sweep_call).group(1)
    assert len(run_keys(pd.read_csv(out))) > 1
    assert re.search(r"runs (\d+) failed 0", proc.stdout), proc.stdout


UNGUARDED = textwrap.dedent(
    """
    import sys
    import fabricsim

    print("script body ran")
    s = fabricsim.sweep(sys.argv[1], {"workload.offered_load": [0.1, 0.2, 0.3]}, reps=2, jobs=2, out=sys.argv[2], progress=False)
    print(s.report())
    """
)


def test_an_unguarded_script_runs_its_sweep_once_on_the_pool(small_toml, tmp_path):
    (tmp_path / "unguarded.py").write_text(UNGUARDED)
    out = tmp_path / "s.csv"
    proc = subprocess.run([sys.executable, "unguarded.py", str(small_toml), str(out)], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("script body ran") == 1  # the workers never ran the script
    assert "ran 6, skipped 0 already finished, failed 0" in proc.stdout
    assert len(run_keys(pd.read_csv(out))) == 6


def test_an_unguarded_script_whose_runs_all_fail_exits_non_zero(small_toml, tmp_path):
    script = tmp_path / "unguarded.py"
    script.write_text(UNGUARDED.replace("import fabricsim\n", textwrap.dedent(
        """
        import fabricsim, importlib, json
        importlib.import_module("fabricsim.sweep.worker_pool")._worker_command = lambda: [sys.executable, "-c", "raise SystemExit(3)"]
        """
    )))
    proc = subprocess.run([sys.executable, str(script), str(small_toml), str(tmp_path / "s.csv")],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    assert "SweepError" in proc.stderr and "all 6 runs failed" in proc.stderr


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
    monkeypatch.setattr(executors, "_worker_run", lambda *a: calls.append(a))
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

