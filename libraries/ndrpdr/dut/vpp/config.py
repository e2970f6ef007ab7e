"""The vpp driver's options, and the CPUs, queues and CLI commands of one test: pure, no I/O.

``parse_options`` reads and checks the node's ``options`` (errors name
``nodes.<key>.options.<field>``); the CPUs, queues, plugins and ports
they give a test are here, startup.conf's sections in
``ndrpdr.dut.vpp.startup``. ``cli_commands``
lists the vppctl commands that set up the forwarding once VPP answers:
``ip4base`` gives each port its address, a static neighbour for the TG
port on its link and a route for its ``routed_prefix`` via that TG port;
``l2xc`` cross-connects the two ports both ways. ``cli_error`` finds the
error line in what vppctl printed (vppctl often exits 0 after a failed
command).

Each DUT port is named in the ``dpdk`` section (``dev <pci> { name ... }``)
after its OS interface name from the topology, else its topology key
("port1"), so the CLI commands never depend on VPP's generated names
("TwentyFiveGigabitEthernet17/0/0").
"""

from __future__ import annotations

import dataclasses
import ipaddress
import re
from collections.abc import Iterator, Sequence
from typing import Literal

from ndrpdr.drivers import option, option_names, read_options
from ndrpdr.dut.base import DutError, DutPort, DutTestConfig
from ndrpdr.dut.ports import MAC
from ndrpdr.dut.vpp.threads import main_cpu, vpp_threads
from ndrpdr.topology.model import Node

Service = Literal["systemd", "direct"]
SERVICES: tuple[Service, ...] = ("systemd", "direct")
#: How VPP reaches the DUT ports: NICs by PCI address (DPDK plugin), the node's Linux
#: interfaces as DPDK virtual devices (DPDK plugin, ``ndrpdr.dut.vpp.dpdk``), or the Linux
#: interfaces through VPP's af_packet or af_xdp plugin (``ndrpdr.dut.vpp.afpacket``), or memif
#: ports, the clients of the TG's memif sockets (``ndrpdr.dut.vpp.memifports``).
PortKind = Literal["dpdk", "dpdk_vdev", "af_packet", "af_xdp", "memif"]
#: The DPDK poll mode drivers of ``dpdk_vdev`` ports.
VdevPmd = Literal["af_xdp", "af_packet"]

#: The largest standard Ethernet frame incl. FCS [B]; larger frames are jumbo frames.
STANDARD_MAX_FRAME_B = 1518
#: VPP's default buffer data size [B]: a larger frame needs multi-segment buffers.
BUFFER_DATA_SIZE_B = 2048
#: Ethernet header + FCS [B]: a frame of N bytes carries an L3 packet of N - 18 bytes.
ETHERNET_OVERHEAD_B = 18

_PATH = re.compile(r"/[^\s{}#]*")
_COMMAND = re.compile(r"[^\s{}#]+")
_PLUGIN = re.compile(r"^[A-Za-z0-9_]+$")
_UIO_DRIVER = re.compile(r"^[A-Za-z0-9_-]+$")
_PCI = re.compile(r"^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$")
_IFNAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,62}$")
#: A line of vppctl output that reports a failure ("error: ...", "unknown input ..."); not a
#: graph node such as ``error-drop`` in ``show runtime``.
_ERROR_LINE = re.compile(r"(error(?![-\w])|unknown input)")


_PATH_TEXT = "an absolute path without whitespace, '{', '}' or '#'"
_COMMAND_TEXT = "a command name or path without whitespace, '{', '}' or '#'"


