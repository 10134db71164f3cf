"""Which records a reproduction directory's documents show, and in what order:
figures by number, and a record that cannot be read listed as damaged rather
than left out unseen (SUMMARY.md, index.html, the document)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from fabricsim.reproduce.document import document_markdown, summary_markdown
from fabricsim.reproduce.framework import file_stem
from fabricsim.reproduce.report_html import html_page


def _record(directory: Path, id: str, **fields) -> Path:
    path = directory / f"{file_stem(id)}.json"
    record = {"id": id, "title": f"figure {id}", "source": "a study", "quick": True, "checks": [], "runs": 1,
              "wall_time_s": 1.0, **fields}
    path.write_text(json.dumps(record, indent=2) + "\n")
    return path


def test_figures_are_listed_by_number_not_as_text(tmp_path):
    # A study with no claims table (one with a table lists its experiments in the table's order, the paper's).
    for fig in ("fig10", "fig2", "fig11", "fig3"):
        _record(tmp_path, f"a-study/{fig}")
    by_number = ["a-study/fig2", "a-study/fig3", "a-study/fig10", "a-study/fig11"]
    page = html_page(tmp_path)
    sidebar = page[page.index("<nav>"):page.index("</nav>")]
    assert re.findall(r">(a-study/fig\d+)</a>", sidebar) == by_number
    assert re.findall(r'data-experiment="(a-study/fig\d+)"', page) == by_number
    assert re.findall(r"^## (a-study/fig\d+):", summary_markdown(tmp_path), re.M) == by_number


def test_a_damaged_record_is_listed_as_such_in_every_document(tmp_path):
    whole = _record(tmp_path, "hp-fc-1995/fig2").read_text()
    cut = tmp_path / "hp-fc-1995_fig3.json"
    cut.write_text(whole.replace("fig2", "fig3")[: len(whole) // 2])  # a disk that filled mid-write
    (tmp_path / "hp-fc-1995_fig4.json").write_text("")
    _record(tmp_path, "hp-fc-1995/fig5", checks="none")
    _record(tmp_path, "hp-fc-1995/fig6", checks=[{"claim": "x", "role": "bogus"}])
    (tmp_path / "settings.json").write_text("[1, 2]\n")  # not a record, not named after an experiment: not ours
    damaged = {
        "hp-fc-1995_fig3.json": "not JSON, cut short or damaged",
        "hp-fc-1995_fig4.json": "empty",
        "hp-fc-1995_fig5.json": "not a whole experiment record: no `checks` list of claims",
        "hp-fc-1995_fig6.json": "not a whole experiment record: a claim of unknown role 'bogus'",
    }
    summary = summary_markdown(tmp_path)
    document = document_markdown(tmp_path)
    for text in (summary, document):
        assert "## Damaged records" in text and "4 files in this directory should be experiment records" in text
        for name, why in damaged.items():
            fig = name.removesuffix(".json").split("_")[1]
            line = next(x for x in text.splitlines() if x.startswith(f"- `{name}`: "))
            assert why in line and f"rerun `fabricsim reproduce hp-fc-1995/{fig} --out {tmp_path.as_posix()}`" in line
        assert "settings.json" not in text
    assert re.findall(r"^## (hp-fc-1995/fig\d+):", summary, re.M) == ["hp-fc-1995/fig2"]
    page = html_page(tmp_path)
    section = page[page.index('<section id="damaged">'):]
    section = section[: section.index("</section>")]
    assert all(f"<code>{name}</code>" in section for name in damaged) and "settings.json" not in page
    assert '<a href="#damaged">4 damaged records</a>' in page and '<li><a href="#damaged">Damaged records</a></li>' in page
