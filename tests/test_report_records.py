"""Which records a reproduction directory's documents show, and in what order."""

from __future__ import annotations

import json
import re
from pathlib import Path

from fabricsim.reproduce.document import summary_markdown
from fabricsim.reproduce.framework import file_stem
from fabricsim.reproduce.report_html import html_page


def _record(directory: Path, id: str, **fields) -> Path:
    path = directory / f"{file_stem(id)}.json"
    record = {"id": id, "title": f"figure {id}", "source": "a study", "quick": True, "checks": [], "runs": 1,
              "wall_time_s": 1.0, **fields}
    path.write_text(json.dumps(record, indent=2) + "\n")
    return path


def test_figures_are_listed_by_number_not_as_text(tmp_path):
    for fig in ("fig10", "fig2", "fig11", "fig3"):
        _record(tmp_path, f"hp-fc-1995/{fig}")
    by_number = ["hp-fc-1995/fig2", "hp-fc-1995/fig3", "hp-fc-1995/fig10", "hp-fc-1995/fig11"]
    page = html_page(tmp_path)
    sidebar = page[page.index("<nav>"):page.index("</nav>")]
    assert re.findall(r">(hp-fc-1995/fig\d+)</a>", sidebar) == by_number
    assert re.findall(r'data-experiment="(hp-fc-1995/fig\d+)"', page) == by_number
    assert re.findall(r"^## (hp-fc-1995/fig\d+):", summary_markdown(tmp_path), re.M) == by_number

