"""What an experiment draws: its curves' columns, the status of a point
that is not a clean measurement, and the plot's layout (one plot, or
panels side by side as a paper's figure (a), (b), ...).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

CURVE_COLUMNS = ["series", "x", "y", "y_ci"]
# Optional column of the curves: a point that is not a clean measurement.
# "deadlock": the run stopped on a deadlock; "stalled": it ran its length but
# part of the traffic stopped moving (a deadlock the run did not stop on).
# Neither value is drawn: a cross on the panel's floor marks the point.
# "flagged": the run finished but its result carries flags (overload, backlog
# growing, ...), drawn as a hollow square. Any other value is a clean point.
STATUS_COLUMN = "status"
DEADLOCK = "deadlock"
STALLED = "stalled"
FLAGGED = "flagged"


@dataclass
class Panel:
    """One panel of a figure with several: the curve rows whose ``metric`` column is ``metric``."""

    metric: str
    y_label: str
    title: str = ""
    logy: bool = False


@dataclass
class PlotSpec:
    x_label: str
    y_label: str
    title: str = ""
    series: list[str] | None = None  # which series to draw (default: all)
    logy: bool = False
    # Our values of x alone (e.g. measured saturation throughputs): dashed vertical
    # lines in the colour of their series, as dicts with keys series and x.
    vlines: list[dict[str, Any]] = field(default_factory=list)
    # Several panels side by side (as a paper's figure (a), (b), ...), each
    # selecting rows by the curves' ``metric`` column; empty: one plot of all rows.
    panels: list[Panel] = field(default_factory=list)
