"""VPP on Linux interfaces (af_packet, af_xdp): the run directory, startup.conf, CLI set-up.

(``dpdk_vdev`` ports share the run directory and startup.conf, with the
DPDK plugin and its ``dpdk`` section: ``ndrpdr.dut.vpp.vdev``; so do
``memif`` ports, with the memif plugin: ``ndrpdr.dut.vpp.memifports``.)

Pure functions, no I/O. With ``port_kind: af_packet`` (or ``af_xdp``) VPP
needs no NIC, no DPDK and no hugepages: each DUT port is the node's Linux
interface (a veth of the local testbed or of a lab-in-a-box host), opened
by VPP's af_packet plugin with ``create host-interface name <if> hw-addr
<mac>``, or by its af_xdp plugin (an AF_XDP socket, with the XDP program
libxdp loads: the veth's native XDP here) with ``create interface af_xdp
host-if <if> num-rx-queues 1 name host-<if>`` and ``set interface mac
address``; VPP leaves that program attached when it deletes the
interface, so the driver detaches it (``handsoff.xdp_off_argv``). Either way VPP
names it ``host-<if>`` and it takes the port's own MAC from the topology,
so frames the TG addresses to the port reach VPP's IPv4 input, and the
forwarding set-up is the same for both.

Everything of one VPP process lives in one run directory
(``VppRunPaths``): startup.conf, the CLI, API and stats sockets, the log
and the PID file; its shared-memory API segment is named after the
directory (``/dev/shm/<prefix>-*``), so runs never collide and one
``rm -rf`` (plus the prefix's segments, when VPP was killed) removes all.
startup.conf has FD.io CSIT's sections (``ndrpdr.dut.vpp.startup``) on
4 KiB pages, their sizes scaled where the node cannot hold them
(``ndrpdr.dut.vpp.memory``), and loads only ``af_packet_plugin.so``
(``dpdk_plugin.so`` disabled) and the plugins the options add. VPP's main thread runs on the
node's ``cpu`` and forwards itself when the test asks for 0 cores; with N
cores its N workers run on ``cpu`` (then ``worker_cores``) and the main
thread on a CPU none of them uses (``config.main_core``), and each
port has one RX queue per worker, pinned round robin
(``ndrpdr.dut.vpp.queues``).
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
from collections.abc import Sequence

from ndrpdr.dut.base import DutError, DutPort, DutTestConfig
from ndrpdr.dut.cores import corelist
from ndrpdr.dut.ports import IFNAME, MAC
from ndrpdr.dut.vpp import family as vpp_family
from ndrpdr.dut.vpp import memifports as vpp_memifports
from ndrpdr.dut.vpp.config import (
    PortKind,
    VppOptions,
    family_plugins,
    main_core,
    plugin_files,
    worker_cores,
)
from ndrpdr.dut.vpp.memory import StartupSizing
from ndrpdr.dut.vpp.queues import af_packet_queue_words, af_xdp_queue_words, rx_placement_commands
from ndrpdr.dut.vpp.startup import (
    api_sections,
    buffers_section,
    memory_sections,
    scaled_comment,
    sizing_for,
)
from ndrpdr.topology.model import Node

#: VPP's DPDK plugin.
DPDK_PLUGIN = "dpdk_plugin.so"
#: Where run directories go unless ``options.run_dir`` says (a lab-in-a-box host's /tmp is
#: its own tmpfs; on this machine the run tracks the directory for its teardown).
DEFAULT_RUN_ROOT = "/tmp"


@dataclasses.dataclass(frozen=True)
class VppRunPaths:
    """The files of one VPP process, all inside ``run_dir`` (absolute paths on the node)."""

    run_dir: str

    @property
    def prefix(self) -> str:
        """The API segment prefix: the run directory's name (``/dev/shm/<prefix>-*``)."""
        return posixpath.basename(self.run_dir.rstrip("/"))

    @property
    def startup_conf(self) -> str:
        """startup.conf of this run."""
        return f"{self.run_dir}/startup.conf"

    @property
    def cli_socket(self) -> str:
        """The CLI socket vppctl talks to."""
        return f"{self.run_dir}/cli.sock"

    @property
    def api_socket(self) -> str:
        """The binary API socket (vpp_papi)."""
        return f"{self.run_dir}/api.sock"

    @property
    def stats_socket(self) -> str:
        """The stats segment socket (vpp_get_stats)."""
        return f"{self.run_dir}/stats.sock"

    @property
    def log_file(self) -> str:
        """VPP's log."""
        return f"{self.run_dir}/vpp.log"

    @property
    def pid_file(self) -> str:
        """VPP's PID file (VPP wants it inside its runtime directory)."""
        return f"{self.run_dir}/vpp.pid"


