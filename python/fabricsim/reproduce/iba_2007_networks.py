"""Seed 003 (Kim et al., IBA design space, TPDS 2007): the networks every
scheme runs on. The family rule of docs/infiniband-model.md picks random
networks of each size before any run; Up*/Down*'s candidate roots are the
switches of smallest eccentricity.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Sequence
from typing import Any

from .iba_2007_schemes import CANDIDATE_ROOTS, LOADS_15, LOADS_30

FAMILY_SIZE = 5


def topology(switches: int, seed: int) -> dict[str, Any]:
    return {"kind": "random", "switches": switches, "seed": seed}


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
