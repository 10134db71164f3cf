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
    """Every seed-000 experiment runs end to end in quick mode and computes ours for every row of its table."""
    import json

    from fabricsim.reproduce import experiments, reproduce

    ids = [i for i in experiments() if i.startswith("hp-fc-1995/")]
    assert {"hp-fc-1995/fig2", "hp-fc-1995/fig3", "hp-fc-1995/fig4", "hp-fc-1995/fig5", "hp-fc-1995/fig6"} <= set(ids)
    reports = reproduce(ids, quick=True, jobs=2, out_dir=tmp_path, progress=False, echo=None)
    # The saturation summary shows numbers whose rows are evaluated in Figs. 2, 4 and 5: it has none.
    figure_only = {"hp-fc-1995/saturation"}
    for report in reports:
        data = json.loads(report.files["json"].read_text())
        assert bool(data["checks"]) != (report.id in figure_only), report.id
        assert set(data["ours"]) == {c["id"] for c in data["checks"] if c["role"] in ("prediction", "fit", "derived")}
        for c in data["checks"]:
            assert {"claim", "published", "ours", "ours_ci", "tolerance", "within", "id", "role"} <= set(c)
            if c["role"] in ("prediction", "fit") and not c["no_value"]:
                assert c["ours"] == c["ours"] and c["ours"] != "nan", f"{report.id}: no value for {c['id']}"
        assert report.files["png"].stat().st_size > 10_000
        assert report.runs > 0


