"""Making the DUT driver a node names: ``make_dut_driver`` (through the driver descriptions)."""

from __future__ import annotations

from ndrpdr.access.base import NodeAccess
from ndrpdr.drivers import driver_names, find
from ndrpdr.dut.base import DutDriver, DutError
from ndrpdr.topology.model import Node


def make_dut_driver(node: Node, access: NodeAccess) -> DutDriver:
    """The driver for DUT ``node`` using ``access`` (no I/O; DutError for an unknown driver)."""
    description = find("DUT", node.driver)
    if description is None:
        raise DutError(
            f"{node.key}: unknown DUT driver {node.driver!r}; known: "
            f"{', '.join(driver_names('DUT'))}"
        )
    driver: DutDriver = description.factory(node, access)
    return driver
