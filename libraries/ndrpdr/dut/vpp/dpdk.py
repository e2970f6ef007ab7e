"""VPP's ``dpdk`` startup section: one writer for NICs by PCI address and for virtual devices.

Pure functions, no I/O. In a lab VPP's DPDK plugin takes each NIC with
``dev <pci> { name <if> }`` (``port_kind: dpdk``). On Linux interfaces
(``port_kind: dpdk_vdev``: veths of the local testbed or of a lab in a box)
DPDK's own virtual devices open them instead, ``vdev
net_af_xdp0,iface=<if>`` (or ``net_af_packet0``), with ``no-pci``,
``no-hugetlb`` (4 KiB pages) and a ``file-prefix`` of the run, so the same
plugin, startup section and ``dpdk-input`` / TX nodes run without a NIC.
Either way ``dev default`` holds what every port shares: one RX queue per
worker (``num-rx-queues``) and the descriptor ring sizes (``num-rx-desc``,
``num-tx-desc``; unset: VPP's 1024). VPP gives each port a TX queue per
thread by itself (fewer, shared under a lock, where the device has fewer).
"""

from __future__ import annotations

from collections.abc import Sequence


def dpdk_section(
    rx_queues: int,
    *,
    rx_descriptors: int | None = None,
    tx_descriptors: int | None = None,
    no_multi_seg: bool = False,
    uio_driver: str | None = None,
    nics: Sequence[tuple[str, str]] = (),
    vdevs: Sequence[str] = (),
    file_prefix: str | None = None,
    log_level: str | None = None,
    more: Sequence[str] = (),
) -> list[str]:
    """The lines of the ``dpdk { ... }`` section.

    ``nics``: (PCI address, VPP's interface name) per NIC; ``vdevs``: the
    virtual devices' specs (``ndrpdr.dut.dpdk.eal.vdev_spec``), which also mean no PCI, no
    hugepages and DPDK's runtime directory named ``file_prefix``. ``log_level``: DPDK's
    (CSIT's ``debug`` on a lab's NICs). ``more``: lines of the family's devices, last
    (``ndrpdr.dut.accel``: a QAT's virtual functions).
    """
    lines = ["dpdk {"]
    if log_level is not None:
        lines.append(f"  log-level {log_level}")
    if vdevs:
        lines += ["  no-hugetlb", "  no-pci"]
        if file_prefix is not None:
            lines.append(f"  file-prefix {file_prefix}")
    if uio_driver is not None:
        lines.append(f"  uio-driver {uio_driver}")
    if no_multi_seg:
        lines.append("  no-multi-seg")
    lines += ["  dev default {", f"    num-rx-queues {rx_queues}"]
    if rx_descriptors is not None:
        lines.append(f"    num-rx-desc {rx_descriptors}")
    if tx_descriptors is not None:
        lines.append(f"    num-tx-desc {tx_descriptors}")
    lines.append("  }")
    for address, name in nics:
        lines += [f"  dev {address} {{", f"    name {name}", "  }"]
    lines += [f"  vdev {spec}" for spec in vdevs]
    lines += more
    lines.append("}")
    return lines
