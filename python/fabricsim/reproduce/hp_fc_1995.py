"""Seed 000: Cherkasova, Kotov, Rokicki, "Simulation Study of Fibre Channel
Fabrics with Particular Emphasis on 64-Node Clusters" (HP Labs), section 3:
the single 16-port switch, Figures 2 to 6.

The study's figures are plots whose numbers survive only where the text
states them (saturation throughputs, latency shares); those are our
published points and checks. Every number on our side comes from runs made
here. Saturation throughput is measured with saturated sources (every node
always has a message waiting); the latency curves use Poisson arrivals at
fractions of the measured saturation, so each curve climbs towards its own
asymptote as the study's do.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from .framework import Context, ExperimentOutput, PlotSpec, check, experiment

SOURCE = "seed 000: Cherkasova, Kotov, Rokicki, HP Labs, Simulation Study of Fibre Channel Fabrics (section 3)"
UNIFORM = {"kind": "fixed", "frames": 1}
BURSTY = {"kind": "bimodal", "long_fraction": 0.1}
# Fractions of the measured saturation throughput at which latency is sampled.
FULL_FRACTIONS = (0.1, 0.3, 0.5, 0.7, 0.8, 0.9, 0.95)
QUICK_FRACTIONS = (0.3, 0.7, 0.9)


@dataclass(frozen=True)
class Config:
    """One curve: a class of service, an end-to-end credit and a workload;
    cascaded fabrics add their ``topology``/``routing`` tables and workload keys."""

    label: str
    cls: int
    credit: int
    sizes: dict[str, Any]
    fabric: dict[str, Any] | None = None
    routing: dict[str, Any] | None = None
    workload: dict[str, Any] | None = None  # extra workload keys, e.g. the traffic pattern


def plan(ctx: Context, saturated: bool) -> dict[str, Any]:
    """The measurement plan: the study's ±1% intervals over long runs, or a quick look."""
    if ctx.quick:
        return {"warmup_observations": 2000, "max_observations": 20000, "min_observations": 0, "precision": 0.05}
    if saturated:
        return {"warmup_observations": 20000, "max_observations": 400000, "min_observations": 100000, "precision": 0.005}
    return {"warmup_observations": 20000, "max_observations": 1000000, "min_observations": 100000, "precision": 0.01}


def scenario(ctx: Context, c: Config, arrivals: str, load: float = 1.0) -> dict[str, Any]:
    sc = {
        "name": f"hp-fc-1995 {c.label}",
        "run": plan(ctx, arrivals == "saturated"),
        "protocol": {"class": c.cls, "end_to_end_credit": c.credit},
        "workload": {**(c.workload or {}), "arrivals": arrivals, "offered_load": load, "sizes": dict(c.sizes)},
    }
    if c.fabric is not None:
        sc["topology"] = dict(c.fabric)
    if c.routing is not None:
        sc["routing"] = dict(c.routing)
    return sc


def metric(result, name: str) -> tuple[float, float]:
    row = result.metrics.set_index("metric").loc[name]
    ci = row["ci_half_width"]
    return float(row["mean"]), (float(ci) if pd.notna(ci) else float("nan"))


def saturation(ctx: Context, configs: list[Config]) -> dict[str, tuple[float, float]]:
    """Saturation throughput (% of fibre bandwidth, ± CI) of each configuration."""
    results = ctx.run_many([scenario(ctx, c, "saturated") for c in configs], desc="saturation")
    return {c.label: metric(r, "throughput_pct") for c, r in zip(configs, results)}


def load_sweep(ctx: Context, configs: list[Config], sat: dict[str, tuple[float, float]]):
    """Poisson runs at fractions of each configuration's saturation; one RunResult per point."""
    fractions = QUICK_FRACTIONS if ctx.quick else FULL_FRACTIONS
    points = [(c, f) for c in configs for f in fractions]
    scenarios = [scenario(ctx, c, "poisson", f * sat[c.label][0] / 100.0) for c, f in points]
    return list(zip(points, ctx.run_many(scenarios, desc="load sweep")))


