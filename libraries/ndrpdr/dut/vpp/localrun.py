"""A VPP of the run on the node's Linux interfaces (af_packet, af_xdp, dpdk_vdev, memif ports):
its run directory, DPDK's runtime directory, the kernel hands-off of the ports, and their removal.

With ``port_kind: af_packet`` (``afpacket``) the ports are the node's
Linux interfaces and VPP is one process of the run, started by the driver
(``service: direct``) in its own run directory, and kept for every test of
the suite: ``start`` starts it once (again only when the test's
startup.conf differs, or once more, with a warning holding its log tail,
when it died), ``stop`` deletes the test's af_packet interfaces (and with
them its addresses, neighbours, routes, cross-connects) but leaves VPP
running (the family's ``undo_commands`` run first: ACLs, classify tables,
bridge domains, host routes would outlive the interfaces), and ``close``
(the testbed's teardown) stops it by PID and removes what this module
tracks: the run directory, its shared-memory API segment and the kernel
hands-off of the ports (``KernelHandsOff``: the node's kernel must not
forward what VPP forwards). Each test begins with VPP's counters cleared,
so the telemetry is that test's.

With ``port_kind: dpdk_vdev`` (``vdev``) the same Linux interfaces are DPDK
virtual devices of VPP's DPDK plugin, written into the ``dpdk`` section by
the lab's writer (``dpdk``). They exist from VPP's start, so each test
starts its own VPP in the run directory and ``stop`` ends it; before the
set-up ``show hardware`` must show them as DPDK ports on the test's
interfaces, and telemetry adds ``show dpdk version`` (its EAL arguments
name each port's DPDK driver).
"""

from __future__ import annotations

import secrets

from ndrpdr.dut.base import DutTestConfig
from ndrpdr.dut.dpdk.eal import DPDK_RUNTIME_ROOT, new_file_prefix
from ndrpdr.dut.handsoff import KernelHandsOff, xdp_off_argv
from ndrpdr.dut.nodesteps import NodeSteps
from ndrpdr.dut.vpp import afpacket as vpp_afpacket
from ndrpdr.dut.vpp.afpacket import VppRunPaths
from ndrpdr.dut.vpp.config import VppOptions
from ndrpdr.dut.vpp.layout import uses_xdp
from ndrpdr.topology.model import Node


class LocalRun:
    """What a VPP of the run on Linux interfaces leaves on the node, and its removal."""

    def __init__(self, steps: NodeSteps, node: Node, options: VppOptions) -> None:
        """Choose the run's paths (and DPDK file prefix with dpdk_vdev ports); no I/O."""
        self._steps = steps
        self._options = options
        self.paths: VppRunPaths = vpp_afpacket.run_paths(node, options, secrets.token_hex(4))
        #: dpdk_vdev ports: DPDK's ``file-prefix`` of the run (its /var/run/dpdk directory).
        vdev = options.port_kind == "dpdk_vdev"
        self.file_prefix = new_file_prefix(node.key) if vdev else None
        self._kernel: KernelHandsOff | None = None
        self._tracked = False

    def track(self) -> None:
        """Before the first write: the run directory, API segments and DPDK runtime directory
        are the node's to remove after a crash too (once)."""
        if self._tracked:
            return
        self._steps.track_path(self.paths.run_dir)
        for segment in ("global_vm", "vpe-api"):
            self._steps.track_path(f"/dev/shm/{self.paths.prefix}-{segment}")
        if self.file_prefix is not None:
            self._steps.track_path(f"{DPDK_RUNTIME_ROOT}/{self.file_prefix}")
        self._tracked = True

    def hands_off(self, config: DutTestConfig) -> None:
        """Keep the node's kernel from forwarding on the ports (once per run)."""
        if self._kernel is not None:
            return
        names = [str(port.name) for port in config.ports if port.memif_socket is None]
        kernel = KernelHandsOff(self._steps, names, xdp=uses_xdp(self._options))
        self._kernel = kernel
        kernel.apply()

    def xdp_off(self, step: str, config: DutTestConfig | None) -> None:
        """af_xdp ports: detach the XDP program VPP's libxdp left on the node's interfaces.

        VPP deletes its AF_XDP sockets, not the program; left attached it
        would take the next user's frames. At close the kernel hands-off
        (``KernelHandsOff(xdp=True)``) detaches it, also after a VPP died.
        """
        if not uses_xdp(self._options) or config is None:
            return
        for port in config.ports:
            name = str(port.name)
            self._steps.run(f"{step}: detach XDP from {name}", xdp_off_argv(name))

    def remove(self, errors: list[str]) -> None:
        """Restore the kernel hands-off and remove the run's directories (VPP has ended); each
        failure is added to ``errors``."""
        kernel, self._kernel = self._kernel, None
        if kernel is not None:
            kernel.restore(errors)
        if not self._tracked:
            return
        steps: list[tuple[str, list[str]]] = [
            ("remove the run directory", ["rm", "-rf", "--", self.paths.run_dir]),
            (
                "remove the API segment",
                ["sh", "-c", 'rm -f -- /dev/shm/"$1"-*', "sh", self.paths.prefix],
            ),
        ]
        if self.file_prefix is not None:
            path = f"{DPDK_RUNTIME_ROOT}/{self.file_prefix}"
            steps.append(("remove the DPDK runtime directory", ["rm", "-rf", "--", path]))
        for step, argv in steps:
            self._steps.undo(errors, f"close: {step}", argv)
        self._tracked = False
