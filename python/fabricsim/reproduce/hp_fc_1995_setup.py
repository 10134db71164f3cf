"""Seed 000, sections 4-5: how the cascaded fabrics are built (topology,
routing, workloads) and the model choices the study leaves open, shared by
the fabric experiments (hp_fc_1995_fabrics) and the fairness and deadlock
ones (hp_fc_1995_fairness)."""

from __future__ import annotations

from typing import Any

from .hp_fc_1995 import BURSTY, UNIFORM, Config

SOURCE = "seed 000: Cherkasova, Kotov, Rokicki, HP Labs, Simulation Study of Fibre Channel Fabrics (sections 4-5)"
WORKLOADS = {"bursty": BURSTY, "uniform": UNIFORM}
# The study routes the envelope deadlock-free; its shortest paths may deadlock.
ENVELOPE_ROUTING = {"paths": "smart"}
ENVELOPE_NOTE = "envelope routed with the engine's deadlock-free 'smart' paths, as the study's envelope must be"
# Choice `lanes-partition`: how deterministic routing lines up parallel trunks.
LANE_ASSIGNMENTS = ("aligned", "partition", "staggered")
DEFAULT_LANES = "partition"
# Choice `arbitration-rotating`: which output moves when several heads wait for one input.
ARBITRATIONS = ("rotating", "oldest")
DEFAULT_ARBITRATION = "rotating"


def fabric_config(label: str, kind: str, sizes: dict[str, Any] = BURSTY, credit: int = 2,
                  routing: dict[str, Any] | None = None, switch: dict[str, Any] | None = None, **fabric: Any) -> Config:
    if kind == "envelope" and routing is None:
        routing = dict(ENVELOPE_ROUTING)
    return Config(label, 2, credit, sizes, fabric={"kind": kind, **fabric}, routing=routing, switch=switch)


def rand_det_configs(kind: str, workloads=("bursty", "uniform"), **fabric: Any) -> list[Config]:
    configs = []
    for w in workloads:
        for choice in ("deterministic", "randomized"):
            routing = {**(ENVELOPE_ROUTING if kind == "envelope" else {}), "trunk_choice": choice}
            configs.append(fabric_config(f"{w}, {choice}", kind, WORKLOADS[w], routing=routing, **fabric))
    return configs
