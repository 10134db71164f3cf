"""Seed 003: Kim, Yum, Das, Yousif, Duato, "Exploring IBA Design Space for
Improved Performance" (IEEE TPDS 2007), section 5.1: the seven routing schemes
on 15-node networks with real-time : best-effort = 70:30 (Fig. 7) and 30:70
(Fig. 8), and on 30-node networks with 70:30 (Fig. 9).

Each figure plots, against the injection rate (offered wire bytes per HCA as a
share of the 1x SDR link rate), the deadline missing probability (DMP: missed
over delivered frames, the study's definition; refused and damaged frames are
counted beside it) and time (DMT: no value where no frame missed) of the video
frames,
the mean packet latency of real-time, control and best-effort traffic, and the
accepted load beside the offered one.

Networks. Fig. 6 is a picture; docs/infiniband-model.md states the rule that
chooses a family of five networks of each size before any run (random
networks of the stated counts on which SPF can deadlock and can carry the
plotted loads), and :func:`family` applies it. Every scheme runs on every
network of the family; the figure draws the family median, and every claim is
judged on medians (the spread is in each claim's note), never on one network.

Schemes (``SCHEMES``): Up/Down (the original, on spanning-tree channels
only, as section 3.1 and Fig. 5b describe it; per network the best of the
three switches of smallest eccentricity as roots, by mean real-time latency
over the loads where every root ran), SPF (ties by destination, Fig. 5a),
SPF+Drop (HOQLife 6: 262 us), and multipath routing with LFU or Max-Credit
selection, each with and without dropping. Fig. 9 has the LFU ones only.

A run that deadlocks goes on measuring what still moves (``ib.on_deadlock =
"continue"``: the deadlocked VL's frames miss their deadlines and fill their
sources' buffers), as the study's figures, which plot SPF and multipath at
every load, must have been measured; it is flagged and unstable. A run with
flags (deadlock, accepted below offered, source overflow, backlog growing) is
drawn as a hollow square; a family value needs at least three networks with
values, and every claim's note says which of them were unstable and which
deadlocked. Run lengths: full, warm-up 0.1 s simulated
then at least 300,000 packets and 1.0 s (30 frames a stream); quick, three networks, three loads,
warm-up 0.02 s and 40,000 packets.

This module makes the runs and the experiments; the study's other parts are
modules of their own, whose names it re-exports: the schemes and figures
(iba_2007_schemes), the networks (iba_2007_networks), what a run and a family
of runs are worth (iba_2007_values) and our side of the claims
(iba_2007_claims).
"""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import pandas as pd

from ..result import RunResult
from .claims import Measured
from .framework import FLAGGED, Context, ExperimentOutput, Panel, PlotSpec, experiment

# The study's parts, each in a module of its own, are re-exported here: every
# name of seed 003 stays importable from this module.
from .iba_2007_claims import (
    above,
    deadlocked_runs,
    drop_gain,
    fig7_claims,
    fig8_claims,
    fig9_claims,
    fig10_claims,
    high,
    reduction,
    total,
)
from .iba_2007_networks import FAMILY_SIZE, candidate_roots, eccentricities, family, topology
from .iba_2007_schemes import (
    ABLATIONS,
    ACC,
    BE,
    BW_EQUAL,
    BW_LINEAR,
    BW_LOG,
    BW_SCHEMES,
    BW_SHARED,
    BY_KEY,
    CANDIDATE_ROOTS,
    CTL,
    DMP,
    DMT,
    FIGURES,
    LINK_BYTES_PER_S,
    LOADS_15,
    LOADS_30,
    MC,
    MC_ASYNC,
    MC_CENTRAL,
    MC_SCHEMES,
    MC_SYNC,
    MC_UNICAST,
    METRICS,
    MP_CREDIT,
    MP_CREDIT_DROP,
    MP_LFU,
    MP_LFU_DROP,
    PANEL_LABELS,
    RT,
    SCHEMES,
    SEPARATE_SLS,
    SHORT,
    SPF,
    SPF_DROP,
    SPF_LOWEST,
    UNI,
    UPDOWN,
    WIRE_BYTES_PER_PACKET,
    Figure,
    Scheme,
    loads,
    packets_per_s,
)
from .iba_2007_values import (
    MIN_NETWORKS,
    NO_VALUE,
    STALL_MIN_EXPECTED,
    FamilyValue,
    FigureRuns,
    Line,
    Point,
    classify,
    count,
    describe,
    family_value,
    packet_latency,
    pct,
    value,
)