def run_paths(node: Node, options: VppOptions, token: str) -> VppRunPaths:
    """The run directory of ``node``: ``options.run_dir``, else /tmp/ndrpdr-vpp-<node>-<token>."""
    if options.run_dir is not None:
        return VppRunPaths(options.run_dir.rstrip("/") or "/")
    safe = re.sub(r"[^a-z0-9]", "", node.key.lower()) or "dut"
    return VppRunPaths(f"{DEFAULT_RUN_ROOT}/ndrpdr-vpp-{safe}-{token}")


def host_interface(port: DutPort) -> str:
    """The name VPP gives the af_packet interface of ``port``: host-<Linux name>."""
    return f"host-{port.name}"


def check_ports(node: Node, config: DutTestConfig) -> None:
    """DutError naming the first port without a usable Linux name, MAC or addresses."""
    names: list[str] = []
    for index, port in enumerate(config.ports):
        where = f"{node.key} (vpp): configure: ports[{index}] ({port.key})"
        field = f"nodes.{node.key}.interfaces.{port.key}"
        if port.name is None or not IFNAME.match(port.name):
            raise DutError(
                f"{where}: {field}.name {port.name!r} is not a Linux interface name "
                "(af_packet ports are the node's interfaces: letters, digits, _ . -, "
                "at most 15 characters)"
            )
        if port.mac is None or not MAC.match(port.mac):
            raise DutError(
                f"{where}: {field}.mac_address {port.mac!r} is not a MAC address; VPP's "
                "interface takes it (the TG addresses its frames to it)"
            )
        if not MAC.match(port.peer_mac):
            raise DutError(f"{where}: peer_mac {port.peer_mac!r} is not a MAC address")
        names.append(port.name)
    if names[0] == names[1]:
        raise DutError(f"{node.key} (vpp): configure: both ports are {names[0]!r}")


def startup_conf(
    node: Node,
    config: DutTestConfig,
    options: VppOptions,
    paths: VppRunPaths,
    dpdk: Sequence[str] = (),
    *,
    sizing: StartupSizing | None = None,
) -> str:
    """startup.conf of a VPP on Linux interfaces whose files are all in ``paths.run_dir``.

    ``dpdk``: the ``dpdk`` section's lines (``dpdk_vdev`` ports; the other
    kinds disable the DPDK plugin). ``sizing``: the memory settings
    (``startup.sizing_for``; default CSIT's on 4 KiB pages, memory unknown).
    """
    check_ports(node, config)
    if sizing is None:
        sizing = sizing_for(options, None, None)
    workers = worker_cores(node, config, options)
    lines = [
        f"# VPP startup.conf for {node.key} ({options.port_kind} ports), written by the ndrpdr "
        "vpp driver:",
        f"# {len(workers)} worker(s) (0: the main thread forwards); the same for every test",
        "# with as many cores, so one VPP serves them all."
        if not dpdk
        else "# with as many cores; the ports exist from VPP's start: a VPP per test.",
        *scaled_comment(sizing),
        "unix {",
        "  nodaemon",
        f"  runtime-dir {paths.run_dir}",
        f"  cli-listen {paths.cli_socket}",
        "  cli-no-pager",
        f"  log {paths.log_file}",
        f"  pidfile {paths.pid_file}",
        "}",
        *api_sections(paths.prefix, paths.api_socket),
        *memory_sections(sizing, paths.stats_socket),
        *buffers_section(sizing),
        "cpu {",
        f"  main-core {main_core(options, workers)}",
    ]
    if workers:
        lines.append(f"  corelist-workers {corelist(workers)}")
    plugin = port_plugin(options.port_kind)
    lines += [
        "}",
        *dpdk,
        "plugins {",
        f"  plugin default {{ {'enable' if options.default_plugins else 'disable'} }}",
        f"  plugin {plugin} {{ enable }}",
    ]
    if plugin != DPDK_PLUGIN:
        lines.append(f"  plugin {DPDK_PLUGIN} {{ disable }}")
    lines += [
        f"  plugin {file} {{ enable }}"
        for file in plugin_files(options, family_plugins(config))
        if file != plugin
    ]
    lines.append("}")
    return "\n".join(lines) + "\n"


