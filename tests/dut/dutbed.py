"""Shared pieces of the DUT driver tests: a local testbed per topology, traffic, leftovers.

The real tests need root and the Debian tools of the local testbed (see
``REQUIRED_TOOLS``); without them they are skipped with the reason.
Traffic is a short burst (1000 frames at 10 kpps) from one TG port, built
with ``ndrpdr.profiles`` and sent with tcpreplay in the TG namespace;
counters are read on the TG ports.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ndrpdr.dut.base import DutDriver, DutTestConfig, ForwardingMode
from ndrpdr.dut.plan import plan_dut
from ndrpdr.dut.registry import make_dut_driver
from ndrpdr.families import profile_of as get_profile
from ndrpdr.localbed import LocalTestbed, read_counters
from ndrpdr.profiles import build_frames, parse_frame_size, write_pcap
from ndrpdr.topology.model import Node, Topology

ROOT = Path(__file__).resolve().parents[2]
REQUIRED_TOOLS = ("ip", "nft", "tc", "sysctl", "taskset", "stdbuf", "nproc", "tcpreplay")
#: Frames per burst and rate of the functional check.
BURST = 1000
BURST_PPS = 10000


def require_local(*tools: str) -> None:
    """Skip the calling test unless root and every tool is installed."""
    if os.geteuid() != 0:
        pytest.skip("the local testbed needs root (network namespaces)")
    missing = [t for t in (*REQUIRED_TOOLS, *tools) if shutil.which(t) is None]
    if missing:
        pytest.skip(f"not installed: {', '.join(missing)}")


def local_topology(name: str) -> Topology:
    """topologies/local-<name>.yaml, loaded."""
    from ndrpdr.topology.loader import load_topology

    return load_topology(ROOT / "topologies" / f"local-{name}.yaml")


@dataclasses.dataclass
class Bed:
    """A set-up local testbed and what the tests need from it."""

    topology: Topology
    testbed: LocalTestbed
    scratch: Path

    @property
    def dut_node(self) -> Node:
        """The DUT node of the topology."""
        return self.topology.duts[0]

    @property
    def dut_namespace(self) -> str:
        """The DUT's real namespace."""
        return self.testbed.namespace(self.dut_node.key)

    def driver(self, **options: object) -> DutDriver:
        """A new driver for the DUT (``options`` replace the topology's, if given)."""
        node = self.dut_node
        if options:
            node = dataclasses.replace(node, options={**node.options, **options})
        return make_dut_driver(node, self.testbed.access(node.key))

    def config(self, mode: ForwardingMode) -> DutTestConfig:
        """The DUT test configuration for ``mode``."""
        return plan_dut(self.topology, mode)

    def dut_run(self, *argv: str) -> str:
        """stdout of ``argv`` in the DUT namespace (not checked)."""
        access = self.testbed.access(self.dut_node.key)
        return access.run(list(argv), check=False).stdout

    def send(self, mode: ForwardingMode, direction: int, pps: int = BURST_PPS) -> tuple[int, int]:
        """Send a burst in ``direction`` (0: TG port 1 -> 2); (sent, received) on the TG ports."""
        tg = self.topology.tg
        config = self.config(mode)
        tx_key, rx_key = ("port1", "port2") if direction == 0 else ("port2", "port1")
        tx, rx = tg.interface(tx_key), tg.interface(rx_key)
        assert tx.name and rx.name and tx.mac_address and rx.mac_address
        entry = config.ports[direction]
        dst = rx.mac_address if mode == "l2xc" else entry.mac
        assert dst is not None
        profile = get_profile("eth-l2xcbase" if mode == "l2xc" else "ethip4-ip4base")
        frames = build_frames(profile, parse_frame_size(64), direction, tx.mac_address, dst)
        pcap = self.scratch / f"{mode}-{direction}.pcap"
        write_pcap(pcap, frames)
        namespace = self.testbed.namespace(tg.key)
        before = read_counters(namespace)
        self.testbed.access(tg.key).run(
            ["tcpreplay", "-q", "-i", tx.name, f"--pps={pps}", f"--limit={BURST}",
             "--loop=0", "--preload-pcap", str(pcap)],
            timeout_s=20.0,
        )  # fmt: skip
        sent = received = 0
        deadline = time.monotonic() + 3.0
        while time.monotonic() < deadline:
            after = read_counters(namespace)
            sent = after[tx.name].tx_packets - before[tx.name].tx_packets
            received = after[rx.name].rx_packets - before[rx.name].rx_packets
            if received >= sent:
                break
            time.sleep(0.05)
        time.sleep(0.2)  # anything more (duplicates) would show now
        after = read_counters(namespace)
        return sent, after[rx.name].rx_packets - before[rx.name].rx_packets


@contextlib.contextmanager
def local_bed(name: str) -> Iterator[Bed]:
    """A LocalTestbed of topologies/local-<name>.yaml for the duration of the block."""
    topology = local_topology(name)
    with LocalTestbed(topology) as testbed, tempfile.TemporaryDirectory() as scratch:
        yield Bed(topology, testbed, Path(scratch))


def check_forwarding(
    bed: Bed, mode: ForwardingMode, *, pps: int = BURST_PPS, attempts: int = 2
) -> None:
    """Both directions deliver every frame of a burst, and never more.

    A burst that loses frames is sent again (up to ``attempts`` in all): on a
    shared 2-CPU machine a scheduling stall of the DUT can overflow its
    socket buffer once; a DUT that does not forward loses every time.
    """
    for direction in (0, 1):
        for attempt in range(1, attempts + 1):
            sent, received = bed.send(mode, direction, pps)
            assert sent == BURST, f"direction {direction}: tcpreplay sent {sent}"
            assert received <= sent, f"direction {direction}: {received} received of {sent}"
            if received == sent:
                break
            assert attempt < attempts, f"direction {direction}: sent {sent}, received {received}"


def pid_alive(pid: int) -> bool:
    """True while process ``pid`` exists (and is not a zombie)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def ports_clean(bed: Bed) -> None:
    """The DUT ports are up, not PROMISC, without XDP; no nft table and forwarding as left."""
    links = json.loads(bed.dut_run("ip", "-j", "link", "show"))
    for link in links:
        if link["ifname"] == "lo":
            continue
        assert "UP" in link["flags"], link
        assert "PROMISC" not in link["flags"], link
        assert "xdp" not in link, link
    assert bed.dut_run("nft", "list", "tables").strip() == ""
