"""A study's published claims as data: one table per study, beside its
reproduction module (``<study>.claims.toml``, the study being the prefix of
its experiment ids), and their evaluation against what the reproduction
computes.

A row holds the claim (id, figure or table, the paper's words, the
published value or range and its unit), its kind, which sets the tolerance
through the policy in :mod:`.framework`, and its role:

- ``prediction``: checked; within or missed, or **no value** when ours
  cannot be computed (a NaN, a ratio over 0, 0 against 0, both sides
  stalled): counted apart, never as within or missed.
- ``fit``: a calibration target (``parameter`` names what was set on it);
  ours is shown beside it, never counted as a pass.
- ``derived``: arithmetic of other rows or of the inputs (``why`` says of
  what), in the paper and in ours alike; ours is shown if the experiment
  computes it, never counted.
- ``unaddressed``: the model cannot yet address it (``why``).
- ``construction``: true by construction of the model or arithmetic on the
  inputs, so not evidence; ``test`` names the unit test that holds it.
- ``restates``: the same fact as another row (``same_as``), checked there.

A row that a model choice decides (a parameter set with the claims in
view, or a reading the paper leaves open) names it in ``decided_by``: the
id of one of the table's ``[[choices]]``, each a declared fit or
assumption with its value, its reason and the alternative.

An experiment computes only "ours", as a :class:`Value`, :class:`Compare`
or :class:`Series` per row id of its predictions and fits (and, if it
likes, its derived rows); the framework evaluates the rows
(:func:`evaluate`) and refuses a row left unevaluated or an id the table
does not hold.
"""

from __future__ import annotations

import math
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any, Union

from ..errors import FabricsimError
from .policy import KIND_RULES, SIZE_WORDS, Check

ROLES = ("prediction", "fit", "derived", "unaddressed", "construction", "restates")
EVALUATED = ("prediction", "fit")
# Rows whose value an experiment may show without it counting.
SHOWN = ("derived",)
CHOICE_KINDS = ("fit", "assumption")
SHAPES = ("rising", "falling", "growth")
NATURES = ("simulation", "hardware", "own experiment")
HERE = Path(__file__).parent

_ROW_KEYS = {
    "id": str, "experiment": str, "figure": str, "quote": str, "published": (int, float, list), "unit": str,
    "kind": str, "role": str, "parameter": str, "why": str, "test": str, "same_as": str, "margin": (int, float),
    "margin_why": str, "size": str, "shape": str, "of": str, "bandwidth": (int, float), "reading": str, "plot": dict,
    "decided_by": list,
}
_STUDY_KEYS = {"title": str, "source": str, "nature": str, "calibration": str}
_CHOICE_KEYS = {"id": str, "kind": str, "key": str, "value": str, "why": str, "alternative": str}
_PLOT_KEYS = {"series": str, "x": (int, float), "metric": str, "vline": bool}


@dataclass(frozen=True)
class Claim:
    """One row of a claims table (see the module docstring)."""

    id: str
    experiment: str
    figure: str
    quote: str
    unit: str
    kind: str
    role: str
    published: float | tuple[float, float] | None = None
    parameter: str = ""
    why: str = ""
    test: str = ""
    same_as: str = ""
    margin: float | None = None
    margin_why: str = ""
    size: str = ""
    shape: str = ""
    of: str = ""
    bandwidth: float | None = None
    reading: str = ""
    plot: Mapping[str, Any] | None = None
    decided_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class Choice:
    """A model choice that decides rows: a declared fit (set on a published
    number) or assumption (a reading the paper leaves open), with the value
    taken, why, and the alternative whose verdicts the study's note gives."""

    id: str
    kind: str
    key: str
    value: str
    why: str
    alternative: str


@dataclass(frozen=True)
class Study:
    """A study's claims table: what it is, and its rows in table order."""

    id: str
    title: str
    source: str
    nature: str
    calibration: str
    claims: tuple[Claim, ...]
    path: Path
    choices: tuple[Choice, ...] = ()

    def rows(self, experiment: str) -> list[Claim]:
        return [c for c in self.claims if c.experiment == experiment]

    def by_id(self) -> dict[str, Claim]:
        return {c.id: c for c in self.claims}


# ---- what an experiment computes ------------------------------------------


@dataclass
class Value:
    """Our number for a value claim (its 95% CI half width if known);
    ``no_value`` says why there is none (e.g. the run deadlocked)."""

    value: float
    ci: float | None = None
    note: str = ""
    no_value: str = ""


@dataclass
class Compare:
    """A direction claim: ``a`` is what the claim says is larger than ``b``."""

    a: float
    b: float
    a_ci: float | None = None
    b_ci: float | None = None
    note: str = ""
    no_value: str = ""