def curve_rows(sweep, y_metric: str, series=None) -> list[dict[str, Any]]:
    rows = []
    for (c, fraction), r in sweep:
        x, x_ci = metric(r, "throughput_pct")
        y, y_ci = metric(r, y_metric)
        rows.append({
            "series": series or c.label, "x": x, "y": y, "y_ci": y_ci, "x_ci": x_ci,
            "offered_load_pct": r.scenario["workload"]["offered_load"] * 100.0, "fraction_of_saturation": fraction,
            "class": c.cls, "end_to_end_credit": c.credit, "metric": y_metric,
        })
    return rows


def saturation_rows(configs: list[Config], sat) -> list[dict[str, Any]]:
    """Saturation throughputs as extra table rows (series `<label> saturation`)."""
    return [{"series": f"{c.label} saturation", "x": sat[c.label][0], "x_ci": sat[c.label][1], "y": float("nan"),
             "y_ci": float("nan"), "class": c.cls, "end_to_end_credit": c.credit, "metric": "saturation_throughput_pct"}
            for c in configs]


def vlines(configs: list[Config], sat) -> list[dict[str, Any]]:
    return [{"series": c.label, "x": sat[c.label][0]} for c in configs]


def credit_configs(sizes: dict[str, Any], credits) -> list[Config]:
    return [Config(f"credit {k}", 2, k, sizes) for k in credits]


def credits_for(ctx: Context) -> tuple[int, ...]:
    return (1, 2, 4, 5) if ctx.quick else (1, 2, 3, 4, 5)


@experiment(id="hp-fc-1995/fig2", title="Message latency vs throughput, class 2, end-to-end credits 1-5, uniform traffic", seed_ref=SOURCE)
def fig2(ctx: Context) -> ExperimentOutput:
    configs = credit_configs(UNIFORM, credits_for(ctx))
    sat = saturation(ctx, configs)
    sweep = load_sweep(ctx, configs, sat)
    curves = pd.DataFrame(curve_rows(sweep, "message_latency_us") + saturation_rows(configs, sat))
    s = {c.credit: sat[c.label] for c in configs}
    checks = [
        check("saturation throughput, credit 1 (% fibre)", 47, *s[1], tolerance=2.0),
        check("saturation throughput, credit 4 (% fibre)", 53, *s[4], tolerance=2.0),
        check("gain from credit 1 to 4 (about +2 points per step)", 6, s[4][0] - s[1][0], None, tolerance=2.0,
              note="three steps of about 2 points"),
        check("no gain past credit 4 (credit 5 minus credit 4)", 0, s[5][0] - s[4][0], None, tolerance=1.0),
    ]
    if 3 in s:
        checks.insert(2, check("credit 3 lies between credits 2 and 4 (+2 per step)", 51, *s[3], tolerance=2.0))
        checks.insert(2, check("saturation throughput, credit 2 (% fibre)", 49, *s[2], tolerance=2.0))
    published = [{"series": "credit 1", "x": 47.0, "y": None, "note": "max throughput 47%"},
                 {"series": "credit 4", "x": 53.0, "y": None, "note": "max throughput 53%"}]
    return ExperimentOutput(
        curves=curves,
        plot=PlotSpec("throughput (% of fibre bandwidth)", "message latency (us)", "Fig. 2: class 2, uniform random traffic",
                      series=[c.label for c in configs], vlines=vlines(configs, sat)),
        published=published, checks=checks)


