"""Seed 003: Kim, Yum, Das, Yousif, Duato, "Exploring IBA Design Space for
Improved Performance" (IEEE TPDS 2007), section 5.1: the seven routing schemes
on 15-node networks with real-time : best-effort = 70:30 (Fig. 7) and 30:70
(Fig. 8), and on 30-node networks with 70:30 (Fig. 9).

Each figure plots, against the injection rate (offered wire bytes per HCA as a
share of the 1x SDR link rate), the deadline missing probability (DMP: missed
or refused frames over frames generated) and time (DMT) of the video frames,
the mean packet latency of real-time, control and best-effort traffic, and the
accepted load beside the offered one.

Networks. Fig. 6 is a picture; docs/infiniband-model.md states the rule that
chooses a family of five networks of each size before any run (random
networks of the stated counts on which SPF can deadlock and can carry the
plotted loads), and :func:`family` applies it. Every scheme runs on every
network of the family; the figure draws the family median, and every claim is
judged on medians (the spread is in each claim's note), never on one network.

Schemes (``SCHEMES``): Up*/Down* (the original, on spanning-tree channels
only, as section 3.1 and Fig. 5b describe it; per network the best of the
three switches of smallest eccentricity as roots, by mean real-time latency
over the loads where every root ran), SPF (ties by destination, Fig. 5a),
SPF+Drop (HOQLife 6: 262 us), and multipath routing with LFU or Max-Credit
selection, each with and without dropping. Fig. 9 has the LFU ones only.

A run that deadlocks goes on measuring what still moves (``ib.on_deadlock =
"continue"``: the deadlocked VL's frames miss their deadlines and fill their
sources' buffers), as the study's figures, which plot SPF and multipath at
every load, must have been measured; it is flagged and unstable. A run with
flags (deadlock, accepted below offered, source overflow, backlog growing) is
drawn as a hollow square; a family value needs at least three networks with
values, and every claim's note says which of them were unstable and which
deadlocked. Run lengths: full, warm-up 0.1 s simulated
then at least 300,000 packets and 0.4 s; quick, three networks, three loads,
warm-up 0.02 s and 40,000 packets.
"""

from __future__ import annotations

import json
import math
import statistics
from collections import deque
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from ..result import RunResult
from .claims import Compare, Measured, Value
from .framework import DEADLOCK, FLAGGED, STALLED, Context, ExperimentOutput, Panel, PlotSpec, experiment

SOURCE = ("seed 003: Kim, Yum, Das, Yousif, Duato, Exploring IBA Design Space for Improved Performance, "
          "IEEE TPDS 2007 (section 5.1)")
LINK_BYTES_PER_S = 250e6  # 1x SDR data rate (2.5 Gbit/s signalling, 8b/10b)
WIRE_BYTES_PER_PACKET = 1045.0  # video packets average about 1041 bytes on the wire, best-effort 1050
RUN_SEED = 1
CANDIDATE_ROOTS = 3  # the paper's "three different roots"
HOQ_LIFE = 6  # HLL = 4.096 us x 2^6 = 262 us (docs/infiniband-model.md section 2)
FAMILY_SIZE = 5
QUICK_NETWORKS = 3
MIN_NETWORKS = 3  # a family value needs this many networks with values (quick: all of them)
# The real MPEG trace (the shared data beside the repository), not the built-in model of it.
REAL_TRACE = "../shared/data/traces/movietrace.data"

DMP, DMT = "deadline_missing_probability", "deadline_missing_time_us"
RT, CTL, BE = "real_time_latency_us", "control_latency_us", "best_effort_latency_us"
ACC = "accepted_load_pct"
MC = "multicast_latency_us"
# Fig. 10f's unicast bars: real-time packets of unicast frames (derived from the real-time and multicast figures).
UNI = "unicast_real_time_latency_us"
METRICS = (DMP, DMT, RT, CTL, BE)
PANEL_LABELS = {DMP: ("deadline missing probability", "DMP", False), DMT: ("deadline missing time (us)", "DMT", False),
                RT: ("latency (us)", "real-time traffic", True), CTL: ("latency (us)", "control traffic", True),
                BE: ("latency (us)", "best-effort traffic", True), ACC: ("accepted load (%)", "accepted load", False),
                MC: ("latency (us)", "multicast traffic", True), UNI: ("latency (us)", "unicast real-time traffic", True)}
