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

Calibration (declared; see docs/tcp-netperf-model.md): four parameters
were set on four published numbers and everything else is predicted
without further tuning -- the interface's bus transfer rate on the 82 Mbit/s
of the C110 to C110 stream with 262143-byte sockets and 2 MB messages, its
firmware time per packet on the 340 us one-byte latency of the C110 pair,
the older HP-UX 10.01 send path of the 9000/735 on its 67 Mbit/s as a
sender, and the background load of the moderately loaded J210 and
9000/735 on the 398 us one-byte latency of the C110 to J210 pair (the low
end of the paper's loaded range). Checks say in their note which they are.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from .framework import Context, ExperimentOutput, Panel, PlotSpec, check, experiment

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
QUICK_STREAM_SIZES = [128, 1024, 4096, 8192, 2097152]
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
    fast_senders = [(s, r) for _, s, r in (QUICK_PAIRS if ctx.quick else PAIRS) if s != "hp735"]
    hp_senders = [(s, r) for _, s, r in (QUICK_PAIRS if ctx.quick else PAIRS) if s == "hp735"]
    large = [value(df, s, r, sock, big) for s, r in fast_senders for sock in (245760, 262143) if sock in set(df.socket_bytes)]
    hp = [value(df, s, r, 262143, big) for s, r in hp_senders]
    mid_sockets = [s for s in (65536, 131072, 229376) if s in set(df.socket_bytes)]
    fastest = [value(df, "c180", "c180", s, big) for s in mid_sockets]
    c110 = ("c110", "c110")
    drop = value(df, *c110, 32768, 8192) / value(df, *c110, 32768, 4096)
    small = value(df, *c110, 262143, 128)
    above = value(df, *c110, 262143, 1024)
    peak_row = df[(df.sender == "c110") & (df.receiver == "c110") & (df.socket_bytes == 262143)]
    peak_share = value(df, *c110, 262143, 4096) / float(peak_row["y"].max())
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")  # noqa: E731
    checks = [
        check("2 MB messages, 245760/262143-byte sockets, C110/C180/J210 senders (Mbit/s)", 82.0, mean(large),
              tolerance=5.0, note="calibrated: C110 to C110 at 262143 set the bus rate; other pairs and 245760 predicted"),
        check("2 MB messages, 9000/735 sending, 262143-byte sockets (Mbit/s)", 67.0, mean(hp), tolerance=5.0,
              note="calibrated: the 9000/735 send-path copy (HP-UX 10.01)"),
        # "Approximately 60 Mbps" across 64K-224K is a plateau: its lowest and
        # highest point must both be near 60, not only their mean.
        check("2 MB messages, sockets 64K-224K, C180 to C180: lowest (Mbit/s)", 60.0, min(fastest, default=math.nan),
              tolerance=6.0, note=f"prediction; sockets {mid_sockets}, per socket {[round(v, 1) for v in fastest]}"),
        check("2 MB messages, sockets 64K-224K, C180 to C180: highest (Mbit/s)", 60.0, max(fastest, default=math.nan),
              tolerance=6.0, note="prediction"),
        check("32 KB sockets: throughput at 8 KB over 4 KB messages (a sudden drop: < 0.8)", [0.0, 0.8], drop,
              tolerance=0.0, note="prediction; C110 to C110"),
        check("1 KB over 128-byte messages, 262143 sockets (much faster: >= 2)", [2.0, 1e9], above / small,
              tolerance=0.0, note="prediction; C110 to C110"),
        check("4 KB messages over the best message size, 262143 sockets (peak by 4 KB: >= 0.9)", [0.9, 1.0],
              peak_share, tolerance=0.0, note="prediction; C110 to C110"),
    ]
    plot = PlotSpec(x_label="message size, log2 bytes", y_label="throughput, Mbit/s",
                    title="TCP_STREAM over FC (seed 002, Figures 6-19)", panels=panels(df, "Mbit/s"))
    published = [{"metric": pair_label(s, r), "series": "socket 262143", "x": math.log2(big),
                  "y": 67.0 if s == "hp735" else 82.0, "note": "section 4.1.2"}
                 for _, s, r in (QUICK_PAIRS if ctx.quick else PAIRS)]
    return ExperimentOutput(curves=df, plot=plot, published=published, checks=checks)


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
    spread = above16k.groupby("message_bytes")["y"].agg(lambda y: (y.max() - y.min()) / y.min()).max()
    checks = [
        check("one-byte latency, C110 to C110 (us)", 340.0, per_pair[("c110", "c110")], tolerance=10.0,
              note="calibrated: the interface's firmware time per packet"),
        # Stack costs are memory- and I/O-bound, equal on every machine: a
        # model structure chosen with the paper's flat latency in view.
        check("one-byte latency, unloaded pairs: lowest (us)", [336.0, 354.0], min(unloaded), tolerance=5.0,
              note="prediction; stack costs do not scale with the clock (a structural choice, see the docs)"),
        check("one-byte latency, unloaded pairs: highest (us)", [336.0, 354.0], max(unloaded), tolerance=5.0,
              note="prediction; stack costs do not scale with the clock (a structural choice, see the docs)"),
        check("one-byte latency, pairs with the loaded J210 or 9000/735: lowest (us)", [398.0, 460.0], min(loaded),
              tolerance=10.0, note="calibrated: the moderate background load, on C110 to J210 at 398"),
        check("one-byte latency, pairs with the loaded J210 or 9000/735: highest (us)", [398.0, 460.0], max(loaded),
              tolerance=10.0, note="prediction; the pairs where both hosts are loaded"),
        check("largest relative latency spread across socket sizes > 16 KB, any message size (little: <= 0.1)",
              [0.0, 0.1], float(spread), tolerance=0.0, note="prediction; C110 to C110"),
    ]
    plot = PlotSpec(x_label="message size, log2 bytes", y_label="latency, us",
                    title="TCP_RR latency over FC (seed 002, Figures 20-33)", panels=panels(df, "us"), logy=True)
    for p in plot.panels:
        p.logy = True
    published = [{"metric": pair_label(s, r), "series": "socket 262143", "x": 0.0, "y": 340.0, "note": "section 4.2.2"}
                 for _, s, r in pairs]
    return ExperimentOutput(curves=df, plot=plot, published=published, checks=checks)
