"""VPP's startup.conf and CLI commands for one test: pure functions, no I/O.

``parse_options`` reads and checks the node's ``options`` (errors name
``nodes.<key>.options.<field>``). ``startup_conf`` renders startup.conf
from the node, the test configuration and the options: the ``unix``,
``cpu``, ``buffers``, ``dpdk`` and ``plugins`` sections. ``cli_commands``
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
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from ndrpdr.dut.base import DutError, DutPort, DutTestConfig
from ndrpdr.testbed.model import Node

Service = Literal["systemd", "direct"]
SERVICES: tuple[Service, ...] = ("systemd", "direct")

#: The largest standard Ethernet frame incl. FCS [B]; larger frames are jumbo frames.
STANDARD_MAX_FRAME_B = 1518
#: VPP's default buffer data size [B]: a larger frame needs multi-segment buffers.
BUFFER_DATA_SIZE_B = 2048
#: Ethernet header + FCS [B]: a frame of N bytes carries an L3 packet of N - 18 bytes.
ETHERNET_OVERHEAD_B = 18
#: Buffers per NUMA node (FD.io CSIT's value; VPP's own default of 16384 runs out
#: with several workers and deep NIC rings).
DEFAULT_BUFFERS_PER_NUMA = 215040

_PATH = re.compile(r"^/[^\s{}#]*$")
_COMMAND = re.compile(r"^[^\s{}#]+$")
_UNIT = re.compile(r"^[A-Za-z0-9@_.:-]+$")
_PLUGIN = re.compile(r"^[A-Za-z0-9_]+$")
_UIO_DRIVER = re.compile(r"^[A-Za-z0-9_-]+$")
_PCI = re.compile(r"^[0-9a-fA-F]{4}:[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$")
_IFNAME = re.compile(r"^[A-Za-z][A-Za-z0-9_.-]{0,62}$")
_MAC = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")


@dataclasses.dataclass(frozen=True)
class VppOptions:
    """The vpp driver's settings (node ``options``), checked.

    ``service``: ``systemd`` runs ``systemctl restart <systemd_unit>`` /
    ``systemctl stop``; ``direct`` starts ``<binary> -c <startup_conf>`` as a
    background process of the node access. ``vppctl``: the CLI client;
    ``startup_conf``, ``cli_socket``, ``log_file``: absolute paths on the
    node. ``start_timeout_s``: how long health_check waits for VPP's CLI
    [s]. ``main_core``: CPU of VPP's main thread; ``worker_cores``: CPUs of
    the workers in order (None: the ``cores`` CPUs after ``main_core``).
    ``rx_queues``: receive queues per port (None: one per worker).
    ``buffers_per_numa``: packet buffers per NUMA node. ``no_multi_seg``:
    single-segment buffers (None: on unless the test has jumbo frames).
    ``plugins``: plugin files loaded besides ``dpdk_plugin.so``;
    ``default_plugins``: also load every other installed plugin.
    """

    service: Service = "systemd"
    systemd_unit: str = "vpp"
    binary: str = "/usr/bin/vpp"
    vppctl: str = "vppctl"
    startup_conf: str = "/etc/vpp/startup.conf"
    cli_socket: str = "/run/vpp/cli.sock"
    log_file: str = "/var/log/vpp/vpp.log"
    start_timeout_s: float = 60.0
    main_core: int = 1
    worker_cores: tuple[int, ...] | None = None
    rx_queues: int | None = None
    buffers_per_numa: int = DEFAULT_BUFFERS_PER_NUMA
    no_multi_seg: bool | None = None
    plugins: tuple[str, ...] = ()
    default_plugins: bool = False


#: Option keys the vpp driver takes, in documentation order.
OPTION_KEYS: tuple[str, ...] = tuple(f.name for f in dataclasses.fields(VppOptions))


def _where(node: Node, field: str) -> str:
    return f"{node.key} (vpp): nodes.{node.key}.{field}"


class _Reader:
    """Typed reads of one node's options; every error names ``nodes.<key>.options.<field>``."""

    def __init__(self, node: Node) -> None:
        self._node = node
        self._values: Mapping[str, Any] = node.options
        for key in sorted(self._values, key=str):
            if key not in OPTION_KEYS:
                raise self.error(str(key), f"unknown option; vpp takes {', '.join(OPTION_KEYS)}")

    def error(self, key: str, detail: str) -> DutError:
        return DutError(f"{_where(self._node, f'options.{key}')}: {detail}")

    def has(self, key: str) -> bool:
        return key in self._values

    def raw(self, key: str) -> Any:
        return self._values[key]

    def string(self, key: str, default: str, pattern: re.Pattern[str], what: str) -> str:
        value = self._values.get(key, default)
        if not isinstance(value, str) or not pattern.match(value):
            raise self.error(key, f"{value!r} is not {what}")
        return value

    def integer(self, key: str, default: int, minimum: int) -> int:
        value = self._values.get(key, default)
        if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
            raise self.error(key, f"{value!r} is not an integer >= {minimum}")
        return value

    def number(self, key: str, default: float) -> float:
        value = self._values.get(key, default)
        if isinstance(value, bool) or not isinstance(value, (int, float)) or value <= 0:
            raise self.error(key, f"{value!r} is not a number > 0")
        return float(value)

    def boolean(self, key: str, default: bool) -> bool:
        value = self._values.get(key, default)
        if not isinstance(value, bool):
            raise self.error(key, f"{value!r} is not true or false")
        return value


