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
    assert {"pl-solved-with-cc", "pl-not-every-setting"} <= set(rows)
    assert rows["pl-not-every-setting"]["role"] == "derived"
    solved, failed = rows["pl-solved-with-cc"]["ours"], rows["pl-not-every-setting"]["ours"]
    assert solved + failed == 16 and all(rows[k]["note"] for k in rows)


def test_the_hot_spot_runs_and_judges_its_rows(tmp_path):
    from fabricsim.reproduce.ib_cc_2010 import hot_bound

    # The hot HCA receives a tenth of 63 HCAs' messages and its uniform share of the rest.
    assert abs(hot_bound(64, 0.1) - 1 / 7.2) < 1e-12
    ctx = framework.Context(quick=True, jobs=2, out_dir=tmp_path, progress=False)
    report = run_experiment("ib-cc-2010/hot-spot", ctx)
    assert report.runs == 2 * 3 + 1 + 1  # two loads: without control and two settings; the innocent traffic alone; seed 2
    record = json.loads((tmp_path / (framework.file_stem("ib-cc-2010/hot-spot") + ".json")).read_text())
    rows = {c["id"]: c for c in record["checks"]}
    assert set(rows) == {"hs-innocent-throttled", "hs-resolved-with-cc", "hpcc-benchmark"}
    assert rows["hpcc-benchmark"]["role"] == "unaddressed"
    assert rows["hs-innocent-throttled"]["within"] and all(r["note"] for r in rows.values())


def test_the_hysteresis_experiment_runs_and_judges_its_rows(tmp_path):
    ctx = framework.Context(quick=True, jobs=2, out_dir=tmp_path, progress=False)
    report = run_experiment("ib-cc-2011/hysteresis", ctx)
    # 6 hysteresis values x 8 timers x 2 seeds, and the runs without control.
    assert report.runs == 6 * 8 * 2 + 2
    record = json.loads((tmp_path / (framework.file_stem("ib-cc-2011/hysteresis") + ".json")).read_text())
    rows = {c["id"]: c for c in record["checks"]}
    assert set(rows) == {"hy-unfair-without", "hy-one-mtu-not-enough", "hy-more-than-one-mtu-resolves"}
    assert all(r["note"] for r in rows.values())


def test_the_victim_shares_its_links_with_a_contributor_and_moves_with_it(tmp_path):
    from fabricsim.reproduce import ib_cc_2010_victim as victim

    ctx = framework.Context(quick=True, jobs=2, out_dir=tmp_path, progress=False)
    # The premise of the derivation, from the run's own tables: leaf 9's up-link and switch 25's.
    assert victim.shared_links(victim.scenario(ctx, None)) == [(9, 4), (25, 4)]
    report = run_experiment("ib-cc-2010/victim", ctx)
    # Without control, the grid under each root reading, and without control at a second seed.
    assert report.runs == 1 + 2 * len(victim.QUICK_GRID) + 1
    record = json.loads((tmp_path / (framework.file_stem("ib-cc-2010/victim") + ".json")).read_text())
    rows = {c["id"]: c for c in record["checks"]}
    assert set(rows) == {"hv-victim-throttled", "hv-resolved-with-cc", "cc-common-subset"}
    assert rows["cc-common-subset"]["role"] == "derived"
    assert rows["hv-victim-throttled"]["within"] and all(r["note"] for r in rows.values())
    # Without control the victim gets the 1/9 of a link derived from the three round robins, within 5% over the
    # full 20 ms (what it sent before the tree filled is the difference; the 5 ms run sends 5% more).
    from fabricsim.api import run

    full = framework.Context(quick=False, jobs=1, out_dir=tmp_path, progress=False)
    sent, _, each = victim.link_shares(run(victim.scenario(full, None)), 20.0)
    assert abs(sent - victim.VICTIM_BOUND) < 0.05 * victim.VICTIM_BOUND, sent
    assert abs(each[32] - sent) < 0.01, each


def test_the_hot_spot_on_the_real_cluster_runs_and_judges_its_rows(tmp_path):
    from fabricsim.reproduce.ib_cc_2010 import hot_bound
    from fabricsim.reproduce.ib_cc_2010_cluster import HCAS, SHARE

    # The hot HCA receives a hundredth of 1,355 HCAs' messages and its uniform share of the rest: 6.88%.
    assert abs(hot_bound(HCAS, SHARE) - 1 / 14.54) < 1e-12
    ctx = framework.Context(quick=True, jobs=2, out_dir=tmp_path, progress=False)
    report = run_experiment("ib-cc-2010/hot-spot-cluster", ctx)
    assert report.runs == 5  # the uniform traffic alone, the hot spot without control (three seeds), one setting
    record = json.loads((tmp_path / (framework.file_stem("ib-cc-2010/hot-spot-cluster") + ".json")).read_text())
    rows = {c["id"]: c for c in record["checks"]}
    assert set(rows) == {"hc-innocent-throttled", "hc-resolved-with-cc"}
    # Without control the tree holds every HCA near the hot link's saturation, the innocent traffic well below 9.9%.
    assert rows["hc-innocent-throttled"]["within"] and all(r["note"] for r in rows.values())
