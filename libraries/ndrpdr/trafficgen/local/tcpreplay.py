"""tcpreplay as a paced sender: its command line and what its report says.

One tcpreplay per direction sends a pcap in a loop at ``--pps`` until
``--limit`` packets are out. Its report (stdout) looks like::

    Actual: 20000 packets (1200000 bytes) sent in 0.99995 seconds
    Rated: 1200059.9 Bps, 9.60 Mbps, 20001.00 pps
    ...
        Failed packets:            0
        Retried packets (ENOBUFS): 0

A send the kernel refuses with ENOBUFS (the receiving CPU's input backlog
full) is counted in the port's ``tx_dropped`` and sent again by tcpreplay
("Retried packets (ENOBUFS)"): the same frame, which ``tx_packets`` counts
once it goes out.

The "sent in" time runs from the first packet to the last, so for N
packets at R pps it is about (N - 1) / R and the rated pps slightly above R.
``tcpreplay_version`` says which tcpreplay a node has, for the records.
"""

from __future__ import annotations

import dataclasses
import re

from ndrpdr.access.base import NodeAccess
from ndrpdr.systemtools import first_line
from ndrpdr.topology.model import Node

_ACTUAL = re.compile(
    r"Actual:\s*(\d+)\s+packets\s+\((\d+)\s+bytes\)\s+sent in\s+([\d.]+)\s+seconds"
)
_RATED = re.compile(r"Rated:.*?([\d.]+)\s+pps")
_FAILED = re.compile(r"Failed packets:\s*(\d+)")
_RETRIED_ENOBUFS = re.compile(r"Retried packets \(ENOBUFS\):\s*(\d+)")


@dataclasses.dataclass(frozen=True)
class TcpreplayReport:
    """What one tcpreplay run reported.

    ``packets`` and ``bytes`` sent; ``seconds`` from the first packet to
    the last [s]; ``rate_pps`` its own rated packet rate [pps];
    ``failed`` packets the kernel refused; ``retried_enobufs`` refused
    sends it made again (each also counted in the port's ``tx_dropped``).
    """

    packets: int
    bytes: int
    seconds: float
    rate_pps: float
    failed: int
    retried_enobufs: int = 0


def command(interface: str, rate_pps: float, limit: int, pcap: str, cpu: int) -> list[str]:
    """Argv sending ``limit`` packets of ``pcap`` (looped) at ``rate_pps`` on CPU ``cpu``."""
    return [
        "taskset",
        "-c",
        str(cpu),
        "tcpreplay",
        "-i",
        interface,
        f"--pps={rate_pps:.6f}",
        f"--limit={limit}",
        "--loop=0",
        "--preload-pcap",
        pcap,
    ]


def parse_report(output: str) -> TcpreplayReport | None:
    """The report in tcpreplay's output, or None if it has no "Actual:"/"Rated:" lines."""
    actual = _ACTUAL.search(output)
    rated = _RATED.search(output)
    if actual is None or rated is None:
        return None
    failed = _FAILED.search(output)
    retried = _RETRIED_ENOBUFS.search(output)
    return TcpreplayReport(
        packets=int(actual.group(1)),
        bytes=int(actual.group(2)),
        seconds=float(actual.group(3)),
        rate_pps=float(rated.group(1)),
        failed=int(failed.group(1)) if failed else 0,
        retried_enobufs=int(retried.group(1)) if retried else 0,
    )


def tcpreplay_version(node: Node, access: NodeAccess) -> str | None:
    """``tcpreplay 4.4.3`` as ``tcpreplay --version`` says it (the local TG's version probe)."""
    line = first_line(access, ["tcpreplay", "--version"])
    match = re.search(r"version:? ([0-9][^ ]*)", line or "")
    return None if match is None else f"tcpreplay {match.group(1)}"
