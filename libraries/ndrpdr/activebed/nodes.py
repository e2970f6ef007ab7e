"""A testbed's nodes before they are driven: where they live, and what their drivers can run.

``ActiveTestbed`` (``ndrpdr.activebed.testbed``) asks this module whether
a topology has nodes in network namespaces of this machine made for the run
(``uses_local_testbed``: the local testbed, the lab in a box's hosts), the
topology its lab-in-a-box hosts give once started (``with_labbox_hosts``),
and whether the drivers on the traffic path run in a chain of its length
(``check_path_drivers``) and have a set-up for a family (``family_problem``),
all from the drivers' descriptions, never by driver name; a family that
needs a device besides the ports (QAT, DSA, flow offload: its VPP set-up's
``hardware``) is refused on a node whose topology entry has none.
"""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from ndrpdr.drivers import describe
from ndrpdr.errors import NdrPdrError
from ndrpdr.families import Family
from ndrpdr.topology.model import LabboxAccess, NetnsAccess, Topology
from ndrpdr.topology.path import TrafficPath

if TYPE_CHECKING:
    from ndrpdr.labbox import LabboxHosts


class TestbedError(NdrPdrError):
    """The testbed could not be set up or used (names the node and step)."""


def uses_local_testbed(topology: Topology) -> bool:
    """True when some node lives in a network namespace of this machine made for the run."""
    return any(isinstance(n.access, NetnsAccess | LabboxAccess) for n in topology.nodes.values())


def labbox_namespaces(topology: Topology) -> dict[str, str]:
    """{node key: logical namespace} of the lab-in-a-box hosts (the key in lower case)."""
    return {
        key: key.lower()
        for key, node in topology.nodes.items()
        if isinstance(node.access, LabboxAccess)
    }


def with_labbox_hosts(topology: Topology, hosts: LabboxHosts) -> Topology:
    """Start ``hosts``; ``topology`` with their nodes reached over SSH as lab hosts are, and
    their memif sockets in the hosts' shared directory."""
    from ndrpdr.labbox.memif import with_memif_sockets  # noqa: PLC0415 - a lab in a box only

    accesses = hosts.start()
    nodes = {
        key: dataclasses.replace(node, access=accesses[key]) if key in accesses else node
        for key, node in topology.nodes.items()
    }
    return with_memif_sockets(dataclasses.replace(topology, nodes=nodes), hosts.plan.directory)


def check_path_drivers(topology: Topology, path: TrafficPath) -> None:
    """TestbedError when a driver on ``path`` does not run in a chain of that many DUTs."""
    count = len(path.duts)
    for key in (topology.tg.key, *path.duts):
        node = topology.nodes[key]
        description = describe(node.type, node.driver)
        if count not in description.duts:
            shapes = ", ".join(f"{n + 1}-node" for n in description.duts)
            raise TestbedError(
                f"{topology.source}: nodes.{key}.driver {node.driver} runs on {shapes} "
                f"testbeds, and this path is {count + 1}-node"
            )


def family_problem(topology: Topology, path: TrafficPath, family: Family) -> str | None:
    """Why ``path`` cannot run ``family`` (its chain, a DUT driver with no set-up, a DUT
    without the device the family's VPP set-up needs), or None."""
    count = len(path.duts)
    if count not in family.duts:
        return (
            f"{family.id} runs on {family.topologies} testbeds, and this path "
            f"({' - '.join(path.duts)}) is {count + 1}-node"
        )
    for key in path.duts:
        driver = topology.nodes[key].driver
        if not family.setup.runs_on(driver):
            return f"{key} ({driver}): {family.setup.why_not(driver)}"
        vpp = family.setup.vpp_for(driver)
        need = None if vpp is None else vpp.hardware
        if need is not None:
            try:
                missing = need.missing(topology.nodes[key], path.dut_ports(key))
            except ValueError as exc:  # a device entry of a node built in memory
                missing = str(exc)
            if missing is not None:
                return f"{key} ({driver}): {family.id} needs {need.what}: {missing}"
    return None