SOURCE = ("seed 003: Kim, Yum, Das, Yousif, Duato, Exploring IBA Design Space for Improved Performance, "
          "IEEE TPDS 2007 (section 5.1)")
# What the runs read when they run is kept in this module, so that setting it
# here (as the tests do: QUICK_NETWORKS, RUN_LENGTHS, FIGURES, _RESULTS) holds.
RUN_SEED = 1
HOQ_LIFE = 6  # HLL = 4.096 us x 2^6 = 262 us (docs/infiniband-model.md section 2)
QUICK_NETWORKS = 3
# The real MPEG trace (the shared data beside the repository), not the built-in model of it.
REAL_TRACE = "../shared/data/traces/movietrace.data"


@dataclass(frozen=True)
class RunLength:
    warmup_s: float  # simulated seconds of warm-up, turned into packets at the point's load
    packets: int  # packets measured after warm-up, at least
    measure_s: float = 0.0  # and at least this many simulated seconds
    max_s: float = 3.0  # the time cap: a run whose network locks up wholly stops there


RUN_LENGTHS = {False: RunLength(warmup_s=0.1, packets=300_000, measure_s=1.0),
               True: RunLength(warmup_s=0.02, packets=40_000, max_s=1.0)}


# ------------------------------------------------------------- scenarios ----


def run_plan(ctx: Context, switches: int, load: float) -> dict[str, Any]:
    rl = RUN_LENGTHS[bool(ctx.quick)]
    rate = packets_per_s(switches, load)
    measured = max(rl.packets, math.ceil(rl.measure_s * rate))
    return {"seed": RUN_SEED, "warmup_observations": math.ceil(rl.warmup_s * rate), "max_observations": measured,
            "min_observations": 0, "precision": 0.0, "max_time_ms": 1000.0 * rl.max_s}


def networks(ctx: Context, switches: int) -> list[int]:
    fam = family(switches)
    return fam[:QUICK_NETWORKS] if ctx.quick else fam


def scenario(ctx: Context, f: Figure, seed: int, scheme: Scheme, root: int | None, load: float) -> dict[str, Any]:
    routing = dict(scheme.routing) | ({"root": root} if root is not None else {})
    ib: dict[str, Any] = {"on_deadlock": "continue", "topology": topology(f.switches, seed), "routing": routing,
                          "workload": {"injection_rate": load, "real_time_share": f.real_time_share, "trace": REAL_TRACE}}
    if scheme.multicast is not None:
        ib["multicast"] = dict(scheme.multicast)
    if scheme.workload is not None:
        ib["workload"] |= dict(scheme.workload)
    if scheme.drop:
        ib["switch"] = {"hoq_life": HOQ_LIFE if f.hoq_life is None else f.hoq_life}
    for section, keys in (f.ablation or {}).items():
        ib[section] = dict(ib.get(section) or {}) | dict(keys)
    label = scheme.label + (f" root {root}" if root is not None else "")
    return {"name": f"iba-2007 fig {f.fig} network {seed} {label} {100 * load:g}%", "run": run_plan(ctx, f.switches, load),
            "ib": ib}


# ---------------------------------------------------------------- runs ----

_RESULTS: dict[str, RunResult] = {}  # scenario (canonical JSON) -> result, within one process


def run_all(ctx: Context, scenarios: Sequence[dict[str, Any]], desc: str) -> list[RunResult]:
    """Run the scenarios not run before in this process (in parallel through ``ctx``); results in input order."""
    keys = [json.dumps(s, sort_keys=True) for s in scenarios]
    todo = list(dict.fromkeys(k for k in keys if k not in _RESULTS))
    if todo:
        for k, r in zip(todo, ctx.run_many([json.loads(k) for k in todo], desc=desc)):
            _RESULTS[k] = r
    return [_RESULTS[k] for k in keys]


