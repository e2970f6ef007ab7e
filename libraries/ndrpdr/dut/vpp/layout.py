"""Where a VPP DUT's ports and threads go for one test: RX queues per port, their placement on
the workers, the CPU layout said in telemetry, and the port driver a topology's node uses."""

from __future__ import annotations

from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.dut.cores import UnsupportedCoresError
from ndrpdr.dut.netqueues import rx_queue_count
from ndrpdr.dut.nodesteps import NodeSteps
from ndrpdr.dut.smt import ThreadPlan
from ndrpdr.dut.vpp import family as vpp_family
from ndrpdr.dut.vpp.config import (
    VppOptions,
    main_core,
    parse_options,
    rx_queues,
    uio_driver,
    worker_cores,
)
from ndrpdr.dut.vpp.queues import rx_placement_commands
from ndrpdr.dut.vpp.threads import vpp_threads
from ndrpdr.topology.model import Node


def uses_xdp(options: VppOptions) -> bool:
    """True when the ports are read through AF_XDP (VPP's af_xdp plugin or DPDK's PMD)."""
    kind = options.port_kind
    return kind == "af_xdp" or (kind == "dpdk_vdev" and options.vdev == "af_xdp")


def port_queues(
    steps: NodeSteps, options: VppOptions, config: DutTestConfig, workers: tuple[int, ...]
) -> tuple[int, int]:
    """RX queues of each port: one per worker (``rx_queues``); VPP's af_xdp: every kernel
    queue of the interface, at least as many (``ndrpdr.dut.netqueues``); DPDK's af_xdp:
    the first of them."""
    wanted = rx_queues(options, workers)
    if not uses_xdp(options):
        return wanted, wanted
    counts = []
    for port in config.ports:
        count = rx_queue_count(steps, "configure: count RX queues", str(port.name))
        if count < wanted:
            raise UnsupportedCoresError(
                f"{steps.node} (vpp) needs {wanted} RX queues per port for {len(workers)} "
                f"workers and {port.name} has {count} (an AF_XDP socket reads one kernel "
                "queue)"
            )
        counts.append(count)
    if options.port_kind == "dpdk_vdev":
        return wanted, wanted
    return counts[0], counts[1]


def placement(
    node: Node, options: VppOptions, config: DutTestConfig, names: list[str]
) -> list[str]:
    """dpdk / dpdk_vdev ports ``names``: pin each one's RX queues round robin to the workers."""
    workers = worker_cores(node, config, options)
    queues, readers = rx_queues(options, workers), vpp_family.rx_workers(config, workers)
    return [command for name in names for command in rx_placement_commands(name, queues, readers)]


def thread_plan(node: Node, config: DutTestConfig) -> ThreadPlan:
    """The description's ``threads``: VPP's main thread and workers for ``config`` on ``node``
    (``ndrpdr.dut.vpp.threads``)."""
    return vpp_threads(node, config, parse_options(node))


def main_thread(node: Node, options: VppOptions, config: DutTestConfig) -> int:
    """The CPU of VPP's main thread for ``config`` (``ndrpdr.dut.vpp.threads``)."""
    return main_core(options, worker_cores(node, config, options), config)


def cpu_layout(
    node: Node, options: VppOptions, config: DutTestConfig, queues: tuple[int, int]
) -> str:
    """Which CPU does what: "main thread on cpu 0, 1 worker(s) on cpu 1 (1 RX queue(s) per
    port)"."""
    workers = worker_cores(node, config, options)
    main = main_core(options, workers, config)
    if not workers:
        return f"main thread on cpu {main} forwards (no workers)"
    first, second = queues
    shown = f"{first}" if first == second else f"{first} and {second}"
    cpus = ",".join(str(cpu) for cpu in workers)
    return (
        f"main thread on cpu {main}, {len(workers)} worker(s) on cpu {cpus} "
        f"({shown} RX queue(s) per port)"
    )


def undo_commands(config: DutTestConfig, names: list[str]) -> list[str]:
    """The family's lines that remove what outlives the interfaces (none without a family)."""
    family = config.family
    if family is None or family.vpp is None:
        return []
    return family.vpp.undo_commands(config, (names[0], names[1]))


def port_driver(node: Node) -> str:
    """af_packet / af_xdp (VPP's plugin, or DPDK's virtual device with dpdk_vdev), or the
    node's uio_driver through which VPP's DPDK plugin takes the NICs."""
    kind = node.options.get("port_kind")
    if kind in ("af_packet", "af_xdp", "memif"):
        return str(kind)
    if kind == "dpdk_vdev":  # DPDK's poll mode driver of the virtual devices
        return str(node.options.get("vdev", VppOptions.vdev))
    try:
        return uio_driver(node) or "vfio-pci"
    except DutError:
        return "vfio-pci"
