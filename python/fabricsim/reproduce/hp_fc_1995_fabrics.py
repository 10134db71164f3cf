"""Seed 000: Cherkasova, Kotov, Rokicki, "Simulation Study of Fibre Channel
Fabrics with Particular Emphasis on 64-Node Clusters" (HP Labs), sections 4
and 5: cascaded 16-port switches (star, house, envelope, complete), randomized
against deterministic trunk choice, fairness and deadlock; Figures 8 to 30.

Same method as the single-switch reproductions (hp_fc_1995): saturation
throughput from saturated sources, latency curves from Poisson arrivals at
fractions of it, published numbers only where the text states them. Every
fabric runs class 2 with end-to-end credit 2 unless a figure varies it.

How we read the qualitative words, so the checks can fail:
- "slightly outperforms": the winner's saturation throughput is above the
  loser's by more than their combined 95% CI, and by at most 15%.
- "practically indistinguishable": within 5% of each other.
- "bottleneck" (Fig. 26): the kind of link busier at saturation, trunk links
  or terminal-node links (the latter reach the single switch's own limit).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import replace
from itertools import pairwise
from typing import Any

import pandas as pd

from .framework import Check, Context, ExperimentOutput, PlotSpec, check, experiment
from .hp_fc_1995 import (
    BURSTY,
    UNIFORM,
    Config,
    curve_rows,
    load_sweep,
    metric,
    saturation_rows,
    scenario,
    vlines,
)

SOURCE = "seed 000: Cherkasova, Kotov, Rokicki, HP Labs, Simulation Study of Fibre Channel Fabrics (sections 4-5)"
LATENCY_LABELS = ("throughput (% of port bandwidth)", "message latency (us)")
SLIGHT_MAX_PCT = 15.0
SAME_PCT = 5.0
WORKLOADS = {"bursty": BURSTY, "uniform": UNIFORM}
# The study routes the envelope deadlock-free; its shortest paths may deadlock.
ENVELOPE_ROUTING = {"paths": "smart"}


def fabric_config(label: str, kind: str, sizes: dict[str, Any] = BURSTY, credit: int = 2,
                  routing: dict[str, Any] | None = None, **fabric: Any) -> Config:
    if kind == "envelope" and routing is None:
        routing = dict(ENVELOPE_ROUTING)
    return Config(label, 2, credit, sizes, fabric={"kind": kind, **fabric}, routing=routing)


def saturation_runs(ctx: Context, configs: list[Config]):
    """Saturated runs: ({label: (throughput, ci)}, {label: RunResult})."""
    results = ctx.run_many([scenario(ctx, c, "saturated") for c in configs], desc="saturation")
    runs = {c.label: r for c, r in zip(configs, results)}
    return {k: metric(r, "throughput_pct") for k, r in runs.items()}, runs


def latency_figure(ctx: Context, configs: list[Config], title: str, extra_sat: list[Config] = ()):
    """Saturation of every config (and of ``extra_sat``, table only), latency curves of ``configs``."""
    sat, runs = saturation_runs(ctx, list(configs) + list(extra_sat))
    sweep = load_sweep(ctx, configs, sat)
    rows = curve_rows(sweep, "message_latency_us") + saturation_rows(list(configs) + list(extra_sat), sat)
    for row in rows:
        if row["metric"] == "saturation_throughput_pct":
            r = runs[row["series"].removesuffix(" saturation")]
            row["trunk_utilization_pct"] = metric(r, "trunk_utilization_pct")[0]
            row["node_link_utilization_pct"] = metric(r, "node_link_utilization_pct")[0]
            row["fairness_jain"] = metric(r, "fairness_jain")[0]
    plot = PlotSpec(*LATENCY_LABELS, title, series=[c.label for c in configs], vlines=vlines(configs, sat))
    return sat, runs, pd.DataFrame(rows), plot


def explain(c: Check, why: str) -> Check:
    """Add our explanation to a check's note when the claim is not met."""
    return c if c.within else replace(c, note=f"{c.note}; missed: {why}" if c.note else f"missed: {why}")


def rel_diff(a: tuple[float, float], b: tuple[float, float]) -> tuple[float, float]:
    """(a - b) / b in percent, with the combined CI propagated to first order."""
    ci = math.hypot(_ci(a), _ci(b))
    return 100.0 * (a[0] - b[0]) / b[0], 100.0 * ci / b[0]


