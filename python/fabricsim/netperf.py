"""``fabricsim netperf``: netperf's command line for the two tests of seed 002
(TCP_STREAM and TCP_RR) between two simulated workstations on the FC switch.

netperf's global options (``-t``, ``-H``, ``-l``) and its test-specific
options after ``--`` (``-m``, ``-M``, ``-r``, ``-s``, ``-S``, ``-D``) keep
their meaning; ``-H`` names the remote host's machine type and ``-L`` the
local one's (netperf's -L names the local end). Each test runs
``--reps`` times (default 5, as the paper repeats each test) with seeds
``seed, seed+1, ...``; the result line shows the mean, and a line below
it the minimum and maximum, as the paper's error bars do.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import dataclass, field
from typing import Any

from .errors import FabricsimError

MACHINES = {"c110": "c110", "c180": "c180", "j210": "j210", "hp735": "hp735", "735": "hp735", "9000/735": "hp735"}
TESTS = ("TCP_STREAM", "TCP_RR")


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
    p.add_argument("-t", dest="test", default="TCP_STREAM", choices=TESTS, help="test (default TCP_STREAM)")
    p.add_argument("-H", dest="remote", type=_machine, default="c110", help="remote machine type (default c110)")
    p.add_argument("-L", dest="local", type=_machine, default="c110", help="local machine type (default c110)")
    p.add_argument("-l", dest="length", type=float, default=10.0, help="test length, seconds (default 10)")
    p.add_argument("-m", dest="message", type=_positive_int, default=None, help="send size, bytes")
    p.add_argument("-M", dest="receive", type=_positive_int, default=None, help="remote receive size, bytes")
    p.add_argument("-r", dest="rr", type=_rr_sizes, default=None, help="TCP_RR request[,response] sizes")
    p.add_argument("-s", dest="local_socket", type=_positive_int, default=None, help="local socket buffers, bytes")
    p.add_argument("-S", dest="remote_socket", type=_positive_int, default=None, help="remote socket buffers, bytes")
    p.add_argument("-D", dest="nodelay", action="store_true", help="TCP_NODELAY on the sender")
    p.add_argument("--reps", type=_positive_int, default=5, help="repetitions (default 5)")
    p.add_argument("--seed", type=int, default=1, help="seed of the first repetition (default 1)")
    p.add_argument("--json", dest="as_json", action="store_true", help="print the results as JSON")
    p.add_argument("--set", dest="sets", action="append", default=[], help="override a scenario key, key=value")
    p.add_argument("-h", "--help", action="help", help="show this help")
    return p


def scenario_dict(args: argparse.Namespace) -> dict[str, Any]:
    """The scenario a netperf command line describes."""
    netperf: dict[str, Any] = {"test": args.test, "length_s": args.length, "nodelay": bool(args.nodelay)}
    if args.message is not None:
        netperf["message_bytes"] = args.message
    if args.rr is not None:
        netperf["request_bytes"], netperf["response_bytes"] = args.rr
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

    @property
    def mean(self) -> float:
        return sum(self.values) / len(self.values)

    def to_json(self) -> dict[str, Any]:
        key = "throughput_mbit_s" if self.test == "TCP_STREAM" else "transactions_per_s"
        out: dict[str, Any] = {
            **self.section,
            key: {"mean": self.mean, "min": min(self.values), "max": max(self.values), "runs": self.values},
            "elapsed_s": self.elapsed,
        }
        if self.latencies_us:
            lat = self.latencies_us
            out["latency_us"] = {"mean": 1e6 / (2.0 * self.mean), "min": min(lat), "max": max(lat), "runs": lat}
        return out


def run_netperf(args: argparse.Namespace) -> NetperfResult:
    from .api import run_scenario
    from .scenario import COMMAND_LINE, Scenario

    base = Scenario.from_dict(scenario_dict(args), source="<netperf command line>").with_overrides(
        args.sets, origin=COMMAND_LINE)
    values, elapsed, latencies = [], [], []
    section: dict[str, Any] = {}
    for i in range(args.reps):
        result = run_scenario(base.with_overrides([f"run.seed={args.seed + i}"]))
        section = dict(result.raw.get("netperf") or {})
        if args.test == "TCP_STREAM":
            values.append(result.metric("throughput_mbit_s"))
        else:
            values.append(result.metric("transactions_per_s"))
            latencies.append(result.metric("latency_us"))
        elapsed.append(result.metric("elapsed_s"))
    section.pop("elapsed_s", None)
    return NetperfResult(args.test, section, values, elapsed, latencies)


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
            f"latency (half a transaction): {1e6 / (2.0 * r.mean):.1f} us "
            f"(min {min(r.latencies_us):.1f}, max {max(r.latencies_us):.1f})",
        ]
    return "\n".join(lines)


def main(argv: list[str]) -> str:
    """Runs the command line ``argv`` (without the program name); returns the text to print."""
    args = parser().parse_args([a for a in argv if a != "--"])
    if args.length <= 0:
        raise FabricsimError(f"netperf: -l must be a positive number of seconds, not {args.length}")
    result = run_netperf(args)
    if args.as_json:
        return json.dumps(result.to_json(), indent=2)
    return format_result(result, args.remote)
