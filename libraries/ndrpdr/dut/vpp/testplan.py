"""What one test asks of a VPP DUT: its startup.conf, its interfaces' names, the vppctl lines
that create and forward on them, their RX queues and the family's undo lines.

One function per kind of port: a lab's NICs (dpdk), the node's Linux
interfaces as DPDK virtual devices (dpdk_vdev), or through VPP's own
plugins (af_packet, af_xdp, memif). The driver writes and applies the plan.
"""

from __future__ import annotations

import dataclasses
import posixpath

from ndrpdr.dut.accel import HardwareNeed
from ndrpdr.dut.base import DutTestConfig, UnsupportedFamilyError
from ndrpdr.dut.guest.plan import VPP_GUESTS, GuestPlan, QemuImage
from ndrpdr.dut.guest.run import check_guest, new_run_dir
from ndrpdr.dut.nodesteps import NodeSteps
from ndrpdr.dut.ports import check_ports_exist
from ndrpdr.dut.vpp import afpacket as vpp_afpacket
from ndrpdr.dut.vpp import family as vpp_family
from ndrpdr.dut.vpp import vdev as vpp_vdev
from ndrpdr.dut.vpp.afpacket import VppRunPaths
from ndrpdr.dut.vpp.config import (
    STANDARD_MAX_FRAME_B,
    VppOptions,
    forwarding_commands,
    interface_name,
    rx_queues,
    worker_cores,
)
from ndrpdr.dut.vpp.layout import placement, port_queues, undo_commands
from ndrpdr.dut.vpp.memory import NodeMemory, size_peer
from ndrpdr.dut.vpp.peer import PeerPlan
from ndrpdr.dut.vpp.peerthreads import peer_threads
from ndrpdr.dut.vpp.startup import family_needs, sizing_for, smt_used, startup_conf
from ndrpdr.errors import NdrPdrError
from ndrpdr.topology.model import Node

#: Commands that zero VPP's counters, so that a test's telemetry is its own.
CLEAR_COMMANDS: tuple[str, ...] = (
    "clear runtime",
    "clear errors",
    "clear interfaces",
    "clear hardware-interfaces",
)


@dataclasses.dataclass(frozen=True)
class TestPlan:
    """One test's VPP: startup.conf text, interface names, set-up lines, RX queues, undo lines."""

    __test__ = False  # not a pytest class

    text: str
    names: list[str]
    commands: list[str]
    queues: tuple[int, int]
    undo: list[str]
    #: Where startup.conf's sizes differ from FD.io CSIT's, and why (``ndrpdr.dut.vpp.memory``).
    scaled: tuple[str, ...] = ()
    #: The family's second VPP (memif families; None: it has none).
    peer: PeerPlan | None = None
    #: The family's guest over vhost-user (vhost families; None: it has none).
    guest: GuestPlan | None = None
    #: The device the family needs (``ndrpdr.dut.accel``; None: none) and the test's workers.
    hardware: HardwareNeed | None = None
    workers: int = 0