@dataclass
class Series:
    """A trend claim: our values in order of the claim's x (with CIs if known)."""

    ys: Sequence[float]
    cis: Sequence[float | None] | None = None
    xs: Sequence[Any] | None = None
    note: str = ""
    no_value: str = ""


def least_ahead(pairs: Mapping[Any, Compare]) -> Any:
    """Of one comparison per condition (a share, a fabric), the key of the one
    where A exceeds B the least, relative to B: a claim that A is above B
    everywhere is judged where it holds least. Comparisons with no value are
    left out; with none left, the first key."""
    usable = {k: c for k, c in pairs.items() if not c.no_value}
    if not usable:
        return next(iter(pairs))
    return min(usable, key=lambda k: (usable[k].a - usable[k].b) / usable[k].b)


Measured = Union[Value, Compare, Series]
_MEASURED = {"Value": Value, "Compare": Compare, "Series": Series}


def json_safe(o: Any) -> Any:
    """JSON has no infinity or NaN: write them as the strings "inf", "-inf", "nan"."""
    if isinstance(o, float) and not math.isfinite(o):
        return "nan" if math.isnan(o) else ("inf" if o > 0 else "-inf")
    if isinstance(o, dict):
        return {k: json_safe(v) for k, v in o.items()}
    if isinstance(o, (list, tuple)):
        return [json_safe(v) for v in o]
    return o


def measured_to_json(m: Measured) -> dict[str, Any]:
    """What an experiment computed for a row, as a record keeps it."""
    return {"type": type(m).__name__, **{k: (list(v) if isinstance(v, (list, tuple)) else v)
                                          for k, v in m.__dict__.items()}}


def measured_from_json(d: Mapping[str, Any]) -> Measured:
    """A record's value back as an experiment computed it (JSON's "nan"/"inf" strings as numbers)."""
    def num(v: Any) -> Any:
        if isinstance(v, str) and v in ("nan", "inf", "-inf"):
            return float(v)
        if isinstance(v, list):
            return [num(x) for x in v]
        return v
    kind = _MEASURED.get(str(d.get("type")))
    if kind is None:
        raise FabricsimError(f"a record's value of type {d.get('type')!r}; allowed: {', '.join(_MEASURED)}")
    return kind(**{k: num(v) for k, v in d.items() if k != "type"})


# ---- loading ----------------------------------------------------------------


def _fail(path: Path, where: str, key: str, value: Any, allowed: str) -> FabricsimError:
    return FabricsimError(f"{path.name}: {where}: `{key}` = {value!r}; allowed: {allowed}")


def _typed(path: Path, where: str, table: Mapping[str, Any], keys: Mapping[str, Any]) -> dict[str, Any]:
    out = {}
    for key, value in table.items():
        if key not in keys:
            raise _fail(path, where, key, value, "one of " + ", ".join(keys))
        want = keys[key]
        if not isinstance(value, want) or (isinstance(value, bool) and want is not bool):
            raise _fail(path, where, key, value, f"a {getattr(want, '__name__', want)}")
        out[key] = value
    return out


def _row(path: Path, i: int, table: Mapping[str, Any]) -> Claim:
    where = f"claim {i + 1} ({table.get('id', 'no id')})"
    row = _typed(path, where, table, _ROW_KEYS)
    for key in ("id", "experiment", "figure", "quote", "unit", "kind", "role"):
        if not row.get(key) and not (key == "unit" and key in row):
            raise _fail(path, where, key, row.get(key), "a non-empty string (every row states it)")
    if row["role"] not in ROLES:
        raise _fail(path, where, "role", row["role"], ", ".join(ROLES))
    if row["kind"] not in KIND_RULES:
        raise _fail(path, where, "kind", row["kind"], ", ".join(KIND_RULES))
    published = row.get("published")
    if isinstance(published, list):
        if len(published) != 2 or not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in published) \
                or published[0] > published[1]:
            raise _fail(path, where, "published", published, "a number or a range [low, high]")
        published = (float(published[0]), float(published[1]))
    elif published is not None:
        published = float(published)
    row["published"] = published
    role, kind = row["role"], row["kind"]
    needs = {"fit": "parameter", "derived": "why", "unaddressed": "why", "construction": "why", "restates": "same_as"}
    if role in needs and not row.get(needs[role]):
        raise _fail(path, where, needs[role], None, f"a reason: a `{role}` row names its {needs[role]}")
    if role == "construction" and not row.get("test"):
        raise _fail(path, where, "test", None, "the unit test that holds a `construction` row")
    if ("margin" in row) != ("margin_why" in row):
        raise _fail(path, where, "margin_why", row.get("margin_why"), "a margin together with why, from the paper's precision")
    decided = row.get("decided_by", [])
    if not all(isinstance(d, str) and d for d in decided):
        raise _fail(path, where, "decided_by", decided, "a list of the ids of [[choices]] that decide the row")
    row["decided_by"] = tuple(decided)
    if role not in EVALUATED + SHOWN:
        pass  # a row nothing evaluates needs no rule to evaluate it by
    elif kind == "direction":
        if row.get("size") not in SIZE_WORDS:
            raise _fail(path, where, "size", row.get("size"), ", ".join(SIZE_WORDS))
        if row.get("size") == "about" and not isinstance(published, tuple):
            raise _fail(path, where, "published", published, "the range in % that 'about' allows, e.g. [5, 15]")
    elif kind == "trend":
        if row.get("shape") not in SHAPES:
            raise _fail(path, where, "shape", row.get("shape"), ", ".join(SHAPES))
        if row["shape"] == "growth" and (published is None or row.get("of") not in KIND_RULES):
            raise _fail(path, where, "of", row.get("of"), "a growth names its ratio (`published`) and the kind it is of (`of`)")
    elif published is None:
        raise _fail(path, where, "published", None, "the published value or range of an evaluated value claim")
    if kind == "simulated throughput" and row["unit"] != "%" and role in EVALUATED + SHOWN and "bandwidth" not in row:
        raise _fail(path, where, "bandwidth", None, "the bandwidth (in the claim's unit) that ±2 points refer to")
    if "plot" in row:
        plot = _typed(path, where + " plot", row["plot"], _PLOT_KEYS)
        if "series" not in plot:
            raise _fail(path, where, "plot", row["plot"], "a table with `series` (and `x`, `metric` or `vline`)")
    row["margin"] = float(row["margin"]) if "margin" in row else None
    if "bandwidth" in row:
        row["bandwidth"] = float(row["bandwidth"])
    return Claim(**row)