def _ci(x: tuple[float, float]) -> float:
    return 0.0 if math.isnan(x[1]) else x[1]


def slightly_better(claim: str, winner: tuple[float, float], loser: tuple[float, float], note: str = "") -> Check:
    """'winner slightly outperforms loser': gap above the combined CI and at most SLIGHT_MAX_PCT."""
    d, ci = rel_diff(winner, loser)
    c = check(claim + " (gap, % of the other's saturation)", [0.0, SLIGHT_MAX_PCT], d, ci, tolerance=0.0,
              note=(note + "; " if note else "") + f"{winner[0]:.2f}% against {loser[0]:.2f}%; needs gap > its CI and <= {SLIGHT_MAX_PCT:g}%")
    return replace(c, within=c.within and d > ci)


def indistinguishable(claim: str, a: tuple[float, float], b: tuple[float, float], note: str = "") -> Check:
    d, ci = rel_diff(a, b)
    return check(claim + " (difference, %)", 0.0, d, ci, tolerance=SAME_PCT,
                 note=(note + "; " if note else "") + f"{a[0]:.2f}% against {b[0]:.2f}%")


def sat_check(claim: str, published: float, value: tuple[float, float], rel: float = 0.15, note: str = "") -> Check:
    return check(claim, published, *value, rel_tolerance=rel, note=note or f"'about {published:g}%'; we allow ±{rel:.0%}")


def published_lines(values: dict[str, float], note: str = "") -> list[dict[str, Any]]:
    return [{"series": k, "x": v, "y": None, "note": note or f"{v:g}% of port bandwidth"} for k, v in values.items()]


# ---------------------------------------------------------------- star, Figs. 8-14

def rand_det_configs(kind: str, workloads=("bursty", "uniform"), **fabric: Any) -> list[Config]:
    configs = []
    for w in workloads:
        for choice in ("deterministic", "randomized"):
            routing = {**(ENVELOPE_ROUTING if kind == "envelope" else {}), "trunk_choice": choice}
            configs.append(fabric_config(f"{w}, {choice}", kind, WORKLOADS[w], routing=routing, **fabric))
    return configs


def star_rand_det(ctx: Context, m: int, det_wins: bool, fig: str) -> ExperimentOutput:
    configs = rand_det_configs("star", multiplicity=m)
    sat, _, curves, plot = latency_figure(ctx, configs, f"Fig. {fig}: star, trunk multiplicity {m}, randomized vs deterministic")
    checks = []
    for w in ("bursty", "uniform"):
        det, rnd = sat[f"{w}, deterministic"], sat[f"{w}, randomized"]
        if det_wins:
            checks.append(explain(slightly_better(f"{w}: deterministic slightly outperforms randomized", det, rnd),
                                  "deterministic wins by more than 'slightly', probably the study's Fig. 9 effect "
                                  "grown with the lane count: randomized choice puts frames of one input at the heads "
                                  "of several lane queues, and the crossbar moves only one of them"))
        else:
            checks.append(explain(slightly_better(
                f"{w}: randomized slightly outperforms deterministic", rnd, det,
                note="the study blames the uneven 5/4/4 split of 13 destinations over 3 trunks"),
                "with bursts, randomized trunk choice spreads one burst over all lanes, whose heads then wait for the "
                "same input (the study's Fig. 9 effect); in our model that loss outweighs the 17/15/15 lane imbalance"))
    return ExperimentOutput(curves, plot, [], checks)


@experiment(id="hp-fc-1995/fig8", title="Star, trunk multiplicity 2 (64 nodes): randomized vs deterministic, bursty and uniform", seed_ref=SOURCE)
def fig8(ctx: Context) -> ExperimentOutput:
    out = star_rand_det(ctx, 2, True, "8")
    sat = {r["series"].removesuffix(" saturation"): (r["x"], r["x_ci"]) for _, r in out.curves.iterrows()
           if r["metric"] == "saturation_throughput_pct"}
    # Section 4.1.2 quotes this fabric's saturation: 10% bursty, 11% uniform.
    out.checks[:0] = [sat_check("bursty, deterministic: saturation about 10% of port bandwidth", 10, sat["bursty, deterministic"]),
                      sat_check("uniform, deterministic: saturation about 11% of port bandwidth", 11, sat["uniform, deterministic"])]
    out.published = published_lines({"bursty, deterministic": 10.0, "uniform, deterministic": 11.0})
    return out


