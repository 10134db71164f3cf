"""The ``fabricsim`` command.

Exit codes: 0 success; 1 sweep runs failed, some or all (or, with --strict, a
reproduction check missed); 2 a scenario/usage error, e.g. an --out that cannot
be written or that another sweep is writing; 130 interrupted.
"""

from __future__ import annotations

import functools
import json
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, List, Optional

import typer

from .atomic_file import temporary_beside
from .command_output import WatchedStdout, emit, finish
from .errors import FabricsimError, ScenarioError, SweepError

app = typer.Typer(
    name="fabricsim",
    help="Discrete-event simulator of Fibre Channel and InfiniBand fabrics.",
    add_completion=False,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    # Help texts are plain: TOML tables and extras are written in brackets ([fabric], 'fabricsim[dask]').
    rich_markup_mode="markdown",
)
scenario_app = typer.Typer(
    help="Show, check, upgrade scenario files; list every key.", no_args_is_help=True, rich_markup_mode="markdown"
)
app.add_typer(scenario_app, name="scenario")
topology_app = typer.Typer(help="Write an InfiniBand scenario's fabric out.", no_args_is_help=True, rich_markup_mode="markdown")
app.add_typer(topology_app, name="topology")

SET_HELP = "Override a scenario key: key=value (value is a TOML literal, e.g. 0.5, true, \"x\"). Repeatable."


