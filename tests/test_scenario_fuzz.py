"""Property tests of scenario input (hypothesis): random scenarios, ``--set``
assignments, ``--grid`` axes and scenario files, through ``Scenario`` and
the ``fabricsim scenario check`` command in this process. Whatever the
input, the only exceptions are FabricsimError subclasses, and the command
exits 0 or 2 with one ``error:`` line.

``FABRICSIM_FUZZ_CASES`` sets the number of examples per test (default 200).
The examples are the same on every run (derandomized), so a test run's time
and verdict repeat; ``FABRICSIM_FUZZ_SEED=random`` draws new ones each run.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from fabricsim import FabricsimError, Scenario
from fabricsim.cli import app, parse_grid
from fabricsim.scenario import _key_reference, parse_assignment, to_toml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

CASES = int(os.environ.get("FABRICSIM_FUZZ_CASES", "200"))
# Hypothesis derandomizes from each test's name; a numbered seed is for the
# Rust tests only, so here any value but "random" keeps the fixed examples.
SEED = os.environ.get("FABRICSIM_FUZZ_SEED", "")
FUZZ = settings(
    max_examples=CASES,
    derandomize=SEED != "random",
    deadline=None,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

KEYS = sorted(_key_reference())
SECTIONS = sorted({k.split(".")[0] for k in KEYS} | {"workload.sizes", "routing.override", "fabric", "nosuch"})
CHOICES = sorted({c for allowed in _key_reference().values() for c in allowed.split('"')[1::2]})

keys = st.one_of(
    st.sampled_from(KEYS),
    st.sampled_from(SECTIONS),
    st.builds(lambda k, s: k + s, st.sampled_from(KEYS), st.sampled_from(["x", ".x", "_", "[0]", ".", ""])),
    st.text(alphabet="abcdefghijklmnopqrstuvwxyz._[]0 =", max_size=12),
)

numbers = st.one_of(
    st.integers(),
    st.sampled_from([0, 1, 2, 3, 16, 125, 126, 239, 256, 257, 2**31, 2**32 - 1, 2**32, 2**53 + 1, 2**63, 2**64, -1]),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0.0, -0.0, 1e-300, 0.5, 2.0, 2.5, 1e6, 1e9, 1e17, 1e300, 4294967295.0]),
)
scalars = st.one_of(
    numbers,
    st.booleans(),
    st.none(),
    st.text(max_size=8),
    st.sampled_from(CHOICES),
    st.dates(),
    st.times(),
    st.datetimes(),
    st.binary(max_size=4),
    st.complex_numbers(max_magnitude=10),
)
values = st.recursive(
    scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.tuples(inner, inner),
        st.dictionaries(st.one_of(st.sampled_from(["kind", "count", "x", "seed"]), st.integers(0, 3)), inner, max_size=3),
    ),
    max_leaves=8,
)

# The text of a --set or --grid value: TOML literals, dates, NaN, junk.
literals = st.one_of(
    st.sampled_from(
        ["nan", "+nan", "-nan", "inf", "-inf", "1e6", "1e17", "1e300", "1e-300", "4294967295", "1979-05-27",
         "07:32:00", "1979-05-27T07:32:00Z", "true", '"x"', "[1, 2, 3]", "[[1, 2, 2147483648]]", "{a = 1}",
         "[" * 200 + "]" * 200, "0x10", "1_000", "'lit'", '"""a"""', "", "="]
    ),
    st.text(max_size=12),
)


def _dotted(data: dict, key: str, value) -> dict:
    node = data
    parts = key.split(".")
    for part in parts[:-1]:
        child = node.get(part)
        if not isinstance(child, dict):
            child = node[part] = {}
        node = child
    node[parts[-1]] = value
    return data


@st.composite
def scenarios(draw) -> dict:
    data: dict = {}
    if draw(st.booleans()):
        data = {"loop": {"initialize": False}, "disks": [{"count": 2}]}
    for key, value in draw(st.lists(st.tuples(keys, values), max_size=6)):
        if key and all(key.split(".")):
            _dotted(data, key, value)
    return data


def _only_fabricsim_errors(fn, *args, **kw):
    try:
        return fn(*args, **kw)
    except FabricsimError:
        return None


@FUZZ
@given(scenarios())
def test_any_dict_validates_or_raises_a_fabricsim_error(data):
    sc = _only_fabricsim_errors(Scenario.from_dict, data)
    if sc is not None:
        _only_fabricsim_errors(sc.validate)


@FUZZ
@given(st.lists(st.tuples(keys, literals), max_size=4))
def test_any_assignment_applies_or_raises_a_fabricsim_error(pairs):
    texts = [f"{k}={v}" for k, v in pairs]
    for text in texts:
        _only_fabricsim_errors(parse_assignment, text)
    sc = _only_fabricsim_errors(Scenario.default().with_overrides, texts, origin="<command line>")
    if sc is not None:
        _only_fabricsim_errors(sc.validate)


@FUZZ
@given(st.lists(st.tuples(keys, literals), max_size=3))
def test_any_grid_parses_or_raises_a_fabricsim_error(axes):
    _only_fabricsim_errors(parse_grid, [f"{k}={v}" for k, v in axes])


def _file_text(draw) -> bytes:
    kind = draw(st.sampled_from(["toml", "toml", "bytes", "bom", "latin1", "cut"]))
    if kind == "bytes":
        return draw(st.binary(max_size=64))
    data = draw(scenarios())
    try:
        text = to_toml(data)
    except Exception:  # to_toml is for scenarios; a random dict need not render
        text = ""
    if kind == "bom":
        return b"\xef\xbb\xbf" + text.encode()
    if kind == "latin1":
        return text.encode() + b'\nname = "caf\xe9"\n'
    if kind == "cut":
        return text.encode()[: draw(st.integers(0, len(text)))]
    return text.encode()


@FUZZ
@given(st.data())
def test_scenario_check_exits_0_or_2_with_one_error_line(data):
    content = _file_text(data.draw)
    sets = data.draw(st.lists(st.tuples(keys, literals), max_size=2))
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "fuzz.toml"
        path.write_bytes(content)
        args = ["scenario", "check", str(path)] + [a for k, v in sets for a in ("--set", f"{k}={v}")]
        result = CliRunner().invoke(app, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    assert result.exit_code in (0, 2), (result.exit_code, result.output)
    if result.exit_code == 2:
        try:
            err = result.stderr
        except ValueError:  # an older click mixes stderr into the output
            err = result.output
        assert err.startswith("error: ") and err.count("\n") == 1, err