@experiment(id="hp-fc-1995/fig11", title="Star, trunk multiplicity 3 (56 nodes): randomized vs deterministic, bursty and uniform", seed_ref=SOURCE)
def fig11(ctx: Context) -> ExperimentOutput:
    return star_rand_det(ctx, 3, False, "11")


@experiment(id="hp-fc-1995/fig13", title="Star, trunk multiplicity 4 (48 nodes): randomized vs deterministic, bursty and uniform", seed_ref=SOURCE)
def fig13(ctx: Context) -> ExperimentOutput:
    return star_rand_det(ctx, 4, True, "13")


@experiment(id="hp-fc-1995/fig14", title="Star with trunk multiplicity 2, 3, 4 (64, 56, 48 nodes), bursty, deterministic", seed_ref=SOURCE)
def fig14(ctx: Context) -> ExperimentOutput:
    configs = [fabric_config(f"multiplicity {m} ({n} nodes)", "star", multiplicity=m) for m, n in ((2, 64), (3, 56), (4, 48))]
    sat, _, curves, plot = latency_figure(ctx, configs, "Fig. 14: star with different trunk multiplicities, bursty")
    s = [sat[c.label] for c in configs]
    published = {c.label: v for c, v in zip(configs, (10.0, 14.0, 22.0))}
    checks = [sat_check(f"{c.label}: saturation (% of port bandwidth)", published[c.label], v) for c, v in zip(configs, s)]
    checks.append(slightly_better_or_more("multiplicity 3 well above multiplicity 2 ('much greater')", s[1], s[0], 20.0))
    checks.append(slightly_better_or_more("multiplicity 4 above multiplicity 3 ('somewhat better')", s[2], s[1], 10.0))
    return ExperimentOutput(curves, plot, published_lines(published), checks)


def slightly_better_or_more(claim: str, a: tuple[float, float], b: tuple[float, float], at_least_pct: float) -> Check:
    """a above b by at least ``at_least_pct`` percent."""
    d, ci = rel_diff(a, b)
    return check(claim + " (gain, %)", [at_least_pct, 1000.0], d, ci, tolerance=0.0,
                 note=f"{a[0]:.2f}% against {b[0]:.2f}%; published {at_least_pct:g}% or more")


# ---------------------------------------------------------------- house, Figs. 16 and 18

@experiment(id="hp-fc-1995/fig16", title="House (64 nodes) vs star multiplicity 2, bursty and uniform", seed_ref=SOURCE)
def fig16(ctx: Context) -> ExperimentOutput:
    configs = [fabric_config(f"house, {w}", "house", WORKLOADS[w]) for w in WORKLOADS]
    configs += [fabric_config(f"star m=2, {w}", "star", WORKLOADS[w], multiplicity=2) for w in WORKLOADS]
    sat, _, curves, plot = latency_figure(ctx, configs, "Fig. 16: house configuration, bursty and uniform")
    published = {"house, bursty": 13.0, "house, uniform": 15.0, "star m=2, bursty": 10.0, "star m=2, uniform": 11.0}
    checks = [sat_check(f"{k}: saturation (% of port bandwidth)", v, sat[k]) for k, v in published.items()]
    for w, gain in (("bursty", 3.0), ("uniform", 4.0)):
        h, s = sat[f"house, {w}"], sat[f"star m=2, {w}"]
        checks.append(check(f"{w}: house gains over star m=2 (points)", gain, h[0] - s[0], math.hypot(_ci(h), _ci(s)),
                            tolerance=1.5, note=f"published {published[f'star m=2, {w}']:g}% -> {published[f'house, {w}']:g}%"))
    return ExperimentOutput(curves, plot, published_lines(published), checks)


def rand_det_same(ctx: Context, kind: str, fig: str, title: str) -> ExperimentOutput:
    configs = rand_det_configs(kind, multiplicity=2)
    sat, _, curves, plot = latency_figure(ctx, configs, title)
    checks = [indistinguishable(f"{w}: deterministic vs randomized practically indistinguishable",
                                sat[f"{w}, deterministic"], sat[f"{w}, randomized"],
                                note="parallel lanes take destinations in turn, so transit traffic is spread evenly too")
              for w in WORKLOADS]
    return ExperimentOutput(curves, plot, [], checks)


