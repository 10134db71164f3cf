from __future__ import annotations

import importlib
import json

import fabricsim
import pandas as pd
import pytest
from fabricsim import ScenarioError, SweepError
from conftest import GRID, run_keys, stable
from fabricsim.result import METRIC_COLUMNS

# The package attribute `fabricsim.sweep` is the function; this is the package of that name.
sweep_mod = importlib.import_module("fabricsim.sweep")
executors = importlib.import_module("fabricsim.sweep.executors")
runner = importlib.import_module("fabricsim.sweep.runner")


def test_sweep_table_layout_and_seeds(small, tmp_path):
    out = tmp_path / "s.csv"
    res = fabricsim.sweep(small, GRID, reps=2, jobs=1, out=out, progress=False)
    assert res.ok and res.ran == 4 and res.skipped == 0 and res.total == 4
    t = res.table
    assert list(t.columns[:3]) == ["workload.offered_load", "rep", "seed"]
    assert list(t.columns[3 : 3 + len(METRIC_COLUMNS)]) == METRIC_COLUMNS
    assert len(run_keys(t)) == 4
    # Seed rule: replication r runs with the scenario's run.seed + r, at every grid point.
    base = small.validate()["run"]["seed"]
    seeds = t.drop_duplicates("run_key")[["workload.offered_load", "rep", "seed"]]
    assert sorted(map(tuple, seeds.values.tolist())) == [(0.1, 0, base), (0.1, 1, base + 1), (0.2, 0, base), (0.2, 1, base + 1)]
    # Counters and run information are rows with only the mean filled in.
    counter = t[t["metric"] == "counter.data_frames_delivered"]
    assert len(counter) == 4 and counter["mean"].gt(0).all() and counter["p50"].isna().all()
    assert (t["metric"] == "run.sim_time_us").sum() == 4
    assert set(t["stop_reason"]) <= {"precision", "max_observations", "max_time", "idle"}
    # Written to disk, journal gone after the complete write.
    on_disk = pd.read_csv(out)
    assert len(on_disk) == len(t)
    assert not sweep_mod.journal_path(out).exists()
    assert callable(fabricsim.sweep)  # importing the module did not rebind the name


def test_explicit_base_seed(small):
    res = fabricsim.sweep(small, {"workload.offered_load": [0.1]}, reps=2, jobs=1, progress=False, base_seed=40)
    assert sorted(set(res.table["seed"])) == [40, 41]


def test_process_pool_gives_the_same_numbers(small, tmp_path):
    inline = fabricsim.sweep(small, GRID, reps=2, jobs=1, progress=False)
    pooled = fabricsim.sweep(small, GRID, reps=2, jobs=2, out=tmp_path / "s.parquet", progress=False)
    pd.testing.assert_frame_equal(stable(inline.table), stable(pooled.table))
    on_disk = pd.read_parquet(tmp_path / "s.parquet")
    pd.testing.assert_frame_equal(stable(on_disk), stable(pooled.table), check_dtype=False)


def test_resume_runs_only_what_is_missing(small, tmp_path):
    out = tmp_path / "s.csv"
    first = fabricsim.sweep(small, GRID, reps=2, jobs=1, out=out, progress=False)
    table = pd.read_csv(out)
    dropped = sorted(run_keys(table))[:2]
    table[~table["run_key"].isin(dropped)].to_csv(out, index=False)

    again = fabricsim.sweep(small, GRID, reps=2, jobs=1, out=out, progress=False)
    assert (again.ran, again.skipped) == (2, 2)
    # Same rows in the same order, and the rerun runs reproduce their numbers exactly.
    pd.testing.assert_frame_equal(stable(pd.read_csv(out)), stable(first.table), check_dtype=False)

    nothing = fabricsim.sweep(small, GRID, reps=2, jobs=1, out=out, progress=False)
    assert (nothing.ran, nothing.skipped) == (0, 4)


