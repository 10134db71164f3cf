"""Seed 000: Cherkasova, Kotov, Rokicki, "Simulation Study of Fibre Channel
Fabrics with Particular Emphasis on 64-Node Clusters" (HP Labs), sections 4
and 5: cascaded 16-port switches (star, house, envelope, complete), randomized
against deterministic trunk choice, fairness and deadlock; Figures 8 to 30.

Same method as the single-switch reproductions (hp_fc_1995): saturation
throughput from saturated sources, latency curves from Poisson arrivals at
fractions of it. Every fabric runs class 2 with end-to-end credit 2 unless a
figure varies it. The claims are rows of ``hp-fc-1995.claims.toml``, with
how their words are read; these experiments compute only ours.

"X is the bottleneck" (sections 4.1, 5): relaxing X moves saturation. Trunks
are relaxed by doubling every trunk on 32-port switches, so every node stays;
a router that takes no time is shown beside it.

The study leaves two model choices open that its routing claims rest on;
both are scenario keys, and the runs here show them side by side (the
table's [[choices]]): how deterministic routing lines up parallel trunks
(``routing.lane_assignment``, Figs. 8, 11, 13, 18, 22) and the crossbar's
arbitration among outputs whose heads wait for one input
(``switch.arbitration``, Figs. 27-30).
"""

from __future__ import annotations

import math
from itertools import combinations
from typing import Any

import pandas as pd

from .claims import Series, Value
from .framework import Context, ExperimentOutput, PlotSpec, experiment
from .hp_fc_1995 import (
    BURSTY,
    UNIFORM,
    Config,
    ci_of,
    compare,
    curve_rows,
    listed,
    load_sweep,
    metric,
    saturation_rows,
    scenario,
    vlines,
)
from .hp_fc_1995_fairness import envelope_deadlock, star_fairness  # noqa: F401  (registers them)
from .hp_fc_1995_setup import (
    ARBITRATIONS,
    DEFAULT_ARBITRATION,
    DEFAULT_LANES,
    ENVELOPE_NOTE,
    LANE_ASSIGNMENTS,
    SOURCE,
    WORKLOADS,
    fabric_config,
    rand_det_configs,
)

LATENCY_LABELS = ("throughput (% of port bandwidth)", "message latency (us)")


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
            row["buffer_usage"] = metric(r, "buffer_usage")[0]
            row["fairness_jain"] = metric(r, "fairness_jain")[0]
    plot = PlotSpec(*LATENCY_LABELS, title, series=[c.label for c in configs], vlines=vlines(configs, sat))
    return sat, runs, pd.DataFrame(rows), plot


def gain_pct(a: tuple[float, float], b: tuple[float, float]) -> float:
    return 100.0 * (a[0] - b[0]) / b[0]


def better(sat: dict[str, tuple[float, float]], *labels: str) -> tuple[str, tuple[float, float]]:
    label = max(labels, key=lambda k: sat[k][0])
    return label, sat[label]


# ---------------------------------------------------------------- star, Figs. 8-14

def lane_configs(kind: str, **fabric: Any) -> list[Config]:
    """Deterministic routing under the lane assignments other than the default (table and notes only)."""
    return [fabric_config(f"{w}, deterministic, {lanes} lanes", kind, WORKLOADS[w],
                          routing={**({"paths": "smart"} if kind == "envelope" else {}), "lane_assignment": lanes}, **fabric)
            for w in WORKLOADS for lanes in LANE_ASSIGNMENTS if lanes != DEFAULT_LANES]


def lanes_note(sat: dict[str, tuple[float, float]], w: str) -> str:
    """Deterministic against randomized under every lane assignment."""
    rnd = sat[f"{w}, randomized"][0]
    parts = []
    for lanes in LANE_ASSIGNMENTS:
        det = sat[f"{w}, deterministic" if lanes == DEFAULT_LANES else f"{w}, deterministic, {lanes} lanes"][0]
        parts.append(f"{lanes} {det:.2f} ({100 * (det - rnd) / rnd:+.1f}%)")
    return f"deterministic by lane assignment against randomized {rnd:.2f}: " + ", ".join(parts)


