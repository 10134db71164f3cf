"""The result of one simulation run, with its metrics as a pandas table."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pandas costs half a second to import; only table code pays it
    import pandas as pd

__all__ = ["RunResult", "METRIC_COLUMNS", "metrics_frame"]

# Column order of every metrics table (RunResult.metrics and the sweep tables).
METRIC_COLUMNS = [
    "metric",
    "mean",
    "ci_half_width",
    "ci_low",
    "ci_high",
    "count",
    "min",
    "p50",
    "p95",
    "p99",
    "max",
]
_STAT_KEYS = ["mean", "ci_half_width", "count", "min", "p50", "p95", "p99", "max"]
_NAN = float("nan")
# Run figures that depend on the machine and the moment, not on the scenario.
WALL_CLOCK = ("wall_time_s", "events_per_s", "frames_per_s")
# What a deadlock report may count, by model, in the summary's words.
_DEADLOCK_COUNTS = [
    ("frames_stuck_in_cycle", "frames stuck in it"),
    ("frames_in_fabric", "frames in the fabric"),
    ("packets_in_fabric", "packets in the fabric"),
    ("ios_in_flight", "I/Os in flight"),
]


def _num(x: Any) -> float:
    if x is None or isinstance(x, bool):
        return _NAN
    try:
        return float(x)
    except (TypeError, ValueError):
        return _NAN


def metric_rows(metrics: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per metric; a metric's ``distribution`` list becomes ``<metric>.level_NN`` rows.

    Names are taken from whatever the engine returns, so new models need no change here.
    """
    rows: list[dict[str, Any]] = []
    for name, stats in metrics.items():
        if not isinstance(stats, Mapping):
            rows.append(_row(name, {"mean": stats}))
            continue
        rows.append(_row(name, stats))
        dist = stats.get("distribution")
        if isinstance(dist, list):
            width = max(2, len(str(len(dist) - 1)))
            for level, frac in enumerate(dist):
                rows.append(_row(f"{name}.level_{level:0{width}d}", {"mean": frac}))
    return rows


def _row(name: str, stats: Mapping[str, Any]) -> dict[str, Any]:
    row: dict[str, Any] = {"metric": name}
    for key in _STAT_KEYS:
        row[key] = _num(stats.get(key))
    mean, hw = row["mean"], row["ci_half_width"]
    row["ci_low"] = mean - hw if not math.isnan(hw) else _NAN
    row["ci_high"] = mean + hw if not math.isnan(hw) else _NAN
    return {c: row[c] for c in METRIC_COLUMNS}


def metrics_frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    import pandas as pd

    return pd.DataFrame(rows, columns=METRIC_COLUMNS)


