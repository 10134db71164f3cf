"""Fibre Channel classes of service 1, 2 and 3 side by side, on one switch
and on a star of five, for short and long messages.

Our own experiment: no study measured the classes side by side. The
expectations (``fc-classes.claims.toml``) are the words of seed 002's
overview of the classes (Ong and Farrell, section 2.2.2): class 1 is a
dedicated connection, "ideal when the time needed to make a connection is
short or data transmissions are long"; class 2 acknowledges every frame
without a connection; class 3 sends without acknowledgement. They compare
our classes with one another, not with published numbers, and are counted
apart from the published studies.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from .claims import Compare, least_ahead
from .framework import Context, ExperimentOutput, PlotSpec, experiment
from .hp_fc_1995 import metric, plan

SOURCE = "our own experiment; expectations from seed 002 (Ong and Farrell), section 2.2.2"
FABRICS = {"one switch": {"kind": "switch"}, "star m=2": {"kind": "star", "multiplicity": 2}}
SIZES = {"short (1 frame)": 1, "long (25 frames)": 25}
CLASSES = (1, 2, 3)


def scenario(ctx: Context, fabric: dict[str, Any], frames: int, cls: int, arrivals: str, load: float) -> dict[str, Any]:
    return {
        "name": f"classes {fabric['kind']} {frames} frames class {cls}",
        "run": plan(ctx, arrivals == "saturated"),
        "topology": dict(fabric),
        "protocol": {"class": cls, "end_to_end_credit": 2},
        "workload": {"arrivals": arrivals, "offered_load": load, "sizes": {"kind": "fixed", "frames": frames}},
    }


@experiment(id="fc-classes/compare", title="Classes 1, 2 and 3: message latency and saturation throughput, short and long messages", seed_ref=SOURCE)
def compare(ctx: Context) -> ExperimentOutput:
    # The lightest load is below every class's saturation on both fabrics
    # (class 1 on the star carries under 1% of bandwidth), so each
    # comparison is of two finite latencies.
    loads = (0.005, 0.05) if ctx.quick else (0.005, 0.02, 0.05, 0.1, 0.2, 0.3)
    cases = [(f, s, c) for f in FABRICS for s in SIZES for c in CLASSES]
    sat_runs = ctx.run_many([scenario(ctx, FABRICS[f], SIZES[s], c, "saturated", 1.0) for f, s, c in cases], desc="saturation")
    sat = {case: metric(r, "throughput_pct") for case, r in zip(cases, sat_runs)}
    # A load at or beyond a case's saturation would only grow its queues
    # without bound: such points are left out (that class is saturated there).
    points = [(case, load) for case in cases for load in loads if load * 100.0 < 0.9 * sat[case][0]]
    runs = ctx.run_many([scenario(ctx, FABRICS[f], SIZES[s], c, "poisson", load) for (f, s, c), load in points], desc="latency")
    rows = []
    for ((f, s, c), load), r in zip(points, runs):
        y, y_ci = metric(r, "message_latency_us")
        x, _ = metric(r, "throughput_pct")
        rows.append({"series": f"{f}, {s}, class {c}", "x": load * 100.0, "y": y, "y_ci": y_ci, "throughput_pct": x,
                     "fabric": f, "messages": s, "class": c, "metric": "message_latency_us",
                     "refused_connect_requests": r.counters.get("data_frames_refused", 0)})
    for (f, s, c), (x, x_ci) in sat.items():
        rows.append({"series": f"{f}, {s}, class {c} saturation", "x": x, "y": float("nan"), "y_ci": float("nan"),
                     "x_ci": x_ci, "fabric": f, "messages": s, "class": c, "metric": "saturation_throughput_pct"})
    curves = pd.DataFrame(rows)

    def latency(f: str, s: str, c: int, load: float, name: str = "message_latency_us") -> tuple[float, float | None]:
        """Mean latency at `load` and its CI; no value where the case saturates below it."""
        if ((f, s, c), load) not in points:
            return float("nan"), None
        return metric(runs[points.index(((f, s, c), load))], name)

    def versus(a: tuple[float, float | None], b: tuple[float, float | None], note: str) -> Compare:
        saturated = "a class saturates below this load" if math.isnan(a[0]) or math.isnan(b[0]) else ""
        return Compare(a[0], b[0], a[1], b[1], note=note, no_value=saturated)

    light = loads[0]
    long_, short = "long (25 frames)", "short (1 frame)"

    def least(pairs: dict[str, Compare]) -> Compare:
        """Of one comparison on each fabric, the one where A exceeds B the least (both in the note)."""
        f = least_ahead(pairs)
        c = pairs[f]
        if c.no_value:
            return c
        c.note = f"{f}, where it holds least: " + c.note + "; " + "; ".join(
            f"{g}: {o.a:.4g} against {o.b:.4g}" for g, o in pairs.items() if g != f)
        return c

    at = f"us at {light * 100:g}% load"
    ours = {
        "long-message": least({f: versus(latency(f, long_, 2, light), latency(f, long_, 1, light),
                                         f"{at}, class 2 against class 1") for f in FABRICS}),
        "short-message": least({f: versus(latency(f, short, 1, light), latency(f, short, 2, light),
                                          f"{at}, class 1 against class 2") for f in FABRICS}),
        "class1-saturation": least({f: versus(sat[(f, long_, 2)], sat[(f, long_, 1)],
                                              "% of bandwidth, 25-frame messages, class 2 against class 1")
                                    for f in FABRICS}),
    }
    series = [f"one switch, {s}, class {c}" for s in SIZES for c in CLASSES]
    return ExperimentOutput(
        curves=curves,
        plot=PlotSpec("offered load (% of port bandwidth)", "message latency (us)", "Classes of service on one switch",
                      series=series, logy=True),
        ours=ours)
