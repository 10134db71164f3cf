"""The public entry points: ``run`` one scenario, ``sweep`` many."""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path
from typing import Any

from . import _core
from .errors import RoutingWarning, ScenarioError, unwrap
from .result import RunResult
from .scenario import Scenario

__all__ = ["run", "sweep", "run_scenario", "routing"]


def run(
    scenario: Scenario | str | Path | Mapping[str, Any] | None = None,
    overrides: Mapping[str, Any] | Iterable[str] | None = None,
    **kw: Any,
) -> RunResult:
    """Run one simulation.

    ``scenario`` is a Scenario, a TOML path, a dict, or None for the built-in
    default. ``overrides`` maps dotted keys to values; keyword arguments do the
    same with ``__`` for the dot: ``run("s.toml", workload__offered_load=0.5)``.
    """
    sc = Scenario.coerce(scenario).with_overrides(overrides, **kw)
    return run_scenario(sc)


def run_scenario(
    sc: Scenario,
    progress: Callable[..., Any] | None = None,
    building: Callable[[str, int, int], Any] | None = None,
    notice: Callable[[str], Any] | None = None,
) -> RunResult:
    """Run ``sc``. ``progress``, if given, is called about every 100 ms with
    (sim_time_us, events, observations, target, warmed_up); ``building``, while
    the model is built, with (stage, done, total); ``notice`` with what the
    build says before the run (a routing that may deadlock), which is
    otherwise issued as a :class:`RoutingWarning` once the run is over.
    Ctrl-C stops the build or the run within a fraction of a second and
    raises KeyboardInterrupt."""
    # The engine runs inside this call; parallelism comes from running
    # independent scenarios in separate processes (see sweep).
    heard: list[str] = []
    reply = _core.run(sc.to_json(), sc.source, progress, building, notice or heard.append)
    for text in heard:
        warnings.warn(f"{sc.source}: {text}", RoutingWarning, stacklevel=2)
    try:
        return RunResult(unwrap(reply, sc.source), sc.source)
    except ScenarioError as exc:
        raise sc.attribute(exc) from None


def routing(
    scenario: Scenario | str | Path | Mapping[str, Any] | None = None,
    overrides: Mapping[str, Any] | Iterable[str] | None = None,
    **kw: Any,
) -> dict[str, Any]:
    """The fabric's wiring and routing without running it: per-switch ports and
    forwarding tables, and ``channel_dependencies`` (the static deadlock check:
    ``acyclic`` and, if not, one ``cycle`` of trunk channels). Arguments as for :func:`run`."""
    sc = Scenario.coerce(scenario).with_overrides(overrides, **kw)
    try:
        return unwrap(_core.routing(sc.to_json(), sc.source), sc.source)
    except ScenarioError as exc:
        raise sc.attribute(exc) from None


def export(
    scenario: Scenario | str | Path | Mapping[str, Any] | None = None,
    format: str = "net",
    overrides: Mapping[str, Any] | Iterable[str] | None = None,
    **kw: Any,
) -> str:
    """An InfiniBand scenario's fabric as text: ``"net"`` (an ibnetdiscover
    dump, which ibsim and ``ib.topology.kind = "import"`` read), ``"dot"``
    (Graphviz) or ``"lfts"`` (its forwarding tables as OpenSM dumps them)."""
    sc = Scenario.coerce(scenario).with_overrides(overrides, **kw)
    try:
        return unwrap(_core.export(sc.to_json(), sc.source, format), sc.source)
    except ScenarioError as exc:
        raise sc.attribute(exc) from None


def sweep(
    scenario: Scenario | str | Path | Mapping[str, Any] | None,
    grid: Mapping[str, Iterable[Any]],
    reps: int = 1,
    jobs: int | None = None,
    out: str | Path | None = None,
    progress: bool = True,
    base_seed: int | None = None,
    overrides: Mapping[str, Any] | Iterable[str] | None = None,
    scheduler: str | None = None,
    dask_local: int | None = None,
):
    """Run the Cartesian product of ``grid`` x ``reps``; see :func:`fabricsim.sweep.run_sweep`
    (``scheduler``: a Dask scheduler's address; ``dask_local``: workers of a local Dask cluster)."""
    from .sweep import run_sweep

    return run_sweep(
        scenario,
        grid,
        reps=reps,
        jobs=jobs,
        out=out,
        progress=progress,
        base_seed=base_seed,
        overrides=overrides,
        scheduler=scheduler,
        dask_local=dask_local,
    )
