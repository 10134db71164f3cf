"""Congestion control, switch arbitration and fairness (Gran, Zahavi,
Reinemo, Skeie, Shainer, Lysne, CCGrid 2011): flows arriving at a hot-spot
switch on different input ports are marked by the order the switch's
arbitration serves them unless the congested state holds over a queue
change of more than one MTU (a threshold hysteresis). The abstract's claim,
on one switch: four HCAs each offering 60% of a link to a fifth, under
control, over hysteresis values from none to four MTUs.
"""

from __future__ import annotations

import math
import statistics
from typing import Any

import pandas as pd

from ..congestion import sent_shares
from .claims import Compare, Value
from .framework import Context, ExperimentOutput, PlotSpec, experiment
from .ib_cc_2010 import mean_ci

SOURCE = ("Gran, Zahavi, Reinemo, Skeie, Shainer, Lysne, On the relation between congestion control, switch "
          "arbitration and fairness, CCGrid 2011 (the abstract)")
SL = 8
SENDERS = 4
MTU_BLOCKS = 17  # a 1,024-byte packet with its headers in 64-byte credit blocks
BLOCK = 64
HYSTERESIS_MTUS = (0.0, 0.5, 1.0, 1.5, 2.0, 4.0)
TIMERS = (10, 15, 20, 25, 30, 40, 60, 100)  # x 1.024 us: the parking lot's grid (ib_cc_2010.TIMERS)
EVEN_PCT = 5.0  # fair: the spread within 5% of its value without control
BUSY = 0.95  # and the target's link at least this busy, of its use without control


SEEDS = (1, 2, 3, 4, 5)


def scenario(ctx: Context, mtus: float | None, timer: int, seed: int = 1) -> dict[str, Any]:
    """The hot-spot switch; ``mtus`` None runs the HCAs without reacting (on SL 0 only)."""
    if mtus is None:
        cc: dict[str, Any] = {"defaults": "mellanox", "options": {"cc_ca_cong_setting_control_map": 1}}
        name = "without control"
    else:
        cc = {"defaults": "mellanox", "hysteresis_bytes": int(round(mtus * MTU_BLOCKS * BLOCK)),
              "options": {"cc_sw_cong_setting_threshold": 8, "cc_sw_cong_setting_marking_rate": 0,
                          "cc_ca_cong_setting_ccti_timer": [f"{SL} {timer}"]}}
        name = f"hysteresis {mtus:g} MTU, timer {timer}"
    return {
        "name": f"ib-cc-2011 hot-spot switch, {name}, seed {seed}",
        "run": {"seed": seed, "warmup_observations": 0, "max_observations": 100_000_000, "min_observations": 0,
                "precision": 0.0, "max_time_ms": 5.0 if ctx.quick else 20.0},
        "ib": {
            "topology": {"kind": "custom", "hcas": [SENDERS + 1], "cables": []},
            "workload": {"injection_rate": 0.6, "real_time_share": 0.0, "control_period_ms": 0.0, "pattern": "incast",
                         "incast_target": 0, "best_effort_sls": [SL]},
            "congestion_control": cc,
        },
    }


def shares(r: Any) -> list[float]:
    """Each sender's share of the data packets the four sent."""
    return sent_shares(r, range(1, SENDERS + 1))


def spread(r: Any) -> float:
    """The most-served input's share over the least-served's (1: even)."""
    s = shares(r)
    return max(s) / min(s)


@experiment(id="ib-cc-2011/hysteresis",
            title="Hot-spot inputs under congestion control: fairness against the threshold's hysteresis", seed_ref=SOURCE)