@experiment(id="hp-fc-1995/fig18", title="House, trunk multiplicity 2 (48 nodes): randomized vs deterministic", seed_ref=SOURCE)
def fig18(ctx: Context) -> ExperimentOutput:
    return rand_det_same(ctx, "house", "18", "Fig. 18: house, trunk multiplicity 2, randomized vs deterministic")


# ---------------------------------------------------------------- envelope, Figs. 20-23

SMART_MISSED = ("our smart routing is a reconstruction (the study's [CKR95-2] is unavailable): it splits each "
                "2-hop pair over a deadlock-free subset of its paths chosen for the least loaded busiest trunk")
ENVELOPE_NOTE = "envelope routed with the engine's deadlock-free 'smart' paths, as the study's envelope must be"


@experiment(id="hp-fc-1995/fig20", title="Envelope, house and star (64 nodes), bursty", seed_ref=SOURCE)
def fig20(ctx: Context) -> ExperimentOutput:
    configs = [fabric_config("envelope", "envelope"), fabric_config("house", "house"),
               fabric_config("star m=2", "star", multiplicity=2)]
    # Reference only: split shortest paths spread 2-hop traffic best but may deadlock.
    shortest = [fabric_config("envelope, shortest paths (not deadlock-free)", "envelope", routing={"paths": "shortest"})]
    sat, _, curves, plot = latency_figure(ctx, configs, "Fig. 20: envelope, house and star with 64 nodes, bursty", shortest)
    env, house, star, short = sat["envelope"], sat["house"], sat["star m=2"], sat[shortest[0].label]
    checks = [
        explain(sat_check("envelope: saturation about 16% of port bandwidth", 16, env,
                          note=f"{ENVELOPE_NOTE}; deadlock-prone split shortest paths reach {short[0]:.2f}%"), SMART_MISSED),
        sat_check("house: saturation about 13%", 13, house),
        sat_check("star m=2: saturation about 10%", 10, star),
        explain(check("envelope over star: 10% -> 16% (ratio)", 1.6, env[0] / star[0], None, tolerance=0.2,
                      note=f"shortest-path envelope: {short[0] / star[0]:.2f}"), SMART_MISSED),
        slightly_better_or_more("envelope is the best 64-node layout, over the better of house and star",
                                env, max(house, star), 0.0),
    ]
    published = published_lines({"envelope": 16.0, "house": 13.0, "star m=2": 10.0})
    return ExperimentOutput(curves, plot, published, checks)


@experiment(id="hp-fc-1995/fig22", title="Envelope, trunk multiplicity 2 (48 nodes): randomized vs deterministic", seed_ref=SOURCE)
def fig22(ctx: Context) -> ExperimentOutput:
    out = rand_det_same(ctx, "envelope", "22", "Fig. 22: envelope, trunk multiplicity 2, randomized vs deterministic")
    out.checks = [replace(c, note=f"{c.note}; {ENVELOPE_NOTE}") for c in out.checks]
    return out


@experiment(id="hp-fc-1995/fig23", title="Envelope, house and star (48 nodes), bursty", seed_ref=SOURCE)
def fig23(ctx: Context) -> ExperimentOutput:
    configs = [fabric_config("envelope m=2", "envelope", multiplicity=2), fabric_config("house m=2", "house", multiplicity=2),
               fabric_config("star m=4", "star", multiplicity=4)]
    sat, _, curves, plot = latency_figure(ctx, configs, "Fig. 23: envelope, house and star with 48 nodes, bursty")
    env = sat["envelope m=2"]
    best_other = max(sat["house m=2"], sat["star m=4"])
    checks = [slightly_better_or_more("envelope m=2 is again the best 48-node layout, over the better of house and star",
                                      env, best_other, 0.0, ),
              check("envelope m=2 is 'essentially higher' than house m=2 and star m=4 (gain over the better, %)", [10.0, 1000.0],
                    *rel_diff(env, best_other), tolerance=0.0, note="we read 'essentially' as at least 10%")]
    checks[0] = replace(checks[0], note=f"{checks[0].note}; {ENVELOPE_NOTE}; house and star on the engine's deterministic tables")
    return ExperimentOutput(curves, plot, [], checks)


