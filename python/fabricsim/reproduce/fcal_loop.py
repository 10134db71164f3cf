"""Seed 004: Ruwart, "Performance characterization of FC-AL loops, part 2"
(1999): large loops (Graph 9 and Table 1), long loops (Graphs 10-12) and
access fairness (Graphs 13-16), plus the loop arithmetic the text states.

Every published number here is either a measurement on real hardware (an
analyzer trace or a host benchmark on 1999 disks and adapters) or the
author's own arithmetic; the checks say which. The graphs' axis values are
not in the text, so the published points are the numbers the text states.

Host time: the benchmark timed each I/O in the application, so a host and
driver overhead sits in every I/O time. The text implies its size: 99 us is
"about 11-13%" of a 1 KB read, i.e. a read of about 0.8 ms. We give the
host ``HOST_OVERHEAD_US`` per I/O (split between issue and completion),
chosen so that the 12-device 1 KB read comes out near that; it is a
calibration, and the check that compares it says so.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .framework import Context, ExperimentOutput, PlotSpec, check, experiment

SOURCE = "seed 004: Ruwart, Performance characterization of FC-AL loops, part 2 (1999)"
HOST_OVERHEAD_US = 720.0  # calibrated: 12-device 1 KB read near 0.8 ms (see module docstring)
KB = 1024
MB = 1024 * 1024


def loop_scenario(
    name: str,
    devices: int,
    length_m: float,
    initiator: dict[str, Any],
    disks: list[dict[str, Any]] | None = None,
    run: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "name": name,
        "run": {"seed": 1, **(run or {})},
        "loop": {"length_m": length_m},
        "disks": disks or [{"count": devices, "model": "cheetah9lp"}],
        "initiator": initiator,
    }


def single_disk_reads(devices: int, length_m: float, size: int, ios: int) -> dict[str, Any]:
    """Seed 004's large-loop test: sequential reads of one disk, the others idle."""
    return loop_scenario(
        f"fcal single-disk {size} B reads, {devices} devices, {length_m} m",
        devices,
        length_m,
        {
            "mode": "closed",
            "outstanding": 1,
            "active_disks": 1,
            "request_bytes": size,
            "access": "sequential",
            "ios_per_disk": ios,
            "command_overhead_us": HOST_OVERHEAD_US / 2,
            "completion_overhead_us": HOST_OVERHEAD_US / 2,
        },
    )


def stat(r: Any, name: str, col: str = "mean") -> float:
    return float(r.metric(name, col))


def size_label(size: int) -> str:
    return f"{size // MB} MB" if size >= MB else f"{size // KB} KB"


# ---------------------------------------------------------------- Graph 9 ----


