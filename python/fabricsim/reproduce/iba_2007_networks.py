"""Seed 003 (Kim et al., IBA design space, TPDS 2007): the networks every
scheme runs on. The family rule of docs/infiniband-model.md picks random
networks of each size before any figure runs (the static part here, the
SPF runs at the top load in iba_2007_family); Up/Down's candidate roots
are the switches of smallest eccentricity.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .iba_2007_schemes import CANDIDATE_ROOTS

FAMILY_SIZE = 5
SEARCHED = 150  # generator seeds 1 .. SEARCHED tried per size
# The rule's outcome (docs/infiniband-model.md, "The networks of Figs.
# 7-10"): the experiment iba-2007/networks re-derives it from the bounds and
# the SPF runs at the top load, and fails if it no longer gives these.
FAMILIES = {15: (65, 68, 78, 19, 25), 30: (136, 46, 54, 69, 39)}


def topology(switches: int, seed: int) -> dict[str, Any]:
    return {"kind": "random", "switches": switches, "seed": seed}


@dataclass(frozen=True)
class Bounds:
    """A network's static properties the rule reads: whether SPF's channel
    dependencies have a cycle, and the uniform saturation bounds of SPF,
    multipath (random path bits) and Up/Down (the best of the candidate roots)."""

    seed: int
    cyclic: bool
    spf: float
    multipath: float
    updown: float


def bounds(switches: int, seed: int) -> Bounds:
    from ..api import routing

    def ask(algorithm: str, **more: Any) -> dict[str, Any]:
        return routing({"ib": {"topology": topology(switches, seed), "routing": {"algorithm": algorithm, **more}}})

    spf = ask("spf")
    mp = ask("multipath")["multipath_saturation"]["injection_rate"]
    roots = roots_by_eccentricity(switches, spf)
    ud = max(ask("updown_tree", root=r)["uniform_saturation"]["injection_rate"] for r in roots)
    return Bounds(seed, spf["channel_dependencies"]["acyclic"] is False, spf["uniform_saturation"]["injection_rate"], mp, ud)


def candidates(switches: int) -> list[Bounds]:
    """Rule 1 and 2, static: of seeds 1 .. SEARCHED, those where SPF's
    channel dependencies have a cycle and multipath's bound is above SPF's,
    most congested first (SPF's bound rising, ties by seed). Rule 3, that
    SPF delivers at the top load, takes a run (iba-2007/networks)."""
    kept = []
    for seed in range(1, SEARCHED + 1):
        b = bounds(switches, seed)
        if b.cyclic and b.multipath > b.spf:
            kept.append(b)
    return sorted(kept, key=lambda b: (b.spf, b.seed))


def family(switches: int, count: int = FAMILY_SIZE) -> list[int]:
    """The family the rule chose for ``switches`` switches (its first ``count``)."""
    return list(FAMILIES[switches][:count])


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
    return roots_by_eccentricity(switches, r, count)


def roots_by_eccentricity(switches: int, report: dict[str, Any], count: int = CANDIDATE_ROOTS) -> list[int]:
    """Of a routing report's network, the ``count`` switches of smallest eccentricity, ties by switch number."""
    ecc = eccentricities(switches, [(int(a), int(b)) for a, b, *_ in report["trunks"]])
    return sorted(ecc, key=lambda s: (ecc[s], s))[:count]