@experiment(id="hp-fc-1995/fig3", title="Acknowledgement, frame, round-trip and message latency, credit 2, uniform traffic", seed_ref=SOURCE)
def fig3(ctx: Context) -> ExperimentOutput:
    cfg = Config("credit 2", 2, 2, UNIFORM)
    sat = saturation(ctx, [cfg])
    sweep = load_sweep(ctx, [cfg], sat)
    names = {"ack_latency_us": "acknowledgement latency", "frame_latency_us": "frame latency",
             "round_trip_latency_us": "round-trip latency", "message_latency_us": "message latency",
             "message_wait_us": "message queueing wait"}
    rows = []
    for m, label in names.items():
        rows += curve_rows(sweep, m, series=label)
    curves = pd.DataFrame(rows)

    def share(i: int, num: str) -> float:
        r = sweep[i][1]
        return metric(r, num)[0] / metric(r, "message_latency_us")[0]

    light, heavy = 0, len(sweep) - 1
    checks = [
        check("ACK latency share of message latency, light traffic", 0.10, share(light, "ack_latency_us"), None, tolerance=0.05,
              note=f"at {sweep[light][0][1]:.0%} of saturation"),
        check("ACK latency share of message latency, heavier traffic", [0.30, 0.40], share(heavy, "ack_latency_us"), None,
              tolerance=0.05, note=f"at {sweep[heavy][0][1]:.0%} of saturation"),
        check("frame latency is the major part of message latency (share)", [0.5, 1.0], share(light, "frame_latency_us"), None,
              tolerance=0.0),
        check("message queueing wait is small (share of message latency, mid load)", [0.0, 0.2],
              share(len(sweep) // 2, "message_wait_us"), None, tolerance=0.0, note="the study says 'quite small'"),
    ]
    return ExperimentOutput(
        curves=curves,
        plot=PlotSpec("throughput (% of fibre bandwidth)", "latency (us)", "Fig. 3: latencies, class 2, credit 2, uniform traffic",
                      series=list(names.values())),
        checks=checks)


@experiment(id="hp-fc-1995/fig4", title="Message latency vs throughput, class 2, credits 1-5, bursty workload (10% long messages)", seed_ref=SOURCE)
def fig4(ctx: Context) -> ExperimentOutput:
    configs = credit_configs(BURSTY, credits_for(ctx))
    uniform = [Config(f"uniform credit {k}", 2, k, UNIFORM) for k in credits_for(ctx)]
    sat = saturation(ctx, configs + uniform)
    sweep = load_sweep(ctx, configs, sat)
    curves = pd.DataFrame(curve_rows(sweep, "message_latency_us") + saturation_rows(configs + uniform, sat))
    checks = [check(f"saturation throughput, bursty, credit {c.credit} (% fibre)", [41, 43], *sat[c.label], tolerance=2.0)
              for c in configs]
    best_uniform = max(sat[c.label][0] for c in uniform)
    best_bursty = max(sat[c.label][0] for c in configs)
    checks.append(check("bursty saturates almost 10 points below uniform (best credit of each)", [8, 10],
                        best_uniform - best_bursty, None, tolerance=1.0,
                        note="'almost 10% of the fiber capacity less': 41-43% against up to 53%"))
    published = [{"series": c.label, "x": x, "y": None, "note": "41%-43%"} for c in configs[:1] for x in (41.0, 43.0)]
    return ExperimentOutput(
        curves=curves,
        plot=PlotSpec("throughput (% of fibre bandwidth)", "message latency (us)", "Fig. 4: class 2, 10% long messages",
                      series=[c.label for c in configs], vlines=vlines(configs, sat)),
        published=published, checks=checks)


def class_configs() -> list[Config]:
    return [Config("class 2", 2, 2, UNIFORM), Config("class 3", 3, 2, UNIFORM)]


@experiment(id="hp-fc-1995/fig5", title="Class 3 vs class 2 message latency, uniform traffic", seed_ref=SOURCE)
def fig5(ctx: Context) -> ExperimentOutput:
    configs = class_configs()
    sat = saturation(ctx, configs)
    sweep = load_sweep(ctx, configs, sat)
    curves = pd.DataFrame(curve_rows(sweep, "message_latency_us") + saturation_rows(configs, sat))
    gap = sat["class 3"][0] - sat["class 2"][0]
    checks = [
        check("class 3 saturates about 10 points above class 2", 10, gap, None, tolerance=3.0,
              note="the study attributes the gap to the scheduler handling twice as many frames in class 2"),
        check("class 2 saturation, credit 2 (% fibre)", 49, *sat["class 2"], tolerance=2.0,
              note="interpolated from the 47%-53% range for credits 1-4"),
    ]
    return ExperimentOutput(
        curves=curves,
        plot=PlotSpec("throughput (% of fibre bandwidth)", "message latency (us)", "Fig. 5: class 3 vs class 2, uniform traffic",
                      series=[c.label for c in configs], vlines=vlines(configs, sat)),
        checks=checks)


@experiment(id="hp-fc-1995/fig6", title="Receive buffers in use per port, class 3 vs class 2, uniform traffic", seed_ref=SOURCE)
def fig6(ctx: Context) -> ExperimentOutput:
    configs = class_configs()
    sat = saturation(ctx, configs)
    sweep = load_sweep(ctx, configs, sat)
    sat_runs = ctx.run_many([scenario(ctx, c, "saturated") for c in configs], desc="buffers at saturation")
    rows = curve_rows(sweep, "buffer_usage")
    for c, r in zip(configs, sat_runs):
        x, x_ci = metric(r, "throughput_pct")
        y, y_ci = metric(r, "buffer_usage")
        rows.append({"series": c.label, "x": x, "x_ci": x_ci, "y": y, "y_ci": y_ci, "fraction_of_saturation": 1.0,
                     "class": c.cls, "end_to_end_credit": c.credit, "metric": "buffer_usage"})
    curves = pd.DataFrame(rows)
    checks = []
    for c, r in zip(configs, sat_runs):
        part = curves[(curves["series"] == c.label)].sort_values("x")
        mid = part.iloc[(part["fraction_of_saturation"] - 0.5).abs().argsort().iloc[0]]
        at_sat = metric(r, "buffer_usage")
        checks.append(check(f"{c.label}: buffers in use per port stay low at half of saturation", [0.0, 1.0], float(mid["y"]),
                            float(mid["y_ci"]), tolerance=0.0, note="'typically very low' (of 15)"))
        checks.append(check(f"{c.label}: usage rises sharply near saturation (ratio saturation / half load)", [4.0, 1000.0],
                            at_sat[0] / max(float(mid["y"]), 1e-9), None, tolerance=0.0,
                            note="qualitative claim; we read 'sharply' as at least fourfold"))
    return ExperimentOutput(
        curves=curves,
        plot=PlotSpec("throughput (% of fibre bandwidth)", "receive buffers in use per port (of 15)",
                      "Fig. 6: buffer usage, class 3 vs class 2", series=[c.label for c in configs]),
        checks=checks)


# Published saturation throughputs of class 2 under uniform traffic: 47% at
# credit 1 and 53% at credit 4 are stated; 49% and 51% follow from "about 2%
# per step".
PUBLISHED_CREDIT_CURVE = {1: 47.0, 2: 49.0, 3: 51.0, 4: 53.0}


@experiment(id="hp-fc-1995/router-calibration", title="Calibrating the router's time per header against the class 2 credit curve", seed_ref=SOURCE)
def router_calibration(ctx: Context) -> ExperimentOutput:
    """The study gives no router speed; we choose it from its effect on the
    published class 2 saturation throughputs (credits 1-4) and report the fit
    for every candidate, so the default value is reproducible, not asserted."""
    from .. import Scenario

    default_ns = float(Scenario.default().validate()["switch"]["routing_time_ns"])
    times = (0.0, 3000.0, 5000.0) if ctx.quick else (0.0, 1000.0, 2000.0, 3000.0, 4000.0, 4500.0, 5000.0, 6000.0)
    times = tuple(sorted(set(times) | {default_ns}))
    configs = credit_configs(UNIFORM, PUBLISHED_CREDIT_CURVE) + [Config("class 3", 3, 2, UNIFORM)]
    points = [(t, c) for t in times for c in configs]
    runs = []
    for t, c in points:
        sc = scenario(ctx, c, "saturated")
        sc["switch"] = {"routing_time_ns": t}
        runs.append(sc)
    results = ctx.run_many(runs, desc="router calibration")
    rows, sat = [], {}
    for (t, c), r in zip(points, results):
        y, y_ci = metric(r, "throughput_pct")
        sat[(t, c.label)] = (y, y_ci)
        rows.append({"series": c.label, "x": t / 1000.0, "y": y, "y_ci": y_ci, "class": c.cls, "end_to_end_credit": c.credit,
                     "metric": "saturation_throughput_pct"})
    for t in times:
        err = [sat[(t, f"credit {k}")][0] - v for k, v in PUBLISHED_CREDIT_CURVE.items()]
        rows.append({"series": "rms error vs published credit curve", "x": t / 1000.0,
                     "y": (sum(e * e for e in err) / len(err)) ** 0.5, "y_ci": float("nan"), "metric": "rms_error_points"})
    curves = pd.DataFrame(rows)
    rms = curves[curves["series"] == "rms error vs published credit curve"].set_index("x")["y"]
    best = float(rms.min())
    checks = [
        check(f"class 2 credit {k} saturation at the default routing time ({default_ns / 1000:g} us)", v,
              *sat[(default_ns, f"credit {k}")], tolerance=2.0)
        for k, v in PUBLISHED_CREDIT_CURVE.items()
    ]
    checks.append(check("default routing time fits the credit curve about as well as the best candidate (rms points)",
                        best, float(rms.loc[default_ns / 1000.0]), None, tolerance=0.5,
                        note="rms error over credits 1-4 of our saturation against 47/49/51/53"))
    published = [{"series": f"credit {k}", "x": default_ns / 1000.0, "y": v, "note": "published saturation"}
                 for k, v in PUBLISHED_CREDIT_CURVE.items()]
    return ExperimentOutput(
        curves=curves,
        plot=PlotSpec("router time per header (us)", "saturation throughput (% of fibre bandwidth)",
                      "Router calibration: class 2 credits 1-4 and class 3", series=[c.label for c in configs]),
        published=published, checks=checks)


@experiment(id="hp-fc-1995/saturation", title="Saturation throughput against end-to-end credit: classes 2 and 3, uniform and bursty", seed_ref=SOURCE)
def saturation_figure(ctx: Context) -> ExperimentOutput:
    """Saturation throughput (accepted load when every source always has a
    message waiting) as a figure of its own, for every curve of Figs. 2, 4, 5."""
    credits = credits_for(ctx)
    workloads = {"uniform": UNIFORM, "bursty": BURSTY}
    configs = [Config(f"class {cls}, {w}", cls, k, sizes) for cls in (2, 3) for w, sizes in workloads.items() for k in credits]
    results = ctx.run_many([scenario(ctx, c, "saturated") for c in configs], desc="saturation")
    rows = []
    for c, r in zip(configs, results):
        y, y_ci = metric(r, "throughput_pct")
        rows.append({"series": c.label, "x": c.credit, "y": y, "y_ci": y_ci, "class": c.cls, "end_to_end_credit": c.credit,
                     "metric": "saturation_throughput_pct"})
    curves = pd.DataFrame(rows)
    value = {(row["series"], row["x"]): (row["y"], row["y_ci"]) for row in rows}
    published = [{"series": "class 2, uniform", "x": k, "y": v, "note": "stated (47, 53) or interpolated (+2 per step)"}
                 for k, v in PUBLISHED_CREDIT_CURVE.items() if k in credits]
    published += [{"series": "class 2, bursty", "x": k, "y": 42.0, "note": "41%-43%"} for k in credits]
    checks = [check(f"class 2, uniform, credit {k} (% fibre)", v, *value[("class 2, uniform", k)], tolerance=2.0)
              for k, v in PUBLISHED_CREDIT_CURVE.items() if k in credits]
    checks += [check(f"class 2, bursty, credit {k} (% fibre)", [41, 43], *value[("class 2, bursty", k)], tolerance=2.0)
               for k in credits]
    c3 = [value[("class 3, uniform", k)][0] for k in credits]
    checks.append(check("class 3 ignores end-to-end credit (spread over credits, points)", 0.0, max(c3) - min(c3), None,
                        tolerance=1.0))
    return ExperimentOutput(
        curves=curves,
        plot=PlotSpec("end-to-end credit", "saturation throughput (% of fibre bandwidth)",
                      "Saturation throughput of the 16-port switch"),
        published=published, checks=checks)
