"""Congestion control's per-flow series from Python: the table, the plot,
and the command's --cc-plot (docs/infiniband-congestion-control.md)."""

from __future__ import annotations

import pytest

import fabricsim
from fabricsim.congestion import COLUMNS, flow_series, plot_flow_series
from fabricsim.errors import FabricsimError

# The parking lot: HCAs 0 and 1 on switch 1, 2 (the target) and 3 on switch 2, three flows to HCA 2.
PARKING_LOT = """
[run]
warmup_observations = 0
max_observations = 100000000
min_observations = 0
precision = 0
max_time_ms = 10

[ib.topology]
kind = "custom"
hcas = [2, 2]
cables = [[1, 2]]

[ib.workload]
injection_rate = 0.6
real_time_share = 0
control_period_ms = 0
pattern = "incast"
incast_target = 2
best_effort_sls = [8]

[ib.congestion_control]
"""


@pytest.fixture
def scenario(tmp_path):
    path = tmp_path / "parking.toml"
    path.write_text(PARKING_LOT + "series_us = 500\n")
    return path


def test_flow_series_is_a_table_per_flow_and_interval(scenario):
    result = fabricsim.run(scenario)
    frame = flow_series(result)
    assert tuple(frame.columns) == COLUMNS and frame.attrs["interval_us"] == 500.0
    assert sorted({(h, d) for h, d in zip(frame["hca"], frame["dst"])}) == [(0, 2), (1, 2), (3, 2)]
    sent = dict(result.raw["congestion_control"]["hca_reaction"]["data_packets_sent_by_hca"])
    assert frame.groupby("hca")["packets"].sum().to_dict() == sent
    assert frame["link_share"].between(0, 1).all() and frame["max_ccti"].max() > 0


def test_the_plot_and_the_commands_option(scenario, tmp_path, cli):
    png = tmp_path / "cc.png"
    plot_flow_series(fabricsim.run(scenario), png)
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    out = tmp_path / "cli.png"
    done = cli("run", str(scenario), "--cc-plot", str(out))
    assert done.returncode == 0, done.stderr
    assert out.stat().st_size > 10_000
    # Without a series there is nothing to draw: said before the run, naming the key.
    bare = tmp_path / "bare.toml"
    bare.write_text(PARKING_LOT)
    done = cli("run", str(bare), "--cc-plot", str(tmp_path / "no.png"))
    assert done.returncode != 0 and "series_us" in done.stderr and not (tmp_path / "no.png").exists()
    with pytest.raises(FabricsimError, match="series_us"):
        flow_series(fabricsim.run(bare))


def test_sent_shares_follow_the_hcas_asked_and_say_when_there_are_none(scenario):
    from fabricsim.congestion import sent_shares

    result = fabricsim.run(scenario)
    a, b, c = sent_shares(result, (0, 1, 3))
    assert abs(a + b + c - 1) < 1e-12 and sent_shares(result, (2,)) == [0.0]
    with pytest.raises(FabricsimError, match="hca_reaction"):
        sent_shares(fabricsim.run(None, run__max_observations=200), (0,))