SHORT = {"dmp": DMP, "dmt": DMT, "rt": RT, "ctl": CTL, "be": BE}


@dataclass(frozen=True)
class Scheme:
    """One line of the figures: a routing section, with dropping or not, from ``roots`` candidate roots or none."""

    key: str
    label: str
    routing: Mapping[str, Any]
    drop: bool = False
    roots: int = 0
    multicast: Mapping[str, Any] | None = None  # the [ib.multicast] section (Fig. 10)
    workload: Mapping[str, Any] | None = None  # workload keys besides the figure's (Fig. 10f's SL layout)


UPDOWN = Scheme("updown", "Up*/Down*", {"algorithm": "updown_tree"}, roots=CANDIDATE_ROOTS)
SPF = Scheme("spf", "SPF", {"algorithm": "spf"})
SPF_DROP = Scheme("spf-drop", "SPF+Drop", {"algorithm": "spf"}, drop=True)
MP_LFU = Scheme("mp-lfu", "Multipath+LFU", {"algorithm": "multipath", "selection": "lfu"})
MP_LFU_DROP = Scheme("mp-lfu-drop", "Multipath+LFU+Drop", {"algorithm": "multipath", "selection": "lfu"}, drop=True)
MP_CREDIT = Scheme("mp-credit", "Multipath+Credit", {"algorithm": "multipath", "selection": "max_credit"})
MP_CREDIT_DROP = Scheme("mp-credit-drop", "Multipath+Credit+Drop", {"algorithm": "multipath", "selection": "max_credit"},
                        drop=True)
SCHEMES = (UPDOWN, SPF, SPF_DROP, MP_LFU, MP_LFU_DROP, MP_CREDIT, MP_CREDIT_DROP)
# The tie rule the study leaves open, for `iba-2007/spf-ties` only.
SPF_LOWEST = Scheme("spf-lowest", "SPF, lowest-numbered ties", {"algorithm": "spf", "ties": "lowest"})
# Fig. 10: the four multicast schemes on SPF (the study's default routing), and Fig. 10f's four bandwidth
# policies with asynchronous replication; separate VLs: unicast video on 1-5, multicast on 6-11 (6:5), best-effort
# on 12-14 and 0 (docs/infiniband-model.md, "Multicast").
MC_UNICAST = Scheme("mc-unicast", "Replicated Unicast", {"algorithm": "spf"}, multicast={"scheme": "replicated_unicast"})
MC_SYNC = Scheme("mc-sync", "Synchronous", {"algorithm": "spf"}, multicast={"scheme": "synchronous", "order": "fcfs"})
MC_ASYNC = Scheme("mc-async", "Asynchronous", {"algorithm": "spf"}, multicast={"scheme": "asynchronous"})
MC_CENTRAL = Scheme("mc-central", "Asynchronous+Central Buffer", {"algorithm": "spf"},
                    multicast={"scheme": "central_buffer"})
MC_SCHEMES = (MC_UNICAST, MC_SYNC, MC_ASYNC, MC_CENTRAL)
SEPARATE_SLS = {"real_time_sls": [1, 2, 3, 4, 5], "best_effort_sls": [12, 13, 14, 0]}


def _policy(key: str, label: str, bandwidth: str) -> Scheme:
    return Scheme(key, label, {"algorithm": "spf"}, multicast={"scheme": "asynchronous", "sls": [6, 7, 8, 9, 10, 11],
                                                               "bandwidth": bandwidth}, workload=SEPARATE_SLS)


BW_SHARED = Scheme("bw-shared", "1 same, no VL separation", {"algorithm": "spf"}, multicast={"scheme": "asynchronous"})
BW_EQUAL = _policy("bw-equal", "2 same, separate VLs", "equal")
BW_LINEAR = _policy("bw-linear", "3 linear", "linear")
BW_LOG = _policy("bw-log", "4 logarithmic", "logarithmic")
BW_SCHEMES = (BW_SHARED, BW_EQUAL, BW_LINEAR, BW_LOG)
BY_KEY = {s.key: s for s in SCHEMES + (SPF_LOWEST,) + MC_SCHEMES + BW_SCHEMES}


