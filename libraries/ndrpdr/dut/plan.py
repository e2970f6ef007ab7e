"""The forwarding plan of a 2-node topology: which DUT port faces which TG port, and addresses.

Direction 0 leaves TG port 1, crosses the DUT from its port facing TG port 1
to its port facing TG port 2, and comes back on TG port 2; direction 1 is
the reverse. Link *k* (k = 1, 2 in TG port order) gets the subnet
192.168.<10k>.0/24: the DUT side is .1 and the TG side .2. Traffic to
``ndrpdr.profiles.DIRECTION_PREFIXES[i]`` (in RFC 2544's benchmarking range)
leaves the DUT on the port facing TG port *i + 1*.
"""

from __future__ import annotations

from ndrpdr.dut.base import DutError, DutPort, DutTestConfig, ForwardingMode
from ndrpdr.profiles import DIRECTION_PREFIXES
from ndrpdr.testbed.model import Topology, natural_key


def _link_subnet(index: int) -> tuple[str, str]:
    """(DUT address with length, TG address) of the link to TG port ``index`` (0-based)."""
    third = 10 * (index + 1)
    return f"192.168.{third}.1/24", f"192.168.{third}.2"


def plan_dut(
    topology: Topology,
    mode: ForwardingMode,
    *,
    cores: int = 1,
    max_frame_size_b: int = 1518,
) -> DutTestConfig:
    """The test configuration of the one DUT of a 2-node ``topology``.

    Raises DutError when the topology is not TG port 1 -> DUT1 -> TG port 2
    (a DUT port linked to each of two TG ports).
    """
    source = topology.source or "topology"
    duts = topology.duts
    if len(duts) != 1:
        raise DutError(
            f"{source}: the local and sim testbeds take one DUT (2-node); found {len(duts)}"
        )
    dut = duts[0]
    tg = topology.tg
    tg_ports = sorted(tg.interfaces, key=natural_key)
    pairs: list[tuple[str, str]] = []  # (TG port key, DUT port key)
    for tg_port in tg_ports:
        peer = topology.peer(tg.key, tg_port)
        if peer is not None and peer.node == dut.key:
            pairs.append((tg_port, peer.interface))
    if len(pairs) < 2:
        raise DutError(
            f"{source}: {dut.key} needs two ports linked to {tg.key} ports; "
            f"found {len(pairs)} ({', '.join(f'{t}-{d}' for t, d in pairs) or 'none'})"
        )
    ports: list[DutPort] = []
    for index, (tg_port, dut_port) in enumerate(pairs[:2]):
        dut_iface = dut.interfaces[dut_port]
        tg_iface = tg.interfaces[tg_port]
        if tg_iface.mac_address is None:
            raise DutError(
                f"{source}: nodes.{tg.key}.interfaces.{tg_port}.mac_address is needed "
                f"(frames leaving {dut.key} {dut_port} are addressed to it)"
            )
        dut_ip, tg_ip = _link_subnet(index)
        ports.append(
            DutPort(
                key=dut_port,
                name=dut_iface.name,
                mac=dut_iface.mac_address,
                pci_address=dut_iface.pci_address,
                peer_mac=tg_iface.mac_address,
                ip4_address=dut_ip,
                peer_ip4=tg_ip,
                routed_prefix=DIRECTION_PREFIXES[index],
            )
        )
    return DutTestConfig(
        mode=mode, ports=(ports[0], ports[1]), cores=cores, max_frame_size_b=max_frame_size_b
    )