def load_study(path: Path) -> Study:
    """A claims table from ``path``; every error names the file, the row and the key."""
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise FabricsimError(f"{path.name}: cannot read the claims table: {e}") from None
    extra = set(data) - {"study", "claims", "choices"}
    if extra:
        raise _fail(path, "top level", sorted(extra)[0], "...", "[study], [[choices]] and [[claims]]")
    head = _typed(path, "[study]", data.get("study", {}), _STUDY_KEYS)
    for key in ("title", "source", "nature"):
        if not head.get(key):
            raise _fail(path, "[study]", key, head.get(key), "a non-empty string")
    if head["nature"] not in NATURES:
        raise _fail(path, "[study]", "nature", head["nature"], ", ".join(NATURES))
    rows = tuple(_row(path, i, r) for i, r in enumerate(data.get("claims", [])))
    seen: set[str] = set()
    for r in rows:
        if r.id in seen:
            raise _fail(path, f"claim {r.id}", "id", r.id, "an id used once")
        seen.add(r.id)
    for r in rows:
        if r.role == "restates" and (r.same_as not in seen or r.same_as == r.id):
            raise _fail(path, f"claim {r.id}", "same_as", r.same_as, "the id of another row of this table")
    choices = tuple(_choice(path, i, c) for i, c in enumerate(data.get("choices", [])))
    declared = {c.id for c in choices}
    if len(declared) != len(choices):
        raise _fail(path, "[[choices]]", "id", sorted(c.id for c in choices), "ids used once")
    for r in rows:
        for d in r.decided_by:
            if d not in declared:
                raise _fail(path, f"claim {r.id}", "decided_by", d, "the id of one of the table's [[choices]]: "
                            + (", ".join(sorted(declared)) or "(none declared)"))
    unused = declared - {d for r in rows for d in r.decided_by}
    if unused:
        raise _fail(path, "[[choices]]", "id", sorted(unused)[0], "a choice some row's `decided_by` names")
    study = path.name.removesuffix(".claims.toml")
    return Study(study, head["title"], head["source"], head["nature"], head.get("calibration", ""), rows, path,
                 choices)


def _choice(path: Path, i: int, table: Mapping[str, Any]) -> Choice:
    where = f"choice {i + 1} ({table.get('id', 'no id')})"
    row = _typed(path, where, table, _CHOICE_KEYS)
    for key in _CHOICE_KEYS:
        if not row.get(key):
            raise _fail(path, where, key, row.get(key), "a non-empty string (every choice states it)")
    if row["kind"] not in CHOICE_KINDS:
        raise _fail(path, where, "kind", row["kind"], ", ".join(CHOICE_KINDS))
    return Choice(**row)


@cache
def study_table(study: str) -> Study | None:
    """The claims table of ``study`` (an experiment id's prefix), if it has one."""
    path = HERE / f"{study}.claims.toml"
    return load_study(path) if path.exists() else None


def tables() -> list[Study]:
    """Every study's claims table in the package."""
    return [load_study(p) for p in sorted(HERE.glob("*.claims.toml"))]
