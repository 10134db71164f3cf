"""The arbitrated loop model from Python: scenario validation by key, metric
names, and the quick mode of the seed-004 Graph 9 reproduction."""

from __future__ import annotations


import pytest
from fabricsim import run
from fabricsim.errors import FabricsimError
from conftest import checks_by_id


def loop(devices: int = 12, **initiator):
    return {
        "loop": {"length_m": 50.0},
        "disks": [{"count": devices, "model": "cheetah9lp"}],
        "initiator": {"active_disks": 1, "request_bytes": 1024, "ios_per_disk": 4, **initiator},
    }


def test_single_read_costs_nine_loop_trips():
    # The host pauses between I/Os so no command overlaps the last status tenancy.
    r = run(loop(command_overhead_us=50.0))
    m = r.metrics.set_index("metric")
    assert m.loc["loop_trips_per_io", "mean"] == pytest.approx(9.0)
    assert m.loc["tenancies_per_io", "mean"] == pytest.approx(3.0)
    # 13 ports x 225.9 ns + 50 m x 5 ns
    assert m.loc["loop_trip_us", "mean"] == pytest.approx(13 * 6 * 40 / 1.0625 / 1000 + 0.25, abs=1e-3)
    assert r.counters["ios_completed"] == 4
    assert r.counters["initiator.al_pa"] == 0x01
    assert r.counters["disk_00.al_pa"] == 0xEF


def test_loop_sections_need_the_loop_kind():
    with pytest.raises(FabricsimError) as e:
        run({"loop": {"length_m": 10.0}})
    assert "loop" in str(e.value)
    bad = loop()
    bad["disks"][0]["model"] = "floppy"
    with pytest.raises(FabricsimError) as e:
        run(bad)
    assert "disks[0].model" in str(e.value)


def test_graph9_quick_reproduction(quick_records):
    _, reports = quick_records
    report = reports["fcal-loop/graph9"]
    claims = checks_by_id(report)
    assert claims["g9-read-12"].verdict == "fit" and abs(claims["g9-read-12"].ours - 0.825) < 0.01
    assert claims["t1-command"].within and claims["t1-data"].within and claims["t1-status"].within
    assert claims["g9-effect-4m"].within
    assert claims["g9-nine-tenancies"].verdict == "construction" and claims["g9-effect-1k"].verdict == "restates"
    # The model does not reproduce the analyzer's 99 us and must say so.
    assert claims["g9-increase-99"].verdict == "missed"
    assert report.files["png"].exists() and report.files["csv"].exists()
