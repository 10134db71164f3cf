"""Seed 003 (Kim et al., IBA design space, TPDS 2007): our side of each
row of iba-2007.claims.toml, measured on the family medians of a figure's
runs (reductions against SPF, one scheme above another, deadlocks counted).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence

from .claims import Compare, Measured, Value
from .iba_2007_schemes import (
    BE,
    BW_EQUAL,
    BW_LINEAR,
    BW_LOG,
    BW_SHARED,
    CTL,
    DMP,
    DMT,
    MC,
    MC_ASYNC,
    MC_CENTRAL,
    MC_SYNC,
    MC_UNICAST,
    MP_CREDIT,
    MP_CREDIT_DROP,
    MP_LFU,
    MP_LFU_DROP,
    RT,
    SHORT,
    SPF,
    SPF_DROP,
    UPDOWN,
    Scheme,
)
from .iba_2007_values import NO_VALUE, FigureRuns, Point, describe, family_value, packet_latency, pct


def reduction(fr: FigureRuns, scheme: Scheme, xs: Iterable[float], metric: str, how: str = "mean") -> Measured:
    """(SPF - scheme) / SPF in %, of the family medians, averaged over ``xs``
    (``how`` "max": the largest of them). No value where either has none."""
    rs, notes = [], []
    for x in xs:
        if metric == "latency":
            a, b = packet_latency(fr, SPF, x), packet_latency(fr, scheme, x)
        else:
            a, b = family_value(fr, SPF, x, metric), family_value(fr, scheme, x, metric)
        notes.append(f"{pct(x)}: {describe('SPF', a)}, {describe(scheme.label, b)}")
        if a.usable and b.usable:
            rs.append(0.0 if a.median == b.median else 100.0 * (a.median - b.median) / a.median if a.median else -math.inf)
    ours = (max(rs) if how == "max" else statistics.fmean(rs)) if rs else math.nan
    return Value(ours, None, "; ".join(notes))


def total(fr: FigureRuns, scheme: Scheme, xs: Iterable[float], metric: str) -> tuple[float, float, list[str]]:
    """The family medians of ``metric`` summed over ``xs`` with their combined CI; NaN if a load has no value."""
    s, ci2, notes = 0.0, 0.0, []
    for x in xs:
        v = family_value(fr, scheme, x, metric)
        notes.append(f"{pct(x)} {describe(scheme.label, v)}")
        if not v.usable:
            return math.nan, math.nan, notes
        s += v.median
        ci2 += (v.ci if math.isfinite(v.ci) else 0.0) ** 2
    return s, math.sqrt(ci2), notes


def above(fa: FigureRuns, a: Scheme, fb: FigureRuns, b: Scheme, xs: Sequence[float], metric: str,
          common: bool = False) -> Compare:
    """A direction claim: ``a`` (in ``fa``) above ``b`` (in ``fb``) in ``metric``
    summed over ``xs``; with ``common``, over the loads of ``xs`` where both have family values."""
    if common:
        xs = [x for x in xs if family_value(fa, a, x, metric).usable and family_value(fb, b, x, metric).usable]
    sa, ca, na = total(fa, a, xs, metric)
    sb, cb, nb = total(fb, b, xs, metric)
    note = f"over {', '.join(pct(x) for x in xs) or 'no load both have'}: " + "; ".join(na + nb)
    return Compare(sa, sb, ca or None, cb or None, note)


def deadlocked(fr: FigureRuns, scheme: Scheme) -> list[tuple[int, float]]:
    """The (network, load) runs of ``scheme`` that deadlocked (stopped on it, or measured through it)."""
    def dead(p: Point) -> bool:
        return p.status in NO_VALUE or "deadlock" in p.r.flags

    return [(n, x) for n in fr.nets for x in fr.xs if dead(fr.drawn[(scheme.key, n)].runs[x])]


# ---------------------------------------------------------------- claims ----


def high(fr: FigureRuns) -> list[float]:
    """The loads "at 50 percent or higher" (quick: the figure's top two)."""
    return [x for x in fr.xs if x >= 0.5 - 1e-9]


def fig7_claims(fr: FigureRuns) -> dict[str, Measured]:
    ours: dict[str, Measured] = {}
    xs, top, hi = fr.xs, fr.f.top_load, high(fr)
    low = [x for x in xs if x <= 0.4 + 1e-9]
    for m, name in SHORT.items():
        ours[f"f7-spf-beats-updown-{m}"] = above(fr, UPDOWN, fr, SPF, xs, name, common=True)
    for m in ("dmp", "dmt"):
        for t in (SPF_DROP, MP_LFU, MP_LFU_DROP, MP_CREDIT, MP_CREDIT_DROP):
            ours[f"f7-low-load-{m}-{t.key}"] = above(fr, t, fr, SPF, low, SHORT[m])
            ours[f"f7-60-{m}-{t.key}"] = reduction(fr, t, [top], SHORT[m])
    for t in (MP_LFU, MP_CREDIT):
        ours[f"f7-mp-dmp-{t.key}"] = reduction(fr, t, [top], DMP)
        ours[f"f7-mp-dmt-{t.key}"] = reduction(fr, t, hi, DMT)
        ours[f"f7-mp-latency-{t.key}"] = reduction(fr, t, [top], "latency")
        for m in ("ctl", "rt", "be"):
            ours[f"f7-reduction-{m}-{t.key}"] = reduction(fr, t, hi, SHORT[m])
    for t in (MP_LFU_DROP, MP_CREDIT_DROP):
        for m in ("ctl", "rt", "be"):
            ours[f"f7-drop-reduction-{m}-{t.key}"] = reduction(fr, t, hi, SHORT[m], how="max")
    for m, a, b in (("rt", MP_CREDIT, MP_LFU), ("ctl", MP_CREDIT, MP_LFU), ("be", MP_LFU, MP_CREDIT)):
        ours[f"f7-selection-{m}"] = above(fr, a, fr, b, hi, SHORT[m])
    spf_dead = deadlocked(fr, SPF)
    where = ", ".join(f"network {n} at {pct(x)}" for n, x in spf_dead) or "none"
    ours["f7-spf-deadlocks"] = Value(len(spf_dead), None, f"SPF deadlocked or stalled: {where}")
    drop_dead = deadlocked(fr, SPF_DROP)
    ours["f7-drop-avoids-deadlock"] = Value(len(drop_dead), None, "SPF+Drop deadlocked: "
                                            + (", ".join(f"network {n} at {pct(x)}" for n, x in drop_dead) or "none"))
    for m in ("dmp", "dmt"):
        ours[f"abstract-{m}"] = reduction(fr, MP_LFU, [top], SHORT[m])
    return ours


def fig8_claims(fr: FigureRuns, fr7: FigureRuns) -> dict[str, Measured]:
    ours: dict[str, Measured] = {}
    hi = high(fr)
    for m in ("dmp", "dmt"):
        xs = [x for x in fr.xs if family_value(fr, SPF, x, SHORT[m]).usable and family_value(fr7, SPF, x, SHORT[m]).usable]
        ours[f"f8-{m}-much-smaller"] = above(fr7, SPF, fr, SPF, xs, SHORT[m])
        for t in (MP_LFU_DROP, MP_CREDIT_DROP):
            ours[f"f8-high-load-{m}-{t.key}"] = above(fr, SPF, fr, t, hi, SHORT[m])
    for m, name in SHORT.items():
        ours[f"f8-spf-beats-updown-{m}"] = above(fr, UPDOWN, fr, SPF, fr.xs, name, common=True)
    for m, a, b in (("rt", MP_CREDIT, MP_LFU), ("ctl", MP_CREDIT, MP_LFU), ("be", MP_LFU, MP_CREDIT)):
        ours[f"f8-selection-{m}"] = above(fr, a, fr, b, hi, SHORT[m])
    return ours


def drop_gain(fr: FigureRuns, x: float) -> tuple[float, str]:
    """SPF's real-time latency over SPF+Drop's at ``x`` (family medians)."""
    a, b = family_value(fr, SPF, x, RT), family_value(fr, SPF_DROP, x, RT)
    note = f"{fr.f.switches} nodes at {pct(x)}: {describe('SPF', a)}, {describe('SPF+Drop', b)}"
    return (a.median / b.median if a.usable and b.usable and b.median > 0 else math.nan), note


def fig9_claims(fr: FigureRuns, fr7: FigureRuns) -> dict[str, Measured]:
    ours: dict[str, Measured] = {}
    top = fr.f.top_load
    low = min(fr.xs, key=lambda x: abs(x - 0.2))
    for m in ("rt", "ctl", "be"):
        ours[f"f9-reduction-{m}"] = reduction(fr, MP_LFU, [top], SHORT[m])
        ours[f"f9-spf-beats-updown-{m}"] = above(fr, UPDOWN, fr, SPF, fr.xs, SHORT[m], common=True)
    ours["f9-low-load-be-higher"] = above(fr, MP_LFU, fr, SPF, [low], BE)
    for m in ("rt", "ctl"):
        ours[f"f9-low-load-{m}-lower"] = above(fr, SPF, fr, MP_LFU, [low], SHORT[m])
    g15, n15 = drop_gain(fr7, fr7.f.top_load)
    g30, n30 = drop_gain(fr, top)
    ours["f9-drop-less-significant"] = Compare(g15, g30, None, None, f"{n15}; {n30}")
    d15, d30 = deadlocked(fr7, SPF), deadlocked(fr, SPF)
    runs15, runs30 = len(fr7.nets) * len(fr7.xs), len(fr.nets) * len(fr.xs)
    ours["f9-fewer-deadlocks"] = Compare(len(d15) / runs15, len(d30) / runs30, None, None,
                                         f"SPF deadlocked in {len(d15)} of {runs15} runs at 15 nodes, {len(d30)} of {runs30} at 30")
    return ours


def fig10_claims(fr: FigureRuns, fb: FigureRuns) -> dict[str, Measured]:
    """Section 5.2: Fig. 10a-e (``fr``) and Fig. 10f (``fb``)."""
    ours: dict[str, Measured] = {}
    xs = fr.xs
    for t in (MC_SYNC, MC_ASYNC, MC_CENTRAL):
        for m in ("dmp", "dmt"):
            ours[f"f10-unicast-worst-{m}-{t.key}"] = above(fr, MC_UNICAST, fr, t, xs, SHORT[m], common=True)
            ours[f"f10-much-better-{m}-{t.key}"] = above(fr, MC_UNICAST, fr, t, xs, SHORT[m], common=True)
        for m, name in (("mc", MC), ("ctl", CTL), ("be", BE)):
            ours[f"f10-latency-{m}-{t.key}"] = above(fr, MC_UNICAST, fr, t, xs, name, common=True)
    for t in (MC_SYNC, MC_ASYNC):
        ours[f"f10-central-slightly-{t.key}"] = above(fr, t, fr, MC_CENTRAL, xs, MC, common=True)
    ours["f10-sync-async-comparable"] = above(fr, MC_SYNC, fr, MC_ASYNC, xs, MC, common=True)
    dead = deadlocked(fr, MC_SYNC)
    ours["f10-sync-no-deadlock"] = Value(len(dead), None, "Synchronous deadlocked or stalled: "
                                         + (", ".join(f"network {n} at {pct(x)}" for n, x in dead) or "none"))
    low, top = [fb.xs[0]], [fb.xs[-1]]
    for t in (BW_LINEAR, BW_LOG):
        ours[f"f10f-low-load-same-{t.key}"] = above(fb, t, fb, BW_EQUAL, low, MC)
    for t in (BW_EQUAL, BW_LINEAR, BW_LOG):
        ours[f"f10f-high-load-worse-{t.key}"] = above(fb, t, fb, BW_SHARED, top, MC)
    for t in (BW_EQUAL, BW_LINEAR):
        ours[f"f10f-log-best-{t.key}"] = above(fb, t, fb, BW_LOG, top, MC)
    return ours
