"""Seed 003 (Kim et al., IBA design space, TPDS 2007): what the runs are
worth. One run's metrics and its status (ok, flagged, deadlock or stalled),
a figure's runs by network and scheme, and the family median of a metric
that the figures draw and the claims judge.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass

import pandas as pd

from ..result import RunResult
from .curves import DEADLOCK, FLAGGED, STALLED
from .iba_2007_schemes import ACC, BE, CTL, DMP, DMT, MC, RT, UNI, Figure, Scheme, packets_per_s

MIN_NETWORKS = 3  # a family value needs this many networks with values (quick: all of them)


def value(r: RunResult, name: str) -> tuple[float, float]:
    if name == UNI:
        # Real-time packets less those of multicast frames (each counted once per member). Its CI: the
        # real-time class's, of which the unicast packets are most (the run keeps no batch means of the part).
        n_rt, n_mc = count(r, RT), count(r, MC)
        n = n_rt - n_mc
        mean_rt, ci_rt = value(r, RT)
        return ((mean_rt * n_rt - value(r, MC)[0] * n_mc) / n if n > 0 else math.nan), ci_rt
    row = r.metrics.set_index("metric").loc[name]
    ci = row["ci_half_width"]
    return float(row["mean"]), (float(ci) if pd.notna(ci) else float("nan"))


def count(r: RunResult, name: str) -> float:
    return float(r.metrics.set_index("metric").loc[name, "count"])


NO_VALUE = (DEADLOCK, STALLED)
STALL_MIN_EXPECTED = 100  # packets of a class expected while measuring, below which silence proves nothing


@dataclass
class Point:
    """One run at one load, with what it is worth: ``status`` "ok", "flagged", "deadlock" or "stalled"."""

    r: RunResult
    status: str
    stalled: str = ""  # for a stalled run: which traffic stopped


def deadlocked(r: RunResult) -> bool:
    """Whether a run deadlocked: stopped on it, or measured through it."""
    return r.run_info.get("stop_reason") == "deadlock" or "deadlock" in r.flags


def classify(f: Figure, load: float, r: RunResult) -> Point:
    """A run stopped on a deadlock is "deadlock". A run that ran its length but
    delivered no packet of a class while measuring, although its sources offered
    that class at a rate that should have delivered at least
    ``STALL_MIN_EXPECTED``, is "stalled". Other runs with flags are "flagged"."""
    if r.run_info.get("stop_reason") == "deadlock":
        return Point(r, DEADLOCK)
    measured_s = float(r.run_info.get("measured_time_us", 0.0)) / 1e6
    silent = []
    for words, name, share in (("real-time", RT, f.real_time_share), ("best-effort", BE, 1.0 - f.real_time_share)):
        expected = packets_per_s(f.switches, load * share) * measured_s
        if expected >= STALL_MIN_EXPECTED and not count(r, name) > 0:
            silent.append(f"no {words} packet delivered in {1000 * measured_s:.0f} ms measured (about {expected:.0f} offered)")
    if silent:
        return Point(r, STALLED, "; ".join(silent))
    if deadlocked(r):
        at = float((r.deadlock or {}).get("time_us", math.nan)) / 1000.0
        return Point(r, FLAGGED, f"deadlocked at {at:.0f} ms, measured through")
    return Point(r, FLAGGED if r.flags else "ok")


DELIVERY_POINTS = 2.0  # accepted load this close to offered (percentage points): the fabric delivers


def delivers(r: RunResult) -> tuple[bool, str]:
    """Whether a run delivered what was offered: it did not deadlock (stopped
    on it or measured through it) and its accepted load is within
    ``DELIVERY_POINTS`` of the offered; with the reason when not."""
    if deadlocked(r):
        at = float((r.deadlock or {}).get("time_us", math.nan)) / 1000.0
        return False, f"deadlocked at {at:.0f} ms"
    offered, accepted = value(r, "offered_load_pct")[0], value(r, ACC)[0]
    if not accepted >= offered - DELIVERY_POINTS:
        return False, f"accepted {accepted:.1f}% of {offered:.1f}% offered"
    return True, f"accepted {accepted:.1f}% of {offered:.1f}% offered"


@dataclass
class Line:
    """One scheme's runs on one network over a figure's loads (Up/Down: one root)."""

    network: int
    scheme: Scheme
    root: int | None
    runs: dict[float, Point]
    best_root: bool | None = None
    selection_latency_us: float = float("nan")

    @property
    def series(self) -> str:
        return f"{self.scheme.label} net {self.network}" + (f" root {self.root}" if self.root is not None else "")


@dataclass
class FigureRuns:
    """A figure's runs: every line, and the one drawn per network and scheme (Up/Down: the best root)."""

    f: Figure
    xs: tuple[float, ...]
    nets: list[int]
    every: list[Line]
    drawn: dict[tuple[str, int], Line]  # (scheme key, network) -> line