# ---------------------------------------------------------------- complete, Figs. 25-30

@experiment(id="hp-fc-1995/fig25", title="Five switches, about 64 nodes: complete (60) vs envelope, house, star (64), bursty", seed_ref=SOURCE)
def fig25(ctx: Context) -> ExperimentOutput:
    configs = [fabric_config("complete (60 nodes)", "complete", switches=5), fabric_config("envelope", "envelope"),
               fabric_config("house", "house"), fabric_config("star m=2", "star", multiplicity=2)]
    sat, _, curves, plot = latency_figure(ctx, configs, "Fig. 25: five switches, about 64 nodes, bursty")
    comp, env = sat["complete (60 nodes)"], sat["envelope"]
    checks = [
        sat_check("complete, 5 switches: saturation up to 26% of port bandwidth", 26, comp, rel=0.1, note="'up to 26%'; ±10%"),
        check("complete almost doubles the envelope (ratio of saturations)", [1.6, 2.0], comp[0] / env[0], None, tolerance=0.0,
              note=f"'almost double'; the study's own numbers give 26/16 = 1.63; {ENVELOPE_NOTE}"),
        slightly_better_or_more("complete beats every 64-node layout, over the best of them", comp,
                                max(env, sat["house"], sat["star m=2"]), 0.0),
    ]
    return ExperimentOutput(curves, plot, published_lines({"complete (60 nodes)": 26.0, "envelope": 16.0}), checks)


COMPLETE_NODES = {5: 60, 6: 66, 7: 70, 8: 72, 9: 72, 10: 70, 11: 66}


@experiment(id="hp-fc-1995/fig26", title="Complete topology, 5 to 11 switches, bursty", seed_ref=SOURCE)
def fig26(ctx: Context) -> ExperimentOutput:
    configs = [fabric_config(f"{n} switches ({k} nodes)", "complete", switches=n) for n, k in COMPLETE_NODES.items()]
    sat, runs, curves, plot = latency_figure(ctx, configs, "Fig. 26: complete topology, 5 to 11 switches, bursty")
    s = [sat[c.label] for c in configs]
    steps = [b[0] - a[0] for a, b in pairwise(s)]
    checks = [check("throughput grows with every added switch (smallest step, points)", [0.0, 100.0], min(steps), None,
                    tolerance=0.0, note="steps: " + ", ".join(f"{x:.2f}" for x in steps))]
    for n, c in zip(COMPLETE_NODES, configs):
        trunk = metric(runs[c.label], "trunk_utilization_pct")[0]
        node = metric(runs[c.label], "node_link_utilization_pct")[0]
        trunk_bound = n <= 8
        checks.append(check(
            f"{n} switches: {'trunk links' if trunk_bound else 'switches'} the bottleneck "
            f"(trunk minus node-link utilization at saturation, points)",
            [0.0, 100.0] if trunk_bound else [-100.0, 0.0], trunk - node, None, tolerance=0.0,
            note=f"trunk {trunk:.1f}%, node links {node:.1f}%; the busier kind of link bounds the fabric "
                 "(node links near a single switch's own bursty saturation mean the switches bound it)"))
    return ExperimentOutput(curves, plot, [], checks)


