"""InfiniBand congestion control's record of a run: each reacting flow's
CCTI and throughput over time (``[ib.congestion_control] series_us``), as a
table and as a plot (docs/infiniband-congestion-control.md, section 3)."""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

import pandas as pd

from .errors import FabricsimError
from .result import RunResult

COLUMNS = ("hca", "dst", "sl", "t_us", "packets", "link_share", "mean_ccti", "max_ccti", "becns")


def flow_series(result: RunResult) -> pd.DataFrame:
    """One row per flow and interval: the source HCA, the destination (-1:
    every destination, a per-SL flow), the SL, the interval's start, the
    packets started, their share of the link's time, the mean CCTI that
    spaced them, the highest CCTI seen and the BECNs received. Intervals in
    which a flow neither sent nor heard of congestion have no row."""
    section = result.raw.get("congestion_control") or {}
    series = (section.get("hca_reaction") or {}).get("series")
    if not series:
        raise FabricsimError("the run recorded no congestion control series: set [ib.congestion_control] series_us "
                             "(and let the HCAs react: cc_ca_cong_setting_control_map, or no opensm_conf)")
    frame = pd.DataFrame(series["rows"], columns=series["columns"])
    frame.attrs["interval_us"] = series["interval_us"]
    return frame


def sent_shares(result: RunResult, hcas: Iterable[int]) -> list[float]:
    """Each of ``hcas``' share of the data packets the reacting HCAs sent
    (the report's ``hca_reaction.data_packets_sent_by_hca``), in that order."""
    sent = dict((result.raw.get("congestion_control") or {}).get("hca_reaction", {}).get("data_packets_sent_by_hca")
                or [])
    total = sum(sent.values())
    if not total:
        raise FabricsimError("the run's HCAs sent no data packets under congestion control (no hca_reaction section)")
    return [sent.get(h, 0) / total for h in hcas]


def flow_label(hca: int, dst: int, sl: int) -> str:
    return f"HCA {hca} -> {'every destination' if dst < 0 else f'HCA {dst}'}, SL {sl}"


def plot_flow_series(result: RunResult, path: Path) -> None:
    """Throughput (share of the flow's link) and mean CCTI per flow over time: a PNG at ``path``."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    frame = flow_series(result)
    fig = Figure(figsize=(8, 6), dpi=110)
    FigureCanvasAgg(fig)
    top, bottom = fig.subplots(2, 1, sharex=True)
    interval = frame.attrs["interval_us"]
    for (hca, dst, sl), rows in frame.groupby(["hca", "dst", "sl"], sort=True):
        label = flow_label(int(hca), int(dst), int(sl))
        x = (rows["t_us"] + interval / 2) / 1000.0
        top.plot(x, rows["link_share"], drawstyle="default", label=label)
        bottom.plot(x, rows["mean_ccti"], label=label)
    top.set_ylabel("throughput (share of its link)")
    bottom.set_ylabel("mean CCTI at its packets")
    bottom.set_xlabel("time (ms)")
    top.set_title(f"Congestion control per flow ({interval:g} us intervals)")
    top.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, format="png")