@dataclass(frozen=True)
class RunLength:
    warmup_s: float  # simulated seconds of warm-up, turned into packets at the point's load
    packets: int  # packets measured after warm-up, at least
    measure_s: float = 0.0  # and at least this many simulated seconds
    max_s: float = 3.0  # the time cap: a run whose network locks up wholly stops there


RUN_LENGTHS = {False: RunLength(warmup_s=0.1, packets=300_000, measure_s=0.4),
               True: RunLength(warmup_s=0.02, packets=40_000, max_s=1.0)}


@dataclass(frozen=True)
class Figure:
    fig: str
    switches: int
    real_time_share: float
    loads: tuple[float, ...]  # injection rates (fraction of the link rate), full mode
    quick_loads: tuple[float, ...]
    panels: tuple[str, ...]
    schemes: tuple[Scheme, ...] = field(default=SCHEMES)

    @property
    def mix(self) -> str:
        rt = round(100 * self.real_time_share)
        return f"{rt}:{100 - rt}"

    @property
    def top_load(self) -> float:
        return self.loads[-1]


LOADS_15 = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6)
LOADS_30 = (0.04, 0.08, 0.12, 0.16, 0.2, 0.24, 0.28)
FIGURES = {
    "7": Figure("7", 15, 0.7, LOADS_15, (0.2, 0.5, 0.6), METRICS),
    "8": Figure("8", 15, 0.3, LOADS_15, (0.2, 0.5, 0.6), METRICS),
    "9": Figure("9", 30, 0.7, LOADS_30, (0.12, 0.2, 0.28), (RT, CTL, BE), (UPDOWN, SPF, SPF_DROP, MP_LFU, MP_LFU_DROP)),
    # Fig. 7's networks and mix, SPF under both tie rules (its balanced runs are Fig. 7's own).
    "ties": Figure("7", 15, 0.7, LOADS_15, (0.2, 0.5, 0.6), METRICS, (SPF, SPF_LOWEST)),
    "10": Figure("10", 15, 0.7, LOADS_15, (0.2, 0.4), (DMP, DMT, MC, CTL, BE), MC_SCHEMES),
    "10f": Figure("10f", 15, 0.7, LOADS_15, (0.2, 0.4), (MC, UNI), BW_SCHEMES),
}


def loads(ctx: Context, f: Figure) -> tuple[float, ...]:
    return f.quick_loads if ctx.quick else f.loads


def packets_per_s(switches: int, load: float) -> float:
    """Packets the HCAs inject per simulated second at ``load`` (one HCA per switch)."""
    return switches * load * LINK_BYTES_PER_S / WIRE_BYTES_PER_PACKET


def run_plan(ctx: Context, switches: int, load: float) -> dict[str, Any]:
    rl = RUN_LENGTHS[bool(ctx.quick)]
    rate = packets_per_s(switches, load)
    measured = max(rl.packets, math.ceil(rl.measure_s * rate))
    return {"seed": RUN_SEED, "warmup_observations": math.ceil(rl.warmup_s * rate), "max_observations": measured,
            "min_observations": 0, "precision": 0.0, "max_time_ms": 1000.0 * rl.max_s}


def topology(switches: int, seed: int) -> dict[str, Any]:
    return {"kind": "random", "switches": switches, "seed": seed}


# ---------------------------------------------------------------- family ----


def family(switches: int, count: int = FAMILY_SIZE) -> list[int]:
    """The rule of docs/infiniband-model.md: random networks of ``switches``
    switches, seeds 1, 2, ... in order; a seed is kept when SPF (balanced
    ties) has a channel dependency cycle and its uniform saturation bound is
    at least the highest load the figures plot. The first ``count`` kept."""
    from ..api import routing

    top = {15: LOADS_15[-1], 30: LOADS_30[-1]}[switches]
    kept = []
    seed = 0
    while len(kept) < count:
        seed += 1
        if seed > 1000:
            raise RuntimeError(f"fewer than {count} networks of {switches} switches meet the rule in 1000 seeds")
        r = routing({"ib": {"topology": topology(switches, seed), "routing": {"algorithm": "spf"}}})
        if r["channel_dependencies"]["acyclic"] is False and r["uniform_saturation"]["injection_rate"] >= top:
            kept.append(seed)
    return kept