def star_rand_det(ctx: Context, m: int, fig: str, winner: str) -> ExperimentOutput:
    """Randomized against deterministic on the star of multiplicity ``m``: rows ``f<fig>-<det|rand>-<workload>``."""
    configs = rand_det_configs("star", multiplicity=m)
    sat, runs, curves, plot = latency_figure(
        ctx, configs, f"Fig. {fig}: star, trunk multiplicity {m}, randomized vs deterministic",
        lane_configs("star", multiplicity=m))
    ours = {}
    for w in WORKLOADS:
        det, rnd = sat[f"{w}, deterministic"], sat[f"{w}, randomized"]
        note = lanes_note(sat, w) + (f"; receive buffers in use per port (deterministic): "
                                     f"{metric(runs[f'{w}, deterministic'], 'buffer_usage')[0]:.2f} of 15")
        a, b = (det, rnd) if winner == "deterministic" else (rnd, det)
        ours[f"f{fig}-{'det' if winner == 'deterministic' else 'rand'}-{w}"] = compare(a, b, note=note)
    return ExperimentOutput(curves, plot, ours=ours)


@experiment(id="hp-fc-1995/fig8", title="Star, trunk multiplicity 2 (64 nodes): randomized vs deterministic, bursty and uniform", seed_ref=SOURCE)
def fig8(ctx: Context) -> ExperimentOutput:
    # Its saturations (10% bursty, 11% uniform) are rows of Figs. 14 and 16, where the study states them.
    return star_rand_det(ctx, 2, "8", "deterministic")


@experiment(id="hp-fc-1995/fig11", title="Star, trunk multiplicity 3 (56 nodes): randomized vs deterministic, bursty and uniform", seed_ref=SOURCE)
def fig11(ctx: Context) -> ExperimentOutput:
    return star_rand_det(ctx, 3, "11", "randomized")


@experiment(id="hp-fc-1995/fig13", title="Star, trunk multiplicity 4 (48 nodes): randomized vs deterministic, bursty and uniform", seed_ref=SOURCE)
def fig13(ctx: Context) -> ExperimentOutput:
    return star_rand_det(ctx, 4, "13", "deterministic")


STAR_NODES = {2: 64, 3: 56, 4: 48}


def star_trunks_doubled() -> Config:
    """Star m=2 with every trunk doubled (m=4 on 32-port switches), the same 64 nodes."""
    return Config("star m=2, trunks doubled", 2, 2, BURSTY, switch={"ports": 32},
                  fabric={"kind": "custom", "nodes": [14, 14, 14, 14, 8], "trunks": [[s, 5, 4] for s in (1, 2, 3, 4)]})


@experiment(id="hp-fc-1995/fig14", title="Star with trunk multiplicity 2, 3, 4 (64, 56, 48 nodes), bursty, deterministic", seed_ref=SOURCE)
def fig14(ctx: Context) -> ExperimentOutput:
    configs = [fabric_config(f"multiplicity {m} ({n} nodes)", "star", multiplicity=m) for m, n in STAR_NODES.items()]
    sat, _, curves, plot = latency_figure(ctx, configs, "Fig. 14: star with different trunk multiplicities, bursty",
                                          [star_trunks_doubled()])
    s = {m: sat[c.label] for m, c in zip(STAR_NODES, configs)}
    doubled = sat["star m=2, trunks doubled"]
    ours: dict[str, Any] = {f"f14-m{m}-{v}": Value(s[m][0], ci_of(s[m])) for m, v in ((2, 10), (3, 14), (4, 22))}
    ours["f14-tradeoff"] = Series([s[m][0] for m in STAR_NODES], [ci_of(s[m]) for m in STAR_NODES],
                                  xs=[f"m={m} ({n} nodes)" for m, n in STAR_NODES.items()])
    ours["f11-m3-much-greater"] = compare(s[3], s[2], note="star m=3 (56 nodes) against m=2 (64 nodes), bursty, deterministic")
    ours["s41-trunks-bottleneck"] = compare(doubled, s[2], note=f"star m=2 with every trunk doubled against as built: "
                                                                 f"{gain_pct(doubled, s[2]):+.1f}%")
    return ExperimentOutput(curves, plot, ours=ours)


