"""Scenario input that overflows, makes no physical sense or is written oddly:
every failure reaches the user as one ``error: ...`` line naming the file (or
``<command line>``), the key, the value and what is allowed, exit 2."""

from __future__ import annotations

import json

import pytest
from fabricsim import Scenario, ScenarioError
from fabricsim.cli import app, parse_grid
from typer.testing import CliRunner

CHECK_SETS = ["--set", "run.max_observations=2000"]


def invoke(*args: str) -> tuple[int, str, str]:
    """The command in this process: exit code, stdout, stderr; a Python exception fails the test."""
    result = CliRunner().invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    try:
        stderr = result.stderr
    except ValueError:  # an older click mixes stderr into the output
        stderr = result.output
    return result.exit_code, result.stdout, stderr


def refused(*args: str) -> str:
    code, out, err = invoke(*args)
    assert code == 2, (code, out, err)
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and "expected u" not in err and "struct " not in err, err
    return err


def write(tmp_path, name: str, content: str | bytes):
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return str(path)


@pytest.mark.parametrize(
    "sets, key, value",
    [
        (["link.propagation_ns=1e17"], "link.propagation_ns", "1e17"),
        (["protocol.frame_payload_bytes=4294967295"], "protocol.frame_payload_bytes", "4294967295"),
        (["link.bandwidth_mb_s=1e-300"], "link.bandwidth_mb_s", "1e-300"),
        (["link.bandwidth_mb_s=1e9", "protocol.frame_payload_bytes=93"], "link.bandwidth_mb_s", "1e9"),
        (["workload.offered_load=nan"], "workload.offered_load", "nan"),
        (["workload.offered_load=inf"], "workload.offered_load", "inf"),
        (["workload.offered_load=-inf"], "workload.offered_load", "-inf"),
        (["protocol.class=1979-05-27"], "protocol.class", "1979-05-27"),
        (["run.seed=1979-05-27T07:32:00Z"], "run.seed", "1979-05-27T07:32:00+00:00"),
    ],
)
def test_command_line_values_are_refused_naming_the_command_line(sets, key, value):
    args = [arg for s in sets for arg in ("--set", s)]
    for command in (["run"], ["scenario", "check", "/dev/null"], ["routing"]):
        err = refused(*command, *args)
        assert f"<command line>: key `{key}` = {value}" in err, err
        assert "; allowed: " in err, err


def test_values_under_unknown_keys_name_the_unknown_key():
    err = refused("run", "--set", "workload.bogus=nan")
    assert "<command line>: key `workload.bogus`: unknown key" in err and "offered_load" in err, err
    err = refused("run", "--set", "nosuch.section=1979-05-27")
    assert "key `nosuch`: unknown key" in err, err


def test_grid_values_are_checked(tmp_path):
    path = write(tmp_path, "s.toml", 'name = "g"\n')
    out = str(tmp_path / "out.csv")
    for grid in ["workload.offered_load=0.1,nan", "workload.offered_load=inf", "protocol.class=2,1979-05-27"]:
        err = refused("sweep", path, "--grid", grid, "--out", out)
        assert "<command line>: key `" in err, err
    # A value the engine refuses is the command line's too.
    err = refused("sweep", path, "--grid", "workload.offered_load=0.1,7", "--out", out)
    assert "<command line>: key `workload.offered_load` = 7" in err, err
    with pytest.raises(ScenarioError) as exc:
        parse_grid(["workload.bogus=nan"])
    assert exc.value.key == "workload.bogus" and exc.value.file == "<command line>"


@pytest.mark.parametrize(
    "name, text, key",
    [
        (
            "trunks.toml",
            '[topology]\nkind = "custom"\nnodes = [2, 2, 2]\n'
            "trunks = [[1, 2, 2147483648], [1, 3, 2147483648], [2, 3, 2147483648]]\n",
            "topology.trunks[0]",
        ),
        ("disks.toml", "[loop]\n[[disks]]\ncount = 4294967295\n[[disks]]\ncount = 2\n", "disks[0].count"),
        ("prop.toml", "[loop]\npropagation_ns_per_m = 1e300\n[[disks]]\ncount = 2\n", "loop.propagation_ns_per_m"),
        ("baud.toml", "[loop]\nbaud = 1e-300\n[[disks]]\ncount = 2\n", "loop.baud"),
        ("nan.toml", "[workload]\noffered_load = nan\n", "workload.offered_load"),
        ("date.toml", "[protocol]\nclass = 1979-05-27\n", "protocol.class"),
    ],
)
def test_files_that_overflow_are_refused_naming_the_file(tmp_path, name, text, key):
    path = write(tmp_path, name, text)
    for command in (["run"], ["scenario", "check"]):
        err = refused(*command, path)
        assert f"{path}: key `{key}`" in err and "; allowed: " in err, err


