"""An experiment's figure: our curves with their 95% CI bars beside the
published points, in one plot or in panels (:class:`.framework.PlotSpec`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from .curves import DEADLOCK, FLAGGED, STALLED, STATUS_COLUMN, PlotSpec

# How a point without a value is marked on the panel's floor, and its legend entry.
_NO_VALUE = {DEADLOCK: ("X", "deadlocked run (no value)"), STALLED: ("x", "stalled run (no value)")}


def plot_curves(curves: pd.DataFrame, spec: PlotSpec, published: list[dict[str, Any]], path: Path) -> None:
    """Our curves with CI error bars, published points as hollow markers under one legend entry: a PNG at ``path``.

    With ``spec.panels``, one panel per metric in a grid, one legend for all.
    Rows marked in :data:`STATUS_COLUMN` are drawn as such (see there).
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    if not spec.panels:
        fig = Figure(figsize=(7, 4.5), dpi=120)
        FigureCanvasAgg(fig)
        ax = fig.add_subplot()
        _draw_axes(ax, curves, spec, published, spec.y_label, spec.logy)
        if spec.title:
            ax.set_title(spec.title)
        ax.legend(fontsize="small")
        fig.tight_layout()
        fig.savefig(path, format="png")
        return
    n = len(spec.panels)
    cols = min(n, 3)
    rows = -(-n // cols)
    fig = Figure(figsize=(4.6 * cols, 3.6 * rows + 0.9), dpi=110)
    FigureCanvasAgg(fig)
    axes = fig.subplots(rows, cols, squeeze=False).ravel()
    has_metric = "metric" in curves.columns
    xs = curves["x"][curves["series"].isin(spec.series)] if spec.series else curves["x"]
    xs = xs.astype(float).dropna()
    for ax, panel in zip(axes, spec.panels):
        part = curves[curves["metric"] == panel.metric] if has_metric else curves.iloc[0:0]
        panel_published = [p for p in published if p.get("metric") in (None, panel.metric)]
        _draw_axes(ax, part, spec, panel_published, panel.y_label, panel.logy)
        ax.set_title(panel.title or panel.metric, fontsize="medium")
        if len(xs):  # the same x range in every panel, whatever values a panel lacks
            pad = 0.05 * (xs.max() - xs.min()) or 1.0
            ax.set_xlim(xs.min() - pad, xs.max() + pad)
    handles: dict[str, Any] = {}
    for ax in axes[:n]:
        for h, label in zip(*ax.get_legend_handles_labels()):
            handles.setdefault(label, h)
    for ax in axes[n:]:
        ax.set_visible(False)
    if spec.title:
        fig.suptitle(spec.title)
    fig.legend(list(handles.values()), list(handles), loc="lower center", ncol=min(len(handles), 4), fontsize="small")
    fig.tight_layout(rect=(0, 0.08 if rows > 1 else 0.12, 1, 1))
    fig.savefig(path, format="png")


def _draw_axes(ax: Any, curves: pd.DataFrame, spec: PlotSpec, published: list[dict[str, Any]], y_label: str, logy: bool) -> None:
    series = spec.series or list(dict.fromkeys(curves["series"]))
    status = curves[STATUS_COLUMN].astype(str) if STATUS_COLUMN in curves.columns else pd.Series("", index=curves.index)
    colors: dict[str, Any] = {}
    labelled_marks: set[str] = set()
    for name in series:
        part = curves[curves["series"] == name].sort_values("x")
        st = status.loc[part.index]
        # A deadlocked or stalled run's numbers are partial: no value, a gap in the line.
        no_value = st.isin(list(_NO_VALUE))
        y = part["y"].astype(float).where(~no_value)
        yerr = part["y_ci"].astype(float).fillna(0.0).where(~no_value, 0.0)
        line = ax.errorbar(part["x"], y, yerr=yerr, marker="o", markersize=3, capsize=2, label=str(name))
        colors[name] = color = line[0].get_color()
        flagged = part[st == FLAGGED]
        if len(flagged):
            ax.plot(flagged["x"], flagged["y"].astype(float), linestyle="none", marker="s", markersize=8,
                    markerfacecolor="none", markeredgecolor=color, markeredgewidth=1.2,
                    label=None if FLAGGED in labelled_marks else "flagged run (overloaded)")
            labelled_marks.add(FLAGGED)
        for kind, (marker, label) in _NO_VALUE.items():
            dead = part[st == kind]
            if len(dead):
                ax.plot(dead["x"], [0.04] * len(dead), transform=ax.get_xaxis_transform(), linestyle="none", marker=marker,
                        markersize=9, markeredgewidth=2, color=color, clip_on=False,
                        label=None if kind in labelled_marks else label)
                labelled_marks.add(kind)
    ours_labelled = False
    for line_spec in spec.vlines:
        color = colors.get(str(line_spec.get("series")), "gray")
        ax.axvline(line_spec["x"], color=color, linestyle="--", linewidth=1.0, alpha=0.8,
                   label=None if ours_labelled else "ours: saturation")
        ours_labelled = True
    labelled = False
    for point in published:
        if spec.series and point.get("series") not in spec.series:
            continue
        color = colors.get(str(point.get("series")), "black")
        if point.get("y") is None:
            # A published value of x alone (e.g. a saturation throughput): a vertical line.
            ax.axvline(point["x"], color=color, linestyle=":", linewidth=1.5, label=None if labelled else "published")
            labelled = True
            continue
        ax.plot(
            [point["x"]], [point["y"]], linestyle="none", marker="D", markersize=6,
            markerfacecolor="none", markeredgecolor=color, markeredgewidth=1.5,
            label=None if labelled else "published",
        )
        labelled = True
    ax.set_xlabel(spec.x_label)
    ax.set_ylabel(y_label)
    if logy:
        ax.set_yscale("log")
    ax.grid(True, alpha=0.3)
