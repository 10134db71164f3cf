from __future__ import annotations

import json
import math

import fabricsim
import pandas as pd
import pytest
from conftest import SMALL
from fabricsim import RunResult, Scenario, ScenarioError
from fabricsim.result import METRIC_COLUMNS

# Fields measured on the wall clock: the only ones allowed to differ between identical runs.
WALL_FIELDS = {"wall_time_s", "events_per_s", "frames_per_s"}


def _without_wall_time(raw: dict) -> dict:
    raw = json.loads(json.dumps(raw))
    for f in WALL_FIELDS:
        raw["run"].pop(f, None)
    return raw


def test_run_returns_metrics_table(small):
    result = fabricsim.run(small)
    assert isinstance(result, RunResult)
    table = result.metrics
    assert isinstance(table, pd.DataFrame)
    assert list(table.columns) == METRIC_COLUMNS
    names = set(table["metric"])
    for expected in ("frame_latency_us", "throughput_pct", "buffer_usage"):
        assert expected in names
    row = table.set_index("metric").loc["frame_latency_us"]
    assert row["mean"] > 0
    if not math.isnan(row["ci_half_width"]):
        assert row["ci_low"] == pytest.approx(row["mean"] - row["ci_half_width"])
    # The buffer occupancy distribution becomes one row per level.
    levels = table[table["metric"].str.startswith("buffer_usage.level_")]
    assert len(levels) == len(result.raw["metrics"]["buffer_usage"]["distribution"])
    assert levels["mean"].sum() == pytest.approx(1.0, abs=1e-6)
    assert result.counters["data_frames_delivered"] > 0
    assert result.run_info["stop_reason"] in {"precision", "max_observations", "max_time", "idle"}
    assert result.scenario["run"]["max_observations"] == SMALL["run.max_observations"]


def test_summary_and_json(small):
    result = fabricsim.run(small)
    text = result.summary()
    assert "frame_latency_us" in text and "data_frames_delivered" in text and "stop_reason" in text
    assert json.loads(result.to_json()) == result.raw
    assert result.metric("frame_latency_us") == result.raw["metrics"]["frame_latency_us"]["mean"]
    with pytest.raises(KeyError):
        result.metric("no_such_metric")


def test_run_accepts_path_dict_and_keyword_overrides(small, small_toml):
    from_path = fabricsim.run(small_toml, workload__offered_load=0.2)
    from_dict = fabricsim.run(small.to_dict(), overrides={"workload.offered_load": 0.2})
    assert from_path.scenario["workload"]["offered_load"] == 0.2
    assert _without_wall_time(from_path.raw) == _without_wall_time(from_dict.raw)


def test_same_seed_same_result_other_seed_differs(small):
    a = fabricsim.run(small, run__seed=5)
    b = fabricsim.run(small, run__seed=5)
    c = fabricsim.run(small, run__seed=6)
    assert _without_wall_time(a.raw) == _without_wall_time(b.raw)
    assert a.raw["metrics"] != c.raw["metrics"]


def test_run_maps_engine_errors(small):
    with pytest.raises(ScenarioError) as exc:
        fabricsim.run(small, workload__offered_load=7.0)
    assert exc.value.key == "workload.offered_load"
    with pytest.raises(ScenarioError) as exc:
        fabricsim.run(small, workload__bogus=1)
    assert exc.value.key == "workload.bogus"


def test_package_exports():
    for name in ("run", "sweep", "Scenario", "RunResult", "SweepResult", "FabricsimError",
                 "ScenarioError", "ModelError", "SweepError", "__version__"):
        assert hasattr(fabricsim, name), name
    assert isinstance(fabricsim.__version__, str) and fabricsim.__version__
    assert callable(fabricsim.sweep)
    assert isinstance(Scenario.default(), Scenario)
