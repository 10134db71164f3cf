"""``fabricsim netperf``: netperf's command line for the two tests of seed 002
(TCP_STREAM and TCP_RR) between two simulated workstations on the FC switch.

netperf's global options (``-t``, ``-H``, ``-l``) and its test-specific
options after ``--`` (``-m``, ``-M``, ``-r``, ``-s``, ``-S``, ``-D``) keep
their meaning; ``-H`` names the remote host's machine type and ``-L`` the
local one's (netperf's -L names the local end). Each test runs
``--reps`` times (default 5, as the paper repeats each test) with seeds
``seed, seed+1, ...``; the result line shows the mean, and a line below
it the minimum and maximum, as the paper's error bars do.

An option and a ``--set`` of the scenario key it stands for are refused
together; a ``--set`` beside an option left at its default wins (``--set
run.seed=5`` runs seeds 5, 6, ...). TCP_RR without ``-r`` or ``-m`` sends
one-byte requests and responses, netperf's default.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from typing import Any

from .errors import FabricsimError

MACHINES = {"c110": "c110", "c180": "c180", "j210": "j210", "hp735": "hp735", "735": "hp735", "9000/735": "hp735"}
TESTS = ("TCP_STREAM", "TCP_RR")
# The scenario keys each option sets, and the option's default (None: the scenario's).
OPTION_KEYS: dict[str, tuple[str, tuple[str, ...]]] = {
    "test": ("-t", ("netperf.test",)),
    "remote": ("-H", ("hosts.receiver",)),
    "local": ("-L", ("hosts.sender",)),
    "length": ("-l", ("netperf.length_s",)),
    "message": ("-m", ("netperf.message_bytes",)),
    "receive": ("-M", ("netperf.receive_bytes",)),
    "rr": ("-r", ("netperf.request_bytes", "netperf.response_bytes")),
    "local_socket": ("-s", ("netperf.local_socket_bytes",)),
    "remote_socket": ("-S", ("netperf.remote_socket_bytes",)),
    "nodelay": ("-D", ("netperf.nodelay",)),
    "seed": ("--seed", ("run.seed",)),
}
DEFAULTS: dict[str, Any] = {"test": "TCP_STREAM", "remote": "c110", "local": "c110", "length": 10.0,
                            "nodelay": False, "seed": 1}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise FabricsimError(f"netperf: {message}")


def _machine(text: str) -> str:
    key = text.lower()
    if key not in MACHINES:
        raise argparse.ArgumentTypeError(f"unknown machine type `{text}`; allowed: c110, c180, j210, hp735")
    return MACHINES[key]


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"`{text}` is not an integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"`{text}` must be at least 1")
    return value


def _rr_sizes(text: str) -> tuple[int, int]:
    parts = text.split(",")
    if len(parts) > 2 or not parts[0]:
        raise argparse.ArgumentTypeError(f"-r takes req[,resp], not `{text}`")
    req = _positive_int(parts[0])
    return req, _positive_int(parts[1]) if len(parts) == 2 and parts[1] else req


def parser() -> argparse.ArgumentParser:
    p = _Parser(prog="fabricsim netperf", add_help=False,
                description="netperf TCP_STREAM / TCP_RR between two simulated hosts on the FC switch.")
    p.add_argument("-t", dest="test", default=None, choices=TESTS, help="test (default TCP_STREAM)")
    p.add_argument("-H", dest="remote", type=_machine, default=None, help="remote machine type (default c110)")
    p.add_argument("-L", dest="local", type=_machine, default=None, help="local machine type (default c110)")
    p.add_argument("-l", dest="length", type=float, default=None, help="test length, seconds (default 10)")
    p.add_argument("-m", dest="message", type=_positive_int, default=None, help="send size, bytes")
    p.add_argument("-M", dest="receive", type=_positive_int, default=None, help="remote receive size, bytes")
    p.add_argument("-r", dest="rr", type=_rr_sizes, default=None,
                   help="TCP_RR request[,response] sizes (default -m if given, else 1,1)")
    p.add_argument("-s", dest="local_socket", type=_positive_int, default=None, help="local socket buffers, bytes")
    p.add_argument("-S", dest="remote_socket", type=_positive_int, default=None, help="remote socket buffers, bytes")
    p.add_argument("-D", dest="nodelay", action="store_true", default=None, help="TCP_NODELAY on the sender")
    p.add_argument("--reps", type=_positive_int, default=5, help="repetitions (default 5)")
    p.add_argument("--seed", type=int, default=None, help="seed of the first repetition (default 1)")
    p.add_argument("--json", dest="as_json", action="store_true", help="print the results as JSON")
    p.add_argument("--set", dest="sets", action="append", default=[], help="override a scenario key, key=value")
    p.add_argument("-h", "--help", action="help", help="show this help")
    return p


def set_keys(sets: list[str]) -> set[str]:
    """The scenario keys a list of ``key=value`` overrides sets."""
    return {item.split("=", 1)[0].strip() for item in sets}


def resolve(args: argparse.Namespace) -> argparse.Namespace:
    """Refuses an option given beside a ``--set`` of its key; fills the other options' defaults.

    An option left at its default leaves its key to ``--set`` (the explicit one wins).
    """
    keys = set_keys(args.sets)
    for dest, (flag, option_keys) in OPTION_KEYS.items():
        clash = sorted(keys.intersection(option_keys))
        if getattr(args, dest) is not None and clash:
            raise FabricsimError(f"netperf: {flag} and --set {clash[0]} set the same thing; give one of them")
    out = argparse.Namespace(**vars(args))
    for dest, default in DEFAULTS.items():
        if getattr(out, dest) is None:
            setattr(out, dest, default)
    out.seed_from_set = "run.seed" in keys
    return out


RR_SIZE_KEYS = {"netperf.message_bytes", "netperf.request_bytes", "netperf.response_bytes"}


def _effective_test(args: argparse.Namespace, keys: set[str]) -> str:
    """The test a command line runs: -t, or a ``--set netperf.test`` beside a default -t."""
    if "netperf.test" in keys:
        for item in args.sets:
            key, _, value = item.partition("=")
            if key.strip() == "netperf.test":
                return value.strip().strip("\"'")
    return args.test


def scenario_dict(args: argparse.Namespace) -> dict[str, Any]:
    """The scenario a netperf command line describes (after :func:`resolve`)."""
    keys = set_keys(getattr(args, "sets", []))
    netperf: dict[str, Any] = {"test": args.test, "length_s": args.length, "nodelay": bool(args.nodelay)}
    if args.message is not None:
        netperf["message_bytes"] = args.message
    if args.rr is not None:
        netperf["request_bytes"], netperf["response_bytes"] = args.rr
    elif args.message is None and not keys & RR_SIZE_KEYS and _effective_test(args, keys) == "TCP_RR":
        netperf["request_bytes"], netperf["response_bytes"] = 1, 1  # netperf's own default
    if args.receive is not None:
        netperf["receive_bytes"] = args.receive
    if args.local_socket is not None:
        netperf["local_socket_bytes"] = args.local_socket
    if args.remote_socket is not None:
        netperf["remote_socket_bytes"] = args.remote_socket
    return {
        "name": f"netperf {args.test} {args.local} to {args.remote}",
        "netperf": netperf,
        "hosts": {"sender": args.local, "receiver": args.remote},
    }


@dataclass
class NetperfResult:
    """The repetitions of one netperf test, summarised as netperf and the paper report them."""

    test: str
    section: dict[str, Any]
    values: list[float]
    elapsed: list[float]
    latencies_us: list[float] = field(default_factory=list)
    # Each repetition's flags (see the README's stop reasons and flags).
    flags: list[list[str]] = field(default_factory=list)

    @property
    def mean(self) -> float:
        return sum(self.values) / len(self.values)

    @property
    def latency_us(self) -> float | None:
        """Half the mean transaction time; None when no transaction completed."""
        return 1e6 / (2.0 * self.mean) if self.mean > 0 else None

    def to_json(self) -> dict[str, Any]:
        key = "throughput_mbit_s" if self.test == "TCP_STREAM" else "transactions_per_s"
        out: dict[str, Any] = {
            **self.section,
            key: {"mean": self.mean, "min": min(self.values), "max": max(self.values), "runs": self.values},
            "elapsed_s": self.elapsed,
        }
        if self.test == "TCP_RR":
            lat = [x for x in self.latencies_us if x == x]  # NaN: a repetition without transactions
            out["latency_us"] = {"mean": self.latency_us, "min": min(lat, default=None),
                                 "max": max(lat, default=None), "runs": [x if x == x else None for x in self.latencies_us]}
        out["flags"] = self.flags
        return out


def run_netperf(args: argparse.Namespace) -> NetperfResult:
    from .api import run_scenario
    from .scenario import COMMAND_LINE, Scenario

    base = Scenario.from_dict(scenario_dict(args), source="<netperf command line>").with_overrides(
        args.sets, origin=COMMAND_LINE)
    # The scenario's test and seed, which a --set beside a default -t or --seed may have changed.
    valid = base.validate()
    test = valid["netperf"]["test"]
    seed = int(valid["run"]["seed"]) if getattr(args, "seed_from_set", False) else args.seed
    values, elapsed, latencies, flags = [], [], [], []
    section: dict[str, Any] = {}
    for i in range(args.reps):
        result = run_scenario(base.with_overrides([f"run.seed={seed + i}"]))
        section = dict(result.raw.get("netperf") or {})
        if test == "TCP_STREAM":
            values.append(result.metric("throughput_mbit_s"))
        else:
            values.append(result.metric("transactions_per_s"))
            latencies.append(result.metric("latency_us"))
        elapsed.append(result.metric("elapsed_s"))
        flags.append(result.flags)
    section.pop("elapsed_s", None)
    return NetperfResult(test, section, values, elapsed, latencies, flags)


def format_result(r: NetperfResult, remote: str) -> str:
    """netperf's banner and result lines, then the repetitions' spread."""
    s = r.section
    el = sum(r.elapsed) / len(r.elapsed)
    if r.test == "TCP_STREAM":
        lines = [
            f"TCP STREAM TEST to {remote} ({s['local_host']} to {s['remote_host']}, simulated)",
            "Recv   Send    Send                          ",
            "Socket Socket  Message  Elapsed              ",
            "Size   Size    Size     Time     Throughput  ",
            "bytes  bytes   bytes    secs.    10^6bits/sec  ",
            "",
            f"{s['remote_socket_bytes']:6d} {s['local_socket_bytes']:6d} {s['message_bytes']:6d}    "
            f"{el:-6.2f}   {r.mean:7.2f}   ",
            "",
            f"{len(r.values)} runs: min {min(r.values):.2f}, max {max(r.values):.2f} 10^6bits/sec",
        ]
    else:
        lines = [
            f"TCP REQUEST/RESPONSE TEST to {remote} ({s['local_host']} to {s['remote_host']}, simulated)",
            "Local /Remote",
            "Socket Size   Request  Resp.   Elapsed  Trans.",
            "Send   Recv   Size     Size    Time     Rate         ",
            "bytes  Bytes  bytes    bytes   secs.    per sec   ",
            "",
            f"{s['local_socket_bytes']:<6d} {s['local_socket_bytes']:<6d} {s['request_bytes']:<6d}   "
            f"{s['response_bytes']:<6d}  {el:<6.2f}   {r.mean:7.2f}   ",
            f"{s['remote_socket_bytes']:<6d} {s['remote_socket_bytes']:<6d}",
            "",
            f"{len(r.values)} runs: min {min(r.values):.2f}, max {max(r.values):.2f} trans/sec",
        ]
        lat = [x for x in r.latencies_us if x == x]
        if r.latency_us is None:
            lines.append("latency (half a transaction): none, no transaction completed")
        else:
            lines.append(f"latency (half a transaction): {r.latency_us:.1f} us "
                         f"(min {min(lat):.1f}, max {max(lat):.1f})")
    for i, f in enumerate(r.flags):
        if f:
            lines.append(f"FLAGS of run {i + 1} (the result is not what was asked): {', '.join(f)}")
    return "\n".join(lines)


def main(argv: list[str]) -> str:
    """Runs the command line ``argv`` (without the program name); returns the text to print."""
    args = resolve(parser().parse_args([a for a in argv if a != "--"]))
    if args.length <= 0:
        raise FabricsimError(f"netperf: -l must be a positive number of seconds, not {args.length}")
    result = run_netperf(args)
    if args.as_json:
        return json.dumps(result.to_json(), indent=2)
    return format_result(result, args.remote)
