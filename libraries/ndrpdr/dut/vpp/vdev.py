"""VPP on Linux interfaces through its DPDK plugin (``port_kind: dpdk_vdev``): pure functions.

DPDK's virtual devices open the node's Linux interfaces (veths of the
local testbed or of a lab-in-a-box host): ``net_af_xdp`` (an AF_XDP
socket per queue; libxdp attaches its XDP program to the veth, which the
driver detaches after VPP ends) or, where AF_XDP is not available,
``net_af_packet`` (options.vdev). So the lab's data path runs without a
NIC or hugepages: the DPDK plugin, the ``dpdk`` startup section
(``ndrpdr.dut.vpp.dpdk``, the lab's own writer), ``dpdk-input`` and the
interface TX nodes. The rest of startup.conf is that of every VPP on
Linux interfaces (``ndrpdr.dut.vpp.afpacket``: a run directory, 4 KiB
pages); the DPDK runtime directory is ``/var/run/dpdk/<file prefix>``.

The ports exist from VPP's start: VPP names a virtual device
``Ethernet<DPDK port id>``, DPDK numbers them in the order of their
``vdev`` lines, and each takes its interface's MAC (the topology's, on
veths the testbed made). ``hardware_problem`` checks both in ``show
hardware`` (each port's ``Devargs: iface=<if>`` line, printed only for a
DPDK port, and its ``Ethernet address``) before the forwarding is set up.
"""

from __future__ import annotations

from ndrpdr.dut.base import DutTestConfig
from ndrpdr.dut.dpdk.eal import vdev_spec
from ndrpdr.dut.vpp.afpacket import VppRunPaths
from ndrpdr.dut.vpp.afpacket import startup_conf as linux_startup_conf
from ndrpdr.dut.vpp.config import VppOptions
from ndrpdr.dut.vpp.memory import StartupSizing
from ndrpdr.dut.vpp.startup import dpdk_lines
from ndrpdr.topology.model import Node


def interface_names(config: DutTestConfig) -> list[str]:
    """VPP's names of the test's ports: Ethernet0, Ethernet1 (vdev order = port order)."""
    return [f"Ethernet{index}" for index in range(len(config.ports))]


def startup_conf(
    node: Node,
    config: DutTestConfig,
    options: VppOptions,
    paths: VppRunPaths,
    *,
    file_prefix: str,
    queues: int,
    sizing: StartupSizing | None = None,
) -> str:
    """startup.conf with one ``options.vdev`` virtual device of ``queues`` queue pairs per port."""
    vdevs = [
        vdev_spec(options.vdev, index, str(port.name), queues)
        for index, port in enumerate(config.ports)
    ]
    dpdk = dpdk_lines(node, config, options, queues, vdevs=vdevs, file_prefix=file_prefix)
    return linux_startup_conf(node, config, options, paths, dpdk, sizing=sizing)


def hardware_devargs(show_hardware: str) -> dict[str, tuple[str, str]]:
    """Interface name -> (its DPDK device arguments, its MAC) in a ``show hardware`` text.

    Only a port of the DPDK plugin has a ``Devargs:`` line ("iface=dut-if1");
    an interface without one is left out.
    """
    devargs: dict[str, str] = {}
    macs: dict[str, str] = {}
    current: str | None = None
    for line in show_hardware.splitlines():
        if line and not line[0].isspace():
            words = line.split()
            current = words[0] if words and words[0] != "Name" else None
            continue
        text = line.strip()
        if current is None:
            continue
        if text.startswith("Devargs:"):
            devargs[current] = text.removeprefix("Devargs:").strip()
        elif text.startswith("Ethernet address "):
            macs[current] = text.removeprefix("Ethernet address ").strip().lower()
    return {name: (args, macs.get(name, "")) for name, args in devargs.items()}


def hardware_problem(show_hardware: str, config: DutTestConfig) -> str | None:
    """What in ``show hardware`` says the ports are not the test's interfaces (None: they are).

    Each ``Ethernet<i>`` must be a DPDK port on port *i*'s interface with its MAC.
    """
    found = hardware_devargs(show_hardware)
    for name, port in zip(interface_names(config), config.ports, strict=True):
        if name not in found:
            have = ", ".join(f"{key} ({args})" for key, (args, _) in found.items()) or "none"
            return f"VPP has no DPDK port {name} for {port.name}; its DPDK ports: {have}"
        args, mac = found[name]
        if f"iface={port.name}" not in args.split(","):
            return f"VPP's {name} is not on {port.name}: its devargs are {args!r}"
        if mac != str(port.mac).lower():
            return (
                f"VPP's {name} has MAC {mac or '(none)'}, not {port.name}'s {port.mac} from the "
                "topology: set the interface's MAC (the TG addresses its frames to it)"
            )
    return None
