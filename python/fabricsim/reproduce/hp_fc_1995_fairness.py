"""Seed 000, section 4.2: fairness on the star and deadlock on the envelope.
The claims are rows of ``hp-fc-1995.claims.toml``; these experiments compute
only ours. Deadlock freedom of the central and smart routings is a property
of their channel dependencies, held by unit tests (construction rows); the
runs here show the clockwise deadlock and what each routing carries."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

import pandas as pd

from .claims import Value
from .framework import Context, ExperimentOutput, PlotSpec, experiment
from .hp_fc_1995 import UNIFORM, Config, compare, metric, scenario
from .hp_fc_1995_setup import SOURCE, WORKLOADS, fabric_config


def to_switch(label: str, sizes: dict[str, Any], sources: list[int], **fabric: Any) -> Config:
    return Config(label, 2, 2, sizes, fabric={"kind": "star", **fabric},
                  workload={"pattern": "to_switch", "destination_switch": 3, "source_switches": sources})


# Switches whose nodes send to switch 3 in the fairness runs: the hub and the
# three other satellites, so every input of the hub competes for the 3-5
# trunk as in the study's argument.
FAIRNESS_SOURCES = [1, 2, 4, 5]
SATELLITES = [1, 2, 4]


@experiment(id="hp-fc-1995/star-fairness", title="Star fairness: hub nodes against satellite nodes for the trunk to switch 3", seed_ref=SOURCE)
def star_fairness(ctx: Context) -> ExperimentOutput:
    """Saturated nodes on the hub (5) and on satellites 1, 2, 4 all send to switch 3.

    The study's 15:1 (m=1) and 7:1 (m=2) are arbitration arithmetic: each of
    the hub's inputs gets the 3-5 trunk equally often, so a hub node gets
    1/15 of it and a satellite node, sharing its satellite's trunk with 14
    others, 1/225. Ours is the ratio of a hub node's throughput to a
    satellite node's, with uniform traffic (bursty messages in the notes).
    """
    configs = [to_switch(f"m={m}, {w}", WORKLOADS[w], FAIRNESS_SOURCES, multiplicity=m) for m in (1, 2) for w in WORKLOADS]
    results = ctx.run_many([scenario(ctx, c, "saturated") for c in configs], desc="fairness")
    rows, shares = [], {}
    for c, r in zip(configs, results):
        pn = r.per_node
        pn = pn[pn["switch"].isin(FAIRNESS_SOURCES)]
        total = float(pn["throughput_pct"].sum())
        for _, p in pn.iterrows():
            rows.append({"series": c.label, "x": int(p["node"]), "y": float(p["throughput_pct"]) / total, "y_ci": float("nan"),
                         "switch": int(p["switch"]), "node_throughput_pct": float(p["throughput_pct"]),
                         "messages_completed": int(p["messages_completed"]), "metric": "share_of_trunk_into_switch_3"})
        by = pn.groupby("switch")["throughput_pct"].mean() / total
        shares[c.label] = (float(by[5]), float(by[SATELLITES].mean()), float(by[SATELLITES].min()), float(by[SATELLITES].max()))
    ours = {}
    for m, row in ((1, "fair-15-to-1"), (2, "fair-7-to-1")):
        hub, sat, lo, hi = shares[f"m={m}, uniform"]
        bh, bs, _, _ = shares[f"m={m}, bursty"]
        ours[row] = Value(hub / sat, note=f"a hub node's share of the traffic into switch 3 {hub:.4f} (1/{1 / hub:.1f}), a satellite "
                                          f"node's {sat:.5f} (1/{1 / sat:.0f}; satellite switches' means {lo:.5f} to {hi:.5f}); "
                                          f"bursty messages: {bh / bs:.1f}:1")
    hub, sat, _, _ = shares["m=1, uniform"]
    nodes = len(results[0].per_node[results[0].per_node["switch"].isin(FAIRNESS_SOURCES)])
    ours["fair-starvation"] = Value(sat * nodes, note=f"m=1, uniform: a satellite node's share 1/{1 / sat:.0f} against a fair "
                                                      f"1/{nodes} of the traffic into switch 3")
    return ExperimentOutput(
        curves=pd.DataFrame(rows),
        plot=PlotSpec("node", "share of the traffic into switch 3", "Star fairness: traffic to switch 3 from hub and satellite nodes",
                      series=[c.label for c in configs if "uniform" in c.label]),
        ours=ours)


@experiment(id="hp-fc-1995/envelope-deadlock", title="Envelope routing: clockwise deadlocks, central and smart do not", seed_ref=SOURCE)
def envelope_deadlock(ctx: Context) -> ExperimentOutput:
    """Saturated uniform traffic (it contains the study's 1<->3, 2<->4 example;
    the workload has no crossed pattern) on the 64-node envelope under each
    routing, over three seeds, beside the static channel-dependency check."""
    from ..api import routing

    policies = ("clockwise", "central", "smart", "shortest")
    seeds = (1, 2, 3)
    cfg = {p: fabric_config(p, "envelope", UNIFORM, routing={"paths": p}) for p in policies}
    points = [(p, s) for p in policies for s in seeds]
    scs = []
    for p, s in points:
        sc = scenario(ctx, cfg[p], "saturated")
        sc["run"]["seed"] = s
        scs.append(sc)
    results = ctx.run_many(scs, desc="envelope routings")
    static = {p: routing(scenario(ctx, cfg[p], "saturated"))["channel_dependencies"] for p in policies}
    rows = []
    by = defaultdict(list)
    for (p, s), r in zip(points, results):
        info, dl = r.run_info, r.deadlock or {}
        by[p].append(r)
        rows.append({"series": p, "x": s, "y": float(info["sim_time_us"]) / 1000.0, "y_ci": float("nan"),
                     "stop_reason": info["stop_reason"], "throughput_pct": metric(r, "throughput_pct")[0],
                     "data_frames_delivered": r.counters.get("data_frames_delivered"),
                     "cycle_trunks": len(dl.get("cycle") or []), "frames_stuck_in_cycle": dl.get("frames_stuck_in_cycle"),
                     "static_acyclic": static[p]["acyclic"], "metric": "simulated_time_until_stop_ms"})
    curves = pd.DataFrame(rows)

    def deadlocked(p: str) -> int:
        return sum(r.run_info["stop_reason"] == "deadlock" for r in by[p])

    cw = [r.deadlock for r in by["clockwise"] if r.deadlock]
    times = ", ".join(f"{d['time_us'] / 1000:.1f} ms" for d in cw)
    # The study's deadlock: the 4 rim trunks' buffers (4 x 15) all full of frames that must go on round the ring.
    full_rim = sum(len(d.get("cycle") or []) == 4 and d.get("frames_stuck_in_cycle") == 60 for d in cw)
    cycle = " -> ".join(static["clockwise"]["cycle"]) if not static["clockwise"]["acyclic"] else "acyclic"
    runs_note = "; ".join(f"{p}: {deadlocked(p)} of {len(seeds)} seeds deadlocked, channel dependencies "
                          f"{'acyclic' if static[p]['acyclic'] else 'cyclic'}" for p in policies)
    sat = {p: metric(by[p][0], "throughput_pct") for p in ("central", "smart")}
    ours = {
        "env-clockwise-deadlocks": Value(full_rim, note=f"deadlocked at {times or 'never'}; static analysis: {cycle}"),
        "env-central-worse": compare(sat["smart"], sat["central"], note=f"smart against central, seed 1; {runs_note}"),
    }
    return ExperimentOutput(
        curves=curves,
        plot=PlotSpec("seed", "simulated time until the run stops (ms)", "Envelope: clockwise routing deadlocks", logy=True),
        ours=ours)
