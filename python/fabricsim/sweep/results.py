"""What a sweep returns: its table, the runs that failed and what a rerun would do about them."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..errors import FabricsimError, WorkerError
from .plan import short_text

if TYPE_CHECKING:  # pandas costs half a second to import; only table code pays it
    import pandas as pd


@dataclass
class FailedRun:
    key: str
    params: dict[str, Any]
    rep: int
    seed: int | None
    error: FabricsimError

    def describe(self) -> str:
        where = ", ".join(f"{k}={short_text(v)}" for k, v in self.params.items())
        return f"run [{where}{', ' if where else ''}rep {self.rep}, seed {self.seed}] failed: {self.error}"

    @property
    def retryable(self) -> bool:
        """Whether a rerun may succeed: only if the worker died. The engine is
        deterministic, so a scenario or model error comes back the same."""
        return isinstance(self.error, WorkerError)


def failure_advice(failed: Sequence[FailedRun]) -> str:
    """What a rerun of the sweep would do about ``failed``, in a phrase."""
    retry = sum(f.retryable for f in failed)
    permanent = len(failed) - retry
    if not permanent:
        return "their workers were lost (a worker process died or a Dask cluster went away); rerun the same command to retry them"
    fix = "a rerun will not fix them (the same scenario and seed fail the same way): fix the scenario or the grid"
    if not retry:
        return fix
    return (
        f"{retry} of them failed because their worker was lost and a rerun retries them; "
        f"the other {permanent} a rerun will not fix (the same scenario and seed fail the same way)"
    )


@dataclass
class SweepResult:
    """``table``: one row per run and metric; ``failed``: runs that raised; ``out``: file written."""

    table: pd.DataFrame
    failed: list[FailedRun] = field(default_factory=list)
    out: Path | None = None
    ran: int = 0
    skipped: int = 0
    total: int = 0

    @property
    def ok(self) -> bool:
        return not self.failed

    def report(self) -> str:
        text = f"ran {self.ran}, skipped {self.skipped} already finished, failed {len(self.failed)} (of {self.total} runs)"
        if self.out is not None:
            text += f"; wrote {self.out} ({len(self.table)} rows)"
        return text

