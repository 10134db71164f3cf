"""Switched loops (seed 001) from Python: a section error names its key, and
the quick mode of the light-load reproductions (Tables 5-7, Graphs 1-2)."""

from __future__ import annotations


import pytest
from fabricsim import run
from fabricsim.errors import FabricsimError
from conftest import checks_by_id


def test_bridge_buffers_must_hold_a_phase():
    bad = {"switched_loop": {"bridge_buffers": 4}, "disks": [{"count": 2}]}
    with pytest.raises(FabricsimError) as e:
        run(bad)
    assert "switched_loop.bridge_buffers" in str(e.value)


def test_light_load_quick_reproduction(quick_records):
    _, reports = quick_records
    t56 = checks_by_id(reports["switched-fcal/tables5-6"])
    # The light-load disk is fit on Table 6's 4.86 ms; the heavy-load disk is shown beside it.
    assert t56["t6-circuit-0-disk"].verdict == "fit" and abs(t56["t6-circuit-0-disk"].ours - 4.863) < 0.1
    assert "heavy-load disk" in t56["t6-circuit-0-disk"].note
    assert t56["t6-packet-40-loop"].within and t56["light-circuit-faster"].within
    assert t56["t6-packet-40-total"].verdict == "derived" and t56["t6-packet-40-total"].within is None
    assert t56["t6-packet-0-disk"].verdict == "restates" and t56["t6-packet-10-attempts"].verdict == "unaddressed"
    assert "3 us router" in t56["t6-circuit-30-reattempts"].note
    g34 = checks_by_id(reports["switched-fcal/graphs3-4"])
    assert g34["g3-knee"].verdict == "fit" and "light-load disk" in g34["g3-knee"].note
    assert reports["switched-fcal/tables5-6"].files["png"].exists()


def test_light_load_constructions():
    """Light load, one read per host: with no global traffic no read reaches
    the switch, and packet switching never refuses a switch request (every
    global read makes exactly three, one per phase), so Table 6's attempt
    counts of ours cannot miss and are not checked."""
    from fabricsim.reproduce.switched_fcal import switched_scenario

    plan = {"precision": 0.0, "warmup_observations": 100, "max_observations": 2000, "min_observations": 2000}
    local = run(switched_scenario("local", 4, 8, "circuit", 0, "light", plan))
    assert local.counters["ios_completed"] > 2000 and local.metric("retries_per_io") == 0.0
    assert local.counters.get("circuits", 0) == 0 and local.counters.get("segments", 0) == 0
    for g in (10, 50):
        packet = run(switched_scenario("packet", 4, 8, "packet", g, "light", plan))
        assert packet.metric("switch_requests_per_global_io") == 3.0


def test_heavy_load_reads_obey_littles_law():
    """Heavy load keeps 8 reads outstanding per disk, so Little's law fixes
    the read latency to the I/O rate: latency x I/O rate = reads in the
    system. Latency therefore rises as throughput per disk falls (Graphs
    3-4: past saturation, and with the global share), whatever the model's
    details: the construction rows of those graphs rest on this."""
    from fabricsim.reproduce.switched_fcal import HEAVY_DISK, switched_scenario

    plan = {"precision": 0.0, "warmup_observations": 2000, "max_observations": 20000, "min_observations": 20000}
    for loops, disks, mode, share in ((1, 20, "circuit", 0), (4, 10, "packet", 30)):
        r = run(switched_scenario("little", loops, disks, mode, share, "heavy", plan, disk=HEAVY_DISK))
        ios_per_us = r.metric("throughput_mb_s") * 1e6 / (64 * 1024) / 1e6
        in_system = r.metric("io_time_us") * ios_per_us
        assert abs(in_system / (8 * loops * disks) - 1.0) < 0.03, (loops, disks, in_system)
