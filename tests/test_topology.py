"""Real InfiniBand subnets from the command line: export a fabric, import it
back, route it by a dump, and read what a damaged file gets."""

from __future__ import annotations

import json
from pathlib import Path

import fabricsim
import pytest
from conftest import run_cli

REPO = Path(__file__).resolve().parent.parent
CLUSTER = REPO.parent / "shared/data/topologies/real-cluster-8sw-144hca.ibnetdiscover"

TREE = '[ib.topology]\nkind = "fat_tree"\narity = 2\nlevels = 3\n[ib.routing]\nalgorithm = "min_hop"\n'


def imported(path: Path, extra: str = "") -> str:
    return f'[ib]\nlink = "4xQDR"\n[ib.topology]\nkind = "import"\nfile = "{path}"\n{extra}'


def test_an_exported_fabric_imports_back_with_the_same_routes(tmp_path: Path) -> None:
    (tmp_path / "tree.toml").write_text(TREE)
    proc = run_cli("topology", "export", str(tmp_path / "tree.toml"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith('switchguid=0x200000\nSwitch\t4 "Switch0"\n[1]\t"Hca0"[1](100001)\n')
    (tmp_path / "tree.net").write_text(proc.stdout)
    (tmp_path / "again.toml").write_text(imported(tmp_path / "tree.net", '[ib.routing]\nalgorithm = "min_hop"\n'))
    ours = run_cli("routing", str(tmp_path / "tree.toml"), "--lfts")
    again = run_cli("routing", str(tmp_path / "again.toml"), "--lfts")
    assert ours.returncode == 0 and again.returncode == 0, ours.stderr + again.stderr
    assert ours.stdout == again.stdout
    assert ours.stdout.startswith("Unicast lids [0-20] of switch Lid 1 guid 0x0000000000200000 ('Switch0'):\n")
    # Route a run by that dump: the same tables, so the same run.
    (tmp_path / "lfts.dump").write_text(ours.stdout)
    by_dump = imported(tmp_path / "tree.net", f'[ib.routing]\nalgorithm = "imported"\nlft_file = "{tmp_path / "lfts.dump"}"\n')
    a = fabricsim.run(fabricsim.Scenario.from_toml(by_dump), run__max_observations=2000)
    b = fabricsim.run(fabricsim.Scenario.from_toml(imported(tmp_path / "tree.net", '[ib.routing]\nalgorithm = "min_hop"\n')),
                      run__max_observations=2000)
    assert a.counters == b.counters


def test_dot_shows_every_cable_with_its_ports_and_rate(tmp_path: Path) -> None:
    (tmp_path / "c.toml").write_text(imported(CLUSTER))
    proc = run_cli("topology", "export", str(tmp_path / "c.toml"), "--format", "dot")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("graph fabric {")
    # 8 switches of 36 ports; FDR10 trunks between them, QDR to the hosts.
    assert '"S-f4521403001165a0" -- "H-24be05ffff980030" [taillabel="1", headlabel="1", label="4xQDR"];' in proc.stdout
    assert proc.stdout.count('label="4xFDR10"') == 47
    bad = run_cli("topology", "export", str(tmp_path / "c.toml"), "--format", "svg")
    assert bad.returncode == 2 and "allowed: net, dot" in bad.stderr


def test_a_damaged_topology_file_names_the_line(tmp_path: Path) -> None:
    lines = CLUSTER.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("[21]"))
    lines[at] = lines[at].replace("[21]", "[40]", 1)
    (tmp_path / "bad.net").write_text("\n".join(lines) + "\n")
    (tmp_path / "bad.toml").write_text(imported(tmp_path / "bad.net"))
    proc = run_cli("run", str(tmp_path / "bad.toml"))
    assert proc.returncode == 2
    assert f"key `ib.topology.file`: {tmp_path / 'bad.net'}, line {at + 1}: port 40 of switch \"S-f4521403001165a0\" of 36 ports" in proc.stderr
    assert "allowed: ports 1 to 36" in proc.stderr
    with pytest.raises(fabricsim.ScenarioError) as err:
        fabricsim.run(fabricsim.Scenario.from_toml(imported(tmp_path / "bad.net")))
    assert err.value.key == "ib.topology.file" and f"bad.net, line {at + 1}: port 40" in str(err.value)


def test_a_topology_file_given_as_the_scenario_is_imported(tmp_path: Path) -> None:
    # The fat tree's net file where a scenario goes: the scenario that imports it.
    tree = REPO.parent / "shared/data/topologies/fattree-k4-n3-80sw-128hca.net"
    direct = run_cli("topology", "export", str(tree), "--format", "dot")
    (tmp_path / "t.toml").write_text(f'[ib.topology]\nkind = "import"\nfile = "{tree}"\n')
    via = run_cli("topology", "export", str(tmp_path / "t.toml"), "--format", "dot")
    assert direct.returncode == 0 and via.returncode == 0, direct.stderr + via.stderr
    assert direct.stdout == via.stdout and direct.stdout.count(" -- ") == 128 + 256
    # A damaged one is read as a topology too: its error names the line, not TOML.
    (tmp_path / "cut.net").write_text('Switch 4 "S-1"\n[1] "H-1"[1]\n\nSwitch 4 "S-2"\n[1] "H-2"[1]\n\n'
                                      'Hca 1 "H-1"\n[1] "S-1"[1]\n\nHca 1 "H-2"\n[1] "S-2"[1]\n')
    cut = run_cli("topology", "export", str(tmp_path / "cut.net"))
    assert cut.returncode == 2 and "invalid TOML" not in cut.stderr
    assert 'line 4: switch "S-2", which no chain of cables joins to switch "S-1" (line 1)' in cut.stderr
    assert fabricsim.Scenario.load(tree).get("ib.topology.kind") == "import"
    assert not fabricsim.scenario.is_topology_dump("[ib.topology]\nkind = \"import\"\n")


@pytest.mark.parametrize("damage", ["no table for a switch", "no LID for an adapter"])
def test_a_dump_missing_a_table_or_a_lid_is_an_error_under_its_key(tmp_path: Path, damage: str) -> None:
    (tmp_path / "c.toml").write_text(imported(CLUSTER, '[ib.routing]\nalgorithm = "min_hop"\n'))
    dump = run_cli("routing", str(tmp_path / "c.toml"), "--lfts").stdout
    if damage == "no table for a switch":
        dump, found = dump[: dump.rindex("Unicast lids")], "no table for switch \"S-"
    else:
        dump, found = "".join(x for x in dump.splitlines(True) if "Channel Adapter" not in x), "no entry names adapter port"
    (tmp_path / "lfts.dump").write_text(dump)
    routed = imported(CLUSTER, f'[ib.routing]\nalgorithm = "imported"\nlft_file = "{tmp_path / "lfts.dump"}"\n')
    with pytest.raises(fabricsim.ScenarioError) as err:
        fabricsim.routing(fabricsim.Scenario.from_toml(routed, source="c.toml"))
    # The dump's name once stood where the key goes: "key `/tmp/.../lfts.dump` = no table for switch ...".
    assert err.value.key == "ib.routing.lft_file", err.value
    assert str(err.value).startswith(f"c.toml: key `ib.routing.lft_file`: {tmp_path / 'lfts.dump'}: {found}"), err.value


def test_an_imported_cluster_without_a_routing_is_routed_as_opensm_would():
    """OpenSM routes by min-hop unless told otherwise; on the 1,356-HCA cluster that has a
    cycle of channel dependencies, which the run says before it starts, with the routings that have none."""
    cluster = REPO.parent / "shared/data/topologies/real-cluster-214sw-1356hca.ibnetdiscover"
    short = ["--set", "run.max_observations=2000", "--set", "run.warmup_observations=100",
             "--set", "run.min_observations=0"]
    proc = run_cli("run", str(cluster), "--json", *short)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["scenario"]["ib"]["routing"]["algorithm"] == "min_hop"
    (warning,) = [line for line in proc.stderr.splitlines() if line.startswith("warning: ")]
    assert warning.startswith(f"warning: {cluster}: ")
    assert 'ib.routing.algorithm = "min_hop" (the default for an imported fabric: OpenSM\'s default engine)' in warning
    assert "has a cycle of 6 channel dependencies on this fabric" in warning
    # OpenSM's updn finds 56 roots there; its fat-tree engine is cyclic there too.
    assert '"updn" (from the 56 root switches OpenSM finds)' in warning and '"ftree"' not in warning
    # A routing the warning names: nothing to say.
    proc = run_cli("run", str(cluster), "--set", "ib.routing.algorithm=updn", *short)
    assert proc.returncode == 0 and "warning" not in proc.stderr, proc.stderr
    # From Python, the same words as a RoutingWarning.
    with pytest.warns(fabricsim.RoutingWarning, match="min_hop.*has a cycle of 6 channel dependencies"):
        fabricsim.run(cluster, {"run.max_observations": 2000, "run.warmup_observations": 100,
                                "run.min_observations": 0})
