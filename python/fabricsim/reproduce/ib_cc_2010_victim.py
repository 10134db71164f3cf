"""Contributors and a victim flow on a 64-HCA fat tree, with and without
InfiniBand congestion control (Gran et al., IPDPS 2010: congestion that
"throttles innocent traffic flows in the network").

Six contributors on leaves of the three other groups of a 4-ary 3-tree
(OpenSM's ftree routing) send to HCA 0; the victim, HCA 33, sends to HCA 16
and shares two links with contributor 32 (its leaf's up-link to switch 25
and that switch's up-link to top switch 33, which both flows take: the
tables route by destination, and 0 and 16 leave leaf 9 on the same port and
switch 25 towards the same top switch), then goes elsewhere. Every flow
offers 60% of a link, so the hot link is offered 360%.

Without control (derived before any run): top switch 33 serves its three
inputs towards HCA 0 in turn, a third of the hot link each; switch 25
serves its two inputs (leaf 9 with contributor 32 and the victim, leaf 10
with contributor 36) in turn on its up-link; leaf 9 serves contributor 32
and the victim in turn, so their packets alternate in the input buffers they
share and the victim moves only when contributor 32's packet ahead of it
does: X_v = X_32, X_36 = X_32 + X_v, X_32 + X_36 = 1/3, so the victim gets
1/9 of a link (11.1%) of the 60% it offers.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from ..congestion import flow_series
from .claims import Compare, Value
from .framework import Context, ExperimentOutput, PlotSpec, experiment
from .ib_cc_2010 import SDR_PACKET_S, SEEDS, SL, SOURCE, link_busy, mean_ci

CONTRIBUTORS = (20, 24, 32, 36, 52, 56)  # two leaves in each of the groups 1-3
HOT = 0
VICTIM = (33, 16)  # source, destination: shares leaf 9's up-link and switch 25's with contributor 32
OFFERED = 0.6  # every flow, of its link
VICTIM_BOUND = 1 / 9  # the victim's share of a link without control (derived in the docstring)
# Thresholds x CCTI timers (x 1.024 us) x tables (shift:multiplier of entry i), marking rate 0 (the choice `victim-grid`).
GRID = tuple((t, c, table) for t in (2, 4, 8, 15) for c in (15, 100, 150, 200, 300, 500, 1000, 3000, 10000)
             for table in ("2:i", "0:i", "0:4i"))
QUICK_GRID = ((4, 100, "2:i"), (15, 100, "2:i"))
KEEPS = 0.9  # the victim keeps at least this share of what it offers
HOT_BUSY = 0.95  # while the hot link stays at least this busy
ROOT_ALTERNATIVE = "no_credit_wait"  # the root-or-victim reading's alternative (the choice `victim-root`)


def scenario(ctx: Context, setting: tuple[int, int, str] | None, root: str | None = None,
             seed: int = 1) -> dict[str, Any]:
    """The flows for 20 ms (quick: 5); ``setting`` (threshold, timer, table)
    runs control on the vendor's other defaults with marking rate 0; None
    lets the HCAs react on SL 0 only, so the flows on SL 8 are never slowed
    while each HCA records what its flows sent. ``root`` names the
    root-or-victim reading (None: the declared one)."""
    length_ms = 5.0 if ctx.quick else 20.0
    if setting is None:
        options: dict[str, Any] = {"cc_ca_cong_setting_control_map": 1}
        name = "without control"
    else:
        threshold, timer, table = setting
        shift, step = table.split(":")
        times = int(step[:-1] or 1)  # "i", "4i": multiplier i or 4i
        options = {"cc_sw_cong_setting_threshold": threshold, "cc_sw_cong_setting_marking_rate": 0,
                   "cc_ca_cong_setting_ccti_timer": [f"{SL} {timer}"],
                   "cc_cct": ",".join(f"{shift}:{min(times * i, 16383)}" for i in range(128))}
        name = f"threshold {threshold}, timer {timer}, table {table}" + (f", root {root}" if root else "")
    control: dict[str, Any] = {"defaults": "mellanox", "options": options, "series_us": 1000.0 * length_ms}
    if root:
        control["root"] = root
    return {
        "name": f"ib-cc-2010 victim {name}" + (f", seed {seed}" if seed != 1 else ""),
        "run": {"seed": seed, "warmup_observations": 0, "max_observations": 100_000_000, "min_observations": 0, "precision": 0.0,
                "max_time_ms": length_ms},
        "ib": {
            "topology": {"kind": "fat_tree", "arity": 4, "levels": 3},
            "routing": {"algorithm": "ftree"},
            "workload": {"injection_rate": OFFERED, "real_time_share": 0.0, "control_period_ms": 0.0,
                         "pattern": "flows", "flows": [[c, HOT] for c in CONTRIBUTORS] + [list(VICTIM)],
                         "best_effort_sls": [SL]},
            "congestion_control": control,
        },
    }


def path(routing: dict[str, Any], src: int, dst: int) -> list[tuple[int, int]]:
    """The (switch, output port) pairs of the route from HCA ``src`` to HCA
    ``dst`` in the forwarding tables of ``fabricsim.api.routing``."""
    switches = {s["switch"]: s for s in routing["switches"]}
    at = next(n for n, s in switches.items() if f"HCA {src}" in s["ports"])
    hops: list[tuple[int, int]] = []
    while True:
        port = switches[at]["forwarding"][dst][0]
        hops.append((at, port))
        label = switches[at]["ports"][port]
        if label == f"HCA {dst}":
            return hops
        if not label.startswith("trunk to switch ") or len(hops) > len(switches):
            raise ValueError(f"no route from HCA {src} to HCA {dst} at switch {at} (port {port}: {label})")
        at = int(label.split()[3])


def shared_links(scenario_: dict[str, Any]) -> list[tuple[int, int]]:
    """The links the victim's route shares with contributor 32's (the premise of the derivation)."""
    from ..api import routing

    tables = routing(scenario_)
    return [h for h in path(tables, *VICTIM) if h in set(path(tables, 32, HOT))]


def link_shares(r: Any, length_ms: float) -> tuple[float, float, dict[int, float]]:
    """The victim's throughput and the hot link's busy share, each as what
    was delivered (to HCA 16, which only the victim sends to, and to HCA 0)
    over the run, of a link; and each contributor's share of a link as it
    sent it, from the per-flow series (one interval: the run)."""
    f = flow_series(r).groupby(["hca", "dst"])["link_share"].sum()
    each = {c: float(f.get((c, HOT), 0.0)) for c in CONTRIBUTORS}
    return link_busy(r, VICTIM[1], SDR_PACKET_S, length_ms), link_busy(r, HOT, SDR_PACKET_S, length_ms), each


@experiment(id="ib-cc-2010/victim",
            title="Contributors to a hot spot and a victim flow sharing their links, with and without congestion control",
            seed_ref=SOURCE)
def victim(ctx: Context) -> ExperimentOutput:
    grid = QUICK_GRID if ctx.quick else GRID
    length = 5.0 if ctx.quick else 20.0
    seeds = SEEDS[:2] if ctx.quick else SEEDS
    off, *every = ctx.run_many([scenario(ctx, None)] + [scenario(ctx, s) for s in grid]
                               + [scenario(ctx, s, ROOT_ALTERNATIVE) for s in grid]
                               + [scenario(ctx, None, seed=k) for k in seeds[1:]], desc="victim")
    runs, alternative, off_seeds = every[:len(grid)], every[len(grid):2 * len(grid)], [off, *every[2 * len(grid):]]
    v_off, hot_off, each_off = link_shares(off, length)
    v_mean, v_ci = mean_ci([100 * link_shares(r, length)[0] for r in off_seeds])
    shared = shared_links(scenario(ctx, None))
    rows = [{"series": "without control", "x": math.nan, "y": v_off / OFFERED, "y_ci": math.nan, "hot_link": hot_off,
             "metric": "victim"}]
    results = []
    for (threshold, timer, table), r in zip(grid, runs):
        v, hot, _ = link_shares(r, length)
        results.append(((threshold, timer, table), v / OFFERED, hot))
        rows.append({"series": f"threshold {threshold}, table {table}", "x": timer * 1.024, "y": v / OFFERED,
                     "y_ci": math.nan, "hot_link": hot, "metric": "victim"})
    resolved = [s for s, kept, hot in results if kept >= KEEPS and hot >= HOT_BUSY]

    def named(s: tuple[int, int, str]) -> str:
        return f"threshold {s[0]}, timer {s[1]}, table {s[2]}"

    def frontier(results: list[tuple[tuple[int, int, str], float, float]]) -> str:
        keeping = [(hot, s) for s, kept, hot in results if kept >= KEEPS]
        busy = [(kept, s) for s, kept, hot in results if hot >= HOT_BUSY]
        return (f"the busiest hot link among settings where the victim keeps {KEEPS:.0%}: "
                + (f"{max(keeping)[0]:.1%} ({named(max(keeping)[1])})" if keeping else "none keeps it")
                + f"; the most the victim keeps where the hot link is {HOT_BUSY:.0%} busy: "
                + (f"{max(busy)[0]:.1%} ({named(max(busy)[1])})" if busy else "none is"))

    alt = [(s, v / OFFERED, hot) for s, (v, hot, _) in zip(grid, (link_shares(r, length) for r in alternative))]
    alt_resolved = [s for s, kept, hot in alt if kept >= KEEPS and hot >= HOT_BUSY]
    contributors = ", ".join(f"{c} {x:.3f}" for c, x in each_off.items())
    ours = {
        "hv-victim-throttled": Compare(100 * OFFERED, v_mean, None, v_ci,
                                       f"the victim (HCA {VICTIM[0]} to HCA {VICTIM[1]}) offers {100 * OFFERED:g}% of "
                                       f"a link and gets {v_mean:.1f}% delivered without control (mean of "
                                       f"{len(off_seeds)} seeds with its 95% CI; {100 * v_off:.1f}% at seed 1), where "
                                       f"the mechanism derived before the run gives {100 * VICTIM_BOUND:.1f}% (it moves "
                                       f"only with contributor 32, whose packets alternate with its own); the "
                                       f"contributors' shares of a link as sent, seed 1: {contributors}; the hot link "
                                       f"{hot_off:.1%} busy (delivered); the links the victim shares with contributor "
                                       f"32 in the run's tables (switch, port): {shared}; 20 ms a run"),
        "cc-common-subset": Value(len(resolved), None,
                                  f"settings of the victim's grid (which holds the parking lot's solving setting, "
                                  f"threshold 8, timer 15, the i/4 table) that resolve the victim: "
                                  + ("; ".join(named(s) for s in resolved) or "none")
                                  + "; a setting efficient in every scenario of ours must be one of them"),
        "hv-resolved-with-cc": Value(len(resolved), None,
                                     f"of {len(grid)} settings (marking rate 0; thresholds 2, 4, 8 and 15; CCTI timers "
                                     f"15 to 10,000 x 1.024 us; tables of i/4, i and 4i packet times), those under "
                                     f"which the victim keeps at least {KEEPS:.0%} of what it offers while the hot "
                                     f"link is at least {HOT_BUSY:.0%} busy: "
                                     + ("; ".join(named(s) for s in resolved) or "none")
                                     + f". Declared reading: {frontier(results)}. Under the root-or-victim reading "
                                       f"{ROOT_ALTERNATIVE} (the victim-root ablation): {len(alt_resolved)} resolve it"
                                       + (f" ({'; '.join(named(s) for s in alt_resolved)})" if alt_resolved else "")
                                       + f"; {frontier(alt)}. Without control the victim keeps {v_off / OFFERED:.1%} and the "
                                       f"hot link is {hot_off:.1%} busy; one run of 20 ms a setting"),
    }
    return ExperimentOutput(
        curves=pd.DataFrame(rows),
        plot=PlotSpec("CCTI timer (us)", "the victim's throughput, of what it offers",
                      "A victim flow beside a hot spot's contributors, 64-HCA fat tree"),
        ours=ours)