@experiment(id="fcal-loop/graph9", title="Single-disk read time against loop population, 50 m loop (Graph 9, Table 1)", seed_ref=SOURCE)
def graph9(ctx: Context) -> ExperimentOutput:
    devices = [12, 96] if ctx.quick else [12, 24, 48, 96]
    sizes = [1 * KB, 2 * KB, 4 * MB]
    ios = {1 * KB: 16 if ctx.quick else 128, 2 * KB: 16 if ctx.quick else 128, 4 * MB: 3 if ctx.quick else 16}
    grid = [(d, s) for s in sizes for d in devices]
    results = ctx.run_many([single_disk_reads(d, 50.0, s, ios[s]) for d, s in grid], desc="graph9")
    by = {k: r for k, r in zip(grid, results)}
    rows = []
    for (d, s), r in by.items():
        # The study plots the shortest recorded time of each test.
        rows.append({"series": size_label(s), "x": d, "y": stat(r, "io_time_us", "min") / 1000.0, "y_ci": None, "mean_ms": stat(r, "io_time_us") / 1000.0})
    phase_names = ["phase_command_us", "idle_command_data_us", "phase_data_us", "idle_data_status_us", "phase_status_us"]
    for d in devices:
        r = by[(d, 1 * KB)]
        for p in phase_names:
            rows.append({"series": f"table1 {p}", "x": d, "y": stat(r, p, "min"), "y_ci": None})
        rows.append({"series": "loop trip (us)", "x": d, "y": stat(r, "loop_trip_us"), "y_ci": None})
    curves = pd.DataFrame(rows)

    lo, hi = devices[0], devices[-1]
    t = {s: (stat(by[(lo, s)], "io_time_us", "min"), stat(by[(hi, s)], "io_time_us", "min")) for s in sizes}
    delta_1k = t[1 * KB][1] - t[1 * KB][0]
    effect = {s: (t[s][1] - t[s][0]) / t[s][0] for s in sizes}
    trip = {d: stat(by[(d, 1 * KB)], "loop_trip_us") for d in devices}
    phase_delta = {p: stat(by[(hi, 1 * KB)], p, "min") - stat(by[(lo, 1 * KB)], p, "min") for p in phase_names}
    checks = [
        check("1 KB read time, 12 devices (ms)", 0.825, t[1 * KB][0] / 1000, tolerance=0.05,
              note="measured on hardware; only implied by the text (99 us is about 12%); the host overhead is calibrated to it"),
        check("increase per loop trip, 12 -> 96 devices (us)", 19.0, trip[hi] - trip[lo], tolerance=1.0,
              note="author's arithmetic (84 x 226 ns), confirmed by the analyzer"),
        check("one loop trip with 96 disks (us)", 20.0, trip[hi], tolerance=2.5,
              note="analyzer measurement ('approximately 20 us'); ours is 97 ports x 225.9 ns + 50 m"),
        check("loop trips (tenancies) per 1 KB read", 9.0, stat(by[(lo, 1 * KB)], "loop_trips_per_io"), tolerance=0.0,
              note="analyzer count: 3 phases x 3 trips"),
        check("1 KB read increase 12 -> 96 devices, expected (us)", 171.0, delta_1k, tolerance=20.0,
              note="author's expectation 9 x 19 us; ours is lower because the disk starts on the command while the CLS trip is still under way"),
        check("1 KB read increase 12 -> 96 devices, measured (us)", 99.0, delta_1k, tolerance=15.0,
              note="hardware measurement; the paper itself cannot account for the gap (2-channel analyzer); the model runs every trip in full"),
        check("Table 1: command phase increase (us)", 52.0, phase_delta["phase_command_us"], tolerance=6.0,
              note="analyzer measurement; theory 57 us"),
        check("Table 1: data phase increase (us)", 34.0, phase_delta["phase_data_us"], tolerance=6.0,
              note="analyzer measurement; the author attributes the missing 23 us to idle time the 2-channel analyzer misplaces; the model gives the full 3 trips"),
        check("Table 1: status phase increase (us)", 34.0, phase_delta["phase_status_us"], tolerance=6.0,
              note="analyzer measurement, same caveat as the data phase"),
        check("Table 1: idle command->data change (us)", 0.0, phase_delta["idle_command_data_us"], tolerance=6.0,
              note="analyzer measurement ('no increase'); ours shrinks by the part of a trip the disk overlaps"),
        check("effect of 84 more devices on a 1 KB read (%)", [11.0, 13.0], 100 * effect[1 * KB], tolerance=1.0,
              note="hardware measurement; ours follows the larger modelled increase"),
        check("effect of 84 more devices on a 4 MB read (%)", [0.0, 0.1], 100 * effect[4 * MB], tolerance=0.0,
              note="hardware measurement ('less than 0.1%')"),
        check("2 KB effect relative to 1 KB effect", [0.0, 1.0], effect[2 * KB] / effect[1 * KB], tolerance=0.0,
              note="'as the transfer size increases, the effect becomes negligible'"),
    ]
    published = [{"series": "1 KB", "x": 12, "y": 0.825, "note": "implied by 99 us ~ 12%"},
                 {"series": "1 KB", "x": 96, "y": 0.825 + 0.099, "note": "12-device time + 99 us measured"}]
    return ExperimentOutput(
        curves=curves,
        plot=PlotSpec(x_label="devices on the loop", y_label="shortest read time (ms)", title="Graph 9: 50 m loop, one active disk",
                      series=["1 KB", "2 KB"], logy=False),
        published=published,
        checks=checks,
    )


# ----------------------------------------------------------- Graphs 10-12 ----


