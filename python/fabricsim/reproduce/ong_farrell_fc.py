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
module computes ours, and runs the alternatives of the choices a scenario
key holds (one-byte responses, the 9000/735 lightly loaded, TCP_NODELAY
off), giving ours under them in the rows' notes.
"""

from __future__ import annotations

import math
from collections.abc import Callable
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


def scenario(test: str, sender: str, receiver: str, socket: int, size: int, seed: int, length: float,
             netperf: dict[str, Any] | None = None, hosts: dict[str, Any] | None = None) -> dict[str, Any]:
    options: dict[str, Any] = {
        "test": test, "length_s": length, "message_bytes": size, "nodelay": True,
        "local_socket_bytes": socket, "remote_socket_bytes": socket, **(netperf or {}),
    }
    return {
        "name": f"ong-farrell-fc {test} {sender}-{receiver} s={socket} m={size}",
        "run": {"seed": seed},
        "netperf": options,
        "hosts": {"sender": sender, "receiver": receiver, **(hosts or {})},
    }


Pair = tuple[int, str, str]


def sweep(ctx: Context, test: str, metric: str, pairs: list[Pair] | None = None, sizes: list[int] | None = None,
          sockets: list[int] | None = None, netperf: dict[str, Any] | None = None,
          hosts: Callable[[str, str], dict[str, Any]] | None = None, desc: str = "") -> pd.DataFrame:
    """Every (pair, socket, size) point, repeated; one row per point with mean, min and max."""
    pairs = pairs if pairs is not None else (QUICK_PAIRS if ctx.quick else PAIRS)
    sockets = sockets or (QUICK_SOCKETS if ctx.quick else SOCKETS)
    if sizes is None and test == "TCP_STREAM":
        sizes = QUICK_STREAM_SIZES if ctx.quick else STREAM_SIZES
    elif sizes is None:
        sizes = QUICK_RR_SIZES if ctx.quick else RR_SIZES
    reps = 2 if ctx.quick else REPS
    length = 1.0 if ctx.quick else 10.0
    points = [(f, s, r, sock, m) for f, s, r in pairs for sock in sockets for m in sizes]
    scenarios = [scenario(test, s, r, sock, m, seed, length, netperf, hosts(s, r) if hosts else None)
                 for (_, s, r, sock, m) in points for seed in range(1, reps + 1)]
    results = ctx.run_many(scenarios, desc=f"{test} runs{desc}")
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


def pct(a: float, b: float) -> float:
    return 100.0 * (a - b) / b


def worst_pair(df: pd.DataFrame, pairs: list[Pair], socket: int, a_size: int,
               b_of: Callable[[pd.DataFrame, str, str], tuple[float, int]]) -> tuple[tuple[str, str], float, float, int]:
    """The pair where ``a_size`` stands least above (or furthest below) what ``b_of`` gives: (pair, a, b, b's size)."""
    got = {}
    for _, s, r in pairs:
        b, size = b_of(df, s, r)
        got[(s, r)] = (value(df, s, r, socket, a_size), b, size)
    k = min(got, key=lambda k: got[k][0] / got[k][1])
    return k, *got[k]


@experiment(id="ong-farrell-fc/throughput",
            title="TCP_STREAM throughput vs message size per socket size, every host pair (Figures 6-19)",
            seed_ref=SOURCE)
def throughput(ctx: Context) -> ExperimentOutput:
    df = sweep(ctx, "TCP_STREAM", "throughput_mbit_s")
    big = 2097152
    pairs = QUICK_PAIRS if ctx.quick else PAIRS
    sockets = sorted(set(df.socket_bytes))
    top = max(sockets)
    mean = lambda xs: sum(xs) / len(xs) if xs else float("nan")  # noqa: E731
    c110 = ("c110", "c110")
    # TCP_NODELAY (choice nodelay-size): C110 to C110 on the largest sockets, with and without it.
    nd_sizes = sorted({1} | set(QUICK_STREAM_SIZES if ctx.quick else STREAM_SIZES))
    nd = {on: sweep(ctx, "TCP_STREAM", "throughput_mbit_s", pairs=[(6, *c110)], sizes=nd_sizes, sockets=[top],
                    netperf={"nodelay": on}, desc=f", TCP_NODELAY {'on' if on else 'off'}") for on in (True, False)}
    fast = [(s, r) for _, s, r in pairs if s != "hp735"]
    others = [value(df, s, r, sock, big) for s, r in fast for sock in (245760, 262143)
              if sock in sockets and (s, r, sock) != (*c110, 262143)]
    hp = [value(df, s, r, 262143, big) for _, s, r in pairs if s == "hp735"]
    # The step: every faster sender's pair, 245760 (262143 in quick runs) against 229376-byte sockets.
    large = min((s for s in sockets if s >= 245760), default=262143)
    above, below = ([value(df, s, r, sock, big) for s, r in fast] for sock in (large, 229376))
    plateau = {s: value(df, "c180", "c180", s, big) for s in (65536, 131072, 229376) if s in sockets}
    # The 8 KB drop on every pair: the pair where it is smallest.
    drops = {(s, r): (value(df, s, r, 32768, 4096), value(df, s, r, 32768, 8192)) for _, s, r in pairs}
    weakest = min(drops, key=lambda k: drops[k][0] / drops[k][1])
    span = [100.0 * (a / b - 1.0) for a, b in drops.values()]

    # Message size (choice stream-socket-scope): every pair on the largest sockets; the alternative, every socket too.
    def at_512(d: pd.DataFrame, s: str, r: str, sock: int = top) -> tuple[float, int]:
        return value(d, s, r, sock, 512), 512

    def best(d: pd.DataFrame, s: str, r: str, sock: int = top) -> tuple[float, int]:
        sel = d[(d.sender == s) & (d.receiver == r) & (d.socket_bytes == sock)]
        row = sel.loc[sel["y"].idxmax()]
        return float(row["y"]), int(row["message_bytes"])

    p512, a512, b512, _ = worst_pair(df, pairs, top, 1024, at_512)
    ppk, apk, bpk, spk = worst_pair(df, pairs, top, 4096, best)
    every512 = min(pct(value(df, s, r, k, 1024), at_512(df, s, r, k)[0]) for _, s, r in pairs for k in sockets)
    everypk = min(pct(value(df, s, r, k, 4096), best(df, s, r, k)[0]) for _, s, r in pairs for k in sockets)
    gains = {m: pct(value(nd[False], *c110, top, m), value(nd[True], *c110, top, m)) for m in nd_sizes}
    ours = {
        "stream-82-c110": Value(value(df, *c110, 262143, big)),
        "stream-82-others": Value(mean(others), note=f"{len(others)} pair and socket points, {min(others):.1f} to {max(others):.1f}"),
        "stream-82-socket-threshold": Compare(mean(above), mean(below), note=f"Mbit/s, the mean of {len(fast)} pairs, "
                                              f"{large}- against 229376-byte sockets; C180 to C180 on 64 KB, 128 KB and "
                                              f"224 KB sockets: " + ", ".join(f"{v:.1f}" for v in plateau.values())
                                              + f", against {value(df, 'c180', 'c180', top, big):.1f} on {top}"),
        "stream-67-hp735": Value(mean(hp), note="per receiver: " + ", ".join(f"{v:.1f}" for v in hp)),
        "stream-drop-8k": Compare(*drops[weakest], note=f"Mbit/s, 4 KB against 8 KB on {pair_label(*weakest)}; the drop "
                                                        f"is {min(span):.1f}% to {max(span):.1f}% over {len(drops)} pairs"),
        "stream-above-512": Compare(a512, b512, note=f"Mbit/s, 1 KB against 512 B on {pair_label(*p512)}, the pair with the "
                                                     f"smallest gain on {top}-byte sockets; on every socket too "
                                                     f"(stream-socket-scope's alternative) the smallest is {every512:.1f}%"),
        "stream-peak-4k": Compare(apk, bpk, note=f"Mbit/s, 4 KB against the best, {spk} bytes, on {pair_label(*ppk)}, the "
                                                 f"pair where 4 KB falls furthest short on {top}-byte sockets; on every "
                                                 f"socket too (stream-socket-scope's alternative): {everypk:.1f}%"),
        "stream-nodelay": Compare(value(nd[False], *c110, top, 1), value(nd[True], *c110, top, 1),
                                  note=f"Mbit/s, 1-byte messages without TCP_NODELAY against with it, C110 to C110, "
                                       f"{top}-byte sockets; over every size (nodelay-size's alternative): "
                                       + ", ".join(f"{m} B {g:+.1f}%" for m, g in gains.items())),
    }
    plot = PlotSpec(x_label="message size, log2 bytes", y_label="throughput, Mbit/s",
                    title="TCP_STREAM over FC (seed 002, Figures 6-19)", panels=panels(df, "Mbit/s"))
    return ExperimentOutput(curves=df, plot=plot, ours=ours)


def unloaded_spread(df: pd.DataFrame, unloaded: bool = True) -> tuple[float, float, str]:
    """The widest spread across machine sets at one (socket, message size) point: (longest, shortest, where)."""
    sel = df[df.sender.isin(["c110", "c180"]) & df.receiver.isin(["c110", "c180"])] if unloaded else df
    g = sel.groupby(["socket_bytes", "message_bytes"])["y"].agg(["min", "max"])
    k = (g["max"] / g["min"]).idxmax()
    return float(g.loc[k, "max"]), float(g.loc[k, "min"]), f"{k[1]}-byte messages on {k[0]}-byte sockets"


def worst_repetition(df: pd.DataFrame) -> pd.Series:
    reps = df.assign(rel=df["y_max"] / df["y_min"]).reset_index(drop=True)
    return reps.loc[reps["rel"].idxmax()]


@experiment(id="ong-farrell-fc/latency",
            title="TCP_RR latency vs message size per socket size, every host pair (Figures 20-33)",
            seed_ref=SOURCE)
def latency(ctx: Context) -> ExperimentOutput:
    df = sweep(ctx, "TCP_RR", "latency_us")
    pairs = QUICK_PAIRS if ctx.quick else PAIRS
    # Choice rr-message-size's alternative: a request of the message size and a one-byte response.
    resp1 = sweep(ctx, "TCP_RR", "latency_us", netperf={"response_bytes": 1}, desc=", one-byte responses")
    # Choice loaded-hosts' alternative: the 9000/735 as lightly loaded as the C110 and C180.
    light = {"sender_background_load": 0.02}, {"receiver_background_load": 0.02}
    hp_pairs = [p for p in pairs if "hp735" in p[1:]]
    hp_light = sweep(ctx, "TCP_RR", "latency_us", pairs=hp_pairs, desc=", the 9000/735 lightly loaded",
                     hosts=lambda s, r: {**(light[0] if s == "hp735" else {}), **(light[1] if r == "hp735" else {})})
    # Where the one-byte latency goes, C110 to C110: the fibres and switch made instant, then the bus too;
    # and with no firmware time (what is left of a round trip for latency-half's alternative to fit).
    instant = {"link": {"bandwidth_mb_s": 100000.0}, "switch": {"routing_time_ns": 0.0}}
    variants = [({}, instant), ({"bus_mb_s": 10000.0}, instant), ({"adapter_send_us": 0.0, "adapter_receive_us": 0.0}, {})]
    reps = 2 if ctx.quick else REPS
    parts = []
    for hosts, rest in variants:
        runs = [{**scenario("TCP_RR", "c110", "c110", 262143, 1, seed, 1.0 if ctx.quick else 10.0, hosts=hosts), **rest}
                for seed in range(1, reps + 1)]
        parts.append(sum(r.metric("latency_us") for r in ctx.run_many(runs, desc="one-byte latency's parts")) / reps)

    one = df[df.message_bytes == 1]
    per_pair = {(s, r): float(one[(one.sender == s) & (one.receiver == r)]["y"].mean()) for _, s, r in pairs}
    unloaded = [v for (s, r), v in per_pair.items() if s not in LOADED and r not in LOADED]
    loaded = [v for (s, r), v in per_pair.items() if s in LOADED or r in LOADED]
    light_one = hp_light[hp_light.message_bytes == 1].groupby(["sender", "receiver"])["y"].mean()
    light_loaded = [v for (s, r), v in per_pair.items() if (s in LOADED or r in LOADED) and "hp735" not in (s, r)] \
        + [float(v) for v in light_one]

    def socket_spread(d: pd.DataFrame) -> tuple[float, float, int]:
        above16k = d[(d.socket_bytes > 16384) & (d.sender == "c110") & (d.receiver == "c110")]
        spread = above16k.groupby("message_bytes")["y"].agg(["min", "max"])
        worst = (spread["max"] / spread["min"]).idxmax()
        return float(spread.loc[worst, "max"]), float(spread.loc[worst, "min"]), int(worst)

    sock_hi, sock_lo, sock_at = socket_spread(df)
    r1_hi, r1_lo, r1_at = socket_spread(resp1)
    loaded_pairs = {k: v for k, v in per_pair.items() if k[0] in LOADED or k[1] in LOADED}
    lowest, highest = min(loaded_pairs, key=loaded_pairs.get), max(loaded_pairs, key=loaded_pairs.get)
    worst_rep = worst_repetition(df)
    one_rel = worst_repetition(one)["rel"]
    alt_light = worst_repetition(pd.concat([df[~df.sender.eq("hp735") & ~df.receiver.eq("hp735")], hp_light], ignore_index=True))
    alt_resp1 = worst_repetition(resp1)
    var_hi, var_lo, var_at = unloaded_spread(df)
    all_hi, all_lo, all_at = unloaded_spread(df, unloaded=False)
    v1_hi, v1_lo, _ = unloaded_spread(resp1)
    single = min(loaded)
    media, bus = per_pair[("c110", "c110")] - parts[0], parts[0] - parts[1]

    def rep_note(w: pd.Series) -> str:
        return (f"{100 * (w['rel'] - 1):.1f}% ({w['metric']}, {int(w['socket_bytes'])}-byte sockets, "
                f"{int(w['message_bytes'])}-byte messages)")

    ours = {
        "rr-340-c110": Value(per_pair[("c110", "c110")], note=f"the whole transaction (latency-half's alternative) "
                                                               f"{2 * per_pair[('c110', 'c110')]:.1f} us; with no firmware "
                                                               f"time at all {2 * parts[2]:.1f} us, above 340: that "
                                                               f"reading cannot be fit"),
        "rr-loaded-lowest": Value(single, note=f"{len(loaded)} pairs; the lowest {pair_label(*lowest)}"),
        "rr-loaded-highest": Value(max(loaded), note=f"{len(loaded)} pairs; the highest {pair_label(*highest)}; the fitted "
                                                    f"load's arithmetic, one loaded end's increment twice: "
                                                    f"{min(unloaded) + 2 * (single - min(unloaded)):.1f}; with the 9000/735 "
                                                    f"lightly loaded (loaded-hosts' alternative) {max(light_loaded):.1f}"),
        "rr-little-variation": Compare(var_hi, var_lo, note=f"us, the longest against the shortest of the unloaded pairs at "
                                                             f"{var_at}, the widest point; every pair (variation-scope's "
                                                             f"alternative): {pct(all_hi, all_lo):.1f}% at {all_at}; with "
                                                             f"one-byte responses: {pct(v1_hi, v1_lo):.1f}%"),
        "rr-socket-negligible": Compare(sock_hi, sock_lo, note=f"us, the longest against the shortest over sockets above "
                                                               f"16 KB, at {sock_at}-byte messages; with one-byte responses "
                                                               f"(rr-message-size's alternative): {pct(r1_hi, r1_lo):.1f}% "
                                                               f"at {r1_at}-byte requests"),
        "rr-deterministic": Compare(float(worst_rep["y_max"]), float(worst_rep["y_min"]),
                                    note=f"us, the longest of five against the shortest, {worst_rep['metric']}, "
                                         f"{int(worst_rep['socket_bytes'])}-byte sockets, {int(worst_rep['message_bytes'])}-byte "
                                         f"messages; at one byte (determinism-scope's alternative) at most "
                                         f"{100 * (one_rel - 1):.1f}%; with the 9000/735 lightly loaded: "
                                         f"{rep_note(alt_light)}; with one-byte responses: {rep_note(alt_resp1)}"),
        "protocol-processing": Compare(parts[1], media, note=f"us of the one-byte latency, C110 to C110: the hosts' stack "
                                                            f"and the interface's firmware against the fibres and switch; "
                                                            f"the bus takes {bus:.1f} us"),
    }
    plot = PlotSpec(x_label="message size, log2 bytes", y_label="latency, us",
                    title="TCP_RR latency over FC (seed 002, Figures 20-33)", panels=panels(df, "us"), logy=True)
    for p in plot.panels:
        p.logy = True
    return ExperimentOutput(curves=df, plot=plot, ours=ours)