def port_plugin(kind: PortKind) -> str:
    """The VPP plugin that opens the ports of port kind ``kind`` (af_packet, af_xdp,
    dpdk_vdev, memif)."""
    if kind == "dpdk_vdev":
        return DPDK_PLUGIN
    if kind == "memif":
        return vpp_memifports.MEMIF_PLUGIN
    return "af_xdp_plugin.so" if kind == "af_xdp" else "af_packet_plugin.so"


def create_commands(
    config: DutTestConfig,
    rx_mode: str = "polling",
    kind: PortKind = "af_packet",
    *,
    workers: int = 0,
    rx_queues: int | tuple[int, int] = 1,
) -> list[str]:
    """The vppctl commands that open the two ports (af_packet or af_xdp), read in ``rx_mode``.

    Each port gets ``rx_queues`` receive queues (one count, or one per
    port), pinned round robin to the ``workers`` (``ndrpdr.dut.vpp.queues``;
    only the first ``rx_workers`` of a family that asks so, e.g. IPsec's
    async data-plane worker); with no workers the main thread reads them.
    """
    counts = (rx_queues, rx_queues) if isinstance(rx_queues, int) else rx_queues
    if kind == "memif":  # its queues exist once connected: VPP places them (polling)
        names = [host_interface(port) for port in config.ports]
        return vpp_memifports.create_commands(config, names, counts)
    if kind == "af_xdp":
        commands = []
        for port, queues in zip(config.ports, counts, strict=True):
            name = host_interface(port)
            commands += [
                f"create interface af_xdp host-if {port.name} {af_xdp_queue_words(queues)} "
                f"name {name}",
                f"set interface mac address {name} {str(port.mac).lower()}",
            ]
    else:
        commands = [
            f"create host-interface name {port.name} hw-addr {str(port.mac).lower()} "
            f"{af_packet_queue_words(queues, workers)}"
            for port, queues in zip(config.ports, counts, strict=True)
        ]
    commands += [f"set interface rx-mode {host_interface(port)} {rx_mode}" for port in config.ports]
    readers = vpp_family.rx_workers(config, range(workers))  # (a family may keep some apart)
    for port, queues in zip(config.ports, counts, strict=True):
        commands += rx_placement_commands(host_interface(port), queues, readers)
    return commands


def delete_commands(config: DutTestConfig, kind: PortKind = "af_packet") -> list[str]:
    """The vppctl commands that remove the two interfaces (and their set-up)."""
    if kind == "memif":
        return vpp_memifports.delete_commands([host_interface(port) for port in config.ports])
    if kind == "af_xdp":
        return [f"delete interface af_xdp {host_interface(port)}" for port in config.ports]
    return [f"delete host-interface name {port.name}" for port in config.ports]