def aggregate(kind: str, length_m: float, ctx: Context) -> dict[str, Any]:
    """Aggregate test: every disk busy with large sequential transfers."""
    n = 12 if ctx.quick else 24
    return loop_scenario(
        f"fcal aggregate {kind} {length_m} m",
        n,
        length_m,
        {
            "mode": "closed",
            "outstanding": 2,
            "request_bytes": 256 * KB,
            "read_fraction": 1.0 if kind == "read" else 0.0,
            "access": "sequential",
        },
        run={
            "precision": 0.0,
            "warmup_observations": 50,
            "max_observations": 300 if ctx.quick else 2000,
            "min_observations": 300 if ctx.quick else 2000,
        },
    )


@experiment(id="fcal-loop/graph10-12", title="Long loops: read time and aggregate bandwidth against loop length (Graphs 10-12)", seed_ref=SOURCE)
def graph10_12(ctx: Context) -> ExperimentOutput:
    lengths_km = [0.05, 7.5, 30.0] if ctx.quick else [0.05, 7.5, 15.0, 22.5, 30.0]
    devices = [12, 96]
    ios = 16 if ctx.quick else 128
    lat_grid = [(d, km) for d in devices for km in lengths_km]
    agg_grid = [(k, km) for k in ("read", "write") for km in lengths_km]
    runs = [single_disk_reads(d, km * 1000, KB, ios) for d, km in lat_grid] + [aggregate(k, km * 1000, ctx) for k, km in agg_grid]
    results = ctx.run_many(runs, desc="graph10-12")
    lat = dict(zip(lat_grid, results[: len(lat_grid)]))
    agg = dict(zip(agg_grid, results[len(lat_grid):]))
    rows = []
    for (d, km), r in lat.items():
        rows.append({"series": f"1 KB read, {d} devices (ms)", "x": km, "y": stat(r, "io_time_us", "min") / 1000, "y_ci": None,
                     "loop_trip_us": stat(r, "loop_trip_us")})
    for (k, km), r in agg.items():
        m = r.metrics.set_index("metric")
        rows.append({"series": f"aggregate {k} MB/s", "x": km, "y": m.loc["throughput_mb_s", "mean"], "y_ci": m.loc["throughput_mb_s", "ci_half_width"],
                     "iops": m.loc["iops", "mean"], "loop_utilization": m.loc["loop_utilization", "mean"]})
    curves = pd.DataFrame(rows)
    trip = {(d, km): stat(r, "loop_trip_us") for (d, km), r in lat.items()}
    base = trip[(12, 0.05)]
    node_us = (trip[(96, 0.05)] - base) / 84  # one port's elasticity buffer
    tput = {(k, km): stat(r, "throughput_mb_s") for (k, km), r in agg.items()}
    drop = {k: 1 - tput[(k, 30.0)] / tput[(k, 0.05)] for k in ("read", "write")}
    drop75 = 1 - tput[("read", 7.5)] / tput[("read", 0.05)]
    checks = [
        # "100 to 1000 times" a device's elasticity buffer is arithmetic on the inputs, not a result: noted, not checked.
        check("added trip time, 7.5 km loop (us)", 35.0, trip[(12, 7.5)] - base, tolerance=3.0,
              note=f"author's figure ('approximately 35 us'); 5 ns/m; {(trip[(12, 7.5)] - base) / node_us:.0f} (7.5 km) and "
                   f"{(trip[(12, 30.0)] - base) / node_us:.0f} (30 km) times one device's elasticity buffer"),
        check("added trip time, 30 km loop (us)", 150.0, trip[(12, 30.0)] - base, tolerance=5.0, note="author's figure"),
        check("one trip, 30 km and 96 disks (us)", 170.0, trip[(96, 30.0)], tolerance=5.0, note="verified with analyzer traces (hardware)"),
        check("writes lose more at 30 km than reads (write drop / read drop)", [1.0, 100.0], drop["write"] / max(drop["read"], 1e-9), tolerance=0.0,
              note="hardware measurement (conclusions); cause in the model: 4 disk receive buffers vs 16 in the adapter"),
        check("aggregate read loss at 7.5 km (%)", [5.0, 100.0], 100 * drop75, tolerance=0.0,
              note="'extended loop lengths (greater than 5 km) begin to show appreciable degradation' (hardware)"),
    ]
    return ExperimentOutput(
        curves=curves,
        plot=PlotSpec(x_label="loop length (km)", y_label="shortest 1 KB read (ms) / aggregate MB/s", title="Graphs 10-12: long loops"),
        published=[],
        checks=checks,
    )