def test_journal_keeps_runs_when_the_table_cannot_be_written(small, tmp_path, monkeypatch):
    out = tmp_path / "s.parquet"

    def disk_full(*args, **kwargs):
        raise OSError("disk full")

    monkeypatch.setattr(runner, "write_atomic", disk_full)
    with pytest.raises(OSError):
        fabricsim.sweep(small, GRID, reps=2, jobs=1, out=out, progress=False)
    journal = sweep_mod.journal_path(out)
    lines = journal.read_text().splitlines()
    assert len(lines) == 4 and not out.exists()
    assert {"key", "params", "rep", "rows"} <= json.loads(lines[0]).keys()
    with journal.open("a") as fh:
        fh.write('{"key": "cut short by a cra')  # a crash mid-line must not poison the resume
    monkeypatch.undo()

    res = fabricsim.sweep(small, GRID, reps=2, jobs=1, out=out, progress=False)
    assert (res.ran, res.skipped) == (0, 4)
    assert len(run_keys(pd.read_parquet(out))) == 4
    assert not journal.exists()


def test_interrupt_keeps_finishedrun_keys(small, tmp_path, monkeypatch):
    out = tmp_path / "s.csv"
    real = executors._worker_run
    calls = []

    def interrupted_on_third_run(scenario_json, source):
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt
        return real(scenario_json, source)

    monkeypatch.setattr(executors, "_worker_run", interrupted_on_third_run)
    with pytest.raises(KeyboardInterrupt):
        fabricsim.sweep(small, GRID, reps=2, jobs=1, out=out, progress=False)
    assert len(run_keys(pd.read_csv(out))) == 2
    monkeypatch.undo()

    res = fabricsim.sweep(small, GRID, reps=2, jobs=1, out=out, progress=False)
    assert (res.ran, res.skipped) == (2, 2)


def test_failed_run_is_reported_and_the_sweep_goes_on(small, tmp_path, monkeypatch, capsys):
    out = tmp_path / "s.csv"
    real = executors._worker_run

    def model_fails_at_high_load(scenario_json, source):
        if json.loads(scenario_json)["workload"]["offered_load"] == 0.2:
            return json.dumps({"error": {"kind": "model", "message": "deadlock detected", "file": source}})
        return real(scenario_json, source)

    monkeypatch.setattr(executors, "_worker_run", model_fails_at_high_load)
    res = fabricsim.sweep(small, GRID, reps=2, jobs=1, out=out, progress=False)
    assert not res.ok and len(res.failed) == 2
    assert all(isinstance(f.error, fabricsim.ModelError) for f in res.failed)
    assert "deadlock detected" in capsys.readouterr().err
    assert set(pd.read_csv(out)["workload.offered_load"]) == {0.1}
    monkeypatch.undo()

    retry = fabricsim.sweep(small, GRID, reps=2, jobs=1, out=out, progress=False)
    assert retry.ok and (retry.ran, retry.skipped) == (2, 2)


def test_results_of_another_sweep_are_refused(small, tmp_path):
    out = tmp_path / "s.csv"
    fabricsim.sweep(small, GRID, jobs=1, out=out, progress=False)
    with pytest.raises(SweepError, match="not part of this sweep"):
        fabricsim.sweep(small.with_overrides({"protocol.class": 3}), GRID, jobs=1, out=out, progress=False)


def test_bad_grid_key_fails_before_running(small, tmp_path):
    out = tmp_path / "s.csv"
    with pytest.raises(ScenarioError) as exc:
        fabricsim.sweep(small, {"workload.bogus": [1, 2]}, jobs=1, out=out, progress=False)
    assert exc.value.key == "workload.bogus"
    assert not out.exists() and not sweep_mod.journal_path(out).exists()


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"out": "s.txt"}, "parquet or .csv"),
        ({"reps": 0}, "reps"),
        ({"jobs": 0}, "jobs"),
    ],
)
def test_sweep_argument_errors(small, tmp_path, kwargs, match):
    if "out" in kwargs:
        kwargs["out"] = tmp_path / kwargs["out"]
    with pytest.raises(SweepError, match=match):
        fabricsim.sweep(small, GRID, progress=False, **kwargs)


def test_empty_axis_is_an_error(small):
    with pytest.raises(SweepError, match="no values"):
        fabricsim.sweep(small, {"workload.offered_load": []}, progress=False)


def test_run_many_keeps_input_order(small):
    loads = [0.3, 0.1, 0.2]
    results = sweep_mod.run_many([small.with_overrides({"workload.offered_load": x}) for x in loads], jobs=2, progress=False)
    assert [r.scenario["workload"]["offered_load"] for r in results] == loads
    with pytest.raises(ScenarioError):
        sweep_mod.run_many([small, small.with_overrides({"workload.offered_load": 9.0})], jobs=1, progress=False)
