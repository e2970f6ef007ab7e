"""DPDK's EAL command line: the lcores, the devices, the memory and the ``--file-prefix``.

A DPDK application reaches its ports either as virtual devices on kernel
interfaces (``--vdev`` AF_PACKET / AF_XDP, ``vdev_args``) with no PCI
device, or as NICs allowed by PCI address (``-a``). Its memory comes from
hugepages or, without them, ``--no-huge``. Each run of a node gets its own
``--file-prefix`` (``new_file_prefix``), so its runtime directory under
``DPDK_RUNTIME_ROOT`` and its hugepage files are its own.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Sequence

#: Where DPDK keeps a process's runtime files (sockets, config) by file prefix.
DPDK_RUNTIME_ROOT = "/var/run/dpdk"
#: AF_PACKET ring size [frames]; the 512 default overflows on scheduling hiccups.
AF_PACKET_FRAMECNT = 16384


def new_file_prefix(node: str) -> str:
    """A DPDK ``--file-prefix`` unique to one run of one node."""
    safe = re.sub(r"[^a-z0-9]", "", node.lower()) or "dut"
    return f"ndrpdr-{safe}-{secrets.token_hex(4)}"


def vdev_spec(pmd: str, index: int, name: str, queues: int = 1) -> str:
    """The device string of AF_PACKET (``pmd`` af_packet) or AF_XDP virtual port ``index``
    on interface ``name``.

    ``queues`` > 1: that many queue pairs (AF_PACKET: sockets in a fanout
    group; AF_XDP: the interface's first ``queues`` kernel queues).
    """
    if pmd == "af_packet":
        spec = f"net_af_packet{index},iface={name},framecnt={AF_PACKET_FRAMECNT}"
        return spec + (f",qpairs={queues}" if queues > 1 else "")
    spec = f"net_af_xdp{index},iface={name}"
    return spec + (f",queue_count={queues}" if queues > 1 else "")


def vdev_args(pmd: str, names: Sequence[str], queues: int = 1) -> list[str]:
    """``--vdev`` arguments: one virtual port per interface, in order (``vdev_spec``)."""
    args: list[str] = []
    for index, name in enumerate(names):
        args += ["--vdev", vdev_spec(pmd, index, name, queues)]
    return args


def eal_args(
    lcores: str,
    prefix: str,
    memory_mb: int,
    vdevs: Sequence[str],
    *,
    pci_addresses: Sequence[str] = (),
    hugepages: bool = False,
) -> list[str]:
    """EAL arguments: ``lcores`` mapping, ``memory_mb`` of memory.

    By default no PCI device (``--no-pci``) and no hugepages (``--no-huge``);
    ``pci_addresses`` allows just those devices (``-a``), ``hugepages``
    takes the memory from hugepages.
    """
    devices = [arg for address in pci_addresses for arg in ("-a", address)] or ["--no-pci"]
    memory = [] if hugepages else ["--no-huge"]
    return [
        "--lcores", lcores, *devices, "--file-prefix", prefix,
        *memory, "-m", str(memory_mb), *vdevs,
    ]  # fmt: skip
