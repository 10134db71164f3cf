"""A sweep's plan: every grid point x replication as a :class:`RunPoint`, with its seed and run key.

Seeds. Replication ``r`` of a grid point runs with ``run.seed = base + r``, where
``base`` is the ``base_seed`` argument if given, else that point's ``run.seed``
(the scenario's, or the grid's when ``run.seed`` is an axis, or the engine's
default). Every grid point therefore sees the same seed sequence (common random
numbers), which sharpens comparisons between points.

The run key identifies a run: JSON of a digest of the base scenario, the grid
values, the replication and the seed.
"""

from __future__ import annotations

import hashlib
import itertools
import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..errors import SweepError
from ..scenario import Scenario


@dataclass(frozen=True)
class RunPoint:
    """One run to execute: its key, grid values, replication, seed and scenario."""

    key: str
    params: dict[str, Any]
    rep: int
    seed: int | None
    scenario_json: str
    source: str


def short_text(v: Any) -> str:
    return json.dumps(v) if not isinstance(v, str) else v


def _digest(sc: Scenario) -> str:
    return hashlib.sha256(json.dumps(sc.to_dict(), sort_keys=True).encode()).hexdigest()[:12]


def normalize_grid(grid: Mapping[str, Iterable[Any]]) -> dict[str, list[Any]]:
    axes: dict[str, list[Any]] = {}
    for key, values in grid.items():
        dotted = key.replace("__", ".")
        if isinstance(values, (str, bytes)) or not isinstance(values, Iterable):
            raise SweepError(f"grid axis `{dotted}` must be a list of values, got {values!r}")
        values = list(values)
        if not values:
            raise SweepError(f"grid axis `{dotted}` has no values")
        axes[dotted] = values
    return axes


def run_key(digest: str, params: Mapping[str, Any], rep: int, seed: int | None) -> str:
    return json.dumps(
        {"base": digest, "params": dict(params), "rep": rep, "seed": seed},
        sort_keys=True,
        separators=(",", ":"),
    )


def plan_sweep(
    scenario: Scenario,
    grid: Mapping[str, Iterable[Any]],
    reps: int = 1,
    base_seed: int | None = None,
) -> list[RunPoint]:
    """Expand grid x reps into run points, validating every grid point up front.

    Validation before running means a misspelt grid key fails in a second, not
    after the first hour of a sweep.
    """
    if not isinstance(reps, int) or reps < 1:
        raise SweepError(f"reps must be a positive integer, got {reps!r}")
    axes = normalize_grid(grid)
    digest = _digest(scenario)
    points: list[RunPoint] = []
    for combo in itertools.product(*axes.values()):
        params = dict(zip(axes.keys(), combo))
        point_sc = scenario.with_overrides(params)
        if base_seed is not None:
            base = int(base_seed)
            point_sc.with_overrides({"run.seed": base}).validate()
        else:
            normalized = point_sc.validate()
            seed = (normalized.get("run") or {}).get("seed")
            if not isinstance(seed, int):
                raise SweepError(f"{scenario.source}: the normalized scenario has no integer run.seed to derive seeds from")
            base = seed
        for rep in range(reps):
            seed = base + rep
            rep_sc = point_sc.with_overrides({"run.seed": seed})
            points.append(
                RunPoint(
                    key=run_key(digest, params, rep, seed),
                    params=params,
                    rep=rep,
                    seed=seed,
                    scenario_json=rep_sc.to_json(),
                    source=scenario.source,
                )
            )
    return points