# ------------------------------------------------------------ the family ----


@dataclass
class FamilyValue:
    """A scheme's metric at one load over the family: the median of the networks with values."""

    median: float
    lo: float
    hi: float
    ci: float  # the median network run's CI half width (NaN without)
    networks: int  # with values
    unstable: int  # of those, flagged runs
    deadlocked: int  # networks whose run deadlocked (stopped or measured through) or stalled

    @property
    def usable(self) -> bool:
        return math.isfinite(self.median)


def family_value(fr: FigureRuns, scheme: Scheme, x: float, metric: str) -> FamilyValue:
    pts = [fr.drawn[(scheme.key, n)].runs[x] for n in fr.nets]
    dead = sum(p.status in NO_VALUE or deadlocked(p.r) for p in pts)
    vals = []
    for p in pts:
        # A stalled fabric's DMP, latencies and DMT would describe only the
        # frames and packets that got out; a DMT where no frame missed has
        # no value (the mean lateness of no frame).
        if p.status in NO_VALUE:
            continue
        v, ci = value(p.r, metric)
        if math.isfinite(v):
            vals.append((v, ci, p.status == FLAGGED))
    need = min(MIN_NETWORKS, len(fr.nets))
    if len(vals) < need:
        return FamilyValue(math.nan, math.nan, math.nan, math.nan, len(vals), sum(u for *_, u in vals), dead)
    vals.sort()
    mid = vals[(len(vals) - 1) // 2]
    return FamilyValue(statistics.median(v for v, *_ in vals), vals[0][0], vals[-1][0], mid[1], len(vals),
                       sum(u for *_, u in vals), dead)


def packet_latency(fr: FigureRuns, scheme: Scheme, x: float) -> FamilyValue:
    """Mean latency of all packets (the classes weighted by packets delivered): the family median."""
    pts = [fr.drawn[(scheme.key, n)].runs[x] for n in fr.nets]
    vals = []
    for p in pts:
        if p.status in NO_VALUE:
            continue
        weights = [(value(p.r, m)[0], count(p.r, m)) for m in (RT, CTL, BE)]
        total = sum(c for _, c in weights)
        if total > 0:
            vals.append(sum(v * c for v, c in weights if c > 0) / total)
    dead = sum(p.status in NO_VALUE for p in pts)
    if len(vals) < min(MIN_NETWORKS, len(fr.nets)):
        return FamilyValue(math.nan, math.nan, math.nan, math.nan, len(vals), 0, dead)
    return FamilyValue(statistics.median(vals), min(vals), max(vals), math.nan, len(vals),
                       sum(p.status == FLAGGED for p in pts), dead)


def describe(name: str, v: FamilyValue) -> str:
    if not v.usable:
        return f"{name}: no value ({v.deadlocked} of the networks deadlocked or stalled)"
    text = f"{name} {v.median:.4g} (networks {v.lo:.4g} to {v.hi:.4g}"
    if v.unstable:
        text += f"; {v.unstable} unstable"
    if v.deadlocked:
        text += f"; {v.deadlocked} deadlocked, measured through"
    return text + ")"


def pct(x: float) -> str:
    return f"{100 * x:g}%"
