"""The two DUT ports as the OS names them: checked names, and that they exist on the node.

A driver that forwards between kernel interfaces (linux, ovs, vpp on
af_packet, a DPDK app on AF_PACKET / AF_XDP vdevs) needs each port's
interface name. The names end up in command lines, nft rules, devargs
and OVS commands, so ``port_names`` accepts only plain interface names;
``check_ports_exist`` asks the node (``ip link show``).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ndrpdr.dut.base import DutError, DutPort, DutTestConfig
from ndrpdr.dut.nodesteps import NodeSteps

#: Linux interface names the drivers accept (the kernel allows 15 characters; the names end up
#: in devargs, nft rules, OVS and VPP commands).
IFNAME = re.compile(r"^[A-Za-z0-9_.-]{1,15}$")
#: A MAC address as the drivers accept it (six colon-separated hex pairs).
MAC = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")


def port_names(node: str, driver: str, config: DutTestConfig) -> tuple[str, str]:
    """The OS interface names of the two ports, checked (DutError names the bad port)."""
    names: list[str] = []
    for index, port in enumerate(config.ports):
        if port.name is None:
            raise DutError(
                f"{node} ({driver}): configure: ports[{index}] ({port.key}) has no interface "
                "name; this driver needs the OS interface name of each port"
            )
        if not IFNAME.match(port.name):
            raise DutError(
                f"{node} ({driver}): configure: ports[{index}] ({port.key}) interface name "
                f"{port.name!r} is not a plain interface name (letters, digits, _ . -, "
                "at most 15 characters)"
            )
        names.append(port.name)
    if names[0] == names[1]:
        raise DutError(f"{node} ({driver}): configure: both ports are {names[0]!r}")
    return names[0], names[1]


def check_ports_exist(steps: NodeSteps, ports: Sequence[DutPort]) -> None:
    """DutError naming the first port whose interface does not exist on the node (a memif
    port has none)."""
    for port in ports:
        if port.memif_socket is not None:
            continue
        assert port.name is not None
        steps.run(f"check port {port.key} ({port.name})", ["ip", "link", "show", "dev", port.name])