@dataclasses.dataclass(frozen=True)
class VppOptions:
    """The vpp driver's settings (node ``options``).

    ``service: systemd`` runs ``systemctl restart <systemd_unit>`` /
    ``systemctl stop``; ``direct`` starts ``<binary> -c <startup_conf>`` as a
    background process of the node access.
    """

    service: Service = option(
        "systemd", "systemd: systemctl restart/stop the unit; direct: run binary -c startup_conf"
    )
    systemd_unit: str = option(
        "vpp", "the systemd unit", pattern=r"[A-Za-z0-9@_.:-]+", what="a systemd unit name"
    )
    binary: str = option("/usr/bin/vpp", "VPP's binary", pattern=_PATH.pattern, what=_PATH_TEXT)
    vppctl: str = option("vppctl", "the CLI client", pattern=_COMMAND.pattern, what=_COMMAND_TEXT)
    startup_conf: str = option(
        "/etc/vpp/startup.conf", "where startup.conf is written before each start",
        pattern=_PATH.pattern, what=_PATH_TEXT,
    )  # fmt: skip
    cli_socket: str = option(
        "/run/vpp/cli.sock", "VPP's CLI socket", pattern=_PATH.pattern, what=_PATH_TEXT
    )
    log_file: str = option(
        "/var/log/vpp/vpp.log", "VPP's log file", pattern=_PATH.pattern, what=_PATH_TEXT
    )
    start_timeout_s: float = option(
        60.0, "how long the health check waits for VPP's CLI [s]", minimum=0,
        exclusive_minimum=True,
    )  # fmt: skip
    main_core: int | None = option(
        None,
        "CPU of VPP's main thread (default: 1 with dpdk ports; with ports on Linux interfaces "
        "and workers, the lowest CPU no worker uses)",
        minimum=0,
    )
    worker_cores: tuple[int, ...] | None = option(
        None, "CPUs of the workers in order, a test's Nc taking the listed CPUs of N physical "
        "cores (default: dpdk ports: CSIT's, the N cores after main_core's with their SMT "
        "siblings; ports on Linux interfaces: cpu's core, and on this machine cpu and the "
        "CPUs no other node of the run uses); a test asking for more cores is skipped",
        minimum=0, min_items=1, unique=True,
    )  # fmt: skip
    rx_queues: int | None = option(
        None, "receive queues per port (default: one per worker)", minimum=1
    )
    buffers_per_numa: int | None = option(
        None,
        "packet buffers per NUMA node (default: FD.io CSIT's, 215040 on a node with SMT, "
        "107520 without, scaled down where the node's memory cannot hold them)",
        minimum=1,
    )
    no_multi_seg: bool | None = option(
        None, "single-segment buffers (default: on unless the test has jumbo frames)"
    )
    plugins: tuple[str, ...] = option(
        (),
        "plugins loaded besides the ports' plugin ('ping' or 'ping_plugin.so')",
        pattern=r"[A-Za-z0-9_]+(_plugin\.so)?",
        what="a plugin name (like 'ping' or 'ping_plugin.so')",
    )
    default_plugins: bool = option(False, "also load every other installed plugin")
    port_kind: PortKind = option(
        "dpdk",
        "dpdk: the NICs by PCI address (DPDK plugin); dpdk_vdev: the node's Linux interfaces "
        "as DPDK virtual devices (DPDK plugin, see vdev); af_packet or af_xdp: the Linux "
        "interfaces through that VPP plugin; memif: memif clients of the TG's memif ports' "
        "sockets (all but dpdk: no NIC, no hugepages; need service direct)",
    )
    vdev: VdevPmd = option(
        "af_xdp",
        "dpdk_vdev ports: DPDK's poll mode driver on the Linux interfaces (af_xdp: "
        "net_af_xdp; af_packet: net_af_packet, where AF_XDP is not available)",
    )
    rx_descriptors: int | None = option(
        None, "dpdk / dpdk_vdev ports: RX descriptors per queue (default: VPP's, 1024)", minimum=1
    )
    tx_descriptors: int | None = option(
        None, "dpdk / dpdk_vdev ports: TX descriptors per queue (default: VPP's, 1024)", minimum=1
    )
    cpu: int = option(
        1,
        "ports on Linux interfaces: the CPU that forwards: the first worker's (the main thread "
        "then runs on main_core), or with 0 cores the main thread's; unset on this machine: "
        "this CPU unless another run holds it",
        minimum=0,
    )
    run_dir: str | None = option(
        None,
        "ports on Linux interfaces: the directory of startup.conf, sockets and log (default: "
        "/tmp/ndrpdr-vpp-<node>-<random>, made per run and removed after it)",
        pattern=_PATH.pattern,
        what=_PATH_TEXT,
    )
    rx_mode: Literal["polling", "interrupt", "adaptive"] = option(
        "polling",
        "ports on Linux interfaces: how VPP reads them (polling takes the whole CPU; "
        "interrupt sleeps until frames come, for a CPU shared with the TG; dpdk_vdev: "
        "polling only)",
    )
    main_heap_mb: int | None = option(
        None,
        "VPP's main heap [MiB] (default: FD.io CSIT's 3 GiB, or a family's larger one, scaled "
        "down where the node's memory cannot hold it)",
        minimum=64,
    )
    memory_mb: int | None = option(
        None,
        "memory VPP may take [MiB] for its heaps, statistics segment and buffers (default: "
        "read from the node's /proc/meminfo: its free hugepages, and half its MemAvailable)",
        minimum=64,
    )
    testpmd: str = option(
        "dpdk-testpmd", "vhost families: DPDK's testpmd, the guest's stand-in (on virtio_user "
        "ports) or, with guest_qemu, the one the VM runs from the node's root file system",
        pattern=_COMMAND.pattern, what=_COMMAND_TEXT,
    )  # fmt: skip
    guest_qemu: str | None = option(
        None, "vhost families: QEMU (qemu-system-x86_64) to run the guest as a VM as FD.io CSIT "
        "does, with guest_kernel (default: none, a DPDK process on virtio_user stands in)",
        pattern=_PATH.pattern, what=_PATH_TEXT,
    )  # fmt: skip
    guest_kernel: str | None = option(
        None, "with guest_qemu: the VM's kernel (its root is the node's, over 9p, as CSIT's)",
        pattern=_PATH.pattern, what=_PATH_TEXT,
    )  # fmt: skip
    guest_initrd: str | None = option(
        None, "with guest_qemu: the VM's initrd (one with 9p and virtio drivers)",
        pattern=_PATH.pattern, what=_PATH_TEXT,
    )  # fmt: skip

    @property
    def dpdk_main_core(self) -> int:
        """dpdk ports: the main thread's CPU (``main_core``, default 1)."""
        return 1 if self.main_core is None else self.main_core

    def problems(self) -> Iterator[tuple[str, str]]:
        """The main core must not be a worker core; af_packet VPP runs as a direct process."""
        main = self.main_core if self.port_kind != "dpdk" else self.dpdk_main_core
        if main is not None and self.worker_cores is not None and main in self.worker_cores:
            yield (
                "worker_cores",
                f"{list(self.worker_cores)!r} holds the main core {main} (options.main_core)",
            )
        if self.port_kind != "dpdk" and self.worker_cores is None and self.main_core == self.cpu:
            yield (
                "main_core",
                f"{self.main_core} is the CPU of the first worker (options.cpu): give the main "
                "thread another CPU",
            )
        if self.port_kind == "dpdk_vdev" and self.rx_mode != "polling":
            yield (
                "rx_mode",
                f"{self.rx_mode!r}: with port_kind dpdk_vdev VPP polls the ports (DPDK's "
                f"{self.vdev} virtual devices have no RX interrupts): set rx_mode: polling",
            )
        guest = {"guest_qemu": self.guest_qemu, "guest_kernel": self.guest_kernel,
                 "guest_initrd": self.guest_initrd}  # fmt: skip
        if any(guest.values()):
            for field, value in guest.items():
                if value is None:
                    yield (
                        field,
                        f"{field} missing: a guest VM needs guest_qemu, guest_kernel and "
                        "guest_initrd "
                        f"(given: {', '.join(k for k, v in guest.items() if v)})",
                    )
        if self.port_kind != "dpdk" and self.service != "direct":
            yield (
                "service",
                f"{self.service!r}: with port_kind {self.port_kind} the driver runs VPP itself, "
                "one process per run (set service: direct)",
            )