def complete_credits(ctx: Context, n: int, fig: str) -> ExperimentOutput:
    credits = (2, 3, 4, 5)
    configs = [fabric_config(f"credit {k}", "complete", credit=k, switches=n) for k in credits]
    sat, runs, curves, plot = latency_figure(
        ctx, configs, f"Fig. {fig}: complete topology, {n} switches, end-to-end credits 2-5, bursty")
    base = sat["credit 2"]
    best = max((sat[f"credit {k}"] for k in credits[1:]), key=lambda v: v[0])
    gain, gain_ci = rel_diff(best, base)
    sat_note = ", ".join(f"credit {k}: {sat[f'credit {k}'][0]:.2f}%" for k in credits)
    r2 = runs["credit 2"]
    trunk, node = metric(r2, "trunk_utilization_pct")[0], metric(r2, "node_link_utilization_pct")[0]
    if n == 5:
        checks = [
            check("more end-to-end credits do not raise throughput (best of 3-5 over credit 2, %)", 0.0, gain, gain_ci,
                  tolerance=3.0, note=sat_note),
            check("trunk links are the bottleneck (trunk minus node-link utilization at saturation, points)", [0.0, 100.0],
                  trunk - node, None, tolerance=0.0, note=f"trunk {trunk:.1f}%, node links {node:.1f}%"),
        ]
        # "Message latency ... do[es] not depend on the end-to-end credit": latency at the same share of saturation.
        lat = curves[(curves["metric"] == "message_latency_us") & (curves["fraction_of_saturation"] == 0.7)]
        if len(lat) == len(credits):
            spread = 100.0 * (lat["y"].max() - lat["y"].min()) / lat["y"].mean()
            checks.append(check("message latency does not depend on the credit (spread at 70% of saturation, %)", 0.0,
                                spread, None, tolerance=10.0, note=", ".join(f"{y:.0f} us" for y in lat.sort_values("end_to_end_credit")["y"])))
    else:
        checks = [explain(check("more end-to-end credits raise throughput by about 10% (best of 3-5 over credit 2, %)", 10.0,
                                gain, gain_ci, tolerance=5.0, note=f"{sat_note}; trunk {trunk:.1f}%, node links {node:.1f}%"),
                          "these fabrics saturate near a single switch's bursty limit (Fig. 4: 41-43%, where credits "
                          "1-5 move it by about 2 points), so extra credits have little round-trip latency to hide")]
    return ExperimentOutput(curves, plot, [], checks)


@experiment(id="hp-fc-1995/fig27", title="Complete topology, 5 switches: end-to-end credits 2-5, bursty", seed_ref=SOURCE)
def fig27(ctx: Context) -> ExperimentOutput:
    return complete_credits(ctx, 5, "27")


@experiment(id="hp-fc-1995/fig28", title="Complete topology, 9 switches: end-to-end credits 2-5, bursty", seed_ref=SOURCE)
def fig28(ctx: Context) -> ExperimentOutput:
    return complete_credits(ctx, 9, "28")


@experiment(id="hp-fc-1995/fig29", title="Complete topology, 10 switches: end-to-end credits 2-5, bursty", seed_ref=SOURCE)
def fig29(ctx: Context) -> ExperimentOutput:
    return complete_credits(ctx, 10, "29")


@experiment(id="hp-fc-1995/fig30", title="Complete topology, 11 switches: end-to-end credits 2-5, bursty", seed_ref=SOURCE)
def fig30(ctx: Context) -> ExperimentOutput:
    return complete_credits(ctx, 11, "30")


# ---------------------------------------------------------------- fairness and deadlock, section 4.2

def to_switch(label: str, sizes: dict[str, Any], sources: list[int], **fabric: Any) -> Config:
    return Config(label, 2, 2, sizes, fabric={"kind": "star", **fabric},
                  workload={"pattern": "to_switch", "destination_switch": 3, "source_switches": sources})


