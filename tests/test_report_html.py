"""The HTML report in a real browser (Debian's chromium, headless): the page
loads from disk with its style sheet, every experiment is listed, every plot
loads, misses and fits are marked. A screenshot is kept for a person to look
at (``FABRICSIM_REPORT_SCREENSHOT=PATH`` copies it there)."""

from __future__ import annotations

import os
import shutil

import pandas as pd
from browser import Browser, find_chromium
from conftest import SMALL
from fabricsim import Scenario
from fabricsim.reproduce import ExperimentOutput, PlotSpec, check, experiment, run_experiment
from fabricsim.reproduce.framework import Context, file_stem
from fabricsim.reproduce.report_html import write_html

LEGACY_ID = "legacy-demo/tiny"


@experiment(id=LEGACY_ID, title="A study without a claims table: checks stated in code", seed_ref="a demo study")
def legacy(ctx):
    results = ctx.run_many([Scenario.default().with_overrides({**SMALL, "workload.offered_load": x}) for x in (0.1, 0.3)])
    rows = [{"series": "frame latency", "x": 100 * x, "y": r.metric("frame_latency_us"), "y_ci": None}
            for x, r in zip((0.1, 0.3), results)]
    return ExperimentOutput(curves=pd.DataFrame(rows), plot=PlotSpec("load (%)", "latency (us)"),
                            checks=[check("latency rises with load", [0, 1e9], rows[1]["y"] - rows[0]["y"], tolerance=0.0)])


def test_the_report_reads_in_a_real_browser(quick_records, tmp_path):
    records, reports = quick_records
    exe = find_chromium()
    assert exe, "this test needs a headless Chromium: Debian's `chromium` package (.ci/run installs it)"
    out = tmp_path / "report"
    shutil.copytree(records, out)
    run_experiment(LEGACY_ID, Context(quick=True, jobs=1, out_dir=out, progress=False))
    page = write_html(out)
    ids = sorted([*reports, LEGACY_ID])
    with Browser(exe) as b:
        b.load(page.as_uri())
        images = b.evaluate("[...document.images].map(i => [i.getAttribute('src'), i.complete, i.naturalWidth])")
        listed = b.evaluate("[...document.querySelectorAll('article.experiment')].map(a => a.dataset.experiment)")
        in_nav = b.evaluate("[...document.querySelectorAll('nav a')].map(a => a.textContent)")
        missed = b.evaluate("document.querySelectorAll('table.claims tr.v-missed').length")
        fits = b.evaluate("document.querySelectorAll('table.claims tr.v-fit').length")
        red = b.evaluate("getComputedStyle(document.querySelector('table.claims tr.v-missed td')).backgroundColor")
        shot = b.screenshot(tmp_path / "report.png")
    assert sorted(listed) == ids
    assert set(ids) <= set(in_nav)
    assert sorted(src for src, _, _ in images) == sorted(f"{file_stem(i)}.png" for i in ids)
    broken = [src for src, complete, width in images if not (complete and width > 0)]
    assert broken == [], f"plots that did not load: {broken}"
    checks = [c for r in reports.values() for c in r.checks]
    assert missed == sum(c.verdict == "missed" for c in checks) + 0  # the legacy check is met
    assert fits == sum(c.verdict == "fit" for c in checks) > 0
    assert red == "rgb(251, 224, 222)", f"report.css not applied: {red}"
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 50_000
    target = os.environ.get("FABRICSIM_REPORT_SCREENSHOT")
    if target:
        shutil.copyfile(shot, target)