def hysteresis(ctx: Context) -> ExperimentOutput:
    seeds = SEEDS[:2] if ctx.quick else SEEDS
    plan = [(h, t, k) for t in TIMERS for h in HYSTERESIS_MTUS for k in seeds] + [(None, 0, k) for k in seeds]
    results = dict(zip(plan, ctx.run_many([scenario(ctx, h, t, k) for h, t, k in plan], desc="hysteresis")))
    full = statistics.fmean(results[(None, 0, k)].counters["best_effort_packets_delivered"] for k in seeds)
    even = statistics.fmean(spread(results[(None, 0, k)]) for k in seeds)

    def spread_ci(h: float, t: int) -> tuple[float, float]:
        """The spread at hysteresis ``h`` and timer ``t``, mean of the seeds (two or more) and its 95% half-width."""
        m, ci = mean_ci([spread(results[(h, t, k)]) for k in seeds])
        assert ci is not None, "two seeds or more"
        return m, ci

    def busy(h: float, t: int) -> float:
        return statistics.fmean(results[(h, t, k)].counters["best_effort_packets_delivered"] for k in seeds) / full

    rows = []
    for t in TIMERS:
        for h in HYSTERESIS_MTUS:
            m, ci = spread_ci(h, t)
            rows.append({"series": f"timer {t}", "x": h, "y": m, "y_ci": ci, "metric": "spread", "busy": busy(h, t)})
            rows.append({"series": f"timer {t}: the target's link", "x": h, "y": busy(h, t), "y_ci": math.nan,
                         "metric": "busy"})

    def judged(h: float, timers: tuple[int, ...], least: bool, note: str) -> Compare:
        """The spread at hysteresis ``h`` against the inputs without control (their arbitration's own,
        even), at the one of ``timers`` where the spread is least or most."""
        pick = min if least else max
        t = pick(timers, key=lambda t: spread_ci(h, t)[0])
        m, ci = spread_ci(h, t)
        detail = "; ".join(f"timer {u}: {spread_ci(h, u)[0]:.3f} ± {spread_ci(h, u)[1]:.3f}, the target's link "
                           f"{busy(h, u):.0%} of its use without control" for u in TIMERS)
        return Compare(m, even, ci, None, f"{note}: the most-served input's share over the least-served's, mean of "
                       f"{len(seeds)} seeds with its 95% CI, against {even:.3f} without control; {detail}; judged at timer {t}")

    # The timers where the inputs are served unevenly without hysteresis: beyond the CI and outside the band
    # 'resolved' asks for, so that a setting counts as resolving only what it changes.
    unfair = tuple(t for t in TIMERS if spread_ci(0.0, t)[0] - spread_ci(0.0, t)[1] > even
                   and spread_ci(0.0, t)[0] / even - 1 > EVEN_PCT / 100) or TIMERS
    # One MTU changes nothing here when its runs are those without hysteresis, bit for bit.
    same = all(results[(1.0, t, k)].counters == results[(0.0, t, k)].counters for t in TIMERS for k in seeds)
    above = [h for h in HYSTERESIS_MTUS if h > 1.0]

    def resolves(h: float, t: int) -> bool:
        return abs(spread_ci(h, t)[0] / even - 1) <= EVEN_PCT / 100 and busy(h, t) >= BUSY

    resolving = [(h, t) for h in above for t in unfair if resolves(h, t)]
    levels = "; ".join(f"{h:g} MTU at timer {t}: {spread_ci(h, t)[0]:.3f} ± {spread_ci(h, t)[1]:.3f}, the link "
                       f"{busy(h, t):.0%}" for h in HYSTERESIS_MTUS for t in TIMERS)
    ours = {
        "hy-unfair-without": judged(0.0, TIMERS, False, "no hysteresis, at the timer where it is most"),
        "hy-one-mtu-not-enough": judged(1.0, unfair, True, f"a hysteresis of one MTU ({MTU_BLOCKS * BLOCK} bytes), at "
                                        f"the timers where the inputs are uneven without hysteresis "
                                        f"({', '.join(map(str, unfair))}), where it is least; its runs are "
                                        + ("those without hysteresis bit for bit (every counter, every seed and "
                                           "timer): one MTU changed no marking" if same else
                                           "not those without hysteresis")),
        "hy-more-than-one-mtu-resolves": Value(len(resolving), None,
                                               f"of the hysteresis values above one MTU ({', '.join(f'{h:g}' for h in above)} "
                                               f"MTUs) at the timers where the inputs are uneven without it "
                                               f"({', '.join(map(str, unfair))}), those where the spread is within "
                                               f"{EVEN_PCT:g}% of its value without control ({even:.3f}) and the "
                                               f"target's link at least {BUSY:.0%} of its use without control: "
                                               + ("; ".join(f"{h:g} MTU, timer {t}" for h, t in resolving) or "none")
                                               + f". Every level (mean of {len(seeds)} seeds with its 95% CI): {levels}"),
    }
    return ExperimentOutput(
        curves=pd.DataFrame(rows),
        plot=PlotSpec("threshold hysteresis (MTUs)", "most-served input's share over the least's",
                      "Four inputs to one hot-spot output under congestion control",
                      series=[f"timer {t}" for t in TIMERS]),
        ours=ours)
