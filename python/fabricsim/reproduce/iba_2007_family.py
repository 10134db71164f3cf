"""Seed 003 (Kim et al., IBA design space, TPDS 2007): the rule that picks
the networks of Figs. 7-10, applied. Its static part (SPF's channel
dependencies cyclic, multipath's uniform bound above SPF's, most congested
first) is iba_2007_networks.candidates; its third part takes a run: SPF
with dropping (the study's remedy for SPF's deadlocks), at the figure's top
load and mix, for the figures' run length, must deliver (no deadlock,
accepted load within two points of offered). The first five candidates
that deliver are the family. SPF without dropping runs beside it on each
candidate, for the record: where the fabric is congested it deadlocks. The
experiment shows every candidate it tried, with its bounds and both runs,
and fails if the rule no longer gives the family the figures run on. On
every candidate it judges the study's two sentences on SPF's deadlocks:
SPF may deadlock, and dropping avoids it (with HOQLife 4 beside 6).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pandas as pd

from ..errors import FabricsimError
from .framework import Context, ExperimentOutput, PlotSpec, experiment
from .iba_2007 import SOURCE, run_all, scenario
from .iba_2007_networks import FAMILIES, FAMILY_SIZE, candidates
from .iba_2007_schemes import FIGURES, RT, SPF, SPF_DROP
from .claims import Measured, Value
from .iba_2007_values import deadlocked, delivers, value

BATCH = 6  # pilot runs started together (the rule stops at the fifth that delivers)
ALTERNATIVE_HOQ_LIFE = 4  # the hoq-life choice's other side (65 us), beside the deadlock rows


def choose(ctx: Context, switches: int) -> tuple[list[int], list[dict[str, Any]]]:
    f = FIGURES["7"] if switches == 15 else FIGURES["9"]
    f4 = dataclasses.replace(f, hoq_life=ALTERNATIVE_HOQ_LIFE)
    top = f.top_load
    kept: list[int] = []
    rows: list[dict[str, Any]] = []
    todo = candidates(switches)
    while todo and len(kept) < FAMILY_SIZE:
        batch, todo = todo[:BATCH], todo[BATCH:]
        # SPF+Drop, SPF, and SPF+Drop under the hoq-life choice's alternative (HOQLife 4).
        scs = [scenario(ctx, g, b.seed, s, None, top) for b in batch for g, s in ((f, SPF_DROP), (f, SPF), (f4, SPF_DROP))]
        results = iter(run_all(ctx, scs, desc=f"iba-2007 networks {switches}"))
        for b in batch:
            r, r_spf, r_drop4 = next(results), next(results), next(results)
            if len(kept) == FAMILY_SIZE:
                break
            ok, why = delivers(r)
            spf_ok, spf_why = delivers(r_spf)
            drop_dead, spf_dead = deadlocked(r), deadlocked(r_spf)
            if ok:
                kept.append(b.seed)
            rows.append({"switches": switches, "seed": b.seed, "spf_bound": b.spf, "multipath_bound": b.multipath,
                         "updown_bound": b.updown, "top_load": top, "delivers": ok, "why": why,
                         "rt_latency_us": value(r, RT)[0], "spf_delivers": spf_ok, "spf_why": spf_why,
                         "spf_rt_latency_us": value(r_spf, RT)[0], "kept": ok, "order": len(rows) + 1,
                         "drop_deadlocked": drop_dead, "spf_deadlocked": spf_dead,
                         "drop_hoq4_deadlocked": deadlocked(r_drop4)})
    return kept, rows


def deadlock_rows(rows: list[dict[str, Any]]) -> dict[str, Measured]:
    """f7-spf-deadlocks and f7-drop-avoids-deadlock, judged on every candidate the rule tried."""
    def names(where: list[dict[str, Any]]) -> str:
        return ", ".join(f"{r['switches']}-switch seed {r['seed']}" for r in where) or "none"

    spf = [r for r in rows if r["spf_deadlocked"]]
    drop = [r for r in spf if r["drop_deadlocked"]]
    drop4 = [r for r in spf if r["drop_hoq4_deadlocked"]]
    return {
        "f7-spf-deadlocks": Value(len(spf), None, f"SPF deadlocked at the top load on {len(spf)} of {len(rows)} "
                                  f"candidates: {names(spf)}"),
        "f7-drop-avoids-deadlock": Value(len(drop), None, f"SPF+Drop deadlocked at the top load on {len(drop)} of the "
                                         f"{len(spf)} candidates where SPF did: {names(drop)}; with HOQLife "
                                         f"{ALTERNATIVE_HOQ_LIFE} (the hoq-life choice's alternative) on {len(drop4)}: "
                                         f"{names(drop4)}"),
    }


@experiment(id="iba-2007/networks", title="The networks of Figs. 7-10: the family rule applied (bounds and SPF at the top load)",
            seed_ref=SOURCE)
def networks_rule(ctx: Context) -> ExperimentOutput:
    rows: list[dict[str, Any]] = []
    for switches in (15, 30):
        kept, tried = choose(ctx, switches)
        want = list(FAMILIES[switches])
        if not ctx.quick and kept != want:
            raise FabricsimError(f"the family rule now keeps {switches}-switch networks {kept}, the figures run on {want}: "
                                 "update iba_2007_networks.FAMILIES and rerun the figures")
        rows += tried
    curves = pd.DataFrame([{"series": f"{r['switches']} switches, {'delivers' if r['delivers'] else 'does not deliver'}",
                            "x": r["spf_bound"], "y": r["rt_latency_us"], "y_ci": math.nan, **r} for r in rows])
    plot = PlotSpec("SPF's uniform saturation bound", "SPF+Drop real-time latency at the top load (us)",
                    "The family rule: candidates tried, most congested first",
                    series=sorted(set(curves["series"])), logy=True)
    return ExperimentOutput(curves=curves, plot=plot, ours=dict(deadlock_rows(rows)))