def parse_options(node: Node) -> VppOptions:
    """The node's ``options`` as VppOptions (DutError naming the key for anything wrong)."""
    read = _Reader(node)
    service = read.raw("service") if read.has("service") else "systemd"
    if service not in SERVICES:
        raise read.error("service", f"{service!r} is not one of {', '.join(SERVICES)}")
    path = "an absolute path without whitespace, '{', '}' or '#'"
    command = "a command name or path without whitespace, '{', '}' or '#'"
    main_core = read.integer("main_core", 1, 0)
    workers: tuple[int, ...] | None = None
    if read.has("worker_cores"):
        value = read.raw("worker_cores")
        if (
            not isinstance(value, list)
            or not value
            or any(isinstance(v, bool) or not isinstance(v, int) or v < 0 for v in value)
        ):
            raise read.error("worker_cores", f"{value!r} is not a non-empty list of CPU numbers")
        if len(set(value)) != len(value):
            raise read.error("worker_cores", f"{value!r} lists a CPU twice")
        if main_core in value:
            raise read.error(
                "worker_cores", f"{value!r} holds the main core {main_core} (options.main_core)"
            )
        workers = tuple(value)
    rx_queues = read.integer("rx_queues", 1, 1) if read.has("rx_queues") else None
    no_multi_seg = read.boolean("no_multi_seg", False) if read.has("no_multi_seg") else None
    plugins: list[str] = []
    if read.has("plugins"):
        value = read.raw("plugins")
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise read.error("plugins", f"{value!r} is not a list of plugin names")
        for name in value:
            file = plugin_file(name)
            if file is None:
                raise read.error(
                    "plugins",
                    f"{name!r} is not a plugin name (like 'ping' or 'ping_plugin.so')",
                )
            if file != "dpdk_plugin.so" and file not in plugins:
                plugins.append(file)
    return VppOptions(
        service=service,
        systemd_unit=read.string("systemd_unit", "vpp", _UNIT, "a systemd unit name"),
        binary=read.string("binary", "/usr/bin/vpp", _PATH, path),
        vppctl=read.string("vppctl", "vppctl", _COMMAND, command),
        startup_conf=read.string("startup_conf", "/etc/vpp/startup.conf", _PATH, path),
        cli_socket=read.string("cli_socket", "/run/vpp/cli.sock", _PATH, path),
        log_file=read.string("log_file", "/var/log/vpp/vpp.log", _PATH, path),
        start_timeout_s=read.number("start_timeout_s", 60.0),
        main_core=main_core,
        worker_cores=workers,
        rx_queues=rx_queues,
        buffers_per_numa=read.integer("buffers_per_numa", DEFAULT_BUFFERS_PER_NUMA, 1),
        no_multi_seg=no_multi_seg,
        plugins=tuple(plugins),
        default_plugins=read.boolean("default_plugins", False),
    )


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


def corelist(cpus: Sequence[int]) -> str:
    """CPU numbers as a VPP core list: [2, 3, 4, 7] -> "2-4,7" (sorted)."""
    ordered = sorted(set(cpus))
    parts: list[str] = []
    start = 0
    for index in range(1, len(ordered) + 1):
        if index == len(ordered) or ordered[index] != ordered[index - 1] + 1:
            first, last = ordered[start], ordered[index - 1]
            parts.append(str(first) if first == last else f"{first}-{last}")
            start = index
    return ",".join(parts)