class RunResult:
    """One run: ``.raw`` is the engine's result object; the rest are views of it."""

    def __init__(self, raw: Mapping[str, Any], source: str | None = None) -> None:
        self.raw: dict[str, Any] = dict(raw)
        self.source = source
        self._metrics: pd.DataFrame | None = None

    @property
    def metrics(self) -> pd.DataFrame:
        if self._metrics is None:
            self._metrics = metrics_frame(metric_rows(self.raw.get("metrics", {})))
        return self._metrics.copy()

    @property
    def counters(self) -> dict[str, Any]:
        return dict(self.raw.get("counters", {}))

    @property
    def per_node(self) -> pd.DataFrame:
        """One row per sending node (node, switch, throughput_pct, ...); empty if the engine gave none."""
        import pandas as pd

        return pd.DataFrame(self.raw.get("per_node") or [])

    @property
    def deadlock(self) -> dict[str, Any] | None:
        """The engine's deadlock report (time_us, cycle, frames stuck) when the run stopped on one."""
        return self.raw.get("deadlock") or None

    @property
    def run_info(self) -> dict[str, Any]:
        return dict(self.raw.get("run", {}))

    @property
    def scenario(self) -> dict[str, Any]:
        return self.raw.get("scenario", {})

    def metric(self, name: str, stat: str = "mean") -> float:
        """A single figure, e.g. ``result.metric("frame_latency_us", "p99")``."""
        stats = self.raw.get("metrics", {}).get(name)
        if stats is None:
            raise KeyError(f"no metric {name!r}; have {sorted(self.raw.get('metrics', {}))}")
        return _num(stats.get(stat) if isinstance(stats, Mapping) else stats)

    def without_wall_clock(self) -> RunResult:
        """The same result without the figures of wall-clock time (``WALL_CLOCK``): what two runs of one
        scenario share bit for bit."""
        raw = dict(self.raw)
        raw["run"] = {k: v for k, v in self.run_info.items() if k not in WALL_CLOCK}
        return RunResult(raw, self.source)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.raw, indent=indent)

    @property
    def flags(self) -> list[str]:
        """Marks of a result that is not what was asked (empty when clean): see the README."""
        return list(self.run_info.get("flags") or [])

    def summary(self) -> str:
        """A readable, aligned text table of metrics, counters and run info."""
        name = self.scenario.get("name") if isinstance(self.scenario, Mapping) else None
        seed = (self.scenario.get("run") or {}).get("seed") if isinstance(self.scenario, Mapping) else None
        title = f"{name or self.source or 'run'}"
        if seed is not None:
            title += f"  (seed {seed})"
        out = [title, ""]
        table = [("metric", "mean", "± 95% CI", "p50", "p99", "count")]
        for r in metric_rows(self.raw.get("metrics", {})):
            if ".level_" in r["metric"]:
                continue  # distributions are too long for a summary; see .metrics
            mean, ci = _with_interval(r["mean"], r["ci_half_width"])
            table.append((r["metric"], mean, ci, _fmt(r["p50"]), _fmt(r["p99"]), _fmt(r["count"])))
        out += _align(table, right={1, 3, 4, 5})
        info = {k: v for k, v in self.run_info.items() if k != "flags"}
        for heading, values in (("counters", self.counters), ("run", info)):
            if values:
                out += ["", heading]
                out += _align([(k, _fmt(v)) for k, v in values.items()], right={1}, indent="  ")
        flags = self.flags
        if flags:
            out += ["", "FLAGS (the result is not what was asked): " + ", ".join(flags)]
        overload = self.raw.get("overload")
        if overload:
            out += [f"  overload: {_fmt(overload.get('memory_mb'))} MiB of state past the "
                    f"{_fmt(overload.get('memory_budget_mb'))} MiB budget, backlog {_fmt(overload.get('backlog'))}; "
                    f"saturated: {overload.get('saturated', 'see the overload section')}"]
        dl = self.deadlock
        if dl:
            cycle = dl.get("cycle") or []
            counts = [f"{_fmt(dl[k])} {words}" for k, words in _DEADLOCK_COUNTS if dl.get(k) is not None]
            out += ["", f"deadlock at {_fmt(_num(dl.get('time_us')))} us: a cycle of {len(cycle)} waits"
                        + (f" ({', '.join(counts)})" if counts else "")]
            out += [f"  {link}" for link in cycle]
        stall = self.raw.get("stall")
        if stall:
            out += ["", f"stalled at {_fmt(_num(stall.get('time_us')))} us: nothing left to happen, "
                        f"{_fmt(stall.get('in_flight'))} in flight, last observation at "
                        f"{_fmt(_num(stall.get('last_observation_us')))} us"]
        return "\n".join(out)

    def __repr__(self) -> str:
        return f"RunResult({len(self.raw.get('metrics', {}))} metrics, source={self.source!r})"


def _fmt(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, bool) or isinstance(x, str):
        return str(x)
    if isinstance(x, int):
        return str(x)
    if isinstance(x, float):
        if math.isnan(x):
            return "-"
        if x.is_integer() and abs(x) < 1e15:
            return str(int(x))
        return f"{x:.5g}" if abs(x) < 1e5 else f"{x:,.0f}"
    return str(x)


# Relative spread below which a half-width is floating-point rounding, not variation
# (no run holds the ~1e18 observations a true interval this narrow would need).
_ROUNDING = 1e-9


def _with_interval(mean: float, half_width: float) -> tuple[str, str]:
    """The mean and "± half-width" as a measurement is written: the half-width to two
    significant digits, the mean to the same decimal place (no digits the interval
    makes noise); the mean alone as it is without an interval."""
    if math.isnan(half_width) or math.isnan(mean):
        return _fmt(mean), ""
    if half_width <= 0 or not math.isfinite(half_width):
        return _fmt(mean), "± " + _fmt(half_width)
    if half_width <= _ROUNDING * abs(mean):
        # Batch means of a constant differ only in their last bits: the interval is 0.
        return _fmt(mean), "± 0"
    decimals = 1 - math.floor(math.log10(half_width))  # the place of the second significant digit
    hw, m = round(half_width, decimals), round(mean, decimals)
    if decimals <= 0:
        return f"{m:,.0f}" if abs(m) >= 1e5 else f"{m:.0f}", f"± {hw:.0f}"
    return f"{m:.{decimals}f}", f"± {hw:.{decimals}f}"


def _align(rows: Sequence[tuple[str, ...]], right: set[int], indent: str = "") -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for r in rows:
        cells = [c.rjust(w) if i in right else c.ljust(w) for i, (c, w) in enumerate(zip(r, widths))]
        lines.append(indent + "  ".join(cells).rstrip())
    return lines
