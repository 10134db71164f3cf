"""Seed 003 (Kim et al., IBA design space, TPDS 2007): the routing and
multicast schemes the study compares, and the figures that draw them (their
networks' size, traffic mix, loads and panels). The study and its experiments
are in iba_2007.py.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from .framework import Context

LINK_BYTES_PER_S = 250e6  # 1x SDR data rate (2.5 Gbit/s signalling, 8b/10b)
WIRE_BYTES_PER_PACKET = 1045.0  # video packets average about 1041 bytes on the wire, best-effort 1050
CANDIDATE_ROOTS = 3  # the paper's "three different roots"

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


UPDOWN = Scheme("updown", "Up/Down (tree)", {"algorithm": "updown_tree"}, roots=CANDIDATE_ROOTS)
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
# Fig. 10: the four multicast schemes on SPF with dropping (the routing the study concludes for: "SPF routing may
# lead to deadlocks, but when it is coupled with the packet dropping mechanism, deadlocks can be avoided"; plain SPF
# deadlocks at 40-60% on the family, which the study does not report for Fig. 10), and Fig. 10f's four bandwidth
# policies with asynchronous replication; separate VLs: unicast video on 1-5, multicast on 6-11 (6:5), best-effort
# on 12-14 and 0 (docs/infiniband-model.md, "Multicast").
MC_UNICAST = Scheme("mc-unicast", "Replicated Unicast", {"algorithm": "spf"}, drop=True,
                    multicast={"scheme": "replicated_unicast"})
MC_SYNC = Scheme("mc-sync", "Synchronous", {"algorithm": "spf"}, drop=True,
                 multicast={"scheme": "synchronous", "order": "fcfs"})
MC_ASYNC = Scheme("mc-async", "Asynchronous", {"algorithm": "spf"}, drop=True, multicast={"scheme": "asynchronous"})
MC_CENTRAL = Scheme("mc-central", "Asynchronous+Central Buffer", {"algorithm": "spf"}, drop=True,
                    multicast={"scheme": "central_buffer"})
MC_SCHEMES = (MC_UNICAST, MC_SYNC, MC_ASYNC, MC_CENTRAL)
# Synchronous replication's other sides: round robin among multicast requests (footnote 5: "FCFS provides a slight
# better performance"), and a request reserving its outputs before they have room (the `sync-reservation` ablation).
MC_SYNC_RR = Scheme("mc-sync-rr", "Synchronous, round robin", {"algorithm": "spf"}, drop=True,
                    multicast={"scheme": "synchronous", "order": "round_robin"})
MC_SYNC_HOLD = Scheme("mc-sync-hold", "Synchronous, hold and wait", {"algorithm": "spf"}, drop=True,
                      multicast={"scheme": "synchronous", "order": "fcfs", "reservation": "hold_and_wait"})
SYNC_VARIANTS = (MC_SYNC_RR, MC_SYNC_HOLD)
SEPARATE_SLS = {"real_time_sls": [1, 2, 3, 4, 5], "best_effort_sls": [12, 13, 14, 0]}


def _policy(key: str, label: str, bandwidth: str) -> Scheme:
    return Scheme(key, label, {"algorithm": "spf"}, drop=True, workload=SEPARATE_SLS,
                  multicast={"scheme": "asynchronous", "sls": [6, 7, 8, 9, 10, 11], "bandwidth": bandwidth})


BW_SHARED = Scheme("bw-shared", "1 same, no VL separation", {"algorithm": "spf"}, drop=True,
                   multicast={"scheme": "asynchronous"})
BW_EQUAL = _policy("bw-equal", "2 same, separate VLs", "equal")
BW_LINEAR = _policy("bw-linear", "3 linear", "linear")
BW_LOG = _policy("bw-log", "4 logarithmic", "logarithmic")
BW_SCHEMES = (BW_SHARED, BW_EQUAL, BW_LINEAR, BW_LOG)
BY_KEY = {s.key: s for s in SCHEMES + (SPF_LOWEST,) + MC_SCHEMES + SYNC_VARIANTS + BW_SCHEMES}


@dataclass(frozen=True)
class Figure:
    fig: str
    switches: int
    real_time_share: float
    loads: tuple[float, ...]  # injection rates (fraction of the link rate), full mode
    quick_loads: tuple[float, ...]
    panels: tuple[str, ...]
    schemes: tuple[Scheme, ...] = field(default=SCHEMES)
    # A reading's other side, for the ablations: [ib] sections merged into every run's.
    ablation: Mapping[str, Mapping[str, Any]] | None = None
    # The dropping schemes' HOQLife (None: the declared iba_2007.HOQ_LIFE); the others never drop.
    hoq_life: int | None = None

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
    # Fig. 10's networks and loads, synchronous replication's other sides (its FCFS, room-first runs are Fig. 10's).
    "10s": Figure("10s", 15, 0.7, LOADS_15, (0.2, 0.4), (DMP, DMT, MC, CTL, BE), SYNC_VARIANTS),
}
# The ablations of docs/infiniband-model.md "Seed 003's readings under test": Fig. 7 under the other side of a
# reading or choice, as the fields of its Figure that change.
ABLATIONS: dict[str, tuple[str, dict[str, Any]]] = {
    "whole": ("a video frame handed to the HCA whole at its release",
              {"ablation": {"workload": {"video_injection": "whole"}}}),
    "shared": ("one 8 MiB HCA buffer shared by every SL", {"ablation": {"hca": {"buffer_scope": "shared"}}}),
    "hoq-life-4": ("HOQLife 4 (65 us) for the dropping schemes", {"hoq_life": 4}),
}


def loads(ctx: Context, f: Figure) -> tuple[float, ...]:
    return f.quick_loads if ctx.quick else f.loads


def packets_per_s(switches: int, load: float) -> float:
    """Packets the HCAs inject per simulated second at ``load`` (one HCA per switch)."""
    return switches * load * LINK_BYTES_PER_S / WIRE_BYTES_PER_PACKET