def networks(ctx: Context, switches: int) -> list[int]:
    fam = family(switches)
    return fam[:QUICK_NETWORKS] if ctx.quick else fam


def eccentricities(switches: int, links: Sequence[tuple[int, int]]) -> dict[int, int]:
    adj: dict[int, set[int]] = {s: set() for s in range(1, switches + 1)}
    for a, b in links:
        adj[a].add(b)
        adj[b].add(a)
    ecc = {}
    for s in adj:
        dist = {s: 0}
        queue = deque([s])
        while queue:
            u = queue.popleft()
            for v in adj[u]:
                if v not in dist:
                    dist[v] = dist[u] + 1
                    queue.append(v)
        ecc[s] = max(dist.values()) if len(dist) == switches else math.inf
    return ecc


def candidate_roots(switches: int, seed: int, count: int = CANDIDATE_ROOTS) -> list[int]:
    """The ``count`` switches of smallest eccentricity, ties by switch number."""
    from ..api import routing

    r = routing({"ib": {"topology": topology(switches, seed), "routing": {"algorithm": "spf"}}})
    ecc = eccentricities(switches, [(int(a), int(b)) for a, b, *_ in r["trunks"]])
    return sorted(ecc, key=lambda s: (ecc[s], s))[:count]


def scenario(ctx: Context, f: Figure, seed: int, scheme: Scheme, root: int | None, load: float) -> dict[str, Any]:
    routing = dict(scheme.routing) | ({"root": root} if root is not None else {})
    ib: dict[str, Any] = {"on_deadlock": "continue", "topology": topology(f.switches, seed), "routing": routing,
                          "workload": {"injection_rate": load, "real_time_share": f.real_time_share, "trace": REAL_TRACE}}
    if scheme.multicast is not None:
        ib["multicast"] = dict(scheme.multicast)
    if scheme.workload is not None:
        ib["workload"] |= dict(scheme.workload)
    if scheme.drop:
        ib["switch"] = {"hoq_life": HOQ_LIFE}
    label = scheme.label + (f" root {root}" if root is not None else "")
    return {"name": f"iba-2007 fig {f.fig} network {seed} {label} {100 * load:g}%", "run": run_plan(ctx, f.switches, load),
            "ib": ib}


# ---------------------------------------------------------------- runs ----

_RESULTS: dict[str, RunResult] = {}  # scenario (canonical JSON) -> result, within one process


def run_all(ctx: Context, scenarios: Sequence[dict[str, Any]], desc: str) -> list[RunResult]:
    """Run the scenarios not run before in this process (in parallel through ``ctx``); results in input order."""
    keys = [json.dumps(s, sort_keys=True) for s in scenarios]
    todo = list(dict.fromkeys(k for k in keys if k not in _RESULTS))
    if todo:
        for k, r in zip(todo, ctx.run_many([json.loads(k) for k in todo], desc=desc)):
            _RESULTS[k] = r
    return [_RESULTS[k] for k in keys]


def value(r: RunResult, name: str) -> tuple[float, float]:
    if name == UNI:
        # Real-time packets less those of multicast frames (each counted once per member).
        n_rt, n_mc = count(r, RT), count(r, MC)
        n = n_rt - n_mc
        return ((value(r, RT)[0] * n_rt - value(r, MC)[0] * n_mc) / n if n > 0 else math.nan), math.nan
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
    if "deadlock" in r.flags:
        at = float((r.deadlock or {}).get("time_us", math.nan)) / 1000.0
        return Point(r, FLAGGED, f"deadlocked at {at:.0f} ms, measured through")
    return Point(r, FLAGGED if r.flags else "ok")


@dataclass
class Line:
    """One scheme's runs on one network over a figure's loads (Up*/Down*: one root)."""

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
    """A figure's runs: every line, and the one drawn per network and scheme (Up*/Down*: the best root)."""

    f: Figure
    xs: tuple[float, ...]
    nets: list[int]
    every: list[Line]
    drawn: dict[tuple[str, int], Line]  # (scheme key, network) -> line


