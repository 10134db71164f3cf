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
    assert set(first) == {"claim", "published", "ours", "ours_ci", "tolerance", "within", "note"}
    assert summary["checks"][1]["published"] == [1e9, 2e9]
    text = format_checks(report)
    assert "latency at 10% load" in text and "NO" in text and "1/2 checks within tolerance" in text


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
    for report in reports:
        data = json.loads(report.files["json"].read_text())
        assert data["checks"], report.id
        for c in data["checks"]:
            assert {"claim", "published", "ours", "ours_ci", "tolerance", "within"} <= set(c)
            assert c["ours"] == c["ours"], f"{report.id}: NaN for {c['claim']}"
        assert report.files["png"].stat().st_size > 10_000
        assert report.runs > 0
