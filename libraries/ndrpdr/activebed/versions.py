"""What software runs on a testbed's nodes, and which version: best effort, for the records.

``node_versions(testbed)`` asks each node on the traffic path, through
the node's own access (local, namespace, SSH), for the version of the
software its driver runs, and returns ``node key -> version text``. A
node whose version cannot be learnt (a command missing, failing, timing
out, or a driver nobody asks) is left out: this never fails a test.

How to ask depends on the driver, so this one module keeps a table of
probes by driver name (the drivers' descriptions would be the natural
home; they are left alone for now):

* sim (TG and DUT): the simulator is ndrpdr itself: its version;
* linux: ``uname -r`` (the kernel forwards);
* testpmd / l3fwd: the DPDK version: Debian's ``dpdk`` package for the
  default program, else the ``DPDK x.y.z`` text a static build carries;
* ovs: ``ovs-vswitchd --version``;
* vpp: ``vppctl -s <cli_socket> show version`` (VPP must be running);
* trex: the version of its install directory (``/opt/trex/v3.08``);
* local (tcpreplay): ``tcpreplay --version``.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Sequence
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

import ndrpdr
from ndrpdr.access.base import NodeAccess
from ndrpdr.errors import NdrPdrError
from ndrpdr.topology.model import Node

if TYPE_CHECKING:
    from ndrpdr.activebed.testbed import ActiveTestbed

_log = logging.getLogger(__name__)

#: Time limit of one version command [s].
PROBE_TIMEOUT_S = 10.0

#: The version text of a DPDK build, as grep -E and Python both read it.
_DPDK_TEXT = re.compile(r"DPDK [0-9]+\.[0-9]+(\.[0-9]+)?")
_TREX_DIR = re.compile(r"v[0-9]+\.[0-9]+(?:\.[0-9]+)?")

Probe = Callable[[Node, NodeAccess], "str | None"]


def _first_line(access: NodeAccess, argv: Sequence[str]) -> str | None:
    """The first non-empty line ``argv`` prints on the node, None when it fails."""
    result = access.run(argv, timeout_s=PROBE_TIMEOUT_S, check=False)
    if result.exit_code != 0:
        return None
    for line in (result.stdout + "\n" + result.stderr).splitlines():
        if line.strip():
            return line.strip()
    return None


def _sim(node: Node, access: NodeAccess) -> str | None:
    return f"ndrpdr {ndrpdr.__version__} (simulator)"


def _linux(node: Node, access: NodeAccess) -> str | None:
    release = _first_line(access, ["uname", "-r"])
    return None if release is None else f"Linux {release}"


def _dpdk(node: Node, access: NodeAccess) -> str | None:
    binary = node.options.get("binary")
    if binary:  # a build of its own: static builds carry their version text
        found = _first_line(
            access, ["grep", "-a", "-o", "-m", "1", "-E", _DPDK_TEXT.pattern, binary]
        )
        match = _DPDK_TEXT.search(found or "")
        return None if match is None else match.group(0)
    package = _first_line(access, ["dpkg-query", "-W", "-f", "${Version}", "dpdk"])
    return None if package is None else f"DPDK {package}"


def _ovs(node: Node, access: NodeAccess) -> str | None:
    line = _first_line(access, ["ovs-vswitchd", "--version"])
    if line is None:
        return None
    return line.replace("ovs-vswitchd (Open vSwitch)", "Open vSwitch").strip()


def _vpp(node: Node, access: NodeAccess) -> str | None:
    from ndrpdr.dut.vpp.config import parse_options  # noqa: PLC0415 - only VPP nodes need it

    options = parse_options(node)
    line = _first_line(access, [options.vppctl, "-s", options.cli_socket, "show", "version"])
    if line is None or not line.startswith("vpp"):
        return None
    return line.split(" built by ")[0].strip()


def _trex(node: Node, access: NodeAccess) -> str | None:
    from ndrpdr.trafficgen.trex.options import DEFAULT_INSTALL_DIR  # noqa: PLC0415

    directory = PurePosixPath(str(node.options.get("install_dir") or DEFAULT_INSTALL_DIR))
    match = _TREX_DIR.fullmatch(directory.name)
    return None if match is None else f"TRex {match.group(0)}"


def _tcpreplay(node: Node, access: NodeAccess) -> str | None:
    line = _first_line(access, ["tcpreplay", "--version"])
    match = re.search(r"version:? ([0-9][^ ]*)", line or "")
    return None if match is None else f"tcpreplay {match.group(1)}"


#: (role, driver name) -> how to learn its version.
PROBES: dict[tuple[str, str], Probe] = {
    ("TG", "sim"): _sim,
    ("DUT", "sim"): _sim,
    ("DUT", "linux"): _linux,
    ("DUT", "testpmd"): _dpdk,
    ("DUT", "l3fwd"): _dpdk,
    ("DUT", "ovs"): _ovs,
    ("DUT", "vpp"): _vpp,
    ("TG", "trex"): _trex,
    ("TG", "local"): _tcpreplay,
}


def node_version(node: Node, access: NodeAccess) -> str | None:
    """The version of what ``node``'s driver runs, None when it cannot be learnt."""
    probe = PROBES.get((node.type, node.driver))
    if probe is None:
        return None
    try:
        return probe(node, access)
    except (NdrPdrError, OSError, ValueError) as exc:
        _log.debug("%s: no version of %s: %s", node.key, node.driver, exc)
        return None


def node_versions(testbed: ActiveTestbed) -> dict[str, str]:
    """``node key -> version`` of the TG and the DUTs on the path (unknown ones left out)."""
    topology = testbed.topology
    versions: dict[str, str] = {}
    for key in (topology.tg.key, *testbed.path.duts):
        node = topology.nodes[key]
        if (node.type, node.driver) not in PROBES:
            continue
        try:
            access = testbed.access(key)
        except (NdrPdrError, OSError) as exc:
            _log.debug("%s: no access for its version: %s", key, exc)
            continue
        version = node_version(node, access)
        if version:
            versions[key] = version
    return versions