def _fails_cleanly(fn: Callable[..., Any]) -> Callable[..., Any]:
    """A FabricsimError is the user's to fix: one line on stderr, exit 2, no traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except FabricsimError as exc:
            typer.echo(f"error: {one_line(str(exc))}", err=True)
            raise typer.Exit(2) from None

    return wrapper


def writable_dir(path: Path, option: str) -> None:
    """Refuses an output directory that cannot be made or written, before any run."""
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / f".fabricsim-write-test-{os.getpid()}"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise FabricsimError(f"{path}: cannot write there ({option}): {exc.strerror or exc}") from None


def writable_file(path: Path, option: str) -> None:
    """Refuses an output file that cannot be written where it is named, before any run."""
    if path.is_dir():
        raise FabricsimError(f"{path}: is a directory; {option} names a file")
    probe = temporary_beside(path)  # what writing it will make first
    try:
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as exc:
        raise FabricsimError(f"{path}: cannot write there ({option}): {exc.strerror or exc}") from None


def one_line(text: str) -> str:
    """``text`` with control characters (a newline in a --set value...) escaped: one line on the terminal."""
    return "".join(c if c.isprintable() or c == " " else repr(c)[1:-1] for c in text)


def _version_callback(value: bool) -> None:
    if value:
        from . import __version__

        typer.echo(f"fabricsim {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version_callback, is_eager=True, help="Print the version."),
) -> None:
    pass


def _load(scenario: Optional[Path], sets: List[str]):
    from .scenario import COMMAND_LINE, Scenario

    sc = Scenario.load(scenario) if scenario is not None else Scenario.default()
    return sc.with_overrides(sets, origin=COMMAND_LINE)


@app.command()
@_fails_cleanly
def run(
    scenario: Optional[Path] = typer.Argument(None, help="Scenario TOML file (default: the built-in scenario). An ibnetdiscover dump or ibsim net file stands for the InfiniBand scenario that imports it."),
    set_: List[str] = typer.Option([], "--set", "-s", help=SET_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the full result as JSON."),
    no_wall_clock: bool = typer.Option(
        False, "--no-wall-clock",
        help="Leave out the wall-clock figures (run.wall_time_s, events_per_s, frames_per_s), so that two runs of "
        "one scenario print the same bytes.",
    ),
    cc_plot: Optional[Path] = typer.Option(
        None, "--cc-plot",
        help="Draw each congestion-controlled flow's throughput and CCTI over time into this PNG (needs "
        "[ib.congestion_control] series_us).",
    ),
) -> None:
    """Run one simulation and print its metrics."""
    from .api import run_scenario

    if cc_plot is not None:
        writable_file(cc_plot, "--cc-plot")

    sc = _load(scenario, set_)
    if cc_plot is not None and sc.get("ib.congestion_control.series_us") is None:
        raise FabricsimError(f"{sc.source}: --cc-plot draws the series [ib.congestion_control] series_us records; "
                             "the scenario sets no series_us (e.g. --set ib.congestion_control.series_us=100)")
    show = sys.stderr.isatty()

    def notice(text: str) -> None:
        """Said before the run (a routing that may deadlock), over any status line."""
        sys.stderr.write(("\r\033[K" if show else "") + f"warning: {sc.source}: {text}\n")
        sys.stderr.flush()

    try:
        result = run_scenario(sc, progress=_progress_line if show else None,
                              building=_BuildLine() if show else None, notice=notice)
    finally:
        if show:
            sys.stderr.write("\r\033[K")
    if no_wall_clock:
        result = result.without_wall_clock()
    emit(result.to_json() if as_json else result.summary())
    if cc_plot is not None:
        from .congestion import plot_flow_series

        plot_flow_series(result, cc_plot)


class _BuildLine:
    """One self-overwriting status line on a terminal (stderr) while the model is built."""

    def __init__(self) -> None:
        self._start = time.monotonic()

    def __call__(self, stage: str, done: int, total: int) -> None:
        share = f" {100.0 * done / total:3.0f}%" if total else ""
        sys.stderr.write(f"\r\033[Kbuilding: {stage}{share}, {time.monotonic() - self._start:.1f} s")
        sys.stderr.flush()


def _progress_line(sim_time_us: float, events: int, observations: int, target: int, warmed_up: bool) -> None:
    """One self-overwriting status line on a terminal (stderr)."""
    import sys

    phase = "measuring" if warmed_up else "warming up"
    share = f"{100.0 * observations / target:5.1f}%" if target else "  -  "
    sys.stderr.write(f"\r\033[K{phase}: {share} of {target:,} observations, {sim_time_us / 1000:,.1f} ms simulated, "
                     f"{events:,} events")
    sys.stderr.flush()


def parse_grid_values(text: str) -> list[Any]:
    """``0.1,0.2`` / ``"a","b"`` / ``[1,2],[3,4]`` / ``uniform,bursty`` -> list of values."""
    from .scenario import parse_value, tomllib

    try:
        return tomllib.loads(f"v = [{text}]")["v"]
    except (tomllib.TOMLDecodeError, RecursionError):
        return [parse_value(part) for part in _split_top_level(text)]


def _split_top_level(text: str) -> list[str]:
    parts: list[str] = []
    cur: list[str] = []
    depth, quote = 0, ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return [p.strip() for p in parts if p.strip()]


def parse_grid(items: List[str]) -> dict[str, list[Any]]:
    """``--grid`` axes; a value no key takes (NaN, a date) is an error naming the axis's key."""
    from .scenario import COMMAND_LINE, clean_value

    grid: dict[str, list[Any]] = {}
    for item in items:
        key, sep, values = item.partition("=")
        key = key.strip()
        if not sep or not key or not values.strip():
            raise ScenarioError(
                "not a grid axis", file=COMMAND_LINE, key=item, allowed="key=v1,v2,... e.g. workload.offered_load=0.1,0.2"
            )
        grid[key] = [clean_value(v, key, COMMAND_LINE) for v in parse_grid_values(values)]
    return grid


