"""Which CPU each DUT's threads got: the nodes' CPUs read once, each test's plan, the tags.

A DUT whose driver places data-plane threads (its description has
``threads``: vpp, testpmd, l3fwd) has its CPUs read once per testbed over
its access, as CSIT reads a node's ``cpuinfo``: ``lscpu
-p=CPU,CORE,SOCKET,NODE`` and the NUMA node of its first port with a PCI
address (``/sys/bus/pci/devices/<pci>/numa_node``; none or -1: 0). A node
whose CPUs cannot be read is planned as before (each CPU a core of its
own) and the log says why. Each test's configuration carries them
(``DutTestConfig.cpus``) and the ``smt`` switch (``${SMT}``, ``--no-smt``).

After a DUT is configured its driver's ``threads`` says which CPU each
thread got (``ndrpdr.dut.smt.ThreadPlan``): the tags (``2T1C``,
``MTHREAD``) and the telemetry text ``cpu_threads`` (the record's
``testbed.cpus.duts[].thread_plan``) come from it. The telemetry texts of
this machine's CPU placement are made here too (``placement_texts``).
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Callable, Mapping, Sequence

from ndrpdr.access.base import NodeAccess
from ndrpdr.activebed.cpuplace import CpuPlacement, machine_text, with_joined
from ndrpdr.drivers import describe
from ndrpdr.dut.base import DutTestConfig
from ndrpdr.dut.smt import LSCPU_ARGV, CpuLayoutError, NodeCpus, ThreadPlan, parse_lscpu
from ndrpdr.errors import NdrPdrError
from ndrpdr.localbed.cpuclaim import CpuClaims
from ndrpdr.results.record import THREAD_PLAN_TEXT
from ndrpdr.topology.model import Node, Topology

_log = logging.getLogger(__name__)


def read_node_cpus(node: Node, access: NodeAccess) -> NodeCpus | None:
    """``node``'s CPUs (lscpu) and its ports' NUMA node; None (and a warning) when lscpu fails."""
    source = f"{node.key}: {' '.join(LSCPU_ARGV)}"
    try:
        result = access.run(LSCPU_ARGV, check=True, timeout_s=30)
        layout = parse_lscpu(result.stdout, source)
    except (NdrPdrError, CpuLayoutError) as exc:
        _log.warning("%s: CPUs not known, each taken as a core of its own: %s", node.key, exc)
        return None
    return NodeCpus(layout, _numa_node(node, access))


def _numa_node(node: Node, access: NodeAccess) -> int:
    """The NUMA node of ``node``'s first port with a PCI address (0: none, or not known)."""
    pci = next((i.pci_address for i in node.interfaces.values() if i.pci_address), None)
    if pci is None:
        return 0
    try:
        found = access.run(["cat", f"/sys/bus/pci/devices/{pci}/numa_node"], timeout_s=30)
    except NdrPdrError:
        return 0
    text = found.stdout.strip()
    return int(text) if found.exit_code == 0 and text.isdigit() else 0


class DutThreads:
    """The DUTs' CPUs (read on first use) and the ThreadPlan of each DUT's current test."""

    def __init__(self) -> None:
        """Nothing read yet."""
        self._cpus: dict[str, NodeCpus | None] = {}
        #: The current test's plan of each DUT whose driver has ``threads``, by node key.
        self.plans: dict[str, ThreadPlan] = {}

    def prepare(
        self,
        topology: Topology,
        configs: Mapping[str, DutTestConfig],
        access: Callable[[str], NodeAccess],
        *,
        smt: bool = True,
    ) -> dict[str, DutTestConfig]:
        """``configs`` with each DUT's CPUs (read now the first time) and ``smt``; forgets
        the last test's plans."""
        self.plans = {}
        out: dict[str, DutTestConfig] = {}
        for key, config in configs.items():
            node = topology.nodes[key]
            if describe(node.type, node.driver).threads is not None and key not in self._cpus:
                self._cpus[key] = read_node_cpus(node, access(key))
            out[key] = dataclasses.replace(config, cpus=self._cpus.get(key), smt=smt)
        return out

    def note(self, node: Node, config: DutTestConfig) -> None:
        """Keep the plan ``node``'s driver makes for ``config`` (none: the driver has none)."""
        threads = describe(node.type, node.driver).threads
        if threads is not None:
            self.plans[node.key] = threads(node, config)

    def forget(self) -> None:
        """Forget the nodes' CPUs and plans (the testbed was torn down)."""
        self._cpus.clear()
        self.plans = {}

    def tags(self, duts: Sequence[str], cores: int) -> list[str]:
        """CSIT's ``<threads>T<cores>C`` and ``MTHREAD`` / ``STHREAD`` of the DUTs' plans
        (each different one once); with no plan (sim, linux, ovs): one thread per core."""
        plans = [self.plans[key] for key in duts if key in self.plans]
        if not plans:
            return [f"{cores}T{cores}C", "MTHREAD" if cores > 1 else "STHREAD"]
        tags = [tag for plan in plans for tag in (plan.tag, plan.thread_tag)]
        return list(dict.fromkeys(tags))

    def texts(self, node: str) -> dict[str, str]:
        """``cpu_threads``: the plan of ``node`` as JSON (none without a plan)."""
        plan = self.plans.get(node)
        return {} if plan is None else {THREAD_PLAN_TEXT: json.dumps(plan.to_json())}


def placement_texts(
    node: str, placements: dict[str, CpuPlacement], claims: CpuClaims | None
) -> dict[str, str]:
    """The telemetry texts of this machine's CPU placement for ``node``: ``cpu_placement``,
    ``cpu_shared_with``, ``cpus``; ``placements`` learns the runs that joined its CPU later."""
    texts: dict[str, str] = {}
    placement = placements.get(node)
    if placement is not None and claims is not None:
        later = with_joined(placement, claims)
        if later.joined != placement.joined:
            _log.warning("%s: %s", node, later.text)
        placements[node] = placement = later
    if placement is not None:
        texts["cpu_placement"] = placement.text
        if placement.sharers is not None:  # the record's result is irregular for it
            texts["cpu_shared_with"] = f"cpu {placement.cpu}: {placement.sharers}"
    if placements:
        texts["cpus"] = machine_text(placements)
    return texts
