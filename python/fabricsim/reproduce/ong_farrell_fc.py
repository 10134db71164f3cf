"""Seed 002: Ong and Farrell, "Performance Evaluation of Fibre Channel on a
Cluster of Workstations" (Kent State): netperf TCP_STREAM and TCP_RR between
HP workstations on an Ancor 266 Mbaud FC switch, Figures 6-19 (throughput
against message size, one curve per socket buffer size, for each sender and
receiver pair) and Figures 20-33 (latency against message size), with the
claims of section 4 as checks.

The figures survive only as captions; the numbers are the ones section 4
states. Every number on our side comes from simulated netperf runs: each
point is the mean of five repetitions of a 10 s test (seeds 1-5, as the
paper repeats each test five times), and its error bar spans half the
minimum-to-maximum range (columns ``y_min`` and ``y_max`` hold both ends).

The claims are in ``ong-farrell-fc.claims.toml``, with the four declared
calibrations (docs/tcp-netperf-model.md) as fits, the choices that decide
rows, and the echoes of the fits as derived or construction rows; this
module computes ours.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from .claims import Compare, Value
from .framework import Context, ExperimentOutput, Panel, PlotSpec, experiment

SOURCE = "seed 002: Ong and Farrell, Performance Evaluation of Fibre Channel on a Cluster of Workstations (section 4)"

# (figure of throughput, sender, receiver); latency figures are 14 later.
PAIRS: list[tuple[int, str, str]] = [
    (6, "c110", "c110"), (7, "c110", "c180"), (8, "c110", "j210"), (9, "c110", "hp735"),
    (10, "c180", "c110"), (11, "c180", "j210"), (12, "c180", "hp735"),
    (13, "j210", "c110"), (14, "j210", "c180"), (15, "j210", "hp735"),
    (16, "hp735", "c110"), (17, "hp735", "c180"), (18, "hp735", "j210"), (19, "c180", "c180"),
]
QUICK_PAIRS = [(6, "c110", "c110"), (11, "c180", "j210"), (16, "hp735", "c110"), (19, "c180", "c180")]
NAMES = {"c110": "C110", "c180": "C180", "j210": "J210", "hp735": "9000/735"}
LOADED = {"j210", "hp735"}  # "moderately loaded" in section 4.2.2

SOCKETS = [4096, 16384, 32768, 65536, 131072, 229376, 245760, 262143]
QUICK_SOCKETS = [32768, 65536, 229376, 262143]
STREAM_SIZES = [1, 16, 128, 512, 1024, 2048, 4096, 8192, 16384, 65536, 262144, 2097152]
QUICK_STREAM_SIZES = [128, 512, 1024, 4096, 8192, 2097152]
RR_SIZES = [1, 16, 128, 512, 1024, 4096, 8192, 16384, 32768, 65536]
QUICK_RR_SIZES = [1, 1024, 8192]
REPS = 5


def pair_label(sender: str, receiver: str) -> str:
    return f"{NAMES[sender]} to {NAMES[receiver]}"


def scenario(test: str, sender: str, receiver: str, socket: int, size: int, seed: int, length: float) -> dict[str, Any]:
    netperf: dict[str, Any] = {
        "test": test, "length_s": length, "message_bytes": size, "nodelay": True,
        "local_socket_bytes": socket, "remote_socket_bytes": socket,
    }
    return {
        "name": f"ong-farrell-fc {test} {sender}-{receiver} s={socket} m={size}",
        "run": {"seed": seed},
        "netperf": netperf,
        "hosts": {"sender": sender, "receiver": receiver},
    }


def sweep(ctx: Context, test: str, metric: str) -> pd.DataFrame:
    """Every (pair, socket, size) point, repeated; one row per point with mean, min and max."""
    pairs = QUICK_PAIRS if ctx.quick else PAIRS
    sockets = QUICK_SOCKETS if ctx.quick else SOCKETS
    if test == "TCP_STREAM":
        sizes = QUICK_STREAM_SIZES if ctx.quick else STREAM_SIZES
    else:
        sizes = QUICK_RR_SIZES if ctx.quick else RR_SIZES
    reps = 2 if ctx.quick else REPS
    length = 1.0 if ctx.quick else 10.0
    points = [(f, s, r, sock, m) for f, s, r in pairs for sock in sockets for m in sizes]
    scenarios = [scenario(test, s, r, sock, m, seed, length) for (_, s, r, sock, m) in points for seed in range(1, reps + 1)]
    results = ctx.run_many(scenarios, desc=f"{test} runs")
    rows = []
    for i, (fig, s, r, sock, m) in enumerate(points):
        values = [res.metric(metric) for res in results[i * reps:(i + 1) * reps]]
        mean = sum(values) / len(values)
        if metric == "latency_us":
            # Latency from the mean transaction rate, as netperf's rate is averaged.
            rates = [1e6 / (2.0 * v) for v in values]
            mean = 1e6 / (2.0 * (sum(rates) / len(rates)))
        rows.append({
            "series": f"socket {sock}", "x": math.log2(m), "y": mean, "y_ci": (max(values) - min(values)) / 2.0,
            "y_min": min(values), "y_max": max(values), "message_bytes": m, "socket_bytes": sock,
            "sender": s, "receiver": r, "figure": fig if metric != "latency_us" else fig + 14,
            "metric": pair_label(s, r),
        })
    return pd.DataFrame(rows)


def value(df: pd.DataFrame, sender: str, receiver: str, socket: int, size: int) -> float:
    sel = df[(df.sender == sender) & (df.receiver == receiver) & (df.socket_bytes == socket) & (df.message_bytes == size)]
    return float(sel["y"].iloc[0]) if len(sel) else float("nan")


def panels(df: pd.DataFrame, what: str) -> list[Panel]:
    out = []
    for (fig, label) in df[["figure", "metric"]].drop_duplicates().itertuples(index=False):
        out.append(Panel(metric=label, y_label=what, title=f"Figure {fig}: {label}"))
    return out


@experiment(id="ong-farrell-fc/throughput",
            title="TCP_STREAM throughput vs message size per socket size, every host pair (Figures 6-19)",
            seed_ref=SOURCE)
def throughput(ctx: Context) -> ExperimentOutput:
    df = sweep(ctx, "TCP_STREAM", "throughput_mbit_s")
    big = 2097152
    pairs = QUICK_PAIRS if ctx.quick else PAIRS
    sockets = set(df.socket_bytes)
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")  # noqa: E731
    c110 = ("c110", "c110")
    fast = [(s, r) for _, s, r in pairs if s != "hp735"]
    others = [value(df, s, r, sock, big) for s, r in fast for sock in (245760, 262143)
              if sock in sockets and (s, r, sock) != (*c110, 262143)]
    hp = [value(df, s, r, 262143, big) for _, s, r in pairs if s == "hp735"]
    # The 240 KB threshold: every faster sender's pair, 245760 (262143 in quick runs) against 229376-byte sockets.
    large = min((s for s in sockets if s >= 245760), default=262143)
    above, below = ([value(df, s, r, sock, big) for s, r in fast] for sock in (large, 229376))
    # The plateau: the socket of 64-224 KB whose throughput is farthest from the claim's 60.
    mid_sockets = [s for s in (65536, 131072, 229376) if s in sockets]
    plateau = {s: value(df, "c180", "c180", s, big) for s in mid_sockets}
    far = max(plateau, key=lambda s: abs(plateau[s] - 60.0), default=None)
    plateau_note = "per socket: " + ", ".join(f"{s // 1024} KB {v:.1f}" for s, v in plateau.items())
    # The 8 KB drop on every pair: the pair where it is smallest.
    drops = {(s, r): (value(df, s, r, 32768, 4096), value(df, s, r, 32768, 8192)) for _, s, r in pairs}
    weakest = min(drops, key=lambda k: drops[k][0] / drops[k][1])
    span = [100.0 * (a / b - 1.0) for a, b in drops.values()]
    peak_row = df[(df.sender == "c110") & (df.receiver == "c110") & (df.socket_bytes == 262143)]
    best = peak_row.loc[peak_row["y"].idxmax()]
    ours = {
        "stream-82-c110": Value(value(df, *c110, 262143, big)),
        "stream-82-others": Value(mean(others), note=f"{len(others)} pair and socket points, {min(others):.1f} to {max(others):.1f}"),
        "stream-82-socket-threshold": Compare(mean(above), mean(below), note=f"Mbit/s, the mean of {len(fast)} pairs, "
                                              f"{large}- against 229376-byte sockets"),
        "stream-67-hp735": Value(mean(hp), note="per receiver: " + ", ".join(f"{v:.1f}" for v in hp)),
        "stream-60-plateau": Value(plateau[far] if far else math.nan, note=plateau_note),
        "stream-drop-8k": Compare(*drops[weakest], note=f"Mbit/s, 4 KB against 8 KB on {pair_label(*weakest)}; the drop "
                                                        f"is {min(span):.1f}% to {max(span):.1f}% over {len(drops)} pairs"),
        "stream-above-512": Compare(value(df, *c110, 262143, 1024), value(df, *c110, 262143, 512), note="Mbit/s, 1 KB against 512 B"),
        "stream-peak-4k": Compare(value(df, *c110, 262143, 4096), float(best["y"]),
                                  note=f"Mbit/s, 4 KB against the best, {int(best['message_bytes'])} bytes"),
    }
    plot = PlotSpec(x_label="message size, log2 bytes", y_label="throughput, Mbit/s",
                    title="TCP_STREAM over FC (seed 002, Figures 6-19)", panels=panels(df, "Mbit/s"))
    return ExperimentOutput(curves=df, plot=plot, ours=ours)


@experiment(id="ong-farrell-fc/latency",
            title="TCP_RR latency vs message size per socket size, every host pair (Figures 20-33)",
            seed_ref=SOURCE)
def latency(ctx: Context) -> ExperimentOutput:
    df = sweep(ctx, "TCP_RR", "latency_us")
    pairs = QUICK_PAIRS if ctx.quick else PAIRS
    one = df[df.message_bytes == 1]
    per_pair = {(s, r): float(one[(one.sender == s) & (one.receiver == r)]["y"].mean()) for _, s, r in pairs}
    unloaded = [v for (s, r), v in per_pair.items() if s not in LOADED and r not in LOADED]
    loaded = [v for (s, r), v in per_pair.items() if s in LOADED or r in LOADED]
    above16k = df[(df.socket_bytes > 16384) & (df.sender == "c110") & (df.receiver == "c110")]
    spread = above16k.groupby("message_bytes")["y"].agg(["min", "max"])
    spread["rel"] = spread["max"] / spread["min"]
    worst = spread["rel"].idxmax()
    loaded_pairs = {k: v for k, v in per_pair.items() if k[0] in LOADED or k[1] in LOADED}
    lowest, highest = min(loaded_pairs, key=loaded_pairs.get), max(loaded_pairs, key=loaded_pairs.get)
    # Five repetitions of every point: where the longest is farthest from the shortest.
    reps = df.assign(rel=df["y_max"] / df["y_min"])
    worst_rep = reps.loc[reps["rel"].idxmax()]
    one_rel = reps[reps.message_bytes == 1]["rel"].max()
    ours = {
        "rr-340-c110": Value(per_pair[("c110", "c110")]),
        "rr-loaded-lowest": Value(min(loaded), note=f"{len(loaded)} pairs; the lowest {pair_label(*lowest)}"),
        "rr-loaded-highest": Value(max(loaded), note=f"{len(loaded)} pairs; the highest {pair_label(*highest)}; "
                                                    f"unloaded pairs {min(unloaded):.1f} to {max(unloaded):.1f}"),
        "rr-socket-negligible": Compare(float(spread.loc[worst, "max"]), float(spread.loc[worst, "min"]),
                                        note=f"us, the longest against the shortest over sockets above 16 KB, at {worst}-byte messages"),
        "rr-deterministic": Compare(float(worst_rep["y_max"]), float(worst_rep["y_min"]),
                                    note=f"us, the longest of five against the shortest, {worst_rep['metric']}, "
                                         f"{int(worst_rep['socket_bytes'])}-byte sockets, {int(worst_rep['message_bytes'])}-byte "
                                         f"messages; at one byte they differ by at most {100 * (one_rel - 1):.1f}%"),
    }
    plot = PlotSpec(x_label="message size, log2 bytes", y_label="latency, us",
                    title="TCP_RR latency over FC (seed 002, Figures 20-33)", panels=panels(df, "us"), logy=True)
    for p in plot.panels:
        p.logy = True
    return ExperimentOutput(curves=df, plot=plot, ours=ours)
