"""Which driver runs a DUT node: ``make_dut_driver`` dispatches on ``node.driver``."""

from __future__ import annotations

from collections.abc import Callable

from ndrpdr.access.base import NodeAccess
from ndrpdr.dut.base import DutDriver, DutError
from ndrpdr.testbed.model import Node


def _linux(node: Node, access: NodeAccess) -> DutDriver:
    from ndrpdr.dut.linux import LinuxDriver  # noqa: PLC0415 - import only what is used

    return LinuxDriver(node, access)


def _testpmd(node: Node, access: NodeAccess) -> DutDriver:
    from ndrpdr.dut.testpmd import TestpmdDriver  # noqa: PLC0415

    return TestpmdDriver(node, access)


def _l3fwd(node: Node, access: NodeAccess) -> DutDriver:
    from ndrpdr.dut.l3fwd import L3fwdDriver  # noqa: PLC0415

    return L3fwdDriver(node, access)


def _ovs(node: Node, access: NodeAccess) -> DutDriver:
    from ndrpdr.dut.ovs import OvsDriver  # noqa: PLC0415

    return OvsDriver(node, access)


def _vpp(node: Node, access: NodeAccess) -> DutDriver:
    from ndrpdr.dut.vpp import VppDriver  # noqa: PLC0415

    return VppDriver(node, access)


def _sim(node: Node, access: NodeAccess) -> DutDriver:
    from ndrpdr.dut.sim import SimDutDriver  # noqa: PLC0415

    return SimDutDriver(node, access)


_DRIVERS: dict[str, Callable[[Node, NodeAccess], DutDriver]] = {
    "linux": _linux,
    "testpmd": _testpmd,
    "l3fwd": _l3fwd,
    "ovs": _ovs,
    "sim": _sim,
    "vpp": _vpp,
}

#: DUT driver names make_dut_driver knows.
DUT_DRIVERS: tuple[str, ...] = tuple(_DRIVERS)


def make_dut_driver(node: Node, access: NodeAccess) -> DutDriver:
    """The driver for DUT ``node`` using ``access`` (no I/O; DutError for an unknown driver)."""
    factory = _DRIVERS.get(node.driver)
    if factory is None:
        raise DutError(
            f"{node.key}: unknown DUT driver {node.driver!r}; known: {', '.join(DUT_DRIVERS)}"
        )
    return factory(node, access)
