from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import SMALL
from fabricsim import Scenario
from fabricsim.cli import app
from fabricsim.reproduce import (
    ExperimentOutput,
    PlotSpec,
    check,
    experiment,
    experiments,
    format_checks,
    framework,
    run_experiment,
)
from typer.testing import CliRunner

TINY_ID = "test-study/tiny"


@experiment(id=TINY_ID, title="Frame latency against offered load (tiny)", seed_ref="test study, fig. 1")
def tiny(ctx):
    loads = [0.1, 0.3] if ctx.quick else [0.1, 0.2, 0.3]
    base = Scenario.default().with_overrides(SMALL)
    results = ctx.run_many([base.with_overrides({"workload.offered_load": x}) for x in loads])
    rows = []
    for x, r in zip(loads, results):
        m = r.metrics.set_index("metric")
        for series in ("frame_latency_us", "ack_latency_us"):
            rows.append({"series": series, "x": 100 * x, "y": m.loc[series, "mean"], "y_ci": m.loc[series, "ci_half_width"], "load": x})
    curves = pd.DataFrame(rows)
    low = curves[(curves["series"] == "frame_latency_us") & (curves["x"] == 10)].iloc[0]
    return ExperimentOutput(
        curves=curves,
        plot=PlotSpec(x_label="offered load (%)", y_label="latency (us)", title="tiny"),
        published=[{"series": "frame_latency_us", "x": 10, "y": low["y"], "note": "read off the figure"}],
        checks=[
            check("latency at 10% load", published=low["y"], ours=low["y"], ours_ci=low["y_ci"], rel_tolerance=0.05),
            check("an impossible claim", published=[1e9, 2e9], ours=low["y"], tolerance=1.0, note="must miss"),
        ],
    )


def test_check_rules():
    assert check("v", 10.0, 10.4, tolerance=0.5).within
    assert not check("v", 10.0, 10.6, tolerance=0.5).within
    assert check("range", [40, 50], 51, tolerance=1).within
    assert not check("range", [40, 50], 38.9, tolerance=1).within
    c = check("rel", 200.0, 209.0, rel_tolerance=0.05, ours_ci=float("nan"))
    assert c.within and c.tolerance == pytest.approx(10.0) and c.ours_ci is None
    assert not check("nan", 1.0, float("nan"), tolerance=1).within
    with pytest.raises(ValueError):
        check("no tolerance", 1.0, 1.0)