def test_seed003_family_scenarios_and_verdicts():
    """Seed 003: the network family the documented rule chooses, scenario construction, candidate roots, and how
    deadlocked, stalled and flagged runs are judged."""
    from dataclasses import replace

    from fabricsim.reproduce import iba_2007 as iba
    from fabricsim.reproduce import iba_2007_networks as iba_networks
    from fabricsim.reproduce.iba_2007_claims import steady
    from fabricsim.reproduce.iba_2007_values import delivers
    from fabricsim.result import RunResult

    assert {"iba-2007/fig7", "iba-2007/fig8", "iba-2007/fig9", "iba-2007/spf-ties"} <= set(experiments())
    assert [s.label for s in iba.SCHEMES] == ["Up/Down (tree)", "SPF", "SPF+Drop", "Multipath+LFU", "Multipath+LFU+Drop",
                                              "Multipath+Credit", "Multipath+Credit+Drop"]
    assert [s.label for s in iba.FIGURES["9"].schemes] == ["Up/Down (tree)", "SPF", "SPF+Drop", "Multipath+LFU",
                                                           "Multipath+LFU+Drop"]
    # docs/infiniband-model.md: the five seeds the rule keeps (iba-2007/networks re-derives them with runs);
    # each meets its static part: SPF's dependencies cyclic, multipath's bound above SPF's.
    assert iba.family(15) == [65, 68, 78, 19, 25] and iba.family(30) == [136, 46, 54, 69, 39]
    for switches, seed in ((15, 65), (30, 136)):
        b = iba_networks.bounds(switches, seed)
        assert b.cyclic and b.multipath > b.spf and b.updown < b.spf, b
    quick, full = framework.Context(quick=True), framework.Context(quick=False)
    f9 = iba.FIGURES["9"]
    sc = iba.scenario(quick, f9, 4, iba.MP_LFU_DROP, None, 0.28)
    assert sc["ib"]["topology"] == {"kind": "random", "switches": 30, "seed": 4}
    assert sc["ib"]["routing"] == {"algorithm": "multipath", "selection": "lfu"}
    assert sc["ib"]["switch"] == {"hoq_life": iba.HOQ_LIFE}
    assert sc["ib"]["workload"] == {"injection_rate": 0.28, "real_time_share": 0.7, "trace": iba.REAL_TRACE}
    Scenario.coerce(sc).validate()
    ties = iba.scenario(quick, iba.FIGURES["ties"], 1, iba.SPF_LOWEST, None, 0.5)
    assert ties["ib"]["routing"] == {"algorithm": "spf", "ties": "lowest"} and "switch" not in ties["ib"]
    # Its balanced runs are Fig. 7's own scenarios (run once when both run in one process).
    assert iba.scenario(quick, iba.FIGURES["ties"], 1, iba.SPF, None, 0.5) == iba.scenario(quick, iba.FIGURES["7"], 1,
                                                                                           iba.SPF, None, 0.5)
    # The hoq-life ablation changes the dropping schemes only: the others' runs are the declared figure's.
    f4 = replace(iba.FIGURES["7"], **iba.ABLATIONS["hoq-life-4"][1])
    assert iba.scenario(quick, f4, 1, iba.SPF_DROP, None, 0.5)["ib"]["switch"] == {"hoq_life": 4}
    assert iba.scenario(quick, f4, 1, iba.MP_LFU, None, 0.5) == iba.scenario(quick, iba.FIGURES["7"], 1, iba.MP_LFU, None, 0.5)
    ud = iba.scenario(quick, iba.FIGURES["7"], 1, iba.UPDOWN, 5, 0.1)
    assert ud["ib"]["routing"] == {"algorithm": "updown_tree", "root": 5} and "switch" not in ud["ib"]
    assert sc["run"]["warmup_observations"] == pytest.approx(0.02 * iba.packets_per_s(30, 0.28), abs=1)
    plan = iba.run_plan(full, 15, 0.6)
    assert plan["max_observations"] >= max(300_000, 1.0 * iba.packets_per_s(15, 0.6)) and plan["precision"] == 0.0
    assert iba.FIGURES["7"].loads[-1] == 0.6 and f9.loads[-1] == 0.28 and iba.FIGURES["8"].mix == "30:70"
    # Roots: smallest eccentricity, ties by number (a path 1-2-3-4-5 has its centre at 3, then 2 and 4).
    ecc = iba.eccentricities(5, [(1, 2), (2, 3), (3, 4), (4, 5)])
    assert sorted(ecc, key=lambda s: (ecc[s], s))[:3] == [3, 2, 4]

    def fake(stop="max_observations", flags=(), rt=(500.0, 10.0), be=(100.0, 5.0)):
        metrics = {iba.RT: {"mean": rt[0], "ci_half_width": rt[1], "count": 1000 if rt[0] == rt[0] else 0},
                   iba.BE: {"mean": be[0], "ci_half_width": be[1], "count": 1000 if be[0] == be[0] else 0}}
        return RunResult({"metrics": metrics, "counters": {},
                          "run": {"stop_reason": stop, "flags": list(flags), "measured_time_us": 200_000.0}})

    # A run delivers when it did not deadlock and accepted within two points of what was offered.
    def offered(acc, flags=()):
        return RunResult({"metrics": {"offered_load_pct": {"mean": 60.0}, iba.ACC: {"mean": acc}}, "counters": {},
                          "run": {"stop_reason": "max_observations", "flags": list(flags)}})

    assert delivers(offered(58.5))[0] and not delivers(offered(57.9))[0]
    assert delivers(offered(60.0, ["deadlock"]))[1].startswith("deadlocked")
    # A comparison is judged only on runs that deliver steadily: a growing backlog has no steady value.
    assert steady(iba.Point(offered(59.0, ["accepted_below_offered"]), "flagged"))[0]
    assert steady(iba.Point(offered(59.0, ["backlog_growing"]), "flagged")) == (False, "unsteady (backlog growing)")

    f7 = iba.FIGURES["7"]
    assert iba.classify(f7, 0.4, fake()).status == "ok"
    assert iba.classify(f7, 0.4, fake(stop="deadlock", flags=["deadlock"])).status == "deadlock"
    stalled = iba.classify(f7, 0.4, fake(flags=["backlog_growing"], be=(float("nan"), float("nan"))))
    assert stalled.status == "stalled" and "no best-effort packet" in stalled.stalled
    assert iba.classify(f7, 0.4, fake(flags=["source_overflow"], rt=(900.0, 10.0))).status == "flagged"

    # Family values: medians of the networks with values, none with fewer than three.
    def runs(statuses, values):
        return {x: iba.Point(fake(rt=(v, 1.0)), st) for x, st, v in zip((0.5,), statuses, values)}

    nets = [1, 2, 3, 4, 5]
    fr = iba.FigureRuns(f7, (0.5,), nets, [], {})
    for n, (st, v) in zip(nets, [("ok", 100.0), ("ok", 300.0), ("flagged", 200.0), ("deadlock", 1.0), ("ok", 900.0)]):
        fr.drawn[("spf", n)] = iba.Line(n, iba.SPF, None, runs([st], [v]))
    v = iba.family_value(fr, iba.SPF, 0.5, iba.RT)
    assert (v.median, v.lo, v.hi, v.networks, v.unstable, v.deadlocked) == (250.0, 100.0, 900.0, 4, 1, 1)
    for n in (1, 2):
        fr.drawn[("spf", n)].runs[0.5].status = "deadlock"
    assert not iba.family_value(fr, iba.SPF, 0.5, iba.RT).usable