# ---------------------------------------------------------------- house, Figs. 16 and 18

@experiment(id="hp-fc-1995/fig16", title="House (64 nodes) vs star multiplicity 2, bursty and uniform", seed_ref=SOURCE)
def fig16(ctx: Context) -> ExperimentOutput:
    configs = [fabric_config(f"house, {w}", "house", WORKLOADS[w]) for w in WORKLOADS]
    configs += [fabric_config(f"star m=2, {w}", "star", WORKLOADS[w], multiplicity=2) for w in WORKLOADS]
    sat, _, curves, plot = latency_figure(ctx, configs, "Fig. 16: house configuration, bursty and uniform")
    ours: dict[str, Any] = {
        "f16-house-bursty-13": Value(sat["house, bursty"][0], ci_of(sat["house, bursty"])),
        "f16-house-uniform-15": Value(sat["house, uniform"][0], ci_of(sat["house, uniform"])),
        "f16-star-uniform-11": Value(sat["star m=2, uniform"][0], ci_of(sat["star m=2, uniform"]),
                                     note=f"star m=2 bursty: {sat['star m=2, bursty'][0]:.2f}"),
    }
    for w in WORKLOADS:
        ours[f"f16-house-above-star-{w}"] = compare(sat[f"house, {w}"], sat[f"star m=2, {w}"], note=f"house against star m=2, {w}")
    return ExperimentOutput(curves, plot, ours=ours)


def rand_det_same(ctx: Context, kind: str, title: str, fig: str, note: str = "") -> ExperimentOutput:
    configs = rand_det_configs(kind, multiplicity=2)
    sat, _, curves, plot = latency_figure(ctx, configs, title, lane_configs(kind, multiplicity=2))
    ours = {f"f{fig}-same-{w}": compare(sat[f"{w}, deterministic"], sat[f"{w}, randomized"],
                                        note=lanes_note(sat, w) + (f"; {note}" if note else ""))
            for w in WORKLOADS}
    return ExperimentOutput(curves, plot, ours=ours)


@experiment(id="hp-fc-1995/fig18", title="House, trunk multiplicity 2 (48 nodes): randomized vs deterministic", seed_ref=SOURCE)
def fig18(ctx: Context) -> ExperimentOutput:
    return rand_det_same(ctx, "house", "Fig. 18: house, trunk multiplicity 2, randomized vs deterministic", "18")


# ---------------------------------------------------------------- envelope, Figs. 20-23

@experiment(id="hp-fc-1995/fig20", title="Envelope, house and star (64 nodes), bursty", seed_ref=SOURCE)
def fig20(ctx: Context) -> ExperimentOutput:
    configs = [fabric_config("envelope", "envelope"), fabric_config("house", "house"),
               fabric_config("star m=2", "star", multiplicity=2)]
    # Split shortest paths spread 2-hop traffic evenly but may deadlock: what "balanced" is set against.
    shortest = fabric_config("envelope, shortest paths (not deadlock-free)", "envelope", routing={"paths": "shortest"})
    sat, runs, curves, plot = latency_figure(ctx, configs, "Fig. 20: envelope, house and star with 64 nodes, bursty", [shortest])
    env, short = sat["envelope"], sat[shortest.label]
    other, best = better(sat, "house", "star m=2")
    stuck = runs[shortest.label].run_info["stop_reason"] == "deadlock"
    ours = {
        "f20-envelope-16": Value(env[0], ci_of(env), note=ENVELOPE_NOTE),
        "f20-envelope-essentially": compare(env, best, note=f"envelope against {other}, the better of house and star m=2 "
                                                            f"(house {sat['house'][0]:.2f}, star {sat['star m=2'][0]:.2f})"),
        "env-smart-balanced": compare(env, short, note="smart paths against split shortest paths",
                                      no_value="the shortest-path run deadlocked" if stuck else ""),
    }
    return ExperimentOutput(curves, plot, ours=ours)


@experiment(id="hp-fc-1995/fig22", title="Envelope, trunk multiplicity 2 (48 nodes): randomized vs deterministic", seed_ref=SOURCE)
def fig22(ctx: Context) -> ExperimentOutput:
    return rand_det_same(ctx, "envelope", "Fig. 22: envelope, trunk multiplicity 2, randomized vs deterministic", "22",
                         note=ENVELOPE_NOTE)