def figure_runs(ctx: Context, f: Figure) -> FigureRuns:
    xs = loads(ctx, f)
    nets = networks(ctx, f.switches)
    plan: list[tuple[int, Scheme, int | None]] = []
    for n in nets:
        roots = candidate_roots(f.switches, n)
        for s in f.schemes:
            plan += [(n, s, r) for r in roots[: s.roots]] if s.roots else [(n, s, None)]
    scs = [scenario(ctx, f, n, s, r, x) for n, s, r in plan for x in xs]
    results = iter(run_all(ctx, scs, desc=f"iba-2007 fig {f.fig}"))
    every = [Line(n, s, r, {x: classify(f, x, next(results)) for x in xs}) for n, s, r in plan]
    drawn: dict[tuple[str, int], Line] = {}
    for n in nets:
        for s in f.schemes:
            lines = [ln for ln in every if ln.network == n and ln.scheme is s]
            if not s.roots:
                drawn[(s.key, n)] = lines[0]
                continue
            usable = [x for x in xs if all(ln.runs[x].status not in NO_VALUE and math.isfinite(value(ln.runs[x].r, RT)[0])
                                           for ln in lines)]
            for ln in lines:
                ln.selection_latency_us = statistics.fmean(value(ln.runs[x].r, RT)[0] for x in usable) if usable else math.nan
            best = min(lines, key=lambda ln: (ln.selection_latency_us if math.isfinite(ln.selection_latency_us) else math.inf,
                                              lines.index(ln)))
            for ln in lines:
                ln.best_root = ln is best
            drawn[(s.key, n)] = best
    return FigureRuns(f, xs, nets, every, drawn)


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
    dead = sum(p.status in NO_VALUE or "deadlock" in p.r.flags for p in pts)
    vals = []
    for p in pts:
        # A stalled fabric still has a DMP (every refused frame missed); its
        # latencies and DMT would describe only the packets that got out.
        if p.status == DEADLOCK or (p.status == STALLED and metric != DMP):
            continue
        v, ci = value(p.r, metric)
        if metric == DMT and not math.isfinite(v):
            v, ci = 0.0, 0.0  # no frame missed its deadline
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


# ---------------------------------------------------------------- output ----


def curve_rows(fr: FigureRuns) -> list[dict[str, Any]]:
    """Every run (series "<scheme> net <n>[ root <r>]"), and the family median of each drawn scheme (series "<scheme>")."""
    rows = []
    f = fr.f
    for ln in fr.every:
        for x, p in ln.runs.items():
            r = p.r
            info, counters = r.run_info, r.counters
            dl = r.deadlock or {}
            mp = (r.raw.get("routing") or {}).get("multipath") or {}
            run_cols = {
                "figure": f.fig, "switches": f.switches, "mix": f.mix, "network": ln.network, "injection_rate": x,
                "routing": ln.scheme.label, "root": ln.root, "best_root": ln.best_root,
                "root_selection_rt_latency_us": ln.selection_latency_us, "status": p.status, "stalled": p.stalled,
                "stop_reason": info.get("stop_reason"), "flags": ";".join(r.flags),
                "offered_load_pct": value(r, "offered_load_pct")[0], "accepted_load_pct": value(r, ACC)[0],
                "dmp_delivered_frames": value(r, "deadline_missing_probability_delivered")[0],
                "sim_time_ms": float(info.get("sim_time_us", math.nan)) / 1000.0,
                "deadlock_at_ms": float(dl["time_us"]) / 1000.0 if "time_us" in dl else math.nan,
                "packets_measured": info.get("observations"), "wall_time_s": info.get("wall_time_s"),
                "mean_hops": (r.raw.get("routing") or {}).get("mean_hops"),
                "frames_refused": counters.get("frames_refused"), "frames_damaged": counters.get("frames_damaged"),
                "packets_dropped": sum(v for k, v in counters.items() if "_packets_dropped_" in k),
                "multipath_loop_entries": mp.get("entries_replaced_for_loops"),
            }
            for m in METRICS + tuple(m for m in f.panels if m not in METRICS) + (ACC,):
                y, y_ci = value(r, m)
                rows.append({"series": ln.series, "x": 100.0 * x, "y": y, "y_ci": y_ci, "metric": m, **run_cols})
    for s in f.schemes:
        for x in fr.xs:
            for m in f.panels + (ACC,):
                v = family_value(fr, s, x, m)
                status = "deadlock" if not v.usable and v.deadlocked else (FLAGGED if v.unstable else "ok")
                rows.append({"series": s.label, "x": 100.0 * x, "y": v.median, "y_ci": math.nan, "metric": m,
                             "figure": f.fig, "switches": f.switches, "mix": f.mix, "injection_rate": x, "routing": s.label,
                             "status": status, "family_low": v.lo, "family_high": v.hi, "networks_with_values": v.networks,
                             "networks_unstable": v.unstable, "networks_deadlocked": v.deadlocked})
    return rows