def worker_cores(node: Node, config: DutTestConfig, options: VppOptions) -> tuple[int, ...]:
    """The CPUs of the ``config.cores`` workers (DutError when options list too few)."""
    if config.cores < 0:
        raise DutError(f"{node.key} (vpp): configure: cores {config.cores} is negative")
    if options.worker_cores is None:
        return tuple(range(options.main_core + 1, options.main_core + 1 + config.cores))
    if len(options.worker_cores) < config.cores:
        raise DutError(
            f"{_where(node, 'options.worker_cores')}: the test asks for {config.cores} worker "
            f"cores and the option lists {len(options.worker_cores)} "
            f"({list(options.worker_cores)}): list at least {config.cores}"
        )
    return options.worker_cores[: config.cores]


def multi_seg_off(node: Node, config: DutTestConfig, options: VppOptions) -> bool:
    """Whether startup.conf says ``no-multi-seg`` (DutError if set but frames do not fit)."""
    if options.no_multi_seg is None:
        return config.max_frame_size_b <= STANDARD_MAX_FRAME_B
    if options.no_multi_seg and config.max_frame_size_b > BUFFER_DATA_SIZE_B:
        raise DutError(
            f"{_where(node, 'options.no_multi_seg')}: true, but the test's frames reach "
            f"{config.max_frame_size_b} B and one VPP buffer holds {BUFFER_DATA_SIZE_B} B: "
            "remove the option (VPP then uses multi-segment buffers for jumbo frames)"
        )
    return options.no_multi_seg


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
        if not _MAC.match(port.peer_mac):
            raise DutError(f"{where}: peer_mac {port.peer_mac!r} is not a MAC address")
    if names[0] == names[1]:
        raise DutError(f"{node.key} (vpp): configure: both ports are named {names[0]!r}")
    first, second = (str(port.pci_address).lower() for port in config.ports)
    if first == second:
        raise DutError(f"{node.key} (vpp): configure: both ports have PCI address {first}")


def startup_conf(node: Node, config: DutTestConfig, options: VppOptions) -> str:
    """The text of startup.conf for ``config`` on ``node`` (DutError for an unusable config)."""
    check_ports(node, config)
    workers = worker_cores(node, config, options)
    rx_queues = options.rx_queues if options.rx_queues is not None else max(1, len(workers))
    lines = [
        f"# VPP startup.conf for {node.key}, written by the ndrpdr vpp driver:",
        f"# {config.mode}, {config.cores} worker core(s), frames up to "
        f"{config.max_frame_size_b} B.",
        "unix {",
        "  nodaemon",
        f"  log {options.log_file}",
        f"  cli-listen {options.cli_socket}",
        "}",
        "cpu {",
        f"  main-core {options.main_core}",
    ]
    if workers:
        lines.append(f"  corelist-workers {corelist(workers)}")
    lines += [
        "}",
        "buffers {",
        f"  buffers-per-numa {options.buffers_per_numa}",
        "}",
        "dpdk {",
    ]
    driver = uio_driver(node)
    if driver is not None:
        lines.append(f"  uio-driver {driver}")
    if multi_seg_off(node, config, options):
        lines.append("  no-multi-seg")
    for port in config.ports:
        lines += [
            f"  dev {port.pci_address} {{",
            f"    name {interface_name(port)}",
            f"    num-rx-queues {rx_queues}",
            "  }",
        ]
    lines += [
        "}",
        "plugins {",
        f"  plugin default {{ {'enable' if options.default_plugins else 'disable'} }}",
        "  plugin dpdk_plugin.so { enable }",
    ]
    lines += [f"  plugin {file} {{ enable }}" for file in options.plugins]
    lines.append("}")
    return "\n".join(lines) + "\n"


def cli_commands(config: DutTestConfig) -> list[str]:
    """The vppctl commands, one per line, that set up ``config``'s forwarding in a fresh VPP."""
    ports = config.ports
    names = [interface_name(port) for port in ports]
    commands: list[str] = []
    if config.max_frame_size_b > STANDARD_MAX_FRAME_B:
        mtu = config.max_frame_size_b - ETHERNET_OVERHEAD_B
        commands += [f"set interface mtu {mtu} {name}" for name in names]
    commands += [f"set interface state {name} up" for name in names]
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
        if lowered.startswith(("error", "unknown input")) or "unknown input `" in lowered:
            return text
        head, colon, _ = text.partition(":")
        if colon and head in paths:
            return text
    return None