@experiment(id="hp-fc-1995/fig23", title="Envelope, house and star (48 nodes), bursty", seed_ref=SOURCE)
def fig23(ctx: Context) -> ExperimentOutput:
    configs = [fabric_config("envelope m=2", "envelope", multiplicity=2), fabric_config("house m=2", "house", multiplicity=2),
               fabric_config("star m=4", "star", multiplicity=4)]
    sat, _, curves, plot = latency_figure(ctx, configs, "Fig. 23: envelope, house and star with 48 nodes, bursty")
    other, best = better(sat, "house m=2", "star m=4")
    ours = {"f23-envelope-essentially": compare(sat["envelope m=2"], best, note=f"envelope m=2 against {other}, the better of "
                                                f"house m=2 ({sat['house m=2'][0]:.2f}) and star m=4 ({sat['star m=4'][0]:.2f}); "
                                                f"{ENVELOPE_NOTE}")}
    return ExperimentOutput(curves, plot, ours=ours)


# ---------------------------------------------------------------- complete, Figs. 25-30

@experiment(id="hp-fc-1995/fig25", title="Five switches, about 64 nodes: complete (60) vs envelope, house, star (64), bursty", seed_ref=SOURCE)
def fig25(ctx: Context) -> ExperimentOutput:
    configs = [fabric_config("complete (60 nodes)", "complete", switches=5), fabric_config("envelope", "envelope"),
               fabric_config("house", "house"), fabric_config("star m=2", "star", multiplicity=2)]
    star3 = fabric_config("star m=3 (56 nodes)", "star", multiplicity=3)
    sat, _, curves, plot = latency_figure(ctx, configs, "Fig. 25: five switches, about 64 nodes, bursty", [star3])
    comp, env = sat["complete (60 nodes)"], sat["envelope"]
    ratio = comp[0] / env[0]
    ours = {
        "f25-complete-26": Value(comp[0], ci_of(comp)),
        "f25-almost-double": Value(ratio, note=f"complete {comp[0]:.2f} over envelope {env[0]:.2f}; {ENVELOPE_NOTE}"),
        "f25-connect-first": compare(comp, sat[star3.label], note="complete (10 single trunks, 60 nodes) against star m=3 "
                                                                   "(12 trunks as four triples, 56 nodes)"),
    }
    return ExperimentOutput(curves, plot, ours=ours)


COMPLETE_NODES = {5: 60, 6: 66, 7: 70, 8: 72, 9: 72, 10: 70, 11: 66}


def relaxed_configs(n: int) -> list[Config]:
    """The complete topology of ``n`` switches with every trunk doubled (32-port
    switches, the same nodes), and with a router that takes no time."""
    per = 16 - (n - 1)
    trunks = [[a, b, 2] for a, b in combinations(range(1, n + 1), 2)]
    return [
        Config(f"{n} switches, trunks doubled", 2, 2, BURSTY, fabric={"kind": "custom", "nodes": [per] * n, "trunks": trunks},
               switch={"ports": 32}),
        fabric_config(f"{n} switches, router time 0", "complete", switches=n, switch={"routing_time_ns": 0.0}),
    ]


def relaxed_note(n: int, base: tuple[float, float], sat: dict[str, tuple[float, float]]) -> str:
    return (f"{n} switches: trunks doubled {gain_pct(sat[f'{n} switches, trunks doubled'], base):+.1f}%, "
            f"router time 0 {gain_pct(sat[f'{n} switches, router time 0'], base):+.1f}%")


