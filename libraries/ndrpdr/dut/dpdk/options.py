"""The options of the DPDK application drivers (testpmd, l3fwd), declared once.

``DpdkAppOptions`` holds what both take: the process (CPU, binary, memory,
arguments, start timeout), the poll mode driver of the ports, and the lab
set-up for NICs driven by DPDK itself (``pmd: pci``: PCI binding and
hugepages). Each driver adds its own fields in a subclass.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from typing import Literal

from ndrpdr.drivers import option

#: Hugepage sizes a node can reserve [kB].
HUGEPAGE_SIZES_KB: tuple[int, ...] = (2048, 1048576)
#: ``bind_driver`` value that leaves the PCI binding alone (mlx5 NICs stay on their driver).
NO_BINDING = "none"


@dataclasses.dataclass(frozen=True)
class DpdkAppOptions:
    """Options every DPDK application driver takes."""

    cpu: int = option(
        1, "CPU of the forwarding lcore, modulo the node's CPU count (every thread of the "
        "app is pinned there); unset on this machine: this CPU unless "
        "another run holds it, else one no run holds", minimum=0,
    )  # fmt: skip
    pmd: Literal["af_packet", "af_xdp", "pci"] = option(
        "af_packet",
        "poll mode driver: af_packet or af_xdp on the ports' kernel interfaces, or pci "
        "(lab: the NICs by PCI address, bound to bind_driver, memory from hugepages)",
    )
    binary: str | None = option(
        None, "path of the program (default: the driver's program on PATH, or built)"
    )
    memory_mb: int = option(1024, "DPDK memory [MiB]", minimum=64)
    extra_args: tuple[str, ...] = option((), "more command line arguments")
    start_timeout_s: float = option(
        30.0, "how long start waits for the app to forward [s]", minimum=0,
        exclusive_minimum=True,
    )  # fmt: skip
    bind_driver: str | None = option(
        None,
        "pmd pci: the driver the ports' PCI devices are bound to before the start (default: "
        "the node's uio_driver, else vfio-pci; none leaves the binding alone, e.g. mlx5)",
        pattern=r"[A-Za-z0-9_-]{1,64}",
        what="a kernel driver name (e.g. vfio-pci, or none)",
    )
    restore_driver: bool = option(
        False,
        "pmd pci: give each device back to its kernel driver at the stop (false: the binding "
        "stays, as in CSIT)",
    )
    hugepages: int = option(
        0,
        "reserve at least this many hugepages before the start (0: use what is reserved; "
        "> 0 also makes af_packet / af_xdp use hugepages)",
        minimum=0,
    )
    hugepage_size_kb: int = option(
        HUGEPAGE_SIZES_KB[0], "size of those hugepages [kB]", choices=HUGEPAGE_SIZES_KB
    )

    worker_cores: tuple[int, ...] | None = option(
        None,
        "CPUs of the forwarding lcores in order, a test's Nc taking the listed CPUs of N "
        "physical cores (default: cpu's core, cpu and its SMT siblings; on this machine cpu "
        "and the CPUs no other node of the run uses); a test asking for more is skipped",
        minimum=0,
        min_items=1,
        unique=True,
    )

    def problems(self) -> Iterator[tuple[str, str]]:
        """The hugepages asked for must hold ``memory_mb``."""
        if 0 < self.hugepages * self.hugepage_size_kb < self.memory_mb * 1024:
            yield (
                "hugepages",
                f"{self.hugepages} pages of {self.hugepage_size_kb} kB hold less than "
                f"memory_mb ({self.memory_mb} MiB): raise hugepages or lower memory_mb",
            )
