"""Seed 000 (hp-fc-1995): the statements its claims table holds true by
construction of the model or arithmetic on the inputs (role
`construction`), each asserted here on the quantity the row names."""

from __future__ import annotations

from collections import Counter

import fabricsim


def nodes_of(info: dict) -> dict[int, int]:
    """Each terminal node's switch, from the routing display."""
    return {int(p.split()[1]): s["switch"] for s in info["switches"] for p in s["ports"] if p.startswith("node ")}


def lanes_used(info: dict, at: int, towards: int, dest_switch: int) -> list[int]:
    """How many of ``dest_switch``'s nodes switch ``at`` sends down each of its lanes to switch ``towards``."""
    sw = next(s for s in info["switches"] if s["switch"] == at)
    lanes = [i for i, p in enumerate(sw["ports"]) if p.startswith(f"trunk to switch {towards} ")]
    home = nodes_of(info)
    count = Counter(port for node, ports in enumerate(sw["forwarding"]) if home.get(node) == dest_switch for port in ports)
    assert set(count) <= set(lanes)
    return sorted((count[lane] for lane in lanes), reverse=True)


def star(m: int) -> dict:
    return fabricsim.routing({"topology": {"kind": "star", "multiplicity": m}})


def test_deterministic_lanes_split_the_destinations_as_the_study_says():
    # Rows f14-even-split and f14-split-5-4-4 (section 4.1.1).
    m2, m3, m4 = star(2), star(3), star(4)
    assert m2["terminal_nodes"] == 64 and m3["terminal_nodes"] == 56 and m4["terminal_nodes"] == 48
    # 14 satellite nodes over the hub's 2 lanes into their switch: 7 and 7; the hub's 8 over a satellite's 2 lanes: 4 and 4.
    assert lanes_used(m2, at=5, towards=1, dest_switch=1) == [7, 7]
    assert lanes_used(m2, at=1, towards=5, dest_switch=5) == [4, 4]
    # 12 nodes over 4 lanes: 3 each.
    assert lanes_used(m4, at=5, towards=2, dest_switch=2) == [3, 3, 3, 3]
    # 13 nodes over 3 lanes: "four to each of two trunk links, and five to the remaining ones".
    for sat in (1, 2, 3, 4):
        assert lanes_used(m3, at=5, towards=sat, dest_switch=sat) == [5, 4, 4]


def acyclic(topology: dict, paths: str = "shortest") -> bool:
    info = fabricsim.routing({"topology": topology, "routing": {"paths": paths}})
    return info["channel_dependencies"]["acyclic"]


def test_only_the_envelope_has_cyclic_channel_dependencies():
    # Row env-only-envelope: star, house and complete cannot deadlock on their shortest paths; the envelope can.
    for topology in ({"kind": "star", "multiplicity": m} for m in (1, 2, 3, 4)):
        assert acyclic(topology), topology
    for m in (1, 2):
        assert acyclic({"kind": "house", "multiplicity": m})
        assert not acyclic({"kind": "envelope", "multiplicity": m})
    for n in range(5, 12):
        assert acyclic({"kind": "complete", "switches": n}), n
    assert not acyclic({"kind": "envelope"}, "clockwise")


def test_central_and_smart_envelope_routings_are_deadlock_free():
    # Rows env-central-deadlock-free and env-smart-deadlock-free: no cycle of channel dependencies, so no
    # cycle of full buffers can form (the runs of crates/fabricsim/tests/fabrics.rs drain, as they must).
    for m in (1, 2):
        for paths in ("central", "smart"):
            assert acyclic({"kind": "envelope", "multiplicity": m}, paths), (m, paths)


def test_complete_topologies_connect_the_nodes_the_study_counts():
    # Row f26-node-counts (and f25-sixty-nodes, f26-max-72): n switches of 16 ports, n - 1 of them trunks.
    counts = {n: fabricsim.routing({"topology": {"kind": "complete", "switches": n}})["terminal_nodes"] for n in range(5, 12)}
    assert counts == {5: 60, 6: 66, 7: 70, 8: 72, 9: 72, 10: 70, 11: 66}
    assert max(counts.values()) == 72 and [n for n, k in counts.items() if k == 72] == [8, 9]
