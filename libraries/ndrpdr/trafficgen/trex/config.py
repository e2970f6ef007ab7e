"""trex_cfg.yaml from the topology: pure functions, no I/O.

TRex numbers its ports in the order of the config's ``interfaces`` list.
Here that is the order of the traffic path's TG ports (``TrafficPath.
tg_ports``): TRex port 0 is where direction 0 (see
``ndrpdr.profiles.addressing``) leaves, TRex port 1 where it comes back.

Each port's ``port_info`` has ``src_mac`` (the TG port's MAC) and
``dest_mac`` (the MAC of the DUT port at the other end of its link). The
DPDK variant lists the ports by PCI address and may carry the
``platform`` section (threads); the software-mode variant lists Linux
interface names and sets ``low_end`` (TRex then ignores ``platform``).
memif ports are DPDK virtual devices (``ndrpdr.trafficgen.trex.memif``),
with ``low_end`` when the options ask for it.
"""

from __future__ import annotations

import dataclasses
import json
import re

from ndrpdr.topology.model import Interface, Topology
from ndrpdr.topology.path import PathError, TrafficPath, compute_path
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.trex.memif import memif_vdev
from ndrpdr.trafficgen.trex.options import (
    DEFAULT_ASYNC_PORT,
    DEFAULT_SYNC_PORT,
    TrexOptions,
    where,
)

#: TRex ports the driver uses: one pair (direction 0 leaves port 0, direction 1 port 1).
PORT_COUNT = 2

_PCI = re.compile(r"^([0-9a-fA-F]{4}:)?[0-9a-fA-F]{2}:[0-9a-fA-F]{2}\.[0-7]$")
_IFNAME = re.compile(r"^[^/\s\"']{1,15}$")
_MAC = re.compile(r"^[0-9a-fA-F]{2}(:[0-9a-fA-F]{2}){5}$")


@dataclasses.dataclass(frozen=True)
class TrexPort:
    """One TRex port: its topology key, what the config lists, its MACs and line rate.

    ``device`` is the PCI address (DPDK) or the Linux interface name
    (software mode); ``speed_bps`` the interface's speed from the
    topology [bit/s], if given.
    """

    index: int
    key: str
    device: str
    src_mac: str
    dest_mac: str
    speed_bps: float | None = None
    memif_socket: str | None = None


def trex_ports(
    topology: Topology, options: TrexOptions, path: TrafficPath | None = None
) -> tuple[TrexPort, ...]:
    """The two TRex ports of the TG: the path's sending port first (errors name the field).

    ``path``: the traffic path (default: ``compute_path(topology)``).
    """
    tg = topology.tg
    try:
        path = compute_path(topology) if path is None else path
    except PathError as exc:
        raise TrafficGeneratorError(str(exc)) from exc
    ports = []
    for index, key in enumerate(path.tg_ports):
        iface = tg.interfaces[key]
        peer = topology.peer(tg.key, key)
        assert peer is not None  # the path's TG ports are linked
        peer_iface = topology.nodes[peer.node].interface(peer.interface)
        src_mac = _mac(topology, tg.key, iface)
        ports.append(
            TrexPort(
                index=index,
                key=iface.key,
                device=_memif_device(topology, iface, index, src_mac, options)
                if iface.is_memif
                else _device(topology, iface, options.software_mode),
                src_mac=src_mac,
                dest_mac=_mac(topology, peer.node, peer_iface),
                speed_bps=iface.speed_bps,
                memif_socket=iface.memif_socket,
            )
        )
    if len({port.memif_socket is None for port in ports}) > 1:
        raise TrafficGeneratorError(
            f"{where(topology, tg, 'interfaces')}: one TRex port is memif and the other is "
            "not; TRex takes virtual devices or NICs, not both: make both ports memif or neither"
        )
    return tuple(ports)


