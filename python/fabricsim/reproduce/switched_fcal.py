"""Seed 001: Sinha and Du, "Switched FC-AL: An Arbitrated Loop Attachment for
Fibre Channel Switches": loops of one host, one switch-connected node (the
bridge) and disks, joined by a switch, circuit- or packet-switched.

Light load (Tables 5-7, Graphs 1-2): every host keeps one 64 KB read
outstanding (the seed's growing disk queueing and its re-attempts need more
than one command in the system: see docs/switched-loop-model.md), 4 loops of
8 disks unless stated. Heavy load (Graphs 3-4): 8 reads outstanding per disk
at every host, 4 loops.

Calibration: disk 1's spindle speed is set so that Table 6's 0%-global disk
time (4.86 ms) comes out (``sinha-disk1`` in the engine); every other number
is checked without further tuning. The loop is seed 001's Table 1: 100 MB/s
(1 GBaud), six words per node, 3.5 ns between nodes.
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from .framework import Context, ExperimentOutput, Panel, PlotSpec, check, experiment

SOURCE = "seed 001: Sinha and Du, Switched FC-AL: an arbitrated loop attachment for Fibre Channel switches"
GLOBAL = [0, 10, 20, 30, 40, 50]
MODES = ("circuit", "packet")

# Table 5: maximum circuit establishment time (ms), phase 1 and phase 2, circuit switching.
TABLE5 = {0: (0.6875, 0.697754), 10: (1.584229, 1.805176), 20: (2.085144, 2.28125),
          30: (2.462872, 2.783691), 40: (2.754395, 2.988281), 50: (3.386963, 3.453369)}
# Table 6: disk, loop, total time (ms) and (re-)attempts, per % global traffic.
TABLE6 = {
    "circuit": {0: (4.86336, 0.822962, 5.686322, 0.0), 10: (4.969455, 0.851242, 5.820697, 1.964646),
                20: (5.078583, 0.880659, 5.959242, 4.49596), 30: (5.091376, 0.926795, 6.018171, 10.15657),
                40: (5.112677, 0.985283, 6.09796, 18.69596), 50: (5.149949, 1.050099, 6.200048, 28.51717)},
    "packet": {0: (4.86336, 0.822964, 5.686324, 0.0), 10: (4.917598, 0.89883, 5.816428, 1.006711),
               20: (5.010529, 0.993514, 6.004043, 1.013423), 30: (5.053116, 1.123394, 6.17651, 1.020134),
               40: (5.067917, 1.251087, 6.319004, 1.026846), 50: (5.098782, 1.379847, 6.478629, 1.033557)},
}
# Table 7: 40% global, 2, 4 and 8 loops: disk, loop, total (ms), attempts (a count, unnormalised in the seed).
TABLE7 = {
    "circuit": {2: (5.029166, 0.980776, 6.019942, 45), 4: (5.122677, 0.985283, 6.107959, 17519), 8: (5.12838, 1.014671, 6.143051, 42740)},
    "packet": {2: (5.00825, 1.210549, 6.298799, 26), 4: (5.067917, 1.241087, 6.319005, 29), 8: (5.107891, 1.272409, 6.372301, 49)},
}
SATURATION_DISKS = 16
# The switch's routing time: two FC frame headers (36 bytes of 10 bits) at the loops'
# 1 GBaud, seed 000's rule for its own 3 us at 266 MBaud (docs/switched-loop-model.md).
SWITCH_ROUTING_NS = 2 * 36 * 10 / 1.0
SATURATION_MB_S = 90.04
PACKET_LATENCY_MS = {10: 68.52, 12: 86.52}


def switched_scenario(name: str, loops: int, disks: int, switching: str, global_pct: float, load: str,
                      run: dict[str, Any], **switched: Any) -> dict[str, Any]:
    ports = disks + 2
    return {
        "name": name,
        "run": {"seed": 1, **run},
        "switched_loop": {"loops": loops, "switching": switching, "global_fraction": global_pct / 100.0, "load": load, **switched},
        # Table 1: 100 MB/s links, 6 words per node, 3.5 ns between adjacent nodes.
        "loop": {"baud": 1.0e9, "length_m": float(ports), "propagation_ns_per_m": 3.5, "node_delay_words": 6.0},
        "disks": [{"count": disks, "model": "sinha-disk1", "queue_depth": 256}],
        # Seed 000's switch, its routing time the same two header times at the loops' 100 MB/s.
        "switch": {"routing_time_ns": SWITCH_ROUTING_NS},
    }


def light_run(ctx: Context) -> dict[str, Any]:
    n = 3000 if ctx.quick else 40000
    return {"precision": 0.0, "warmup_observations": 200, "max_observations": n, "min_observations": n}


def heavy_run(ctx: Context) -> dict[str, Any]:
    n = 3000 if ctx.quick else 30000
    return {"precision": 0.0, "warmup_observations": 1000 if ctx.quick else 5000, "max_observations": n, "min_observations": n}


def m(r: Any, name: str, col: str = "mean") -> float:
    return float(r.metric(name, col))


def light_row(r: Any, mode: str) -> dict[str, float]:
    attempts = m(r, "retries_per_global_io") if mode == "circuit" else m(r, "switch_requests_per_global_io") / 3.0
    return {
        "disk_ms": m(r, "disk_time_us") / 1000, "loop_ms": m(r, "loop_time_us") / 1000, "total_ms": m(r, "io_time_us") / 1000,
        "total_ci_ms": m(r, "io_time_us", "ci_half_width") / 1000,
        "attempts": attempts if m(r, "global_share") > 0 else 0.0,
        "retries_per_io": m(r, "retries_per_io"),
        "est1_max_ms": m(r, "establish_command_us", "max") / 1000, "est2_max_ms": m(r, "establish_data_us", "max") / 1000,
    }


# ------------------------------------------------------- Tables 5-6, Graphs 1-2 ----


@experiment(id="switched-fcal/tables5-6", title="Light load: circuit establishment, latencies and attempts against global traffic (Tables 5-6, Graphs 1-2)", seed_ref=SOURCE)
def tables5_6(ctx: Context) -> ExperimentOutput:
    grid = [(mode, g) for mode in MODES for g in GLOBAL]
    results = ctx.run_many([switched_scenario(f"switched light {mode} {g}%", 4, 8, mode, g, "light", light_run(ctx)) for mode, g in grid],
                           desc="tables5-6")
    ours = {k: light_row(r, k[0]) for k, r in zip(grid, results)}
    rows = []
    for (mode, g), o in ours.items():
        rows.append({"series": f"{mode}: loop time (ms)", "metric": "loop", "x": g, "y": o["loop_ms"], "y_ci": None})
        rows.append({"series": f"{mode}: total time (ms)", "metric": "total", "x": g, "y": o["total_ms"], "y_ci": o["total_ci_ms"]})
        label = "re-attempts per global read" if mode == "circuit" else "attempts per switch request"
        rows.append({"series": f"{mode}: {label}", "metric": "attempts", "x": g, "y": o["attempts"], "y_ci": None})
        for k in ("disk_ms", "retries_per_io", "est1_max_ms", "est2_max_ms"):
            rows.append({"series": f"{mode}: {k}", "metric": k, "x": g, "y": o[k], "y_ci": None})
    curves = pd.DataFrame(rows)
    published = []
    for mode in MODES:
        label = "re-attempts per global read" if mode == "circuit" else "attempts per switch request"
        for g, (d, lp, t, a) in TABLE6[mode].items():
            published += [{"series": f"{mode}: loop time (ms)", "metric": "loop", "x": g, "y": lp, "note": "Table 6"},
                          {"series": f"{mode}: total time (ms)", "metric": "total", "x": g, "y": t, "note": "Table 6"},
                          {"series": f"{mode}: {label}", "metric": "attempts", "x": g, "y": a, "note": "Table 6 / Graph 2"}]
    checks = []
    for mode in MODES:
        for g in GLOBAL:
            d, lp, t, a = TABLE6[mode][g]
            o = ours[(mode, g)]
            note = "calibration point (disk 1's spindle speed)" if g == 0 else "not tuned"
            checks.append(check(f"Table 6 {mode} {g}%: disk time (ms)", d, o["disk_ms"], rel_tolerance=0.05, note=note))
            checks.append(check(f"Table 6 {mode} {g}%: loop time (ms)", lp, o["loop_ms"], rel_tolerance=0.25,
                                note="arbitration, opens and 32 frames of 2 KB; the seed's frame and buffer sizes are not given"))
            checks.append(check(f"Table 6 {mode} {g}%: total time (ms)", t, o["total_ms"], o["total_ci_ms"], rel_tolerance=0.05))
        for g in GLOBAL[1:]:
            a = TABLE6[mode][g][3]
            if mode == "packet":
                checks.append(check(f"Table 6 packet {g}%: attempts per switch request", a, ours[(mode, g)]["attempts"], tolerance=0.1,
                                    note="'very few attempts'"))
            else:
                checks.append(check(f"Table 6 circuit {g}%: re-attempts per global read", a, ours[(mode, g)]["attempts"], rel_tolerance=0.5,
                                    note="depends on what the seed counts as a busy remote loop; see the model page"))
    for g in GLOBAL:
        p1, p2 = TABLE5[g]
        o = ours[("circuit", g)]
        checks.append(check(f"Table 5 {g}%: max circuit establishment, phase 1 (ms)", p1, o["est1_max_ms"], rel_tolerance=0.5,
                            note="a maximum: grows with run length"))
        checks.append(check(f"Table 5 {g}%: max circuit establishment, phase 2 (ms)", p2, o["est2_max_ms"], rel_tolerance=0.5,
                            note="a maximum: grows with run length"))
    c = {g: ours[("circuit", g)]["attempts"] for g in GLOBAL}
    checks.append(check("circuit re-attempts rise steeply: 50% / 10% global", [3.0, 1e9], c[50] / max(c[10], 1e-9), tolerance=0.0,
                        note="seed: 28.5 / 1.96 = 14.5"))
    checks.append(check("packet attempts stay near one (largest, 10-50%)", [1.0, 1.1],
                        max(ours[("packet", g)]["attempts"] for g in GLOBAL[1:]), tolerance=0.0))
    gaps = [ours[("packet", g)]["total_ms"] - ours[("circuit", g)]["total_ms"] for g in GLOBAL[1:]]
    checks.append(check("light load: circuit total time below packet (smallest gap, ms, 10-50%)", [0.0, 1e9], min(gaps), tolerance=0.0))
    for mode in MODES:
        checks.append(check(f"{mode}: loop time grows with global traffic (50% - 0%, ms)", [0.0, 1e9],
                            ours[(mode, 50)]["loop_ms"] - ours[(mode, 0)]["loop_ms"], tolerance=0.0))
    return ExperimentOutput(
        curves=curves,
        plot=PlotSpec(x_label="global traffic (%)", y_label="", title="Tables 5-6, Graphs 1-2: light load, 4 loops of 8 disks",
                      panels=[Panel("loop", "loop time (ms)", "Graph 1"), Panel("attempts", "(re-)attempts", "Graph 2"),
                              Panel("total", "total time (ms)", "Table 6")]),
        published=published,
        checks=checks,
    )


# ------------------------------------------------------------------- Table 7 ----


@experiment(id="switched-fcal/table7", title="Light load, 40% global traffic: 2, 4 and 8 loops (Table 7)", seed_ref=SOURCE)
def table7(ctx: Context) -> ExperimentOutput:
    grid = [(mode, n) for mode in MODES for n in (2, 4, 8)]
    results = ctx.run_many([switched_scenario(f"switched light {mode} {n} loops", n, 8, mode, 40, "light", light_run(ctx)) for mode, n in grid],
                           desc="table7")
    ours = {k: light_row(r, k[0]) for k, r in zip(grid, results)}
    rows = [{"series": f"{mode}: total time (ms)", "x": n, "y": o["total_ms"], "y_ci": o["total_ci_ms"], "disk_ms": o["disk_ms"],
             "loop_ms": o["loop_ms"], "attempts": o["attempts"]} for (mode, n), o in ours.items()]
    published = [{"series": f"{mode}: total time (ms)", "x": n, "y": v[2], "note": "Table 7"} for mode in MODES for n, v in TABLE7[mode].items()]
    checks = []
    for (mode, n), o in ours.items():
        d, lp, t, _ = TABLE7[mode][n]
        checks.append(check(f"Table 7 {mode} {n} loops: disk time (ms)", d, o["disk_ms"], rel_tolerance=0.05))
        checks.append(check(f"Table 7 {mode} {n} loops: loop time (ms)", lp, o["loop_ms"], rel_tolerance=0.25))
        checks.append(check(f"Table 7 {mode} {n} loops: total time (ms)", t, o["total_ms"], o["total_ci_ms"], rel_tolerance=0.05))
    for mode in MODES:
        growth = ours[(mode, 8)]["total_ms"] / ours[(mode, 2)]["total_ms"] - 1
        checks.append(check(f"{mode}: marginal latency growth 2 -> 8 loops (%)", [0.0, 5.0], 100 * growth, tolerance=0.5,
                            note="seed: circuit +2.0%, packet +1.2%"))
    return ExperimentOutput(
        curves=pd.DataFrame(rows),
        plot=PlotSpec(x_label="loops on the switch", y_label="total time (ms)", title="Table 7: 40% global traffic"),
        published=published,
        checks=checks,
    )


# --------------------------------------------------------------- Graphs 3-4 ----


def heavy_row(r: Any, loops: int) -> dict[str, float]:
    return {"mb_s": m(r, "throughput_mb_s") / loops, "latency_ms": m(r, "io_time_us") / 1000,
            "utilization": m(r, "loop_utilization")}


@experiment(id="switched-fcal/graphs3-4", title="Heavy load: disks to saturate a loop; throughput against latency with global traffic (Graphs 3-4)", seed_ref=SOURCE)
def graphs3_4(ctx: Context) -> ExperimentOutput:
    counts = [4, 8, 12, 16, 20] if ctx.quick else [2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 24]
    sat = ctx.run_many([switched_scenario(f"switched heavy 1 loop {n} disks", 1, n, "circuit", 0, "heavy", heavy_run(ctx)) for n in counts],
                       desc="graph3 saturation")
    sat_rows = {n: heavy_row(r, 1) for n, r in zip(counts, sat)}
    grid = [(mode, d, g) for mode in MODES for d in (10, 12) for g in GLOBAL]
    res = ctx.run_many([switched_scenario(f"switched heavy {mode} {d} disks {g}%", 4, d, mode, g, "heavy", heavy_run(ctx)) for mode, d, g in grid],
                       desc="graphs3-4")
    ours = {k: heavy_row(r, 4) for k, r in zip(grid, res)}
    rows = [{"series": "disks per loop (1 loop, 0% global)", "x": o["mb_s"], "y": o["latency_ms"], "y_ci": None, "label": n,
             "metric": "saturation", "utilization": o["utilization"]} for n, o in sat_rows.items()]
    for (mode, d, g), o in ours.items():
        rows.append({"series": f"{mode}, {d} disks/loop", "x": o["mb_s"], "y": o["latency_ms"], "y_ci": None, "label": g,
                     "metric": mode, "utilization": o["utilization"]})
    peak = max(o["mb_s"] for o in sat_rows.values())
    knee = min(n for n, o in sat_rows.items() if o["mb_s"] >= 0.95 * peak)
    checks = [
        check("disks of type 1 that saturate one loop (95% of the peak)", SATURATION_DISKS, knee, tolerance=2.0,
              note="disk 1 is calibrated on light-load disk time; the seed's 16 implies a slower disk under load"),
        check("peak throughput of one loop (MB/s)", SATURATION_MB_S, peak, rel_tolerance=0.1),
    ]
    for mode in MODES:
        for d in (10, 12):
            t0, t50 = ours[(mode, d, 0)], ours[(mode, d, 50)]
            checks.append(check(f"{mode}, {d} disks: throughput falls 0 -> 50% global (MB/s)", [0.0, 1e9], t0["mb_s"] - t50["mb_s"], tolerance=0.0))
            checks.append(check(f"{mode}, {d} disks: latency rises 0 -> 50% global (ms)", [0.0, 1e9], t50["latency_ms"] - t0["latency_ms"], tolerance=0.0))
    for d in (10, 12):
        checks.append(check(f"{d} disks, 50% global: packet throughput above circuit (MB/s)", [0.0, 1e9],
                            ours[("packet", d, 50)]["mb_s"] - ours[("circuit", d, 50)]["mb_s"], tolerance=0.0))
        lat = [ours[("packet", d, g)]["latency_ms"] for g in GLOBAL]
        checks.append(check(f"packet latency, {d} disks/loop (ms, range over 0-50%)", PACKET_LATENCY_MS[d], min(lat, key=lambda x: abs(x - PACKET_LATENCY_MS[d])),
                            rel_tolerance=0.15, note="the seed does not say at which global share; the closest of ours is compared"))
    return ExperimentOutput(
        curves=pd.DataFrame(rows),
        plot=PlotSpec(x_label="throughput per loop (MB/s)", y_label="latency (ms)", title="Graphs 3-4: heavy load, 8 reads outstanding per disk",
                      panels=[Panel("saturation", "latency (ms)", "Graph 3: one loop, disks per loop"),
                              Panel("circuit", "latency (ms)", "Graph 3: circuit switched, 4 loops"),
                              Panel("packet", "latency (ms)", "Graph 4: packet switched, 4 loops")]),
        published=[],
        checks=checks,
    )
