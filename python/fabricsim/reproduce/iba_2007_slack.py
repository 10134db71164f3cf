"""Seed 003 (Kim et al., IBA design space, TPDS 2007): does the multipath
tables' slack decide a figure? The tables keep, per destination and
setting of a switch's bits, the shortest agreeing path within ``slack``
hops of the shortest (docs/infiniband-model.md: 2, the study gives none).
Fig. 7 runs again with a slack of 3 for the four multipath schemes (the
others are unchanged), and every Fig. 7 prediction is judged on both,
with the largest change of a multipath family median shown per metric.
It adds no rows of its own.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pandas as pd

from .framework import Context, ExperimentOutput, PlotSpec, experiment
from .iba_2007 import SOURCE, figure_runs
from .iba_2007_ablation import fig7_predictions
from .iba_2007_schemes import DMP, FIGURES, RT, BE, CTL, MP_CREDIT, MP_CREDIT_DROP, MP_LFU, MP_LFU_DROP, Scheme
from .iba_2007_values import FigureRuns, family_value

SLACKS = (2, 3)
MULTIPATH = (MP_LFU, MP_LFU_DROP, MP_CREDIT, MP_CREDIT_DROP)


def with_slack(f: Any, slack: int) -> Any:
    if slack == 2:
        return f
    def widen(s: Scheme) -> Scheme:
        return dataclasses.replace(s, routing=dict(s.routing) | {"slack": slack}) if s in MULTIPATH else s
    return dataclasses.replace(f, schemes=tuple(widen(s) for s in f.schemes))


@experiment(id="iba-2007/slack", title="Fig. 7 with multipath tables of slack 3 against 2", seed_ref=SOURCE)
def slack(ctx: Context) -> ExperimentOutput:
    runs: dict[int, FigureRuns] = {k: figure_runs(ctx, with_slack(FIGURES["7"], k)) for k in SLACKS}
    rows: list[dict[str, Any]] = []
    verdicts = {k: fig7_predictions(fr) for k, fr in runs.items()}
    for cid, c2 in verdicts[2].items():
        c3 = verdicts[3][cid]
        rows.append({"series": "verdicts", "x": math.nan, "y": float(c2.verdict != c3.verdict), "y_ci": math.nan,
                     "metric": "verdict changed", "claim": cid, "slack 2": c2.verdict, "slack 3": c3.verdict})
    for s in MULTIPATH:
        for m in (DMP, RT, CTL, BE):
            for x in runs[2].xs:
                a, b = family_value(runs[2], s, x, m), family_value(runs[3], s, x, m)
                change = 100.0 * (b.median - a.median) / a.median if a.usable and b.usable and a.median else math.nan
                rows.append({"series": s.label, "x": 100.0 * x, "y": change, "y_ci": math.nan, "metric": m,
                             "slack 2": a.median, "slack 3": b.median})
    plot = PlotSpec("injection rate (%)", "family median, slack 3 against 2 (%)",
                    "Fig. 7's multipath schemes: what a slack of 3 hops changes", series=[s.label for s in MULTIPATH])
    return ExperimentOutput(curves=pd.DataFrame(rows), plot=plot, ours={})