def _memif_device(
    topology: Topology, iface: Interface, index: int, mac: str, options: TrexOptions
) -> str:
    tg = topology.tg
    if options.software_mode:
        raise TrafficGeneratorError(
            f"{where(topology, tg, 'options.software_mode')}: memif port "
            f"interfaces.{iface.key} runs on TRex's DPDK path: drop software_mode (low_end: "
            "true keeps TRex on one core)"
        )
    if iface.memif_socket is None:
        raise TrafficGeneratorError(
            f"{where(topology, tg, f'interfaces.{iface.key}.memif_socket')}: a memif port needs "
            "its socket file (a lab in a box gives each memif link one)"
        )
    return memif_vdev(index, iface.memif_socket, mac)


def _device(topology: Topology, iface: Interface, software_mode: bool) -> str:
    tg = topology.tg
    if software_mode:
        name = iface.name
        if name is None or not _IFNAME.match(name):
            raise TrafficGeneratorError(
                f"{where(topology, tg, f'interfaces.{iface.key}.name')}: {name!r} is not a Linux "
                "interface name; a software_mode TRex needs the name of each TG port"
            )
        return name
    pci = iface.pci_address
    if pci is None or not _PCI.match(pci):
        raise TrafficGeneratorError(
            f"{where(topology, tg, f'interfaces.{iface.key}.pci_address')}: {pci!r} is not a "
            "PCI address like 0000:17:00.0; TRex takes its DPDK ports by PCI address "
            "(or set options.software_mode for Linux interfaces)"
        )
    return pci


def _mac(topology: Topology, node_key: str, iface: Interface) -> str:
    mac = iface.mac_address
    if mac is None or not _MAC.match(mac):
        node = topology.nodes[node_key]
        raise TrafficGeneratorError(
            f"{where(topology, node, f'interfaces.{iface.key}.mac_address')}: {mac!r} is not a "
            "MAC address; the trex TG needs the MACs of its ports and of the DUT ports they face"
        )
    return mac.lower()


def _quoted(text: str) -> str:
    """A YAML double-quoted scalar (JSON strings are valid YAML)."""
    return json.dumps(text)


def render_config(ports: tuple[TrexPort, ...], options: TrexOptions) -> str:
    """The text of trex_cfg.yaml for ``ports`` and ``options`` (a list of one mapping)."""
    lines = [
        "# trex_cfg.yaml written by ndrpdr (trex TG driver)",
        "- version: 2",
        f"  port_limit: {len(ports)}",
        "  interfaces: [" + ", ".join(_quoted(p.device) for p in ports) + "]",
    ]
    if options.sync_port != DEFAULT_SYNC_PORT:
        lines.append(f"  zmq_rpc_port: {options.sync_port}")
    if options.async_port != DEFAULT_ASYNC_PORT:
        lines.append(f"  zmq_pub_port: {options.async_port}")
    if options.limit_memory is not None:
        lines.append(f"  limit_memory: {options.limit_memory}")
    if options.one_core:  # TRex then ignores platform and c
        lines.append("  low_end: true")
        if options.low_end_core is not None:
            lines.append(f"  low_end_core: {options.low_end_core}")
    else:
        lines.append(f"  c: {options.cores}")
    lines.append("  port_info:")
    for port in ports:
        lines.append(f"    - src_mac: {_quoted(port.src_mac)}")
        lines.append(f"      dest_mac: {_quoted(port.dest_mac)}")
    if not options.one_core and options.master_thread_id is not None:
        assert options.threads is not None  # parse_options gives both or neither
        lines.append("  platform:")
        lines.append(f"    master_thread_id: {options.master_thread_id}")
        if options.latency_thread_id is not None:
            lines.append(f"    latency_thread_id: {options.latency_thread_id}")
        lines.append("    dual_if:")
        lines.append(f"      - socket: {options.socket}")
        lines.append("        threads: [" + ", ".join(str(t) for t in options.threads) + "]")
    return "\n".join(lines) + "\n"


def config_text(topology: Topology, options: TrexOptions) -> str:
    """trex_cfg.yaml for the topology's TG (``trex_ports`` then ``render_config``)."""
    return render_config(trex_ports(topology, options), options)