def test_non_utf8_and_binary_files_are_refused(tmp_path):
    err = refused("scenario", "check", write(tmp_path, "latin1.toml", 'name = "caf\xe9"\n'.encode("latin-1")))
    assert "not UTF-8 text" in err, err
    err = refused("run", write(tmp_path, "bin.toml", bytes(range(256))))
    assert "binary file" in err, err
    err = refused("scenario", "upgrade", write(tmp_path, "bin2.toml", b"\xff\xfe[\x00r\x00"))
    assert "bin2.toml" in err, err
    with pytest.raises(ScenarioError):
        Scenario.load(tmp_path / "latin1.toml")


def test_a_byte_order_mark_is_dropped(tmp_path):
    path = write(tmp_path, "bom.toml", '\ufeffname = "bom"\n[run]\nmax_observations = 1e6\n')
    code, out, err = invoke("scenario", "check", path, "--json")
    assert code == 0, err
    normalized = json.loads(out)
    assert normalized["name"] == "bom"
    assert normalized["run"]["max_observations"] == 1_000_000


def test_counts_written_as_whole_floats_are_taken():
    code, out, err = invoke("scenario", "check", "/dev/null", "--json", "--set", "run.max_observations=1e6",
                            "--set", "switch.ports=8.0")
    assert code == 0, err
    normalized = json.loads(out)
    assert normalized["run"]["max_observations"] == 1_000_000 and normalized["switch"]["ports"] == 8
    err = refused("scenario", "check", "/dev/null", "--set", "run.max_observations=2.5")
    assert "key `run.max_observations` = 2.5: expected a whole number; allowed: an integer from 1 to 1e12" in err, err


def test_sizes_without_kind_take_the_documented_default():
    code, out, err = invoke("scenario", "check", "/dev/null", "--json", "--set", "workload.sizes.frames=4")
    assert code == 0, err
    assert json.loads(out)["workload"]["sizes"] == {"kind": "fixed", "frames": 4}


def test_scenario_check_runs_the_same_validation_as_run(tmp_path):
    # The node numbers are only checked against the built fabric.
    path = write(tmp_path, "pair.toml", '[workload]\npattern = "pair"\npair = [0, 99]\n')
    for command in (["run"], ["scenario", "check"]):
        assert "key `workload.pair`" in refused(*command, path)


@pytest.mark.parametrize(
    "assignment, message",
    [
        ("run=5", "expected a table"),
        ("run.seed=-1", "out of range"),
        ("protocol.class=300", "out of range"),
        ("run.drain=1", "expected true or false"),
        ("workload.pair=[1, 2, 3]", "wrong number of values"),
        ("name=5", "expected text in quotes"),
    ],
)
def test_messages_speak_the_users_language(assignment, message):
    err = refused("scenario", "check", "/dev/null", "--set", assignment)
    assert "<command line>" in err and message in err, err
    for rust in ("u64", "u8", "struct", "trailing characters", "invalid type", "invalid value", "sequence"):
        assert rust not in err, err


def test_python_values_that_are_no_scenario_value_are_refused():
    with pytest.raises(ScenarioError) as exc:
        Scenario.from_dict({"workload": {"offered_load": float("nan")}})
    assert exc.value.key == "workload.offered_load" and exc.value.value == "nan"
    assert "0 < value <= 2" in exc.value.allowed
    with pytest.raises(ScenarioError) as exc:
        Scenario.default().with_overrides({"run.seed": object()})
    assert exc.value.key == "run.seed"
    with pytest.raises(ScenarioError):
        Scenario.from_dict({1: 2})
    with pytest.raises(ScenarioError):
        Scenario.default().with_overrides([("run.seed",)])


def test_an_error_is_one_line_whatever_the_value_holds():
    err = refused("scenario", "check", "/dev/null", "--set", "workload.pattern=0\n0")
    assert "unknown choice `0\\n0`" in err, err