#: Option keys the vpp driver takes, in documentation order.
OPTION_KEYS: tuple[str, ...] = option_names(VppOptions)


def _where(node: Node, field: str) -> str:
    return f"{node.key} (vpp): nodes.{node.key}.{field}"


def parse_options(node: Node) -> VppOptions:
    """The node's ``options`` as VppOptions (DutError naming the key for anything wrong)."""
    return read_options(
        VppOptions,
        node.options,
        lambda field, detail: DutError(f"{_where(node, f'options.{field}')}: {detail}"),
    )


def family_plugins(config: DutTestConfig) -> tuple[str, ...]:
    """The plugins the test's family needs on VPP (none without a family set-up)."""
    family = config.family
    return () if family is None or family.vpp is None else tuple(family.vpp.plugins)


def plugin_files(options: VppOptions, extra: Sequence[str] = ()) -> tuple[str, ...]:
    """The plugin files ``options.plugins`` and ``extra`` load besides dpdk_plugin.so, each once."""
    files = [plugin_file(name) for name in (*options.plugins, *extra)]
    return tuple(dict.fromkeys(f for f in files if f is not None and f != "dpdk_plugin.so"))


def forwarding_commands(config: DutTestConfig, names: Sequence[str] | None = None) -> list[str]:
    """The vppctl lines of the test's family on this DUT (``cli_commands`` without a family)."""
    family = config.family
    if family is None or family.vpp is None:
        return cli_commands(config, names)
    chosen = [interface_name(port) for port in config.ports] if names is None else list(names)
    return family.vpp.commands(config, (chosen[0], chosen[1]))


