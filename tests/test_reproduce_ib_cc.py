"""The congestion-control study (ib-cc-2010): the parking lot over a grid of
settings, end to end through the real model at quick length."""

from __future__ import annotations

import json

from fabricsim.reproduce import framework, run_experiment


def test_the_parking_lot_runs_and_judges_its_rows(tmp_path):
    ctx = framework.Context(quick=True, jobs=2, out_dir=tmp_path, progress=False)
    report = run_experiment("ib-cc-2010/parking-lot", ctx)
    # The run without control and 4 thresholds x 2 marking rates x 2 timers, under both readings of the queue;
    # then the settings that solve it, and the run without control, at another seed.
    assert report.runs >= 34
    record = json.loads((tmp_path / (framework.file_stem("ib-cc-2010/parking-lot") + ".json")).read_text())
    rows = {c["id"]: c for c in record["checks"]}
    assert set(rows) == {"pl-unfair-without-cc", "pl-solved-with-cc", "pl-not-every-setting"}
    assert rows["pl-not-every-setting"]["role"] == "derived"
    # Without control the round robin between D's two inputs gives C about half and A a quarter.
    unfair = rows["pl-unfair-without-cc"]
    assert unfair["within"] and 90 < unfair["ours"] < 110, unfair
    solved, failed = rows["pl-solved-with-cc"]["ours"], rows["pl-not-every-setting"]["ours"]
    assert solved + failed == 16 and all(rows[k]["note"] for k in rows)


def test_the_hot_spot_runs_and_judges_its_rows(tmp_path):
    from fabricsim.reproduce.ib_cc_2010 import hot_bound

    # The hot HCA receives a tenth of 63 HCAs' messages and its uniform share of the rest.
    assert abs(hot_bound(64, 0.1) - 1 / 7.2) < 1e-12
    ctx = framework.Context(quick=True, jobs=2, out_dir=tmp_path, progress=False)
    report = run_experiment("ib-cc-2010/hot-spot", ctx)
    assert report.runs == 2 * 3 + 1  # two loads: without control and two settings; the innocent traffic alone
    record = json.loads((tmp_path / (framework.file_stem("ib-cc-2010/hot-spot") + ".json")).read_text())
    rows = {c["id"]: c for c in record["checks"]}
    assert set(rows) == {"hs-innocent-throttled", "hs-resolved-with-cc", "hpcc-benchmark"}
    assert rows["hpcc-benchmark"]["role"] == "unaddressed"
    assert rows["hs-innocent-throttled"]["within"] and all(r["note"] for r in rows.values())


def test_the_hysteresis_experiment_runs_and_judges_its_rows(tmp_path):
    ctx = framework.Context(quick=True, jobs=2, out_dir=tmp_path, progress=False)
    report = run_experiment("ib-cc-2011/hysteresis", ctx)
    # 6 hysteresis values x 2 timers x 2 seeds, and the runs without control.
    assert report.runs == 6 * 2 * 2 + 2
    record = json.loads((tmp_path / (framework.file_stem("ib-cc-2011/hysteresis") + ".json")).read_text())
    rows = {c["id"]: c for c in record["checks"]}
    assert set(rows) == {"hy-unfair-without", "hy-one-mtu-not-enough", "hy-more-than-one-mtu-fair",
                         "hy-more-than-one-mtu-link"}
    assert all(r["note"] for r in rows.values())
