"""Real runs of VPP families on the local VPP testbeds: drivers, frames, counters.

A ``FamilyBed`` is a LocalTestbed of ``topologies/local-<name>.yaml`` with
a vpp driver per DUT; ``configure(family)`` plans every DUT on the path
with the family's set-up (``plan_duts``), configures and starts each
driver (the family's commands run on the real VPP). ``send`` writes the
frames a test builds (scapy) to a pcap, sends them with tcpreplay from a
TG port and returns (sent, received) from the TG ports' counters; frames
lost to a scheduling stall of the shared 2-CPU machine are sent again
once. Skipped without VPP, root or the tools, unless NDRPDR_REQUIRE_VPP=1.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from ndrpdr.dut.base import DutTestConfig
from ndrpdr.dut.cores import UnsupportedCoresError
from ndrpdr.dut.plan import plan_duts
from ndrpdr.dut.registry import make_dut_driver
from ndrpdr.dut.vpp.driver import VppDriver
from ndrpdr.families import get_family
from ndrpdr.localbed import LocalTestbed, read_counters
from ndrpdr.profiles import write_pcap
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.topology.path import compute_path
from vpp_build import vpp_problem

ROOT = Path(__file__).resolve().parents[2]
VPP = Path("/opt/vpp/v26.06/bin/vpp")
TOOLS = ("ip", "nft", "tc", "sysctl", "taskset", "stdbuf", "nproc", "tcpreplay")
PPS = 5000


def require_vpp() -> None:
    """Skip (or fail, with NDRPDR_REQUIRE_VPP=1) unless VPP runs here, with root and the tools."""
    missing = [t for t in TOOLS if shutil.which(t) is None]
    reason = vpp_problem()
    if reason is None and os.geteuid() != 0:
        reason = "the local testbed needs root"
    if reason is None and missing:
        reason = f"not installed: {', '.join(missing)}"
    if reason:
        if os.environ.get("NDRPDR_REQUIRE_VPP") == "1":
            pytest.fail(f"NDRPDR_REQUIRE_VPP=1 but {reason}")
        pytest.skip(reason)


def pid_alive(pid: int) -> bool:
    """True while process ``pid`` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


class FamilyBed:
    """A local VPP testbed running one family at a time (see the module docstring)."""

    def __init__(self, testbed: LocalTestbed, scratch: Path) -> None:
        """The testbed (set up) and a scratch directory for pcaps."""
        self.testbed = testbed
        self.topology = testbed.topology
        self.scratch = scratch
        self.drivers: dict[str, VppDriver] = {}
        self.configs: dict[str, DutTestConfig] = {}

    def configure(self, family_id: str) -> dict[str, VppDriver]:
        """Configure and start every DUT's VPP with ``family_id``; its drivers by node key."""
        family = get_family(family_id)
        path = compute_path(self.topology)
        self.configs = plan_duts(self.topology, path, "ip4base", family=family.setup)
        for key, config in self.configs.items():
            driver = self.drivers.get(key)
            if driver is None:
                node = self.topology.nodes[key]
                made = make_dut_driver(node, self.testbed.access(key))
                assert isinstance(made, VppDriver)
                driver = self.drivers[key] = made
            try:
                driver.configure(config)
            except UnsupportedCoresError as exc:  # e.g. no CPUs for a memif family's second VPP
                pytest.skip(str(exc))
            driver.start()
        for driver in self.drivers.values():
            driver.health_check()
        return self.drivers

    def stop(self) -> None:
        """Stop each DUT's test (VPP of the run stays)."""
        for driver in self.drivers.values():
            driver.stop()

    def close(self) -> list[int]:
        """Close every driver; the PIDs of the VPPs they ran (all must be gone)."""
        pids = [d.pid for d in self.drivers.values() if d.pid is not None]
        for driver in self.drivers.values():
            driver.close()
        return pids

    def tg_mac(self, port: str) -> str:
        """The MAC of TG port ``port`` ("port1")."""
        mac = self.topology.tg.interface(port).mac_address
        assert mac is not None
        return mac

    def entry_mac(self, direction: int) -> str:
        """The MAC of the DUT port where ``direction`` enters the chain."""
        key = next(iter(self.configs)) if direction == 0 else list(self.configs)[-1]
        mac = self.configs[key].ports[direction].mac
        assert mac is not None
        return mac

    def send(self, direction: int, frames: list[bytes], attempts: int = 2) -> tuple[int, int]:
        """Send ``frames`` in ``direction`` (0: TG port1 -> port2); (sent, received)."""
        tg = self.topology.tg
        tx = tg.interface("port1" if direction == 0 else "port2")
        rx = tg.interface("port2" if direction == 0 else "port1")
        assert tx.name and rx.name
        pcap = self.scratch / f"dir{direction}.pcap"
        write_pcap(pcap, frames)
        namespace = self.testbed.namespace(tg.key)
        sent = received = 0
        for _ in range(attempts):
            before = read_counters(namespace)
            self.testbed.access(tg.key).run(
                ["tcpreplay", "-q", "-i", tx.name, f"--pps={PPS}", "--preload-pcap", str(pcap)],
                timeout_s=60.0,
            )
            deadline = time.monotonic() + 3.0
            while True:
                after = read_counters(namespace)
                sent = after[tx.name].tx_packets - before[tx.name].tx_packets
                received = after[rx.name].rx_packets - before[rx.name].rx_packets
                if received >= sent or time.monotonic() > deadline:
                    break
                time.sleep(0.05)
            if received == sent:
                break
        return sent, received