def plugin_file(name: str) -> str | None:
    """The plugin file for ``name`` ("ping" or "ping_plugin.so" -> "ping_plugin.so"), or None."""
    stem = name[: -len("_plugin.so")] if name.endswith("_plugin.so") else name
    return f"{stem}_plugin.so" if _PLUGIN.match(stem) else None


def uio_driver(node: Node) -> str | None:
    """The node's CSIT field ``uio_driver`` ("vfio-pci"), checked; None when not given."""
    value = node.extra.get("uio_driver")
    if value is None:
        return None
    if not isinstance(value, str) or not _UIO_DRIVER.match(value):
        raise DutError(f"{_where(node, 'uio_driver')}: {value!r} is not a kernel driver name")
    return value


def interface_name(port: DutPort) -> str:
    """The name VPP gives ``port``: its OS interface name, else its topology key."""
    return port.name or port.key


def worker_cores(node: Node, config: DutTestConfig, options: VppOptions) -> tuple[int, ...]:
    """The CPUs of the workers of ``config.cores`` physical cores, SMT siblings included
    (``ndrpdr.dut.vpp.threads``; UnsupportedCoresError, a skip, when too few)."""
    return vpp_threads(node, config, options).cpus


def main_core(
    options: VppOptions, workers: Sequence[int], config: DutTestConfig | None = None
) -> int:
    """The CPU of VPP's main thread with ``workers`` (``ndrpdr.dut.vpp.threads.main_cpu``)."""
    return main_cpu(options, workers, config)


def rx_queues(options: VppOptions, workers: Sequence[int]) -> int:
    """Receive queues per port: ``options.rx_queues``, else one per worker, SMT siblings
    included (at least one): CSIT's ``rxq_count_int``."""
    return options.rx_queues if options.rx_queues is not None else max(1, len(workers))