def test_experiment_writes_csv_png_json(tmp_path):
    assert TINY_ID in experiments()
    ctx = framework.Context(quick=True, jobs=2, out_dir=tmp_path, progress=False)
    report = run_experiment(TINY_ID, ctx)
    stem = tmp_path / "test-study_tiny"
    curves = pd.read_csv(stem.with_suffix(".csv"))
    assert {"series", "x", "y", "y_ci", "load"} <= set(curves.columns) and len(curves) == 4
    assert stem.with_suffix(".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    summary = json.loads(stem.with_suffix(".json").read_text())
    assert summary["id"] == TINY_ID and summary["source"] == "test study, fig. 1"
    assert summary["quick"] is True and summary["runs"] == 2 and summary["wall_time_s"] > 0
    assert [c["within"] for c in summary["checks"]] == [True, False]
    assert summary["all_within"] is False
    first = summary["checks"][0]
    assert {"claim", "published", "ours", "ours_ci", "tolerance", "within", "note", "id", "role", "kind"} <= set(first)
    assert first["role"] == "check" and summary["study"] == "test-study"
    assert summary["checks"][1]["published"] == [1e9, 2e9]
    text = format_checks(report)
    assert "latency at 10% load" in text and "missed" in text and "1 of 2 checks within tolerance" in text


def test_reproduce_command(tmp_path):
    runner = CliRunner()
    listing = runner.invoke(app, ["reproduce", "--list"])
    assert listing.exit_code == 0 and TINY_ID in listing.output
    res = runner.invoke(app, ["reproduce", TINY_ID, "--quick", "--jobs", "1", "--out", str(tmp_path)])
    assert res.exit_code == 0, res.output
    assert "claim" in res.output and "an impossible claim" in res.output
    assert (tmp_path / "test-study_tiny.json").exists()
    strict = runner.invoke(app, ["reproduce", TINY_ID, "--quick", "--jobs", "1", "--out", str(tmp_path), "--strict"])
    assert strict.exit_code == 1
    unknown = runner.invoke(app, ["reproduce", "nope"])
    assert unknown.exit_code == 2


def test_all_selects_every_experiment():
    assert TINY_ID in [e.id for e in framework._resolve(["all"])]


def test_duplicate_id_is_refused():
    with pytest.raises(Exception, match="registered twice"):
        experiment(id=TINY_ID, title="again", seed_ref="x")(lambda ctx: None)


def test_seed000_single_switch_experiments_run_quick(tmp_path):
    """Every seed-000 experiment runs end to end in quick mode and states its checks."""
    import json

    from fabricsim.reproduce import experiments, reproduce

    ids = [i for i in experiments() if i.startswith("hp-fc-1995/")]
    assert {"hp-fc-1995/fig2", "hp-fc-1995/fig3", "hp-fc-1995/fig4", "hp-fc-1995/fig5", "hp-fc-1995/fig6"} <= set(ids)
    reports = reproduce(ids, quick=True, jobs=2, out_dir=tmp_path, progress=False, echo=None)
    # Figures that restate numbers checked elsewhere, or state no claim, have no checks.
    figure_only = {"hp-fc-1995/router-calibration", "hp-fc-1995/saturation"}
    for report in reports:
        data = json.loads(report.files["json"].read_text())
        assert bool(data["checks"]) != (report.id in figure_only), report.id
        for c in data["checks"]:
            assert {"claim", "published", "ours", "ours_ci", "tolerance", "within"} <= set(c)
            assert c["ours"] == c["ours"], f"{report.id}: NaN for {c['claim']}"
        assert report.files["png"].stat().st_size > 10_000
        assert report.runs > 0


def test_seed003_scenarios_roots_and_verdicts():
    """Seed 003: scenario construction, candidate roots, and how deadlocked, stalled and flagged runs are judged."""
    from fabricsim.reproduce import iba_2007 as iba
    from fabricsim.result import RunResult

    assert {"iba-2007/fig7", "iba-2007/fig8", "iba-2007/fig9"} <= set(experiments())
    assert [s.label for s in iba.SCHEMES] == ["SPF", "Up*/Down*"] and iba.UPDOWN.roots == 3
    quick, full = framework.Context(quick=True), framework.Context(quick=False)
    f9 = iba.FIGURES["9"]
    sc = iba.scenario(quick, f9, {"algorithm": "updown", "root": 3}, 0.28, "Up*/Down* root 3")
    assert sc["ib"]["topology"] == {"kind": "irregular", "switches": 30, "seed": iba.TOPOLOGY_SEED}
    assert sc["ib"]["routing"] == {"algorithm": "updown", "root": 3}
    assert sc["ib"]["workload"] == {"injection_rate": 0.28, "real_time_share": 0.7, "trace": iba.REAL_TRACE}
    Scenario.coerce(sc).validate()
    # Warm-up is simulated time turned into packets at the point's load; full runs measure >= 1M packets and >= 1 s.
    assert sc["run"]["warmup_observations"] == pytest.approx(0.05 * iba.packets_per_s(30, 0.28), abs=1)
    assert sc["run"]["max_observations"] == 200_000
    plan = iba.run_plan(full, 15, 0.6)
    assert plan["max_observations"] >= max(1_000_000, iba.packets_per_s(15, 0.6)) and plan["precision"] == 0.0
    assert iba.FIGURES["7"].loads[-1] == 0.6 and f9.loads[-1] == 0.28 and iba.FIGURES["8"].mix == "30:70"
    # Roots: smallest eccentricity, ties by number (a path 1-2-3-4-5 has its centre at 3, then 2 and 4).
    ecc = iba.eccentricities(5, [(1, 2), (2, 3), (3, 4), (4, 5)])
    assert sorted(ecc, key=lambda s: (ecc[s], s))[:3] == [3, 2, 4]

    def fake(stop="max_observations", flags=(), rt=(500.0, 10.0), be=(100.0, 5.0)):
        metrics = {iba.RT: {"mean": rt[0], "ci_half_width": rt[1], "count": 1000 if rt[0] == rt[0] else 0},
                   iba.BE: {"mean": be[0], "ci_half_width": be[1], "count": 1000 if be[0] == be[0] else 0}}
        return RunResult({"metrics": metrics, "counters": {},
                          "run": {"stop_reason": stop, "flags": list(flags), "measured_time_us": 200_000.0}})

    f7 = iba.FIGURES["7"]
    ok = iba.classify(f7, 0.4, fake())
    assert ok.status == "ok"
    assert iba.classify(f7, 0.4, fake(stop="deadlock", flags=["deadlock"])).status == "deadlock"
    stalled = iba.classify(f7, 0.4, fake(flags=["backlog_growing"], be=(float("nan"), float("nan"))))
    assert stalled.status == "stalled" and "no best-effort packet" in stalled.stalled
    flagged = iba.classify(f7, 0.4, fake(flags=["source_overflow"], rt=(900.0, 10.0)))
    assert flagged.status == "flagged"
    better = iba.classify(f7, 0.4, fake(rt=(400.0, 10.0)))
    assert iba.compare(better, ok, iba.RT)[0] == "win" and iba.compare(ok, better, iba.RT)[0] == "loss"
    assert iba.compare(ok, ok, iba.RT)[0] == "tie"
    assert iba.compare(stalled, ok, iba.RT)[0] == "SPF stalled"
    assert iba.compare(ok, flagged, iba.RT)[0].startswith("win")
    assert iba.compare(flagged, ok, iba.RT)[0].startswith("loss")


def test_seed003_tiny_runs_write_csv_and_checks(tmp_path, monkeypatch):
    """Figs. 7, 8 and 9 end to end through the real model, one load point of a few thousand packets each."""
    from dataclasses import replace

    from fabricsim.reproduce import iba_2007 as iba

    monkeypatch.setitem(iba.RUN_LENGTHS, True, iba.RunLength(warmup_s=0.002, packets=3000))
    monkeypatch.setattr(iba, "FIGURES", {k: replace(f, quick_loads=f.quick_loads[:1]) for k, f in iba.FIGURES.items()})
    monkeypatch.setattr(iba, "_RESULTS", {})
    ctx = framework.Context(quick=True, jobs=2, out_dir=tmp_path, progress=False)
    reports = {i: run_experiment(i, ctx) for i in ("iba-2007/fig7", "iba-2007/fig8", "iba-2007/fig9")}
    # Fig. 8 reuses Fig. 7's runs (SPF and three roots at one load; the network probe too).
    assert [reports[i].runs for i in reports] == [5, 4, 5]
    for exp_id, report in reports.items():
        stem = tmp_path / framework.file_stem(exp_id)
        curves = pd.read_csv(stem.with_suffix(".csv"))
        assert {"series", "x", "y", "y_ci", "metric", "count", "status", "stalled", "stop_reason", "flags", "routing", "root",
                "best_root", "root_selection_rt_latency_us", "offered_load_pct", "accepted_load_pct", "injection_rate",
                "deadlock_at_ms", "real_time_messages_refused"} <= set(curves.columns)
        assert set(curves["metric"]) == set(iba.METRICS)
        assert len(curves) == 4 * len(iba.METRICS)  # SPF and three Up*/Down* roots
        roots = curves[curves["routing"] == "Up*/Down*"].drop_duplicates("series")
        assert len(roots) == 3 and roots["best_root"].sum() == 1
        assert set(curves["status"]) <= {"ok", "flagged", "stalled", "deadlock"}
        assert stem.with_suffix(".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        summary = json.loads(stem.with_suffix(".json").read_text())
        claims = [c["claim"] for c in summary["checks"]]
        assert any("SPF outperforms Up*/Down* on real-time latency" in c for c in claims)
        assert any("Up*/Down* never deadlocks" in c for c in claims)
        assert all(c["note"] for c in summary["checks"])
    assert len(reports["iba-2007/fig7"].checks) == 7 and len(reports["iba-2007/fig9"].checks) == 5
    assert any(c.claim.startswith("30:70 deadline missing probability") for c in reports["iba-2007/fig8"].checks)


def test_tolerance_policy_helpers():
    """Directional claims never pass with the opposite sign; ratios carry their rounding; Fig. 5's gap is read
    at equal latency."""
    from fabricsim.reproduce.framework import gain_claim, rounded_ratio, same_claim, throughput_claim
    from fabricsim.reproduce.hp_fc_1995 import gap_at_equal_latency

    assert throughput_claim("t", 47, 45.1).within and not throughput_claim("t", 47, 44.9).within
    assert gain_claim("a over b", (10.5, 0.1), (10.0, 0.1)).within
    assert not gain_claim("a over b", (10.0, 0.1), (10.05, 0.1)).within  # opposite sign
    assert not gain_claim("a over b", (10.1, 0.2), (10.0, 0.2)).within  # within its CI
    assert not gain_claim("slightly", (13.0, 0.1), (10.0, 0.1), 0.0, 15.0).within  # by more than slightly
    assert same_claim("same", (10.4, 0.1), (10.0, 0.1)).within and not same_claim("same", (10.6, 0.1), (10.0, 0.1)).within
    lo, hi = rounded_ratio(26, 16)
    assert lo == pytest.approx(25.5 / 16.5) and hi == pytest.approx(26.5 / 15.5)
    curves = pd.DataFrame([
        {"series": s, "x": x, "y": y, "metric": "message_latency_us", "fraction_of_saturation": f}
        for s, pts in {"low": [(10, 100, 0.5), (18, 400, 0.9)], "high": [(20, 100, 0.5), (30, 300, 0.9), (34, 500, 0.95)]}.items()
        for x, y, f in pts
    ])
    level, a, b, how = gap_at_equal_latency(curves, "low", "high", 36.0)
    assert (level, a, b, how) == (400.0, 18.0, 32.0, "interpolated")
