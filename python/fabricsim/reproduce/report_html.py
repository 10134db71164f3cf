"""The reproduction report as one static page: ``DIR/index.html`` with its
style sheet (``report.css``) beside it and the plots the run wrote there. No
server, no script: open the file. Every experiment in DIR appears with its
plot (published values drawn where the text gives them) and its claims,
ours beside the published value, misses highlighted and fits marked; the
counts per study head the page.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from ..atomic_file import write_atomically
from .document import (
    DamagedRecord,
    by_study,
    cells,
    count_rows,
    counts,
    counts_line,
    current_records,
    study_heading,
    verdict,
)
from .framework import file_stem
from .policy import KIND_RULES

STYLE = Path(__file__).parent / "report.css"
COLUMNS = (("id", "id"), ("figure", "figure"), ("claim", "claim"), ("published", "published"),
           ("ours", "ours ± 95% CI"), ("tolerance", "tolerance"), ("verdict", "verdict"), ("note", "note"))


def _e(text: Any) -> str:
    return escape(str(text), quote=True)


def _counts_table(records: Sequence[Mapping[str, Any]]) -> list[str]:
    head = ("study", "predictions within", "missed", "no value", "fits", "derived", "cannot address", "by construction",
            "restated", "checks (no claims table yet)")
    out = ['<table class="counts">', "<thead><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr></thead>", "<tbody>"]
    for label, c in count_rows(records):
        checks = f"{c.checks_within} of {c.checks}" if c.checks else "-"
        miss = ' class="v-missed"' if c.missed else ""
        study = label.split(" ", 1)[0]
        if label.startswith("all "):
            out.append(f'<tr class="total"><td>{_e(label)}</td>')
        else:
            out.append(f'<tr><td><a href="#study-{_e(study)}">{_e(label)}</a></td>')
        out[-1] += (f"<td>{c.within} of {c.predictions}</td><td{miss}>{c.missed}</td><td>{c.no_value}</td><td>{c.fits}</td>"
                    f"<td>{c.derived}</td><td>{c.unaddressed}</td><td>{c.construction}</td><td>{c.restates}</td>"
                    f"<td>{checks}</td></tr>")
    return out + ["</tbody></table>"]


def _claims_table(record: Mapping[str, Any]) -> list[str]:
    if not record["checks"]:
        return ['<p class="empty">No claims: the figure shows what other experiments check.</p>']
    converted = any(c.get("role", "check") != "check" for c in record["checks"])
    cols = [c for c in COLUMNS if converted or c[0] not in ("id", "figure")]
    out = [f'<table class="claims {"rows" if converted else "checks"}">', "<thead><tr>" + "".join(f"<th>{label}</th>" for _, label in cols) + "</tr></thead>",
           "<tbody>"]
    for check in record["checks"]:
        row = cells(check)
        v = verdict(check)
        tds = []
        for key, _ in cols:
            text = row[key].replace("**", "")
            cls = f' class="{key}"'
            if key == "verdict":
                tds.append(f'<td{cls}><span class="badge">{_e(text)}</span></td>')
            else:
                tds.append(f"<td{cls}>{_e(text)}</td>")
        out.append(f'<tr class="v-{v.replace(" ", "-")}">' + "".join(tds) + "</tr>")
    return out + ["</tbody></table>"]


def _experiment(record: Mapping[str, Any], out_dir: Path) -> list[str]:
    stem = file_stem(record["id"])
    mode = "quick" if record.get("quick") else "full"
    out = [f'<article class="experiment" id="exp-{_e(stem)}" data-experiment="{_e(record["id"])}">',
           f'<h3><code>{_e(record["id"])}</code> {_e(record.get("title", ""))}</h3>',
           f'<p class="meta">{record.get("runs", 0)} runs, {record.get("wall_time_s", 0):.0f} s ({mode}); '
           f"{_e(counts_line(counts([dict(record, stale='')])))}.</p>"]
    if record.get("stale"):
        out.append(f'<p class="stale"><strong>Stale</strong>, left out of the counts: {_e(record["stale"])}. Rerun '
                   f'<code>fabricsim reproduce {_e(record["id"])}</code> to replace it.</p>')
    png = out_dir / f"{stem}.png"
    if png.exists():
        out.append(f'<figure><a href="{_e(png.name)}"><img src="{_e(png.name)}" alt="plot of {_e(record["id"])}" '
                   f'loading="eager"></a><figcaption>Ours with 95% CI bars; published values as hollow diamonds '
                   f"(dotted lines for a published value of x alone). Data: "
                   f'<a href="{_e(stem)}.csv">{_e(stem)}.csv</a>, record: <a href="{_e(stem)}.json">{_e(stem)}.json'
                   "</a>.</figcaption></figure>")
    else:
        out.append(f'<p class="missing">No plot in this directory (record only: {_e(stem)}.json).</p>')
    return out + _claims_table(record) + ["</article>"]


def html_page(out_dir: str | Path) -> str:
    out_dir = Path(out_dir)
    records, damaged = current_records(out_dir)
    grouped = by_study(records)
    quick = sum(bool(r.get("quick")) for r in records)
    stamp = time.strftime("%Y-%m-%d %H:%M")
    lines = ["<!doctype html>", '<html lang="en">', "<head>", '<meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             "<title>fabricsim: published studies reproduced</title>", '<link rel="stylesheet" href="report.css">',
             "</head>", "<body>", "<header>", "<h1>fabricsim: published studies reproduced</h1>",
             f"<p>{len(records)} experiments in this directory ({len(records) - quick} full, {quick} quick)"
             + (f' and <a href="#damaged">{len(damaged)} damaged records</a>' if damaged else "") + ", "
             f"report written {stamp}. Every number on our side comes from the runs; published values are the "
             "studies' own words and numbers, kept in each study's claims table.</p>", "</header>", "<nav><ul>"]
    if damaged:
        lines.append('<li><a href="#damaged">Damaged records</a></li>')
    for study, recs in grouped.items():
        title, _ = study_heading(study, recs)
        items = "".join(f'<li><a href="#exp-{_e(file_stem(r["id"]))}">{_e(r["id"])}</a></li>' for r in recs)
        lines.append(f'<li><a href="#study-{_e(study)}">{_e(title)}</a><ul>{items}</ul></li>')
    lines += ["</ul></nav>", "<main>", '<section id="counts"><h2>Counts</h2>'] + _counts_table(records)
    lines += ['<p class="legend"><span class="v-within"><span class="badge">within</span></span> a prediction '
              'within its tolerance; <span class="v-missed"><span class="badge">missed</span></span> outside it; '
              '<span class="v-no-value"><span class="badge">no value</span></span> ours cannot be computed, '
              'neither within nor missed; '
              '<span class="v-fit"><span class="badge">fit</span></span> a calibration target, never a pass; '
              '<span class="v-derived"><span class="badge">derived</span></span>, '
              '<span class="v-unaddressed"><span class="badge">cannot address</span></span>, '
              '<span class="v-construction"><span class="badge">by construction</span></span> and '
              '<span class="v-restates"><span class="badge">restates</span></span> not evidence.</p>', "</section>"]
    lines += _damaged(damaged, out_dir)
    for study, recs in grouped.items():
        title, source = study_heading(study, recs)
        lines += [f'<section class="study" id="study-{_e(study)}">', f"<h2>{_e(title)}</h2>",
                  f'<p class="source">{_e(source)}</p>', f'<p class="meta">{_e(counts_line(counts(recs)))}.</p>']
        for r in recs:
            lines += _experiment(r, out_dir)
        lines.append("</section>")
    lines += ['<section id="policy"><h2>Tolerance policy</h2><ul>']
    lines += [f"<li><b>{_e(kind)}</b>: {_e(rule.rule)}.</li>" for kind, rule in KIND_RULES.items()]
    lines += ["</ul></section>", "</main>", "</body>", "</html>"]
    return "\n".join(lines) + "\n"


def _damaged(damaged: Sequence[DamagedRecord], out_dir: Path) -> list[str]:
    if not damaged:
        return []
    items = "".join(f"<li><code>{_e(d.name)}</code>: {_e(d.why)}; {_e(d.advice(out_dir))}.</li>" for d in damaged)
    return ['<section id="damaged"><h2>Damaged records</h2>',
            f"<p>{len(damaged)} file{'s' if len(damaged) > 1 else ''} in this directory should be experiment records "
            "but cannot be read as one; they are left out of the counts and the experiments below.</p>",
            f"<ul>{items}</ul></section>"]


def write_html(out_dir: str | Path) -> Path:
    """``index.html`` and ``report.css`` in ``out_dir``, each written whole or not at all."""
    out_dir = Path(out_dir)
    write_atomically(out_dir / STYLE.name, lambda tmp: shutil.copyfile(STYLE, tmp), "the report's style sheet")
    page = html_page(out_dir)
    return write_atomically(out_dir / "index.html", lambda tmp: tmp.write_text(page, encoding="utf-8"), "the report")