def check_ports(node: Node, config: DutTestConfig) -> None:
    """DutError naming the first port whose PCI address, name, addresses or peer MAC is unusable."""
    names: list[str] = []
    for index, port in enumerate(config.ports):
        where = f"{node.key} (vpp): configure: ports[{index}] ({port.key})"
        field = f"nodes.{node.key}.interfaces.{port.key}"
        if port.pci_address is None:
            raise DutError(
                f"{where}: no PCI address; VPP takes its ports by PCI address "
                f"(add {field}.pci_address)"
            )
        if not _PCI.match(port.pci_address):
            raise DutError(
                f"{where}: {field}.pci_address {port.pci_address!r} is not a PCI address "
                "like 0000:17:00.0"
            )
        name = interface_name(port)
        if not _IFNAME.match(name):
            raise DutError(
                f"{where}: {name!r} cannot name a VPP interface (a letter, then letters, "
                "digits, _ . -; at most 63 characters)"
            )
        names.append(name)
        try:
            ipaddress.IPv4Interface(port.ip4_address)
            ipaddress.IPv4Address(port.peer_ip4)
            ipaddress.IPv4Network(port.routed_prefix)
        except ValueError as exc:
            raise DutError(f"{where}: {exc}") from exc
        if not MAC.match(port.peer_mac):
            raise DutError(f"{where}: peer_mac {port.peer_mac!r} is not a MAC address")
    if names[0] == names[1]:
        raise DutError(f"{node.key} (vpp): configure: both ports are named {names[0]!r}")
    first, second = (str(port.pci_address).lower() for port in config.ports)
    if first == second:
        raise DutError(f"{node.key} (vpp): configure: both ports have PCI address {first}")


def up_commands(config: DutTestConfig, names: Sequence[str]) -> list[str]:
    """The vppctl lines that bring the ports ``names`` up, with an MTU for jumbo frames.

    The MTU (L3 bytes) is set only when the test's frames exceed 1518 B.
    """
    commands: list[str] = []
    if config.max_frame_size_b > STANDARD_MAX_FRAME_B:
        mtu = config.max_frame_size_b - ETHERNET_OVERHEAD_B
        commands += [f"set interface mtu {mtu} {name}" for name in names]
    commands += [f"set interface state {name} up" for name in names]
    return commands


def cli_commands(config: DutTestConfig, names: Sequence[str] | None = None) -> list[str]:
    """The vppctl commands, one per line, that set up ``config``'s forwarding in a fresh VPP.

    ``names``: VPP's names of the two ports (default: ``interface_name`` of each).
    """
    ports = config.ports
    names = [interface_name(port) for port in ports] if names is None else list(names)
    commands = up_commands(config, names)
    if config.mode == "l2xc":
        commands += [
            f"set interface l2 xconnect {names[0]} {names[1]}",
            f"set interface l2 xconnect {names[1]} {names[0]}",
        ]
        return commands
    commands += [
        f"set interface ip address {name} {port.ip4_address}"
        for name, port in zip(names, ports, strict=True)
    ]
    commands += [
        f"set ip neighbor {name} {port.peer_ip4} {port.peer_mac.lower()} static"
        for name, port in zip(names, ports, strict=True)
    ]
    commands += [
        f"ip route add {port.routed_prefix} via {port.peer_ip4} {name}"
        for name, port in zip(names, ports, strict=True)
    ]
    return commands


def cli_error(command: str, output: str) -> str | None:
    """The line of vppctl's ``output`` that reports ``command`` failed, or None.

    VPP prints a failed command's error as "<command path>: <reason>" (for
    example "set interface state: unknown interface `port9 up'"), or as
    "unknown input `...'" when no command matches; some commands print
    lines starting with "error". vppctl may exit 0 in every case.
    """
    words = command.split()
    paths = {" ".join(words[:count]) for count in range(1, len(words) + 1)}
    for line in output.splitlines():
        text = line.strip()
        lowered = text.lower()
        if _ERROR_LINE.match(lowered) or "unknown input `" in lowered:
            return text
        head, colon, _ = text.partition(":")
        if colon and head in paths:
            return text
    return None
