"""The compiled engine (Rust, PyO3). Every function takes and returns text:
JSON in, JSON out, errors as data (``{"error": {...}}``) rather than exceptions."""

from collections.abc import Callable

__version__: str
# Every benchmark name, in the order `fabricsim bench` runs them.
BENCH_NAMES: list[str]

def run(
    scenario_json: str,
    source: str,
    progress: Callable[[float, int, int, int, bool], object] | None = None,
    building: Callable[[str, int, int], object] | None = None,
    notice: Callable[[str], object] | None = None,
) -> str:
    """Run one simulation.

    ``scenario_json`` is the scenario as a JSON object, ``source`` names it in
    error messages. Returns ``{"ok": RESULT}`` with RESULT holding "scenario",
    "metrics", "counters" and "run", or ``{"error": {"kind": "scenario" | "model"
    | "internal", "message", "file", "key", "value", "allowed"}}``, or
    ``{"interrupted": true}`` (Ctrl-C, or a callback raised). ``progress`` hears
    the run about every 100 ms; ``building`` the model's build (stage, done,
    total) about every 50 ms; ``notice`` what the build says before the run.
    """

def validate(scenario_json: str, source: str) -> str:
    """``{"ok": NORMALIZED_SCENARIO}`` (every default filled in, the model built
    as ``run`` builds it) or ``{"error": {...}}``."""

def keys() -> str:
    """``{"ok": {"keys": [{"key", "models", "default", "unit", "allowed", "meaning"}], "markdown": TABLE}}``."""

def upgrade(text: str, source: str) -> str:
    """``{"ok": {"text": UPGRADED_TOML, "notes": [...]}}`` or ``{"error": {...}}``."""

def routing(scenario_json: str, source: str) -> str:
    """The fabric's wiring and routing, without running: ``{"ok": {"kind",
    "terminal_nodes", "trunks", "trunk_choice", "paths", "switches": [{"switch",
    "nodes", "ports", "forwarding"}], "channel_dependencies": {"acyclic",
    "channels", "dependencies", "cycle"}}}`` or ``{"error": {...}}``.
    ``forwarding[d]`` lists the output ports a frame for node ``d`` may take."""

def default_scenario() -> str:
    """TOML text of the built-in default scenario."""

def bench(which: str, size: int) -> str:
    """Run a benchmark (``"kernel-hold"``, ``"fc-switch"``, ``"fc-envelope"`` or ``"fc-loop"``,
    whose size counts I/Os); JSON with "name", "events", "frames", "wall_s", "events_per_s",
    "frames_per_s", for FC fabrics "data_frames", "ack_frames", "hops", "frame_hops_per_s", and
    for fc-loop "ios_per_s". Raises ValueError for an unknown name."""