def plan_test(
    steps: NodeSteps,
    node: Node,
    options: VppOptions,
    config: DutTestConfig,
    *,
    paths: VppRunPaths | None,
    file_prefix: str | None,
    memory: NodeMemory | None = None,
    smt: bool | None = None,
) -> TestPlan:
    """The plan of ``config`` (``paths``: the run's, None for a lab VPP; ``file_prefix``:
    DPDK's, for dpdk_vdev ports; ``memory`` and ``smt``: what the node said, None when
    unknown). Checks that the node's ports exist where they must."""
    workers = worker_cores(node, config, options)
    need = vpp_family.hardware(config)
    if need is not None:  # a skip before anything is written or started
        missing = need.missing(node, [port.key for port in config.ports])
        if missing is not None:
            family = "the family" if config.family is None else config.family.family
            raise UnsupportedFamilyError(f"{node.key} (vpp): {family} needs {need.what}: {missing}")
    needs = family_needs(vpp_family.startup_section(config))
    used = smt_used(config, smt)
    sizing = sizing_for(options, memory, used, needs, vpp_family.heap_size_mult(config))
    if options.port_kind == "dpdk_vdev":
        assert paths is not None and file_prefix is not None
        vpp_afpacket.check_ports(node, config)
        check_ports_exist(steps, config.ports)
        queues = port_queues(steps, options, config, workers)
        text = vpp_vdev.startup_conf(
            node, config, options, paths, file_prefix=file_prefix, queues=queues[0], sizing=sizing
        )
        names = vpp_vdev.interface_names(config)
        commands = [*forwarding_commands(config, names), *placement(node, options, config, names)]
    elif paths is not None:
        text = vpp_afpacket.startup_conf(node, config, options, paths, sizing=sizing)
        names = [vpp_afpacket.host_interface(port) for port in config.ports]
        check_ports_exist(steps, config.ports)
        queues = port_queues(steps, options, config, workers)
        create = vpp_afpacket.create_commands(
            config, options.rx_mode, options.port_kind, workers=len(workers), rx_queues=queues
        )
        commands = [*CLEAR_COMMANDS, *create, *forwarding_commands(config, names)]
    else:
        more = [] if need is None else need.dpdk_lines(node, len(workers))
        text = startup_conf(node, config, options, sizing, dpdk_more=more)
        names = [interface_name(port) for port in config.ports]
        commands = [*forwarding_commands(config), *placement(node, options, config, names)]
        wanted = rx_queues(options, workers)
        queues = (wanted, wanted)
    text += needs.rest
    undo = undo_commands(config, names)
    memif_queues = rx_queues(options, workers)  # CSIT's rxq_count_int: one per worker
    commands = [vpp_family.fill_queues(line, memif_queues) for line in commands]
    peer = None
    if vpp_family.peer_commands(config):  # its CPUs are checked now: a skip before any start
        peer = PeerPlan(peer_threads(node, config, options), memif_queues, size_peer(sizing))
    guest = None
    if vpp_family.guest(config) is not None:  # CPUs and program checked now: a skip first
        guest = guest_plan(node, options, config, memif_queues, hugepages=sizing.hugepages)
        check_guest(steps, guest)
        commands = [line.replace("{guest_dir}", guest.run_dir) for line in commands]
    return TestPlan(
        text, names, commands, queues, undo, sizing.scaled, peer, guest, need,
        workers=len(workers),
    )  # fmt: skip


def guest_plan(
    node: Node, options: VppOptions, config: DutTestConfig, queues: int, *, hugepages: bool
) -> GuestPlan:
    """The vhost family's guest: CSIT's VM's CPUs (those of a memif family's second VPP),
    ``queues`` per port, testpmd or VPP, a VM when the options name QEMU (``ndrpdr.dut.guest``).
    """
    vnf = vpp_family.guest(config)
    assert vnf is not None
    threads = peer_threads(node, config, options, f"the guest of a vhost-user family ({vnf})")
    image = None
    if options.guest_qemu and options.guest_kernel and options.guest_initrd:
        image = QemuImage(options.guest_qemu, options.guest_kernel, options.guest_initrd)
    return GuestPlan(
        vnf, threads, queues, new_run_dir(), vpp_family.guest_commands(config),
        options.binary if vnf in VPP_GUESTS else options.testpmd, hugepages,
        jumbo=config.max_frame_size_b > STANDARD_MAX_FRAME_B, qemu=image,
    )  # fmt: skip


def write_startup_conf(steps: NodeSteps, path: str, text: str) -> None:
    """Write ``text`` to ``path`` on the node, its directory made first (DutError names it)."""
    steps.run(
        "configure: create the startup.conf directory",
        ["mkdir", "-p", "--", posixpath.dirname(path)],
    )
    try:
        steps.access.put_file(text.encode(), path, mode=0o644, sudo=True)
    except NdrPdrError as exc:
        raise steps.error(f"configure: write {path}", str(exc)) from exc
