"""InfiniBand congestion control on the parking lot (Gran et al., "First
experiences with congestion control in InfiniBand hardware", IPDPS 2010).

Flows A and B enter switch 1 on HCAs 0 and 1 and share its one link to
switch 2; flow C enters switch 2 from HCA 3; all three go to HCA 2 (D),
each offering 60% of a link. Without control, D's output serves its two
inputs in turn, so A and B get a quarter each and C a half; with the HCAs
reacting per flow each should get a third (docs/infiniband-congestion-control.md,
section 4, derives both). The study found the parking lot solved "if the CC
parameters are appropriately set": this experiment maps the settings
(threshold, marking rate, CCTI timer) where it is and where it is not.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from .claims import Compare, Value
from .framework import Context, ExperimentOutput, Panel, PlotSpec, experiment

SOURCE = ("Gran, Eimot, Reinemo, Skeie, Lysne, Huse, Shainer, First experiences with congestion control in "
          "InfiniBand hardware, IPDPS 2010 (the abstract)")
SL = 8  # the flows' SL (best effort)
OFFERED = 0.6  # each flow's load, of its link
THRESHOLDS = (4, 8, 12, 15)
MARKING_RATES = (0, 10)
TIMERS = (10, 15, 20, 25, 30, 40, 60, 100)  # x 1.024 us
QUICK_TIMERS = (20, 40)
THIRD_PCT = 5.0  # each share within 5% of a third
BUSY = 0.95  # D's link at least this busy, against the run without control
FLOWS = {0: "A", 1: "B", 3: "C"}  # source HCA -> flow
# The threshold's queue: the declared reading, and its alternative run beside it (the choice `threshold-queue`).
QUEUE = "output_buffer_and_heads"
QUEUE_ALTERNATIVE = "waiting"


def scenario(ctx: Context, setting: tuple[int, int, int] | None, queue: str = QUEUE) -> dict[str, Any]:
    """The parking lot for 20 ms (quick: 5); ``setting`` (threshold, marking
    rate, timer) runs control on the vendor's other defaults; None runs the
    HCAs reacting on SL 0 only, so that the flows on SL 8 are never slowed
    and each HCA still counts what its flows sent (the switches mark, which
    changes no timing)."""
    options: dict[str, Any]
    if setting is None:
        options = {"cc_ca_cong_setting_control_map": 1}
        name = "without control"
    else:
        threshold, rate, timer = setting
        options = {"cc_sw_cong_setting_threshold": threshold, "cc_sw_cong_setting_marking_rate": rate,
                   "cc_ca_cong_setting_ccti_timer": [f"{SL} {timer}"]}
        name = f"threshold {threshold}, marking rate {rate}, timer {timer}" + (f", queue {queue}" if queue != QUEUE else "")
    return {
        "name": f"ib-cc-2010 parking lot {name}",
        "run": {"warmup_observations": 0, "max_observations": 100_000_000, "min_observations": 0, "precision": 0.0,
                "max_time_ms": 5.0 if ctx.quick else 20.0},
        "ib": {
            "topology": {"kind": "custom", "hcas": [2, 2], "cables": [[1, 2]]},
            "workload": {"injection_rate": OFFERED, "real_time_share": 0.0, "control_period_ms": 0.0,
                         "pattern": "incast", "incast_target": 2, "best_effort_sls": [SL]},
            "congestion_control": {"defaults": "mellanox", "options": options, "queue": queue},
        },
    }


def shares(r: Any) -> dict[str, float]:
    """Each flow's share of the data packets the three sent."""
    sent = dict(r.raw["congestion_control"]["hca_reaction"]["data_packets_sent_by_hca"])
    total = sum(sent.values())
    return {FLOWS[h]: sent.get(h, 0) / total for h in FLOWS}


def solves(s: dict[str, float], busy: float) -> bool:
    """A third each within ``THIRD_PCT`` and D's link at least ``BUSY`` as busy as without control."""
    return max(abs(v - 1 / 3) for v in s.values()) <= THIRD_PCT / 100 / 3 and busy >= BUSY


@experiment(id="ib-cc-2010/parking-lot",
            title="The parking lot with and without InfiniBand congestion control: shares over the settings", seed_ref=SOURCE)