@experiment(id="hp-fc-1995/fig26", title="Complete topology, 5 to 11 switches, bursty", seed_ref=SOURCE)
def fig26(ctx: Context) -> ExperimentOutput:
    configs = [fabric_config(f"{n} switches ({k} nodes)", "complete", switches=n) for n, k in COMPLETE_NODES.items()]
    relax_ns = [8, 9, 10, 11]
    extra = [c for n in relax_ns for c in relaxed_configs(n)]
    sat, runs, curves, plot = latency_figure(ctx, configs, "Fig. 26: complete topology, 5 to 11 switches, bursty", extra)
    base = {n: sat[c.label] for n, c in zip(COMPLETE_NODES, configs)}
    s = list(base.values())
    doubled = {n: sat[f"{n} switches, trunks doubled"] for n in relax_ns}
    worst = max((n for n in relax_ns if n >= 9), key=lambda n: abs(gain_pct(doubled[n], base[n])))
    every = "; ".join(relaxed_note(n, base[n], sat) for n in relax_ns)
    ours = {
        "f26-grows": Series([x[0] for x in s], [ci_of(x) for x in s], xs=list(COMPLETE_NODES)),
        "f26-8-trunks": compare(doubled[8], base[8], note="8 switches, every trunk doubled against as built; " + every),
        "f26-9plus-switches": compare(doubled[worst], base[worst],
                                      note=f"{worst} switches (of 9-11, the farthest from the same), every trunk doubled "
                                           f"against as built"),
    }
    return ExperimentOutput(curves, plot, ours=ours)


def complete_credits(ctx: Context, n: int, fig: str) -> ExperimentOutput:
    """Credits 2-5 under the default arbitration (curves and rows) and the
    other arbitrations (saturation, table and notes)."""
    credits = (2, 3, 4, 5)
    configs = [fabric_config(f"credit {k}", "complete", credit=k, switches=n) for k in credits]
    others = [fabric_config(f"credit {k}, {arb} arbitration", "complete", credit=k, switches=n, switch={"arbitration": arb})
              for arb in ARBITRATIONS if arb != DEFAULT_ARBITRATION for k in credits]
    extra = others + (relaxed_configs(n) if n == 5 else [])
    sat, runs, curves, plot = latency_figure(
        ctx, configs, f"Fig. {fig}: complete topology, {n} switches, end-to-end credits 2-5, bursty", extra)

    def by_credit(suffix: str = "") -> dict[int, tuple[float, float]]:
        return {k: sat[f"credit {k}{suffix}"] for k in credits}

    s = by_credit()
    notes = [f"{DEFAULT_ARBITRATION} arbitration, credits {listed(s)}"]
    for arb in ARBITRATIONS:
        if arb != DEFAULT_ARBITRATION:
            o = by_credit(f", {arb} arbitration")
            best_o = max(credits[1:], key=lambda k: o[k][0])
            notes.append(f"{arb} arbitration: best of 3-5 {gain_pct(o[best_o], o[2]):+.1f}%, credits {listed(o)}")
    note = "; ".join(notes)
    if n != 5:
        best = max(credits[1:], key=lambda k: s[k][0])
        ours = {f"f{fig}-gain-about-10": compare(s[best], s[2], note=f"credit {best} (the best of 3-5) against credit 2; {note}")}
        return ExperimentOutput(curves, plot, ours=ours)
    far = max(credits[1:], key=lambda k: abs(s[k][0] - s[2][0]))
    # Message latency at the same share of each credit's saturation (their saturations are all but equal).
    lat = curves[(curves["metric"] == "message_latency_us") & (curves["fraction_of_saturation"] == 0.7)]
    lat_at = {int(k): (float(y), float(ci)) for k, y, ci in zip(lat["end_to_end_credit"], lat["y"], lat["y_ci"])}
    lat_far = max((k for k in lat_at if k != 2), key=lambda k: abs(lat_at[k][0] - lat_at[2][0]), default=None)
    ours = {
        "f27-throughput-same": compare(s[far], s[2], note=f"credit {far} (the farthest of 3-5) against credit 2; {note}"),
        "f27-latency-same": (compare(lat_at[lat_far], lat_at[2], note=f"credit {lat_far} (the farthest of 3-5) against "
                                     "credit 2, at 70% of each saturation; " + listed(lat_at, "{:.0f} us"))
                             if lat_far is not None else Value(math.nan, no_value="no latency point at 70% of saturation")),
        "f27-trunks-bottleneck": compare(sat["5 switches, trunks doubled"], s[2],
                                         note="every trunk doubled against as built; " + relaxed_note(5, s[2], sat)),
    }
    return ExperimentOutput(curves, plot, ours=ours)


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