def test_seed003_tiny_runs_evaluate_every_claim_and_write_csv(tmp_path, monkeypatch):
    """Figs. 7, 8 and 9 end to end through the real model: one network, one load, a few thousand packets each;
    every row of the claims table is evaluated (the framework refuses one left out) and the files are written."""
    from dataclasses import replace

    from fabricsim.reproduce import iba_2007 as iba

    monkeypatch.setitem(iba.RUN_LENGTHS, True, iba.RunLength(warmup_s=0.002, packets=3000))
    monkeypatch.setattr(iba, "FIGURES", {k: replace(f, quick_loads=f.quick_loads[-1:]) for k, f in iba.FIGURES.items()})
    monkeypatch.setattr(iba, "QUICK_NETWORKS", 1)
    monkeypatch.setattr(iba, "_RESULTS", {})
    ctx = framework.Context(quick=True, jobs=2, out_dir=tmp_path, progress=False)
    reports = {i: run_experiment(i, ctx) for i in ("iba-2007/fig7", "iba-2007/fig8", "iba-2007/fig9")}
    # Fig. 8 reruns nothing of Fig. 7 (its runs are reused); Fig. 9 has 5 schemes, Up/Down from 3 roots.
    assert [reports[i].runs for i in reports] == [9, 9, 7]
    for exp_id, report in reports.items():
        stem = tmp_path / framework.file_stem(exp_id)
        curves = pd.read_csv(stem.with_suffix(".csv"))
        assert {"series", "x", "y", "y_ci", "metric", "status", "network", "routing", "root", "best_root",
                "offered_load_pct", "accepted_load_pct", "dmp_generated_frames", "frames_refused", "packets_dropped",
                "family_low", "family_high", "networks_with_values"} <= set(curves.columns)
        assert set(curves["status"].dropna()) <= {"ok", "flagged", "stalled", "deadlock"}
        assert stem.with_suffix(".png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        summary = json.loads(stem.with_suffix(".json").read_text())
        rows = [c for c in summary["checks"] if c["role"] in ("prediction", "fit")]
        assert rows and all(c["note"] for c in rows)
def test_fig5_gap_is_read_at_equal_latency():
    """Fig. 5's gap at equal latency (the note beside the saturation row) interpolates the lower curve."""
    from fabricsim.reproduce.hp_fc_1995 import gap_at_equal_latency

    curves = pd.DataFrame([
        {"series": s, "x": x, "y": y, "metric": "message_latency_us", "fraction_of_saturation": f}
        for s, pts in {"low": [(10, 100, 0.5), (18, 400, 0.9)], "high": [(20, 100, 0.5), (30, 300, 0.9), (34, 500, 0.95)]}.items()
        for x, y, f in pts
    ])
    level, a, b, how = gap_at_equal_latency(curves, "low", "high", 36.0)
    assert (level, a, b, how) == (400.0, 18.0, 32.0, "interpolated")


def test_seed003_fig10_tiny_runs_evaluate_every_multicast_claim(tmp_path, monkeypatch):
    """Fig. 10 end to end through the real model: one network, one load, a few thousand packets per scheme and
    policy; every row of section 5.2 is evaluated (the framework refuses one left out) and the files are written."""
    from dataclasses import replace

    from fabricsim.reproduce import iba_2007 as iba

    monkeypatch.setitem(iba.RUN_LENGTHS, True, iba.RunLength(warmup_s=0.002, packets=3000))
    monkeypatch.setattr(iba, "FIGURES", {k: replace(f, quick_loads=f.quick_loads[:1]) for k, f in iba.FIGURES.items()})
    monkeypatch.setattr(iba, "QUICK_NETWORKS", 1)
    monkeypatch.setattr(iba, "_RESULTS", {})
    ctx = framework.Context(quick=True, jobs=2, out_dir=tmp_path, progress=False)
    report = run_experiment("iba-2007/fig10", ctx)
    # Four schemes and four policies (policy 1 is the asynchronous scheme under its own name), and synchronous
    # replication with round robin and with hold and wait.
    assert report.runs == 10
    stem = tmp_path / framework.file_stem("iba-2007/fig10")
    curves = pd.read_csv(stem.with_suffix(".csv"))
    assert {"Replicated Unicast", "Synchronous", "4 logarithmic", "Synchronous, hold and wait"} <= set(curves["series"])
    assert {iba.MC, iba.UNI} <= set(curves["metric"])
    summary = json.loads(stem.with_suffix(".json").read_text())
    rows = [c for c in summary["checks"] if c["role"] in ("prediction", "fit")]
    assert len(rows) == 32 and all(c["note"] for c in rows)
    # The sync-reservation ablation is in the notes of the rows it decides.
    assert all("Under hold and wait" in c["note"] for c in rows
               if c["id"] in ("f10-sync-no-deadlock", "f10-central-slightly-mc-sync", "f10-sync-async-comparable"))


def test_seed003_comparisons_need_evidence():
    """The judging rule's parts that decide whether a comparison counts: a DMP comparison needs ten missed
    frames between a network's two runs, runs equal to the bit cannot fail a comparison, and a claim at named
    loads needs a value at each of them."""
    from fabricsim.reproduce import iba_2007 as iba
    from fabricsim.reproduce.iba_2007_claims import MIN_MISSED, above, reduction
    from fabricsim.result import RunResult

    def fake(missed, dmp, rt):
        metrics = {"offered_load_pct": {"mean": 50.0, "count": 1}, iba.ACC: {"mean": 50.0, "count": 1},
                   iba.DMP: {"mean": dmp, "count": 1000}, iba.DMT: {"mean": 100.0 if missed else float("nan"), "count": missed},
                   iba.RT: {"mean": rt, "count": 1000}}
        return RunResult({"metrics": metrics, "counters": {}, "run": {"stop_reason": "max_observations", "flags": []}})

    f7, nets = iba.FIGURES["7"], [1, 2, 3]

    def figure(spf, mp, xs=(0.5,)):
        fr = iba.FigureRuns(f7, xs, nets, [], {})
        for n in nets:
            fr.drawn[("spf", n)] = iba.Line(n, iba.SPF, None, {x: iba.Point(fake(*spf), "ok") for x in xs})
            fr.drawn[("mp-lfu", n)] = iba.Line(n, iba.MP_LFU, None, {x: iba.Point(fake(*mp), "ok") for x in xs})
        return fr

    few = figure((3, 0.003, 500.0), (0, 0.0, 400.0))
    c = above(few, iba.SPF, few, iba.MP_LFU, (0.5,), iba.DMP)
    assert c.no_value and f"fewer than {MIN_MISSED}" in c.note
    enough = figure((12, 0.012, 500.0), (0, 0.0, 400.0))
    assert not above(enough, iba.SPF, enough, iba.MP_LFU, (0.5,), iba.DMP).no_value
    same = figure((12, 0.012, 500.0), (12, 0.012, 500.0))
    # A tie satisfies "the same" (no value: it cannot fail) and refutes an order (judged: A is not above B).
    assert "cannot fail" in above(same, iba.SPF, same, iba.MP_LFU, (0.5,), iba.RT, tie_passes=True).no_value
    tie = above(same, iba.SPF, same, iba.MP_LFU, (0.5,), iba.RT)
    assert not tie.no_value and tie.a == tie.b and "a tie" in tie.note
    two = figure((12, 0.012, 500.0), (12, 0.012, 250.0), xs=(0.5, 0.6))
    row = "f7-reduction-rt-mp-lfu"  # 40 to 65%, at each load of 50% or higher
    assert reduction(two, iba.MP_LFU, (0.5, 0.6), iba.RT, row).value == 50.0
    for n in nets:
        two.drawn[("spf", n)].runs[0.6].status = "deadlock"
    # 50% inside the range and 60% without a value: the claim at each load could still fail there.
    r = reduction(two, iba.MP_LFU, (0.5, 0.6), iba.RT, row)
    assert r.no_value and "60%" in r.no_value
    # Comparisons sum the loads with values.
    assert not above(two, iba.SPF, two, iba.MP_LFU, (0.5, 0.6), iba.RT).no_value


def test_seed003_claims_at_several_loads():
    """One rule for a claim over several loads when some have no value: a load outside the range refutes a
    claim at each load; a value above the range refutes "up to"; otherwise every load is needed."""
    from fabricsim.reproduce.iba_2007_claims import over_loads, published_window

    assert published_window("f7-reduction-rt-mp-lfu") == (40.0, 65.0)
    each = "f7-reduction-rt-mp-lfu"
    refuted = over_loads({0.5: 2.0}, (0.5, 0.6), each, "each", "")
    assert refuted.value == 2.0 and not refuted.no_value and "50%" in refuted.note
    assert over_loads({0.5: 50.0}, (0.5, 0.6), each, "each", "").no_value
    assert over_loads({0.5: 50.0, 0.6: 60.0}, (0.5, 0.6), each, "each", "").value == 55.0
    # Both inside and one outside: the one outside is the value judged.
    assert over_loads({0.5: 50.0, 0.6: 70.0}, (0.5, 0.6), each, "each", "").value == 70.0
    up_to = "f7-drop-reduction-rt-mp-lfu-drop"  # 'up to 90': 85 to 95
    assert over_loads({0.5: 97.0}, (0.5, 0.6), up_to, "max", "").value == 97.0
    assert over_loads({0.5: 50.0}, (0.5, 0.6), up_to, "max", "").no_value
    assert over_loads({0.5: 50.0, 0.6: 88.0}, (0.5, 0.6), up_to, "max", "").value == 88.0
    assert over_loads({0.5: 50.0}, (0.5, 0.6), up_to, "mean", "").no_value