@app.command()
@_fails_cleanly
def sweep(
    scenario: Path = typer.Argument(..., help="Scenario TOML file."),
    grid: List[str] = typer.Option([], "--grid", "-g", help="An axis: key=v1,v2,... (TOML literals). Repeatable."),
    set_: List[str] = typer.Option([], "--set", "-s", help=SET_HELP),
    reps: int = typer.Option(1, "--reps", "-r", min=1, help="Replications per grid point (seeds base, base+1, ...)."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", min=1, help="Parallel processes (default: all CPUs)."),
    out: Path = typer.Option(..., "--out", "-o", help="Results table: FILE.parquet or FILE.csv. Resumes if it exists."),
    base_seed: Optional[int] = typer.Option(None, "--base-seed", help="Seed of replication 0 (default: the scenario's run.seed)."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar (only on a terminal)."),
    scheduler: Optional[str] = typer.Option(
        None, "--scheduler",
        help="Run on the Dask cluster whose scheduler is at tcp://HOST:PORT (pip install 'fabricsim[dask]').",
    ),
    dask_local: Optional[int] = typer.Option(
        None, "--dask-local", min=1,
        help="Run on a local Dask cluster of N workers (threads) started for the sweep: at most 4 per CPU, and as "
        "many as the memory holds runs of run.memory_budget_mb.",
    ),
) -> None:
    """Run a grid of scenarios x replications in parallel and write a tidy table."""
    from .scenario import COMMAND_LINE, attribute_to
    from .sweep import failure_advice, run_sweep

    axes = parse_grid(grid)
    try:
        result = run_sweep(
            _load(scenario, set_),
            axes,
            reps=reps,
            jobs=jobs,
            out=out,
            progress=progress,
            base_seed=base_seed,
            scheduler=scheduler,
            dask_local=dask_local,
        )
    except ScenarioError as exc:  # a grid value the engine refuses is the command line's
        raise attribute_to(exc, axes, COMMAND_LINE) from None
    except SweepError as exc:
        if not exc.failed:
            raise
        typer.echo(f"error: {one_line(str(exc))}", err=True)  # every run failed
        raise typer.Exit(1) from None
    emit(f"sweep: {result.report()}")
    if result.failed:
        typer.echo(f"error: {len(result.failed)} runs failed; {failure_advice(result.failed)}", err=True)
        raise typer.Exit(1)


@app.command()
@_fails_cleanly
def reproduce(
    ids: List[str] = typer.Argument(None, help="Experiment ids (see --list), or `all`."),
    list_: bool = typer.Option(False, "--list", help="List the experiments and exit."),
    quick: bool = typer.Option(False, "--quick", help="Fewer points and frames: a fast look, not the published precision."),
    jobs: Optional[int] = typer.Option(None, "--jobs", "-j", min=1, help="Parallel processes (default: all CPUs)."),
    out: Path = typer.Option(Path("repro-out"), "--out", "-o",
                             help="Directory for the csv/png/json outputs, SUMMARY.md and index.html (the report)."),
    strict: bool = typer.Option(False, "--strict", help="Exit 1 if any prediction is outside its tolerance."),
    progress: bool = typer.Option(True, "--progress/--no-progress", help="Show a progress bar (only on a terminal)."),
    document: Optional[Path] = typer.Option(
        None, "--document",
        help="Also write this document (REPRODUCTIONS.md) from every experiment record in --out; "
             "without experiment ids, only that."),
) -> None:
    """Reproduce published experiments side by side with the published numbers."""
    from . import reproduce as repro

    if list_:
        for exp in repro.experiments().values():  # numbers in ids by value: fig2 before fig11
            emit(f"{exp.id:<32} {exp.title}")
        return
    if not ids and document is None:
        raise FabricsimError("name one or more experiments, `all`, or use --list")
    writable_dir(out, "--out")
    if document is not None:
        writable_file(document, "--document")
    reports = repro.reproduce(ids or [], quick=quick, jobs=jobs, out_dir=out, progress=progress, echo=emit,
                              document=document)
    if strict and not all(r.all_within for r in reports):
        raise typer.Exit(1)


@app.command()
@_fails_cleanly
def bench(
    which: str = typer.Option(
        "all", "--which",
        help="kernel-hold, fc-switch, fc-envelope, fc-loop, switched-loop, ib-irregular, ib-fat-tree, ib-multipath, "
        "ib-multicast, ib-congestion-control (ib-fat-tree's traffic with congestion control on), tcp-stream, the peers' workloads fc-simpy-switch, ib-booksim-irregular and ib-booksim-fat-tree "
        "(scripts/peer_ratio.py), or all; or a scale row, ib-fat-tree-16, ib-fat-tree-4096, ib-cluster-144, "
        "ib-cluster-1356, ib-fat-tree-32768, or scale for the five (fabrics of up to 32,768 HCAs: they report build time and peak "
        "memory per port); or several, comma-separated. With ib-fat-tree-16 and ib-fat-tree-4096 both, the 4,096-HCA tree's "
        "cost per packet-hop is also given as a multiple of the 16-HCA tree's in the same sitting.",
    ),
    size: int = typer.Option(1_000_000, "--size", min=1, help="Problem size (events or frames) per benchmark."),
    as_json: bool = typer.Option(False, "--json", help="Print every row as JSON (one list) for scripts."),
    repeat: int = typer.Option(
        1, "--repeat", min=1,
        help="Run each benchmark this many times and report the fastest run (wall time on a shared machine varies "
        "from run to run; the simulated work is the same); every run's wall time is in the JSON as runs_wall_s. The "
        "rows take turns (each round runs every row once), so a slow spell of the machine falls on all of them alike.",
    ),
) -> None:
    """Measure raw simulation speed (events/s and frames/s)."""
    from . import _core

    known = tuple(_core.BENCH_NAMES) + tuple(_core.SCALE_BENCH_NAMES)
    groups = {"all": list(_core.BENCH_NAMES), "scale": list(_core.SCALE_BENCH_NAMES)}
    names: list[str] = []
    for part in which.split(","):
        for name in groups.get(part.strip(), [part.strip()]):
            if name not in known:
                raise FabricsimError(f"unknown benchmark `{name}`; allowed: {', '.join(known)}, all, scale")
            if name not in names:
                names.append(name)
    # fc-loop and switched-loop count I/Os (about a hundred frames and events each), so they run a smaller size;
    # tcp-stream's size is simulated milliseconds of a 2 MB-message TCP_STREAM (default 100 s).
    scaled = {
        "fc-loop": max(1, size // 100),
        "switched-loop": max(1, size // 100),
        "tcp-stream": max(1, min(size // 10, 3_600_000)),
    }
    runs: dict[str, list[dict[str, Any]]] = {name: [] for name in names}
    rows = []
    for round_ in range(repeat):
        for name in names:
            try:
                runs[name].append(json.loads(_core.bench(name, scaled.get(name, size))))
            except ValueError as exc:
                raise FabricsimError(str(exc)) from None
            if round_ == repeat - 1:
                data = min(runs[name], key=lambda r: r["wall_s"])
                data["runs_wall_s"] = [r["wall_s"] for r in runs[name]]
                rows.append(data)
                if not as_json:
                    emit(_bench_line(data))
    ratio = _hop_cost_ratio(rows)
    if as_json:
        emit(json.dumps(rows, indent=2))
    elif ratio is not None:
        emit(f"ib-fat-tree-4096 cost per packet-hop: {ratio:.2f}x ib-fat-tree-16's in this sitting")


def _hop_cost_ratio(rows: list[dict[str, Any]]) -> float | None:
    # The 8-ary 4-tree's wall time per packet-hop over the 4-ary 2-tree's, both from their fastest runs; kept on
    # the larger tree's row as hop_cost_vs_ib_fat_tree_16.
    by_name = {r["name"]: r for r in rows}
    small, large = by_name.get("ib-fat-tree-16"), by_name.get("ib-fat-tree-4096")
    if small is None or large is None or not small["hops"] or not large["hops"]:
        return None
    ratio = (large["wall_s"] / large["hops"]) / (small["wall_s"] / small["hops"])
    large["hop_cost_vs_ib_fat_tree_16"] = ratio
    return ratio


def _bench_line(data: dict[str, Any]) -> str:
    # InfiniBand rows count packets, the others frames; the kernel's hold model moves neither.
    unit = "packet" if str(data["name"]).startswith("ib-") else "frame"
    split = ""
    if data.get("data_frames") is not None:
        split = f" ({int(data['data_frames']):,} data + {int(data.get('ack_frames') or 0):,} ACK)"
    moved = ""
    if int(data["frames"]):
        moved = (f"  {unit}s {int(data['frames']):>10,}{split}")
    rate = f"  {data['frames_per_s'] / 1e6:8.3f} M{unit}s/s" if int(data["frames"]) else ""
    return (
        f"{data['name']:<13} events {int(data['events']):>12,}{moved}  "
        f"wall {data['wall_s']:8.3f} s  {data['events_per_s'] / 1e6:8.2f} Mevents/s"
        + rate
        + (f"  {data['ios_per_s'] / 1e3:8.1f} kIO/s" if data.get("ios_per_s") else "")
        + (f"  {data['frame_hops_per_s'] / 1e6:8.3f} M{unit}-hops/s" if data.get("frame_hops_per_s") else "")
        + (f"  {data['sim_s_per_wall_s']:8.1f} simulated s per wall s" if data.get("sim_s_per_wall_s") else "")
        + (
            f"  build {data['build_s']:.1f} s, peak {data['peak_rss_bytes'] / 2**20:,.0f} MiB"
            f" ({data['bytes_per_port']:,.0f} B per port of {int(data['ports']):,})"
            if data.get("peak_rss_bytes") else ""
        )
        + (f"  flags: {', '.join(data['flags'])}" if data.get("flags") else "")
        + _runs_note(data.get("runs_wall_s", []))
    )


def _runs_note(walls: list[float]) -> str:
    # Several runs: the line shows the fastest; say how far the slowest was.
    if len(walls) < 2:
        return ""
    return f"  (fastest of {len(walls)}; slowest {max(walls):.3f} s)"


@app.command(
    context_settings={"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []},
    add_help_option=False,
)
@_fails_cleanly
def netperf(ctx: typer.Context) -> None:
    """netperf TCP_STREAM / TCP_RR between two simulated hosts on the FC switch
    (netperf's options: -t -H -l -- -m -M -r -s -S -D; -L local machine type; --reps, --seed, --json; -h for all)."""
    from .netperf import main as netperf_main

    emit(netperf_main(list(ctx.args)))


@app.command()
@_fails_cleanly
def routing(
    scenario: Optional[Path] = typer.Argument(None, help="Scenario TOML file (default: the built-in scenario). An ibnetdiscover dump or ibsim net file stands for the InfiniBand scenario that imports it."),
    set_: List[str] = typer.Option([], "--set", "-s", help=SET_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the routing as JSON."),
    lfts: bool = typer.Option(False, "--lfts", help="InfiniBand: print the linear forwarding tables as OpenSM dumps them."),
) -> None:
    """Show each switch's ports and forwarding table and the static deadlock check, without running."""
    from .api import export
    from .api import routing as routing_info

    if lfts:
        emit(export(_load(scenario, set_), "lfts"), end="")
        return
    info = routing_info(_load(scenario, set_))
    emit(json.dumps(info, indent=2) if as_json else format_routing(info))


def _ranges(nodes: List[int]) -> str:
    """[0, 1, 2, 5, 7, 8] -> "0-2, 5, 7-8"."""
    parts: list[list[int]] = []
    for n in sorted(nodes):
        if parts and parts[-1][1] == n - 1:
            parts[-1][1] = n
        else:
            parts.append([n, n])
    return ", ".join(str(a) if a == b else f"{a}-{b}" for a, b in parts)


def format_routing(info: dict[str, Any]) -> str:
    trunks = ", ".join(f"{a}-{b}" + (f" x{m}" if m != 1 else "") for a, b, m in info.get("trunks", []))
    who = "nodes" if "trunk_choice" in info else "HCAs"
    if "trunk_choice" in info:
        out = [(f"{info.get('kind')} fabric: {info.get('terminal_nodes')} terminal nodes; trunks {trunks or '(none)'}; "
                f"trunk choice {info.get('trunk_choice')}, paths {info.get('paths')}")]
    else:  # InfiniBand: HCAs, links, a routing algorithm (and Up*/Down*'s root)
        root = f" (root switch {info['root']})" if info.get("root") else ""
        out = [(f"{info.get('kind')} InfiniBand fabric: {info.get('terminal_nodes')} HCAs; links {trunks or '(none)'}; "
                f"routing {info.get('paths')}{root}, mean {info.get('mean_hops') or 0:.3f} switches per path")]
    for sw in info.get("switches", []):
        ports = sw.get("ports", [])
        out.append(f"switch {sw['switch']} ({sw.get('nodes')} {who})")
        # Destinations grouped by the output port set that serves them; each
        # local node's own port is summarised on one line.
        groups: dict[tuple[int, ...], list[int]] = {}
        local_ports, local_nodes = [], []
        for dest, outs in enumerate(sw.get("forwarding", [])):
            if len(outs) == 1 and outs[0] < len(ports) and ports[outs[0]] in (f"node {dest}", f"HCA {dest}"):
                local_ports.append(outs[0])
                local_nodes.append(dest)
            else:
                groups.setdefault(tuple(outs), []).append(dest)
        if local_nodes:
            out.append(f"  ports {_ranges(local_ports)}: own {who} {_ranges(local_nodes)}")
        for outs, dests in sorted(groups.items()):
            names = " | ".join(f"{p} {ports[p]}" if p < len(ports) else str(p) for p in outs)
            out.append(f"  port{'s' if len(outs) > 1 else ''} {names}: {who} {_ranges(dests)}")
    deps = info.get("channel_dependencies") or {}
    if deps:
        head = f"channel dependencies: {deps.get('channels')} channels, {deps.get('dependencies')} dependencies: "
        if deps.get("acyclic"):
            out.append(head + "acyclic (deadlock-free)")
        else:
            out.append(head + "CYCLE (deadlock possible)")
            out += [f"  {c}" for c in deps.get("cycle", [])]
    return "\n".join(out)


@topology_app.command("export")
@_fails_cleanly
def topology_export(
    scenario: Optional[Path] = typer.Argument(None, help="InfiniBand scenario TOML file, or an ibnetdiscover dump or ibsim net file."),
    set_: List[str] = typer.Option([], "--set", "-s", help=SET_HELP),
    format: str = typer.Option("net", "--format", "-f", help="net (ibnetdiscover / ibsim) or dot (Graphviz)."),
) -> None:
    """Print the fabric as an ibnetdiscover dump (ibsim and ib.topology.kind = "import" read it) or a Graphviz graph."""
    from .api import export

    if format not in ("net", "dot"):
        raise ScenarioError("value not allowed", key="--format", value=format, allowed="net, dot")
    emit(export(_load(scenario, set_), format), end="")


@scenario_app.command("show")
@_fails_cleanly
def scenario_show() -> None:
    """Print the built-in default scenario (TOML)."""
    from . import _core

    emit(_core.default_scenario().rstrip("\n"))


@scenario_app.command("check")
@_fails_cleanly
def scenario_check(
    scenario: Path = typer.Argument(..., help="Scenario TOML file."),
    set_: List[str] = typer.Option([], "--set", "-s", help=SET_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print the normalized scenario as JSON instead of TOML."),
) -> None:
    """Validate a scenario and print it with every default filled in."""
    from .scenario import to_toml

    normalized = _load(scenario, set_).validate()
    emit(json.dumps(normalized, indent=2) if as_json else to_toml(normalized).rstrip("\n"))


@scenario_app.command("keys")
@_fails_cleanly
def scenario_keys(
    as_json: bool = typer.Option(False, "--json", help="Print the keys as JSON."),
) -> None:
    """Every scenario key with its default, unit, allowed values and meaning (generated from the schema)."""
    from . import _core
    from .errors import unwrap

    ref = unwrap(_core.keys(), "<schema>")
    emit(json.dumps(ref["keys"], indent=2) if as_json else ref["markdown"].rstrip("\n"))


@scenario_app.command("upgrade")
@_fails_cleanly
def scenario_upgrade(
    files: List[Path] = typer.Argument(..., help="Scenario TOML files of the old shape, rewritten in place."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Print the upgraded text instead of writing it."),
) -> None:
    """Rewrite scenarios of the old shape ([fabric], run.max_frames, initiator.max_ios, ...) into the current one."""
    from . import _core
    from .errors import unwrap
    from .scenario import Scenario, read_text

    for path in files:
        text = read_text(path)
        out = unwrap(_core.upgrade(text, str(path)), str(path))
        Scenario.from_toml(out["text"], source=str(path)).validate()  # the result must load
        if dry_run:
            emit(out["text"].rstrip("\n"))
        elif out["notes"]:
            try:
                path.write_text(out["text"], encoding="utf-8")
            except OSError as exc:
                raise FabricsimError(f"{path}: cannot write the upgraded scenario: {exc.strerror or exc}") from None
        for note in out["notes"]:
            typer.echo(f"{path}: {note}", err=True)
        if not out["notes"]:
            typer.echo(f"{path}: already of the current shape", err=True)


def main() -> None:
    # Typer turns KeyboardInterrupt into exit code 130; sweeps save finished work first.
    sys.stdout = WatchedStdout(sys.stdout)
    error = None
    try:
        app(prog_name="fabricsim")
        code: Any = 0
    except SystemExit as done:
        code = done.code
    except OSError as exc:  # from outside our commands, which report their own: --help or --version on a full disk?
        code, error = 2, exc
    sys.exit(finish(code, error))


if __name__ == "__main__":
    main()