@experiment(id="hp-fc-1995/star-fairness", title="Star fairness: hub against satellite nodes competing for a trunk to switch 3", seed_ref=SOURCE)
def star_fairness(ctx: Context) -> ExperimentOutput:
    """Saturated nodes on satellite switch 1 and hub switch 5 all send to switch 3.

    The study's 15:1 and 7:1 are an arbitration argument per frame (each input of
    the hub gets the 3-5 trunk equally often); single-frame messages match it,
    the bursty workload's ratios are given in the notes.
    """
    configs = []
    for w, sizes in WORKLOADS.items():
        configs += [to_switch(f"m=1, {w}", sizes, [1, 5], multiplicity=1), to_switch(f"m=2, {w}", sizes, [1, 5], multiplicity=2)]
    configs.append(to_switch("no hub nodes, m=1, uniform", UNIFORM, [1, 2], multiplicity=1, nodes=[15, 15, 15, 15, 0]))
    results = ctx.run_many([scenario(ctx, c, "saturated") for c in configs], desc="fairness")
    rows, ratio, jain = [], {}, {}
    for c, r in zip(configs, results):
        pn = r.per_node
        for _, p in pn.iterrows():
            rows.append({"series": c.label, "x": int(p["node"]), "y": float(p["throughput_pct"]), "y_ci": float("nan"),
                         "switch": int(p["switch"]), "messages_completed": int(p["messages_completed"]),
                         "metric": "node_throughput_pct"})
        by_switch = pn.groupby("switch")["throughput_pct"].mean()
        ratio[c.label] = float(by_switch.max() / by_switch.min()) if c.label.startswith("no hub") else float(by_switch[5] / by_switch[1])
        jain[c.label] = metric(r, "fairness_jain")[0]
    checks = []
    for m, published in ((1, 15.0), (2, 7.0)):
        checks.append(explain(check(
            f"star m={m}: hub node / satellite node throughput (ratio)", published, ratio[f"m={m}, uniform"], None, rel_tolerance=1 / 3,
            note=f"an idealised per-frame argument, so we ask for the same size within a third; "
                 f"bursty messages give {ratio[f'm={m}, bursty']:.2f}; Jain index {jain[f'm={m}, uniform']:.3f}"),
            "the study's ratio assumes every input of the hub wins the trunk equally often; ours comes from the simulated "
            "rotating arbitration with head-of-line blocking and credit limits"))
    checks.append(check("the hub advantage shrinks with multiplicity 2 (ratio m=1 over ratio m=2)", 15 / 7,
                        ratio["m=1, uniform"] / ratio["m=2, uniform"], None, tolerance=0.75, note="published 15:1 against 7:1"))
    checks.append(check("no nodes on the hub: satellites share fairly (Jain's index)", 1.0, jain["no hub nodes, m=1, uniform"], None,
                        tolerance=0.02, note=f"switches 1 and 2 send to 3; mean throughput ratio {ratio['no hub nodes, m=1, uniform']:.3f}"))
    return ExperimentOutput(
        curves=pd.DataFrame(rows),
        plot=PlotSpec("node", "accepted throughput (% of port bandwidth)", "Star fairness: traffic to switch 3 from hub and satellite nodes",
                      series=[c.label for c in configs if "uniform" in c.label]),
        checks=checks)


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

    def deadlocked(p: str) -> float:
        return sum(r.run_info["stop_reason"] == "deadlock" for r in by[p]) / len(by[p])

    cw = [r.deadlock for r in by["clockwise"] if r.deadlock]
    times = ", ".join(f"{d['time_us'] / 1000:.1f} ms" for d in cw)
    sat = {p: metric(by[p][0], "throughput_pct") for p in ("central", "smart")}
    checks = [
        check("clockwise routing deadlocks under saturating traffic (share of seeds)", 1.0, deadlocked("clockwise"), None,
              tolerance=0.0, note=f"deadlocked at {times or 'never'}"),
        check("the deadlock is a cycle of the 4 rim trunks (trunks in the reported cycle)", 4,
              max((len(d["cycle"]) for d in cw), default=float("nan")), None, tolerance=0.0),
        check("every buffer on the cycle is full (frames stuck in it, 4 x 15)", 60,
              max((d["frames_stuck_in_cycle"] for d in cw), default=float("nan")), None, tolerance=0.0),
        check("central and smart routing run to completion (share of seeds deadlocked)", 0.0,
              (deadlocked("central") + deadlocked("smart")) / 2, None, tolerance=0.0),
        check("static analysis: clockwise has a channel-dependency cycle (1 = cyclic)", 1.0,
              float(not static["clockwise"]["acyclic"]), None, tolerance=0.0, note=" -> ".join(static["clockwise"]["cycle"])),
        check("static analysis: central and smart are acyclic (share acyclic)", 1.0,
              (static["central"]["acyclic"] + static["smart"]["acyclic"]) / 2, None, tolerance=0.0),
        slightly_better_or_more("smart routing outperforms central", sat["smart"], sat["central"], 0.0),
    ]
    checks[-1] = replace(checks[-1], within=checks[-1].within and sat["smart"][0] - sat["central"][0] > math.hypot(_ci(sat["smart"]), _ci(sat["central"])),
                         note=checks[-1].note + "; the study: central 'tends to concentrate traffic' on switch 5's links")
    checks[-1] = explain(checks[-1], SMART_MISSED)
    return ExperimentOutput(
        curves=curves,
        plot=PlotSpec("seed", "simulated time until the run stops (ms)", "Envelope: clockwise routing deadlocks", logy=True),
        checks=checks)