def plot_spec(fr: FigureRuns) -> PlotSpec:
    f = fr.f
    title = (f"Fig. {f.fig}: {f.switches}-node networks (family of {len(fr.nets)}: seeds "
             f"{', '.join(map(str, fr.nets))}), real-time : best-effort = {f.mix}; medians")
    panels = [Panel(m, PANEL_LABELS[m][0], f"({chr(ord('a') + i)}) {PANEL_LABELS[m][1]}", logy=PANEL_LABELS[m][2])
              for i, m in enumerate(f.panels + (ACC,))]
    return PlotSpec("injection rate (%)", "", title, series=[s.label for s in f.schemes], panels=panels)


def output(fr: FigureRuns, ours: dict[str, Measured]) -> ExperimentOutput:
    return ExperimentOutput(curves=pd.DataFrame(curve_rows(fr)), plot=plot_spec(fr), ours=ours)


@experiment(id="iba-2007/fig7", title="Seven routing schemes on 15-node networks, real-time : best-effort = 70:30 (Fig. 7)",
            seed_ref=SOURCE)
def fig7(ctx: Context) -> ExperimentOutput:
    fr = figure_runs(ctx, FIGURES["7"])
    return output(fr, fig7_claims(fr))


@experiment(id="iba-2007/fig8", title="Seven routing schemes on 15-node networks, real-time : best-effort = 30:70 (Fig. 8)",
            seed_ref=SOURCE)
def fig8(ctx: Context) -> ExperimentOutput:
    fr = figure_runs(ctx, FIGURES["8"])
    fr7 = figure_runs(ctx, FIGURES["7"])  # Fig. 7's runs: reused when it ran in this process
    return output(fr, fig8_claims(fr, fr7))


@experiment(id="iba-2007/fig9", title="Five routing schemes on 30-node networks, real-time : best-effort = 70:30 (Fig. 9)",
            seed_ref=SOURCE)
def fig9(ctx: Context) -> ExperimentOutput:
    fr = figure_runs(ctx, FIGURES["9"])
    fr7 = figure_runs(ctx, FIGURES["7"])  # dropping at 15 nodes, for the comparison the text makes
    return output(fr, fig9_claims(fr, fr7))


@experiment(id="iba-2007/fig10", title="Four multicast schemes and four bandwidth policies on 15-node networks, 70:30 (Fig. 10)",
            seed_ref=SOURCE)
def fig10(ctx: Context) -> ExperimentOutput:
    fr = figure_runs(ctx, FIGURES["10"])
    fb = figure_runs(ctx, FIGURES["10f"])  # Fig. 10f: asynchronous replication under the four policies
    out = output(fr, fig10_claims(fr, fb))
    out.curves = pd.concat([out.curves, pd.DataFrame(curve_rows(fb))], ignore_index=True)
    return out


@experiment(id="iba-2007/spf-ties", title="SPF's open tie rule: balanced by destination against lowest-numbered (Fig. 7's networks)",
            seed_ref=SOURCE)
def spf_ties(ctx: Context) -> ExperimentOutput:
    """The study states no tie rule for SPF; this shows what the choice changes
    on Fig. 7's family. It makes no claim of the study's, so it has no rows."""
    return output(figure_runs(ctx, FIGURES["ties"]), {})
