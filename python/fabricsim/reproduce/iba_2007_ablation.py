"""Seed 003 (Kim et al., IBA design space, TPDS 2007): what the declared
readings decide. Fig. 7 runs again under each reading's other side (a video
frame handed to the HCA whole; one HCA buffer shared by every SL; HOQLife 4
for the dropping schemes: the ablations of docs/infiniband-model.md "Seed
003's readings under test"), and every Fig. 7 row of the claims table is
judged on those runs by the same policy, beside its verdict under the
declared readings; with each, how many runs of the dropping schemes
deadlocked (Fig. 7's half of f78-drop-breaks-deadlocks). It adds no rows of
its own: the counts are the notes' ablation table.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any

import pandas as pd

from .claims import study_table
from .evaluation import evaluate
from .policy import Check
from .framework import Context, ExperimentOutput, PlotSpec, experiment
from .iba_2007 import SOURCE, figure_runs
from .iba_2007_claims import deadlocked_runs, fig7_claims
from .iba_2007_schemes import ABLATIONS, FIGURES, MP_CREDIT_DROP, MP_LFU_DROP, SPF_DROP
from .iba_2007_values import FigureRuns

READINGS = ("declared",) + tuple(ABLATIONS)
VERDICTS = ("within", "missed", "no value")


def fig7_predictions(fr: FigureRuns) -> dict[str, Check]:
    """Every Fig. 7 prediction row judged on ``fr`` (Fig. 7 under some
    variant) by the same policy as the figure itself, by row id."""
    study = study_table("iba-2007")
    assert study is not None, "iba-2007 has a claims table"
    return {c.id: c for c in evaluate(study, "iba-2007/fig7", fig7_claims(fr)) if c.role == "prediction"}


DROPPING = (SPF_DROP, MP_LFU_DROP, MP_CREDIT_DROP)


def verdicts(ctx: Context, reading: str) -> tuple[list[dict[str, Any]], int, int]:
    """Fig. 7's prediction rows under ``reading``, and how many of the
    dropping schemes' runs deadlocked, of how many."""
    f = FIGURES["7"]
    if reading != "declared":
        f = dataclasses.replace(f, **ABLATIONS[reading][1])
    fr = figure_runs(ctx, f)
    rows = [{"reading": reading, "claim": c.id, "verdict": c.verdict, "ours": c.ours, "note": c.note}
            for c in fig7_predictions(fr).values()]
    dead = sum(len(deadlocked_runs(fr, s)) for s in DROPPING)
    return rows, dead, len(DROPPING) * len(fr.nets) * len(fr.xs)


@experiment(id="iba-2007/ablation", title="Fig. 7 under each reading's other side: whole frames, one shared HCA buffer",
            seed_ref=SOURCE)
def ablation(ctx: Context) -> ExperimentOutput:
    rows: list[dict[str, Any]] = []
    counts: list[dict[str, Any]] = []
    for reading in READINGS:
        judged, dead, runs = verdicts(ctx, reading)
        rows += judged
        what = "declared readings" if reading == "declared" else ABLATIONS[reading][0]
        counts += [{"series": reading, "x": float(i), "y": float(sum(r["verdict"] == v for r in judged)), "y_ci": math.nan,
                    "metric": v, "reading": reading, "what": what} for i, v in enumerate(VERDICTS)]
        counts.append({"series": reading, "x": float(len(VERDICTS)), "y": float(dead), "y_ci": math.nan,
                       "metric": f"dropping runs deadlocked (of {runs})", "reading": reading, "what": what})
    curves = pd.concat([pd.DataFrame(counts), pd.DataFrame([{"series": "row " + r["claim"], "x": math.nan,
                                                             "y": float(r["ours"]) if isinstance(r["ours"], (int, float)) else math.nan,
                                                             "y_ci": math.nan, "metric": "verdict", **r} for r in rows])],
                       ignore_index=True)
    plot = PlotSpec("verdict (0 within, 1 missed, 2 no value; 3 dropping runs deadlocked)", "Fig. 7 prediction rows",
                    "Fig. 7's predictions under the declared readings and each ablation", series=list(READINGS))
    return ExperimentOutput(curves=curves, plot=plot, ours={})