def figure_runs(ctx: Context, f: Figure) -> FigureRuns:
    xs = loads(ctx, f)
    nets = networks(ctx, f.switches)
    plan: list[tuple[int, Scheme, int | None]] = []
    for n in nets:
        roots = candidate_roots(f.switches, n)
        for s in f.schemes:
            plan += [(n, s, r) for r in roots[: s.roots]] if s.roots else [(n, s, None)]
    scs = [scenario(ctx, f, n, s, r, x) for n, s, r in plan for x in xs]
    results = iter(run_all(ctx, scs, desc=f"iba-2007 fig {f.fig}"))
    every = [Line(n, s, r, {x: classify(f, x, next(results)) for x in xs}) for n, s, r in plan]
    drawn: dict[tuple[str, int], Line] = {}
    for n in nets:
        for s in f.schemes:
            lines = [ln for ln in every if ln.network == n and ln.scheme is s]
            if not s.roots:
                drawn[(s.key, n)] = lines[0]
                continue
            usable = [x for x in xs if all(ln.runs[x].status not in NO_VALUE and math.isfinite(value(ln.runs[x].r, RT)[0])
                                           for ln in lines)]
            for ln in lines:
                ln.selection_latency_us = statistics.fmean(value(ln.runs[x].r, RT)[0] for x in usable) if usable else math.nan
            best = min(lines, key=lambda ln: (ln.selection_latency_us if math.isfinite(ln.selection_latency_us) else math.inf,
                                              lines.index(ln)))
            for ln in lines:
                ln.best_root = ln is best
            drawn[(s.key, n)] = best
    return FigureRuns(f, xs, nets, every, drawn)


# ---------------------------------------------------------------- output ----


def curve_rows(fr: FigureRuns) -> list[dict[str, Any]]:
    """Every run (series "<scheme> net <n>[ root <r>]"), and the family median of each drawn scheme (series "<scheme>")."""
    rows = []
    f = fr.f
    for ln in fr.every:
        for x, p in ln.runs.items():
            r = p.r
            info, counters = r.run_info, r.counters
            dl = r.deadlock or {}
            mp = (r.raw.get("routing") or {}).get("multipath") or {}
            run_cols = {
                "figure": f.fig, "switches": f.switches, "mix": f.mix, "network": ln.network, "injection_rate": x,
                "routing": ln.scheme.label, "root": ln.root, "best_root": ln.best_root,
                "root_selection_rt_latency_us": ln.selection_latency_us, "status": p.status, "stalled": p.stalled,
                "stop_reason": info.get("stop_reason"), "flags": ";".join(r.flags),
                "offered_load_pct": value(r, "offered_load_pct")[0], "accepted_load_pct": value(r, ACC)[0],
                "dmp_generated_frames": value(r, "deadline_missing_probability_generated")[0],
                "sim_time_ms": float(info.get("sim_time_us", math.nan)) / 1000.0,
                "deadlock_at_ms": float(dl["time_us"]) / 1000.0 if "time_us" in dl else math.nan,
                "packets_measured": info.get("observations"), "wall_time_s": info.get("wall_time_s"),
                "mean_hops": (r.raw.get("routing") or {}).get("mean_hops"),
                "frames_refused": counters.get("frames_refused"), "frames_damaged": counters.get("frames_damaged"),
                "packets_dropped": sum(v for k, v in counters.items() if "_packets_dropped_" in k),
                "multipath_loop_entries": mp.get("entries_replaced_for_loops"),
            }
            for m in METRICS + tuple(m for m in f.panels if m not in METRICS) + (ACC,):
                y, y_ci = value(r, m)
                rows.append({"series": ln.series, "x": 100.0 * x, "y": y, "y_ci": y_ci, "metric": m, **run_cols})
    for s in f.schemes:
        for x in fr.xs:
            for m in f.panels + (ACC,):
                v = family_value(fr, s, x, m)
                status = "deadlock" if not v.usable and v.deadlocked else (FLAGGED if v.unstable else "ok")
                rows.append({"series": s.label, "x": 100.0 * x, "y": v.median, "y_ci": math.nan, "metric": m,
                             "figure": f.fig, "switches": f.switches, "mix": f.mix, "injection_rate": x, "routing": s.label,
                             "status": status, "family_low": v.lo, "family_high": v.hi, "networks_with_values": v.networks,
                             "networks_unstable": v.unstable, "networks_deadlocked": v.deadlocked})
    return rows