def parking_lot(ctx: Context) -> ExperimentOutput:
    timers = QUICK_TIMERS if ctx.quick else TIMERS
    settings = [(t, m, c) for t in THRESHOLDS for m in MARKING_RATES for c in timers]
    plan = [scenario(ctx, None)] + [scenario(ctx, s) for s in settings] + [scenario(ctx, s, QUEUE_ALTERNATIVE)
                                                                          for s in settings]
    off, *every = ctx.run_many(plan, desc="parking lot")
    runs, alternative = every[:len(settings)], every[len(settings):]
    base = off.counters["best_effort_packets_delivered"]
    off_shares = shares(off)
    rows, works = [], []
    for (threshold, rate, timer), r in zip(settings, runs):
        s = shares(r)
        busy = r.counters["best_effort_packets_delivered"] / base
        ok = solves(s, busy)
        works.append(ok)
        setting = f"threshold {threshold}, marking rate {rate}"
        for flow, v in s.items():
            rows.append({"series": f"{flow}, {setting}", "x": timer * 1.024, "y": v, "y_ci": math.nan,
                         "metric": "share", "threshold": threshold, "marking_rate": rate, "flow": flow,
                         "d_busy": busy, "solved": ok})
        rows.append({"series": f"D, {setting}", "x": timer * 1.024, "y": busy, "y_ci": math.nan, "metric": "d_busy",
                     "threshold": threshold, "marking_rate": rate, "flow": "D", "d_busy": busy, "solved": ok})
    for flow, v in off_shares.items():
        rows.append({"series": f"{flow}, without control", "x": math.nan, "y": v, "y_ci": math.nan, "metric": "share",
                     "flow": flow, "d_busy": 1.0, "solved": False})
    alt_solved = [s for s, r in zip(settings, alternative)
                  if solves(shares(r), r.counters["best_effort_packets_delivered"] / base)]
    for (threshold, rate, timer), r in zip(settings, alternative):
        rows.append({"series": f"C, threshold {threshold}, marking rate {rate}, queue {QUEUE_ALTERNATIVE}",
                     "x": timer * 1.024, "y": shares(r)["C"], "y_ci": math.nan, "metric": "share_alternative",
                     "threshold": threshold, "marking_rate": rate, "flow": "C",
                     "d_busy": r.counters["best_effort_packets_delivered"] / base})
    curves = pd.DataFrame(rows)
    solved = [s for s, ok in zip(settings, works) if ok]
    failed = [s for s, ok in zip(settings, works) if not ok]

    def listed(xs: list[tuple[int, int, int]]) -> str:
        return "; ".join(f"threshold {t}, marking rate {m}, timer {c}" for t, m, c in xs) or "none"

    grid = (f"{len(settings)} settings: thresholds {', '.join(map(str, THRESHOLDS))}; marking rates "
            f"{', '.join(map(str, MARKING_RATES))}; CCTI timers {', '.join(map(str, timers))} x 1.024 us")
    without = ", ".join(f"{k} {v:.3f}" for k, v in off_shares.items())
    ours = {
        "pl-unfair-without-cc": Compare(off_shares["C"], off_shares["A"], None, None,
                                        f"C's share against A's without control ({without}); 20 ms, one run"),
        "pl-solved-with-cc": Value(len(solved), None, f"of {grid}, those with every share within {THIRD_PCT:g}% of a "
                                   f"third and D's link at least {BUSY:.0%} as busy as without control: {listed(solved)}. Under the "
                                   f"{QUEUE_ALTERNATIVE} reading of the threshold's queue (the threshold-queue "
                                   f"ablation): {len(alt_solved)}: {listed(alt_solved)}"),
        "pl-not-every-setting": Value(len(failed), None, f"of {grid}, those that do not: {listed(failed)}"),
    }
    series = [f"{f}, threshold {t}, marking rate {m}" for f in "CD" for t in THRESHOLDS for m in MARKING_RATES]
    return ExperimentOutput(
        curves=curves,
        plot=PlotSpec("CCTI timer (us)", "", "Parking lot under congestion control", series=series,
                      panels=[Panel("share", "C's share of D's link (a third: fair)", "C's share"),
                              Panel("d_busy", "D's link, of its use without control", "D's link")]),
        ours=ours)


# ------------------------------------------------------------- hot spot ----

HOT_ARITY, HOT_LEVELS = 4, 3  # a 4-ary 3-tree: 64 HCAs
HOT_SHARE = 0.1  # of every HCA's messages, to HCA 0
HOT_LOADS = (0.2, 0.4)
HOT_GRID = tuple((t, c, table) for t in (8, 15) for c in (15, 100, 1000) for table in ("2:i", "0:i"))
RESOLVED = 0.9  # "effectively resolves": the innocent traffic gets at least this share of what it offers


def hot_bound(n: int, h: float) -> float:
    """The per-HCA load at which the hot HCA's link saturates: it receives
    h of the other n - 1 HCAs' messages and its uniform share of the rest,
    lambda (h (n - 1) + (1 - h)) = 1 (tree saturation beyond, Pfister and Norton)."""
    return 1.0 / (h * (n - 1) + (1.0 - h))


