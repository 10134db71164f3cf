"""``fabricsim reproduce`` from end to end: run the named experiments
(:mod:`.framework`), print each one's claims, then write the summary, the
HTML report and, if asked, the full document of every record in the
output directory (:mod:`.document`, :mod:`.report_html`). The top layer of
the reproductions: nothing below imports it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict
from pathlib import Path

from .document import cells, counts, counts_line, read_records, write_document
from .document import write_summary as _write_summary
from .framework import Context, Report, _resolve, run_experiment
from .report_html import write_html


def format_checks(report: Report) -> str:
    """A compact table for the terminal: claim | published | ours ± ci | tolerance | verdict."""
    rows = [("claim", "published", "ours ± ci", "tolerance", "verdict")]
    for c in report.checks:
        cell = cells(asdict(c))
        label = f"{c.id}: {c.claim}" if c.id else c.claim
        if len(label) > 90:
            label = label[:87] + "..."
        rows.append((label, cell["published"], cell["ours"], cell["tolerance"], cell["verdict"].strip("*")))
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = [" | ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in rows]
    lines.insert(1, "-+-".join("-" * w for w in widths))
    summary = counts_line(counts([report.to_json()]))
    head = f"{report.id}: {report.title}  ({report.runs} runs, {report.wall_time_s:.1f} s{', quick' if report.quick else ''}; {summary})"
    return "\n".join([head, *lines])


def write_summary(out_dir: str | Path) -> Path:
    """``SUMMARY.md`` of every experiment record in ``out_dir``."""
    return _write_summary(out_dir)


def reproduce(
    ids: Iterable[str],
    quick: bool = False,
    jobs: int | None = None,
    out_dir: str | Path = "repro-out",
    progress: bool = True,
    echo: Callable[[str], None] | None = print,
    document: str | Path | None = None,
) -> list[Report]:
    """Run the named experiments (``"all"`` for every one), write their files,
    print their checks, then write ``SUMMARY.md`` and the HTML report
    (``index.html``) of every record in ``out_dir``; with ``document``, also the
    full document there (REPRODUCTIONS.md, :mod:`.document`)."""
    chosen = _resolve(ids)
    reports = []
    for exp in chosen:
        ctx = Context(quick=quick, jobs=jobs, out_dir=Path(out_dir), progress=progress)
        report = run_experiment(exp, ctx)
        reports.append(report)
        if echo is not None:
            echo(format_checks(report))
            echo(f"  wrote {', '.join(str(p) for p in report.files.values())}\n")
    Path(out_dir).mkdir(parents=True, exist_ok=True)
    summary = write_summary(out_dir)
    page = write_html(out_dir)
    if echo is not None:
        echo(f"every experiment in {out_dir}: {summary}, {page}")
        damaged = read_records(out_dir)[1]
        if damaged:
            names = ", ".join(d.name for d in damaged)
            echo(f"damaged records left out of them, and listed there: {names}")
    if document is not None:
        written = write_document(out_dir, document)
        if echo is not None:
            echo(f"document of every record in {out_dir}: {written}")
    return reports