def plot_spec(fr: FigureRuns) -> PlotSpec:
    f = fr.f
    title = (f"Fig. {f.fig}: {f.switches}-node networks (family of {len(fr.nets)}: seeds "
             f"{', '.join(map(str, fr.nets))}), real-time : best-effort = {f.mix}; medians")
    panels = [Panel(m, PANEL_LABELS[m][0], f"({chr(ord('a') + i)}) {PANEL_LABELS[m][1]}", logy=PANEL_LABELS[m][2])
              for i, m in enumerate(f.panels + (ACC,))]
    return PlotSpec("injection rate (%)", "", title, series=[s.label for s in f.schemes], panels=panels)


def output(fr: FigureRuns, ours: dict[str, Measured]) -> ExperimentOutput:
    return ExperimentOutput(curves=pd.DataFrame(curve_rows(fr)), plot=plot_spec(fr), ours=ours)


@experiment(id="iba-2007/fig7", title="Seven routing schemes on 15-node networks, real-time : best-effort = 70:30 (Fig. 7)",
            seed_ref=SOURCE)
def fig7(ctx: Context) -> ExperimentOutput:
    fr = figure_runs(ctx, FIGURES["7"])
    return output(fr, fig7_claims(fr))


@experiment(id="iba-2007/fig8", title="Seven routing schemes on 15-node networks, real-time : best-effort = 30:70 (Fig. 8)",
            seed_ref=SOURCE)
def fig8(ctx: Context) -> ExperimentOutput:
    fr = figure_runs(ctx, FIGURES["8"])
    fr7 = figure_runs(ctx, FIGURES["7"])  # Fig. 7's runs: reused when it ran in this process
    return output(fr, fig8_claims(fr, fr7))


@experiment(id="iba-2007/fig9", title="Five routing schemes on 30-node networks, real-time : best-effort = 70:30 (Fig. 9)",
            seed_ref=SOURCE)
def fig9(ctx: Context) -> ExperimentOutput:
    fr = figure_runs(ctx, FIGURES["9"])
    fr7 = figure_runs(ctx, FIGURES["7"])  # dropping at 15 nodes, for the comparison the text makes
    return output(fr, fig9_claims(fr, fr7))


@experiment(id="iba-2007/fig10", title="Four multicast schemes and four bandwidth policies on 15-node networks, 70:30 (Fig. 10)",
            seed_ref=SOURCE)
def fig10(ctx: Context) -> ExperimentOutput:
    fr = figure_runs(ctx, FIGURES["10"])
    fb = figure_runs(ctx, FIGURES["10f"])  # Fig. 10f: asynchronous replication under the four policies
    fs = figure_runs(ctx, FIGURES["10s"])  # synchronous replication: round robin, and holding outputs while waiting
    out = output(fr, fig10_claims(fr, fb, fs))
    out.curves = pd.concat([out.curves, pd.DataFrame(curve_rows(fb)), pd.DataFrame(curve_rows(fs))], ignore_index=True)
    return out


@experiment(id="iba-2007/spf-ties", title="SPF's open tie rule: balanced by destination against lowest-numbered (Fig. 7's networks)",
            seed_ref=SOURCE)
def spf_ties(ctx: Context) -> ExperimentOutput:
    """The study states no tie rule for SPF; this shows what the choice changes
    on Fig. 7's family. It makes no claim of the study's, so it has no rows."""
    return output(figure_runs(ctx, FIGURES["ties"]), {})