def hot_scenario(ctx: Context, load: float, setting: tuple[int, int, str] | None) -> dict[str, Any]:
    ib: dict[str, Any] = {
        "topology": {"kind": "fat_tree", "arity": HOT_ARITY, "levels": HOT_LEVELS},
        "workload": {"injection_rate": load, "real_time_share": 0.0, "control_period_ms": 0.0, "pattern": "hot_spot",
                     "hot_spot_share": HOT_SHARE, "best_effort_sls": [SL]},
    }
    name = "without control"
    if setting is not None:
        threshold, timer, table = setting
        shift = table.split(":")[0]
        ib["congestion_control"] = {"defaults": "mellanox", "options": {
            "cc_sw_cong_setting_threshold": threshold, "cc_sw_cong_setting_marking_rate": 0,
            "cc_ca_cong_setting_ccti_timer": [f"{SL} {timer}"],
            "cc_cct": ",".join(f"{shift}:{i}" for i in range(128))}}
        name = f"threshold {threshold}, timer {timer}, table {table}"
    return {"name": f"ib-cc-2010 hot spot {100 * load:g}% {name}",
            "run": {"warmup_observations": 0, "max_observations": 100_000_000, "min_observations": 0, "precision": 0.0,
                    "max_time_ms": 5.0 if ctx.quick else 20.0},
            "ib": ib}


def innocent(r: Any, n: int) -> float:
    """The traffic not bound for the hot HCA, per HCA in % of a link, at
    least: what every HCA accepted less the hot HCA's link's whole (it
    receives at most one link's worth)."""
    return r.metric("accepted_load_pct") - 100.0 / n


@experiment(id="ib-cc-2010/hot-spot",
            title="A hot spot in uniform traffic on a 64-HCA fat tree, with and without congestion control",
            seed_ref=SOURCE)
def hot_spot(ctx: Context) -> ExperimentOutput:
    n = HOT_ARITY ** HOT_LEVELS
    grid = HOT_GRID[:2] if ctx.quick else HOT_GRID
    plan = [(x, s) for x in HOT_LOADS for s in (None, *grid)]
    results = dict(zip(plan, ctx.run_many([hot_scenario(ctx, x, s) for x, s in plan], desc="hot spot")))
    bound = 100.0 * hot_bound(n, HOT_SHARE)
    rows = []
    for (x, s), r in results.items():
        label = "without control" if s is None else f"threshold {s[0]}, timer {s[1]}, table {s[2]}"
        rows.append({"series": label, "x": 100 * x, "y": r.metric("accepted_load_pct"), "y_ci": math.nan,
                     "metric": "accepted", "innocent_at_least": innocent(r, n)})
    top = HOT_LOADS[-1]
    off = results[(top, None)]
    off_innocent, offered_innocent = innocent(off, n), 100 * top * (1 - HOT_SHARE)
    lifted = [s for s in grid if innocent(results[(top, s)], n) >= RESOLVED * offered_innocent]
    detail = "; ".join(f"threshold {s[0]}, timer {s[1]}, table {s[2]}: {results[(top, s)].metric('accepted_load_pct'):.2f}%"
                       for s in grid)
    ours = {
        "hs-innocent-throttled": Compare(offered_innocent, off_innocent, None, None,
                                         f"at {100 * top:g}% offered, {HOT_SHARE:g} of it to HCA 0 of {n}: the innocent "
                                         f"traffic offered {offered_innocent:.1f}% of a link per HCA, accepted at most "
                                         f"{off_innocent:.2f}% (every HCA accepted "
                                         f"{off.metric('accepted_load_pct'):.2f}%, less the hot link's whole over {n}); "
                                         f"the hot link saturates at {bound:.1f}% per HCA"),
        "hs-resolved-with-cc": Value(len(lifted), None,
                                     f"of {len(grid)} settings (marking rate 0; thresholds 8 and 15; CCTI timers 15, "
                                     f"100 and 1000 x 1.024 us; tables of i/4 and i packet times), those under which the "
                                     f"innocent traffic gets at least {RESOLVED:.0%} of the {offered_innocent:.1f}% it "
                                     f"offers at {100 * top:g}%: "
                                     + ("; ".join(f"threshold {t}, timer {c}, table {b}" for t, c, b in lifted) or "none")
                                     + f". Every HCA's accepted load without control {off.metric('accepted_load_pct'):.2f}%, "
                                       f"with: {detail}"),
    }
    return ExperimentOutput(
        curves=pd.DataFrame(rows),
        plot=PlotSpec("offered load per HCA (% of a link)", "accepted load per HCA (% of a link)",
                      "Hot spot (a tenth of every HCA's messages to HCA 0), 64-HCA fat tree"),
        ours=ours)
