"""A sweep's tidy table: the rows of one run, and the results file read, assembled and written."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..atomic_file import write_atomically
from ..errors import SweepError
from ..result import METRIC_COLUMNS, RunResult, metric_rows
from .plan import RunPoint

if TYPE_CHECKING:  # pandas costs half a second to import; only table code pays it
    import pandas as pd

FIXED_COLUMNS = ["rep", "seed"]
TAIL_COLUMNS = ["stop_reason", "flags", "run_key"]
_FORMATS = {".csv": "csv", ".parquet": "parquet"}


# ---- tidy rows --------------------------------------------------------------------
def _cell(v: Any) -> Any:
    # Lists/tables as grid values are stored as JSON text so CSV and Parquet agree.
    return json.dumps(v) if isinstance(v, (list, dict, tuple)) else v


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def run_rows(point: RunPoint, result: RunResult) -> list[dict[str, Any]]:
    """The tidy rows of one run: its metrics, then ``counter.*`` and ``run.*`` rows (mean only)."""
    nan = float("nan")
    rows = metric_rows(result.raw.get("metrics", {}))
    extra = {c: nan for c in METRIC_COLUMNS if c != "metric"}
    for name, value in result.counters.items():
        if _is_number(value):
            rows.append({"metric": f"counter.{name}", **extra, "mean": float(value)})
    for name, value in result.run_info.items():
        if _is_number(value):
            rows.append({"metric": f"run.{name}", **extra, "mean": float(value)})
    head = {k: _cell(v) for k, v in point.params.items()}
    head["rep"] = point.rep
    head["seed"] = point.seed
    tail = {
        "stop_reason": result.run_info.get("stop_reason"),
        "flags": ";".join(result.run_info.get("flags") or []),
        "run_key": point.key,
    }
    return [{**head, **{c: r[c] for c in METRIC_COLUMNS}, **tail} for r in rows]


def to_json_row(row: Mapping[str, Any]) -> dict[str, Any]:
    return {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in row.items()}


# ---- the results file -------------------------------------------------------------
def format_of(out: Path) -> str:
    fmt = _FORMATS.get(out.suffix.lower())
    if fmt is None:
        raise SweepError(f"{out}: output must end in .parquet or .csv")
    return fmt


def check_out_dir(out: Path) -> None:
    """Clear errors for an --out whose directory is missing or is not one; writability is the lock's test."""
    if out.is_dir():
        raise SweepError(f"{out}: is a directory; --out names the results file (FILE.parquet or FILE.csv)")
    parent = out.parent
    if not parent.exists():
        raise SweepError(f"{out}: cannot write there: directory {parent} does not exist")
    if not parent.is_dir():
        raise SweepError(f"{out}: cannot write there: {parent} is not a directory")


def read_table(out: Path, fmt: str) -> pd.DataFrame:
    import pandas as pd

    try:
        table = pd.read_parquet(out) if fmt == "parquet" else pd.read_csv(out)
    except Exception as exc:  # unreadable: say so rather than overwrite someone's data
        raise SweepError(f"{out}: exists but cannot be read as a sweep table ({exc})") from None
    if "run_key" not in table.columns:
        raise SweepError(f"{out}: exists but is not a fabricsim sweep table (no run_key column)")
    if "flags" in table.columns:
        table["flags"] = table["flags"].astype(object).fillna("").astype(str)  # CSV reads a clean run's "" as NaN
    return table


# The journal holds one JSON record per line, {"key": ..., "rows": [...]}, each

def write_atomic(table: pd.DataFrame, out: Path, fmt: str, hint: str = "") -> None:
    """Writes the table whole or not at all: a disk that cannot take it is a SweepError naming ``out``, and ``hint``."""

    def write(tmp: Path) -> None:
        if fmt == "parquet":
            try:
                table.to_parquet(tmp, index=False)
            except (TypeError, ValueError) as exc:  # e.g. a grid axis mixing numbers and text
                import pyarrow as pa

                if not isinstance(exc, (pa.ArrowTypeError, pa.ArrowInvalid)):
                    raise
                mixed = {c: table[c].astype(str) for c in table.columns if table[c].dtype == object}
                table.assign(**mixed).to_parquet(tmp, index=False)
        else:
            table.to_csv(tmp, index=False)

    write_atomically(out, write, what="the table", hint=hint, error=SweepError)


def assemble(
    parts: list[pd.DataFrame], order: Mapping[str, int], columns: list[str]
) -> pd.DataFrame:
    import pandas as pd

    parts = [p for p in parts if len(p)]
    if not parts:
        return pd.DataFrame(columns=columns)
    table = pd.concat(parts, ignore_index=True)
    for c in METRIC_COLUMNS[1:]:
        table[c] = pd.to_numeric(table[c], errors="coerce").astype(float)
    table = table[[c for c in columns if c in table.columns] + [c for c in table.columns if c not in columns]]
    # Plan order, then the order rows had within their run.
    rank = table["run_key"].map(order).fillna(len(order))
    table = table.assign(_rank=rank).sort_values("_rank", kind="stable").drop(columns="_rank")
    return table.reset_index(drop=True)