#: CPUs a DUT needs for a 1c memif family: its worker, the second VPP's main thread and worker
#: (its own main thread shares CPU 0 with the TG).
DUT_CPUS = 3


def with_worker_cores(topology: Topology) -> Topology:
    """Each DUT its own CPUs, the machine's but CPU 0 (the TG's, and the DUTs' main threads')
    dealt round robin as ``worker_cores``, so that a memif family's second VPP has CPUs of
    its own (``ndrpdr.dut.vpp.peerthreads``); a 1c DUT keeps its worker on CPU 1 (DUT1) as
    with ``cpu``'s default. Unchanged on a machine with fewer than ``DUT_CPUS`` a DUT: its
    memif families are then skipped, saying which CPUs they lack."""
    cpus = sorted(os.sched_getaffinity(0))[1:]
    duts = topology.duts
    if len(cpus) < DUT_CPUS * len(duts):
        return topology
    nodes = dict(topology.nodes)
    for index, dut in enumerate(duts):
        listed = cpus[index :: len(duts)]
        nodes[dut.key] = dataclasses.replace(dut, options={**dut.options, "worker_cores": listed})
    return dataclasses.replace(topology, nodes=nodes)


@contextlib.contextmanager
def family_bed(name: str) -> Iterator[FamilyBed]:
    """A FamilyBed of topologies/local-<name>.yaml (``with_worker_cores``) for the block; its
    VPPs closed after it."""
    topology = with_worker_cores(load_topology(ROOT / "topologies" / f"local-{name}.yaml"))
    with LocalTestbed(topology) as testbed, tempfile.TemporaryDirectory() as scratch:
        bed = FamilyBed(testbed, Path(scratch))
        try:
            yield bed
        finally:
            bed.close()


def three_node_bed() -> Iterator[FamilyBed]:
    """The body of a module fixture: a FamilyBed of local-vpp-3n.yaml, its VPPs gone after it."""
    require_vpp()
    with family_bed("vpp-3n") as made:
        yield made
        pids = made.close()
        assert pids and not any(pid_alive(pid) for pid in pids)


def every_family(*values: object) -> object:
    """A case CI leaves to ``tox -e families`` (its kind runs for real in CI already)."""
    return pytest.param(*values, marks=pytest.mark.every_family)


def node_vectors(runtime: str, prefix: str) -> int:
    """Packets (vectors) the graph nodes named ``prefix``... handled, from ``show runtime``."""
    total = 0
    for line in runtime.splitlines():
        words = line.split()
        if len(words) >= 4 and words[0].startswith(prefix) and words[2].isdigit():
            total += int(words[3])
    return total
