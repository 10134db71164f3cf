"""What a reproduction run says, as Markdown: every experiment's claims
beside ours, and the counts per study (predictions within and missed,
calibration fits, claims the model cannot yet address, and the rows that
are not evidence: true by construction, or restating another row).

``DIR/SUMMARY.md`` is written after every ``fabricsim reproduce --out DIR``;
``--document FILE`` also writes the full document (REPRODUCTIONS.md): how the
run was made, the tolerance policy and, study by study, the notes kept in
``notes/<study>.md`` before that study's tables. A study with no record in
DIR keeps the tables of its last full run (``notes/<study>.legacy.md``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..atomic_file import write_atomically
from . import provenance
from .claims import study_table
from .evaluation import Counts
from .framework import experiments, file_stem, natural_key
from .policy import KIND_RULES, verdict_of

NOTES = Path(__file__).parent / "notes"
# Studies in the order of the seed papers; experiments of other studies follow.
STUDY_ORDER = ("hp-fc-1995", "switched-fcal", "ong-farrell-fc", "iba-2007", "fcal-loop", "fc-classes", "ib-cc-2010", "ib-cc-2011")
VERDICT_WORDS = {
    "within": "within",
    "missed": "**missed**",
    "no value": "no value",
    "fit": "fit",
    "derived": "derived",
    "unaddressed": "cannot address",
    "construction": "by construction",
    "restates": "restates",
}


@dataclass(frozen=True)
class DamagedRecord:
    """A file of the directory that should be an experiment record and cannot be read as one."""

    name: str  # the file's name in the directory
    why: str
    experiment: str | None  # the experiment it is named after, if one is registered

    def advice(self, out_dir: str | Path) -> str:
        if self.experiment is None:
            return "rerun its experiment to replace it"
        return f"rerun `fabricsim reproduce {self.experiment} --out {Path(out_dir).as_posix()}` to replace it"


ROLES = ("prediction", "check", *VERDICT_WORDS)


def read_records(out_dir: str | Path) -> tuple[list[dict[str, Any]], list[DamagedRecord]]:
    """Every experiment record (``<id>.json``) in ``out_dir``, ordered by study then
    experiment, and the files that should be records but cannot be read as one
    (cut short by a full disk or a crash, edited by hand...), which every
    document lists rather than leaving them out unseen.

    A ``.json`` file is taken for a record if it is named after a registered
    experiment, says it is one (an object with ``id`` or ``checks``), or is
    not JSON at all; other JSON files are not ours and are passed over.
    """
    named = {file_stem(i): i for i in experiments()}
    records, damaged = [], []
    for path in sorted(Path(out_dir).glob("*.json"), key=lambda p: natural_key(p.name)):
        experiment = named.get(path.stem)
        try:
            data: Any = json.loads(path.read_bytes().decode("utf-8"))
        except OSError as exc:
            damaged.append(DamagedRecord(path.name, f"cannot be read: {exc.strerror or exc}", experiment))
            continue
        except UnicodeDecodeError:
            damaged.append(DamagedRecord(path.name, "not UTF-8 text", experiment))
            continue
        except ValueError as exc:
            why = "empty" if path.stat().st_size == 0 else f"not JSON, cut short or damaged ({exc})"
            damaged.append(DamagedRecord(path.name, why, experiment))
            continue
        says_record = isinstance(data, dict) and ("id" in data or "checks" in data)
        if experiment is None and not says_record:
            continue
        problem = _record_problem(data)
        if problem:
            damaged.append(DamagedRecord(path.name, f"not a whole experiment record: {problem}", experiment))
            continue
        data.setdefault("study", data["id"].split("/", 1)[0])
        records.append(data)
    records.sort(key=lambda r: (study_rank(r["study"]), table_rank(r["study"], r["id"]), natural_key(r["id"])))
    return records, damaged


def _record_problem(data: Any) -> str:
    """What keeps ``data`` from being a record the documents can show; empty if nothing."""
    if not isinstance(data, dict):
        return f"a JSON {type(data).__name__}, not an object"
    if not isinstance(data.get("id"), str) or not data["id"]:
        return "no experiment `id`"
    if not isinstance(data.get("study", ""), str):
        return "`study` is not text"
    checks = data.get("checks")
    if not isinstance(checks, list) or not all(isinstance(c, dict) for c in checks):
        return "no `checks` list of claims"
    for key in ("runs", "wall_time_s"):
        if not isinstance(data.get(key, 0), (int, float)) or isinstance(data.get(key), bool):
            return f"`{key}` is not a number"
    unknown = [r for r in (c.get("role", "check") for c in checks) if not isinstance(r, str) or r not in ROLES]
    if unknown:
        return f"a claim of unknown role {unknown[0]!r}"
    try:  # what the documents compute from a claim's values (a published range, a CI against ours...)
        experiment_section(data)
    except (TypeError, ValueError, KeyError, AttributeError) as exc:
        return f"a claim the documents cannot show ({type(exc).__name__}: {exc})"
    return ""


def damaged_lines(damaged: Sequence[DamagedRecord], out_dir: str | Path) -> list[str]:
    """The Markdown section listing damaged records, or nothing."""
    if not damaged:
        return []
    lines = ["## Damaged records", "",
             f"{len(damaged)} file{'s' if len(damaged) > 1 else ''} in this directory should be experiment records "
             "but cannot be read as one; they are left out of the counts and tables here.", ""]
    lines += [f"- `{d.name}`: {_md(d.why)}; {d.advice(out_dir)}." for d in damaged]
    return lines + [""]


def table_rank(study: str, experiment: str) -> int:
    """Where an experiment's first claim sits in its study's table (the paper's order)."""
    table = study_table(study)
    if table is not None:
        for i, c in enumerate(table.claims):
            if c.experiment == experiment:
                return i
    return 1 << 30


def study_rank(study: str) -> tuple[int, str]:
    return (STUDY_ORDER.index(study), "") if study in STUDY_ORDER else (len(STUDY_ORDER), study)


def by_study(records: Iterable[Mapping[str, Any]]) -> dict[str, list[Mapping[str, Any]]]:
    out: dict[str, list[Mapping[str, Any]]] = {}
    for r in records:
        out.setdefault(r["study"], []).append(r)
    return out


def counts(records: Iterable[Mapping[str, Any]]) -> Counts:
    """The claims of the records by verdict; a stale record is left out."""
    c = Counts()
    for r in records:
        if r.get("stale"):
            continue
        for check in r["checks"]:
            c.add(check)
    return c


def current_records(out_dir: str | Path) -> tuple[list[dict[str, Any]], list[DamagedRecord]]:
    """:func:`read_records`, each judged by the claims tables and policy of
    the day and marked stale if the current build would not make it again."""
    records, damaged = read_records(out_dir)
    return [provenance.current(r) for r in records], damaged


def registered(study: str) -> list[str]:
    """The ids of a study's experiments in the registry."""
    return [i for i, e in experiments().items() if e.study == study]


def study_heading(study: str, records: Sequence[Mapping[str, Any]]) -> tuple[str, str]:
    """(title, source) of a study: from its claims table, else from its experiments."""
    table = study_table(study)
    if table is not None:
        return table.title, table.source
    if records:
        return study, records[0].get("source", "")
    known = experiments()
    ids = registered(study)
    return study, (known[ids[0]].source if ids else "")


def verdict(check: Mapping[str, Any]) -> str:
    return verdict_of(check.get("role", "check"), check.get("within"), check.get("no_value", ""))


def fmt(x: Any) -> str:
    if x is None:
        return "-"
    if isinstance(x, str):
        return "-" if x == "nan" else x
    if isinstance(x, (list, tuple)):
        return "[" + ", ".join(fmt(v) for v in x) + "]"
    if isinstance(x, float):
        if math.isnan(x):
            return "-"
        if math.isinf(x):
            return "inf" if x > 0 else "-inf"
        return f"{x:.4g}"
    return str(x)


def cells(check: Mapping[str, Any]) -> dict[str, str]:
    """A check's columns as text: published with its unit, ours with its CI, the tolerance, the verdict."""
    unit = check.get("unit", "")
    p = check.get("published")
    if check.get("kind") == "direction" and isinstance(p, list):
        published = direction_words(*p)
    elif check.get("kind") == "trend" and isinstance(p, str):
        published = p  # rising or falling
    else:
        published = fmt(p) + (f" {unit}" if unit and p is not None else "")
    ours = fmt(check.get("ours"))
    ci = check.get("ours_ci")
    if isinstance(ci, (int, float)) and ours != "-" and ci > 1e-9 * abs(float(check["ours"])):
        ours += f" ± {fmt(ci)}"
    if check.get("kind") == "direction" and ours != "-":
        ours += " %"
    role = check.get("role", "check")
    tol = check.get("tolerance")
    if role not in ("prediction", "fit", "derived", "check") or tol is None or (isinstance(tol, float) and math.isnan(tol)) \
            or check.get("no_value"):
        tolerance = "-"
    elif check.get("kind") == "direction":
        low = (check.get("published") or [0])[0]
        tolerance = "beyond CI" if isinstance(low, (int, float)) and low >= 0 else "-"
    elif check.get("kind") == "trend":
        tolerance = "shape" if not tol else f"±{fmt(tol)}"
    else:
        tolerance = f"±{fmt(tol)}"
    if check.get("margin_why"):
        tolerance += " (the paper's precision)"
    v = verdict(check)
    word = VERDICT_WORDS[v]
    if v == "fit" and check.get("parameter"):
        word = f"fit: {check['parameter']}"
    note = check.get("note", "")
    if check.get("no_value"):
        note = f"no value: {check['no_value']}" + (f"; {note}" if note else "")
    if check.get("margin_why"):
        note = f"margin: {check['margin_why']}" + (f"; {note}" if note else "")
    if check.get("decided_by"):
        note = "decided by " + ", ".join(f"`{d}`" for d in check["decided_by"]) + (f"; {note}" if note else "")
    return {"id": check.get("id", ""), "figure": check.get("figure", ""), "claim": check.get("claim", ""),
            "published": published, "ours": ours, "tolerance": tolerance, "verdict": word, "note": note}


def direction_words(lo: Any, hi: Any) -> str:
    """A direction claim's allowed difference of A over B, in words."""
    lo = math.inf if lo == "inf" else (-math.inf if lo == "-inf" else float(lo))
    hi = math.inf if hi == "inf" else float(hi)
    if math.isinf(hi):
        return "A above B" if lo == 0 else f"A at least {fmt(lo)}% above B"
    if lo == -hi:
        return f"A within ±{fmt(hi)}% of B"
    return f"A {fmt(lo)} to {fmt(hi)}% above B"


def _md(text: str) -> str:
    return str(text).replace("|", "/").replace("\n", " ")


def counts_line(c: Counts) -> str:
    parts = []
    if c.predictions:
        parts.append(f"{c.within} of {c.predictions} predictions within tolerance, {c.missed} missed")
    if c.no_value:
        parts.append(f"{c.no_value} predictions with no value")
    if c.fits:
        parts.append(f"{c.fits} calibration fits")
    if c.derived:
        parts.append(f"{c.derived} derived from other rows or the inputs")
    if c.unaddressed:
        parts.append(f"{c.unaddressed} the model cannot yet address")
    if c.construction or c.restates:
        parts.append(f"not evidence: {c.construction} true by construction, {c.restates} restating another row")
    if c.checks:
        parts.append(f"{c.checks_within} of {c.checks} checks within tolerance (no claims table yet)")
    return "; ".join(parts) or "no claims"


def own_experiment(study: str) -> bool:
    """A study of our own (no published claims): counted apart."""
    table = study_table(study)
    return table is not None and table.nature == "own experiment"


def count_rows(records: Sequence[Mapping[str, Any]]) -> list[tuple[str, Counts]]:
    """(label, counts) per study, the published studies' total, then our own experiments."""
    grouped = by_study(records)
    published = [(s, counts(recs)) for s, recs in grouped.items() if not own_experiment(s)]
    own = [(f"{s} (own experiment)", counts(recs)) for s, recs in grouped.items() if own_experiment(s)]
    total = counts(r for s, recs in grouped.items() if not own_experiment(s) for r in recs)
    return published + [("all published studies", total)] + own


def counts_table(records: Sequence[Mapping[str, Any]]) -> list[str]:
    lines = ["| study | predictions within | missed | no value | fits | derived | cannot address | by construction | "
             "restated | checks (no claims table yet) |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for label, c in count_rows(records):
        checks = f"{c.checks_within} of {c.checks}" if c.checks else "-"
        lines.append(f"| {label} | {c.within} of {c.predictions} | {c.missed} | {c.no_value} | {c.fits} | {c.derived} | "
                     f"{c.unaddressed} | {c.construction} | {c.restates} | {checks} |")
    return lines


def experiment_section(record: Mapping[str, Any], level: str = "##") -> list[str]:
    mode = "quick" if record.get("quick") else "full"
    made = record.get("build") or {}
    by = f"; made by fabricsim {made.get('version', '?')}" + (
        f" at {made['commit']}" if made.get("commit") else f" (core {made['core']})" if made.get("core") else "") \
        if made else ""
    lines = [f"{level} {record['id']}: {record.get('title', '')}", "",
             f"{record.get('runs', 0)} runs, {record.get('wall_time_s', 0):.0f} s ({mode}){by}; "
             f"{counts_line(counts([dict(record, stale='')]))}.", ""]
    if record.get("stale"):
        lines += [f"**Stale**, left out of the counts: {_md(record['stale'])}. Rerun "
                  f"`fabricsim reproduce {record['id']}` to replace it.", ""]
    if not record["checks"]:
        return lines + ["No claims: the figure shows what other experiments check.", ""]
    claims_table = any(c.get("role", "check") != "check" for c in record["checks"])
    if claims_table:
        lines += ["| id | figure | claim | published | ours ± 95% CI | tolerance | verdict | note |",
                  "|---|---|---|---|---|---|---|---|"]
        keys = ("id", "figure", "claim", "published", "ours", "tolerance", "verdict", "note")
    else:
        lines += ["| claim | published | ours ± 95% CI | tolerance | verdict | note |", "|---|---|---|---|---|---|"]
        keys = ("claim", "published", "ours", "tolerance", "verdict", "note")
    for check in record["checks"]:
        row = cells(check)
        lines.append("| " + " | ".join(_md(row[k]) for k in keys) + " |")
    return lines + [""]


def policy_section() -> list[str]:
    lines = ["## Tolerance policy", "",
             "A claim's kind sets its tolerance (`python/fabricsim/reproduce/policy.py`, `KIND_RULES`), so "
             "no margin is chosen for the number it has to meet; a row widens it only with a reason from the "
             "paper's own precision, shown in its note. A published range takes the margin of each end at "
             "that end, never of its midpoint.", ""]
    lines += [f"- **{kind}**: {rule.rule}." for kind, rule in KIND_RULES.items()]
    lines += ["", "A row's role says what its verdict means: a **prediction** is within or missed, or has **no "
              "value** when ours cannot be computed (a NaN, a ratio over 0, 0 against 0, both sides stalled), "
              "counted apart and never as within or missed; a **fit** is a calibration target (the parameter it "
              "set is named) and never counts as a pass; a **derived** row is arithmetic of other rows or of the "
              "inputs, in the paper as in ours, and is never evidence; a claim the model **cannot address** yet "
              "says why; a claim true **by construction** (a property of the model) names the unit test that "
              "holds it; a claim that **restates** another row is checked there, once. A row that a model choice "
              "decides (a parameter set with the claims in view, or a reading the paper leaves open) names it: "
              "each study lists its choices, with the alternative.", ""]
    return lines


def choices_section(study: str) -> list[str]:
    """The model choices that decide a study's rows: what was set, why, the
    alternative, and the rows each decides."""
    table = study_table(study)
    if table is None or not table.choices:
        return []
    lines = ["Model choices that decide rows (declared; the note gives our verdicts under the alternative):", "",
             "| choice | kind | set | why | alternative | rows it decides |", "|---|---|---|---|---|---|"]
    for ch in table.choices:
        rows = ", ".join(f"`{c.id}`" for c in table.claims if ch.id in c.decided_by)
        lines.append(f"| `{ch.id}` | {ch.kind} | `{_md(ch.key)}` = {_md(ch.value)} | {_md(ch.why)} | "
                     f"{_md(ch.alternative)} | {rows} |")
    return lines + [""]


def summary_markdown(out_dir: str | Path) -> str:
    records, damaged = current_records(out_dir)
    lines = ["# Reproduction summary", ""] + counts_table(records) + [""] + damaged_lines(damaged, out_dir)
    for r in records:
        lines += experiment_section(r)
    return "\n".join(lines)


def write_summary(out_dir: str | Path) -> Path:
    text = summary_markdown(out_dir)
    return write_atomically(Path(out_dir) / "SUMMARY.md", lambda tmp: tmp.write_text(text), "the summary")


def _note(name: str) -> str:
    path = NOTES / name
    return path.read_text(encoding="utf-8").strip() if path.exists() else ""


def document_markdown(out_dir: str | Path) -> str:
    """The whole record: the document's head, the counts, the policy, then
    study by study its notes and its experiments' tables."""
    records, damaged = current_records(out_dir)
    grouped = by_study(records)
    studies = sorted(set(grouped) | {p.name.removesuffix(".legacy.md") for p in NOTES.glob("*.legacy.md")}, key=study_rank)
    lines = [_note("_document.md"), "", "## Counts", "",
             f"Generated from the experiment records in `{Path(out_dir).as_posix()}/` by "
             f"`fabricsim reproduce IDS --out {Path(out_dir).as_posix()} --document REPRODUCTIONS.md`.", ""]
    lines += counts_table(records) + [""] + damaged_lines(damaged, out_dir)
    legacy = [s for s in studies if s not in grouped]
    if legacy:
        lines += ["Not in the counts: " + ", ".join(legacy) + " (no record in this directory yet; the tables of "
                  "their last full run follow, in the form of the time).", ""]
    lines += policy_section()
    for study in studies:
        recs = grouped.get(study, [])
        title, source = study_heading(study, recs)
        ids = [r["id"] for r in recs] or registered(study)
        lines += [f"## {title}", "", f"{source}. Experiments: " + (", ".join(f"`{i}`" for i in ids) or "-") + ".", ""]
        if recs:
            lines += [f"Counts: {counts_line(counts(recs))}.", ""]
        notes = _note(f"{study}.md")
        if notes:
            lines += [notes, ""]
        lines += choices_section(study)
        if recs:
            for r in recs:
                lines += experiment_section(r, "###")
        else:
            lines += [_note(f"{study}.legacy.md"), ""]
    return "\n".join(lines).rstrip() + "\n"


def write_document(out_dir: str | Path, target: str | Path) -> Path:
    text = document_markdown(out_dir)
    return write_atomically(target, lambda tmp: tmp.write_text(text), "the document")