# ----------------------------------------------------------- Graphs 13-16 ----


def fairness_run(devices: int, fair: bool, ctx: Context) -> dict[str, Any]:
    disks = [{"count": devices, "model": "cheetah9lp" if fair else "barracuda", "fair": fair}]
    return loop_scenario(
        f"fcal fairness {devices} {'fair' if fair else 'unfair'}",
        devices,
        30_000.0,
        {
            "mode": "closed",
            "outstanding": 4,
            "request_bytes": 64 * KB,
            "access": "sequential",
            "ios_per_disk": 10 if ctx.quick else 40,
        },
        disks=disks,
    )


def spearman(x: list[float], y: list[float]) -> float:
    rx = pd.Series(x).rank()
    ry = pd.Series(y).rank()
    return float(rx.corr(ry))


@experiment(id="fcal-loop/graph13-16", title="Access fairness on a 30 km loop: completion order and per-device bandwidth (Graphs 13-16)", seed_ref=SOURCE)
def graph13_16(ctx: Context) -> ExperimentOutput:
    configs = [(96, True), (26, True), (26, False)]
    results = ctx.run_many([fairness_run(n, f, ctx) for n, f in configs], desc="graph13-16")
    rows = []
    summary = {}
    for (n, fair), r in zip(configs, results):
        label = f"{n} {'fair' if fair else 'unfair'}"
        done, bw, prio = [], [], []
        for d in range(n):
            name = f"disk_{d:02d}"
            done.append(stat(r, f"{name}.completion_ms") / 1000)
            bw.append(stat(r, f"{name}.mb_s"))
            prio.append(-r.counters[f"{name}.al_pa"])  # higher = higher priority
        order = sorted(range(n), key=lambda i: prio[i])  # increasing priority
        for rank, i in enumerate(order):
            rows.append({"series": f"{label}: completion (s)", "x": rank, "y": done[i], "y_ci": None, "al_pa": -prio[i]})
            rows.append({"series": f"{label}: bandwidth (MB/s)", "x": rank, "y": bw[i], "y_ci": None, "al_pa": -prio[i]})
        summary[label] = (done, bw, prio)
    curves = pd.DataFrame(rows)

    def spread(label: str) -> float:
        done = summary[label][0]
        return max(done) / min(done)

    def cv(label: str) -> float:
        bw = pd.Series(summary[label][1])
        return float(bw.std() / bw.mean())

    ud, _, up = summary["26 unfair"]
    checks = [
        check("96 fair devices: last / first completion", 1.0, spread("96 fair"), tolerance=0.1,
              note="hardware (Graph 13): fair devices finish together"),
        check("26 fair devices: bandwidth coefficient of variation", [0.0, 0.05], cv("26 fair"), tolerance=0.0,
              note="hardware (Graph 15): even distribution over threads"),
        check("26 unfair devices: rank correlation of priority and completion time", [-1.0, -0.8], spearman(up, ud), tolerance=0.0,
              note="hardware (Graph 14): higher priority devices finish first"),
        check("26 unfair devices: first / last completion", [0.0, 0.7], min(ud) / max(ud), tolerance=0.0,
              note="hardware (Graph 14): 'finish long before' the lower-priority devices"),
        check("26 unfair devices: bandwidth coefficient of variation", [0.1, 10.0], cv("26 unfair"), tolerance=0.0,
              note="hardware (Graph 16): bandwidth skewed towards high priority"),
    ]
    return ExperimentOutput(
        curves=curves,
        plot=PlotSpec(x_label="device, in increasing priority", y_label="completion time (s)", title="Graphs 13-14: 30 km loop",
                      series=["96 fair: completion (s)", "26 fair: completion (s)", "26 unfair: completion (s)"]),
        published=[],
        checks=checks,
    )
