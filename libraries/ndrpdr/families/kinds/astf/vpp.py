"""VPP set-ups of the stateful (TRex ASTF) families: vppctl lines for one DUT, as CSIT's suites.

The clients (TG port 1's side) are ``CLIENTS``, the servers (TG port 2's
side) ``SERVERS``: CSIT's ``trex-astf-ethip4{tcp,udp}-65536h[-pps]``
profiles' 192.168.0.0/16 and 20.0.0.0/16. 2-node chain, DUT1, as CSIT's
suites (``tests/vpp/perf/ip4/2n1l-*-ethip4{tcp,udp}-{ip4base,nat44ed}-
h65536-p63-s4128768-{cps,tput}``) set it up:

- ``ip4base``: CSIT's ``Initialize IPv4 forwarding in circular topology``
  with ``192.168.0.0 | 20.0.0.0 | 16``: both ports up; static neighbours
  10.10.10.2 (TG port 1) and 20.20.20.2 (TG port 2) with the TG's MACs; the
  ports' addresses 10.10.10.1/24 and 20.20.20.1/24; the clients' /16 via
  10.10.10.2, the servers' via 20.20.20.2 (not the plan's link /24s: its
  192.168.10.0/24 lies inside the clients' /16, and a connected /24 would
  take their answers). ``routed_undo`` deletes the routes for a VPP kept
  for the next test;
- ``nat44ed``: CSIT's ``Initialize IPv4 forwarding for NAT44 in circular
  topology`` and ``Initialize NAT44 endpoint-dependent mode in circular
  topology`` with the suites' variables (links 10.0.0.1/24 and 12.0.0.1/24,
  next hops 10.0.0.2 and 12.0.0.2, ``in_net`` 192.168.0.0/16, ``dest_net``
  20.0.0.0/16, the pool 68.142.68.0 - 68.142.68.63, sessions per thread
  ``max_translations_per_thread``): the NAT44 families' set-up
  (``ndrpdr.families.kinds.nat.vpp.NatVpp``) with the destination /16 and the
  transactions' protocol for the session count. The cps families reset the
  sessions before each trial (CSIT's resetter: the pool deleted and added
  again); the tput ones ramp up instead (CSIT sets its resetter only
  without a ramp-up rate).

The real VPP cannot run here (SIGILL); the lines are unit-tested against
CSIT's suites and keywords.
"""

from __future__ import annotations

import ipaddress

from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.families.kinds.nat.vpp import NatVpp
from ndrpdr.profiles.transactions import TransactionKind, TransactionProtocol

#: CSIT's clients and servers of its 65536-host ASTF profiles (``remote_host{1,2}_ip``/16).
CLIENTS = "192.168.0.0/16"
SERVERS = "20.0.0.0/16"
#: CSIT's port addresses of ``Initialize IPv4 forwarding in circular topology`` and its TG's
#: next hops on them (client side, server side).
LINK_ADDRESSES = ("10.10.10.1/24", "20.20.20.1/24")
NEXT_HOPS = ("10.10.10.2", "20.20.20.2")


def _ports(config: DutTestConfig, names: tuple[str, str]) -> list[tuple[str, str, str, str]]:
    """(name, address, next hop, TG MAC) of each port, client side first; 2-node only."""
    if config.chain != 1:
        raise DutError(
            f"stateful families run on a 2-node chain (DUT1 only); this DUT is number "
            f"{config.position + 1} of {config.chain}"
        )
    return [
        (name, address, hop, port.peer_mac.lower())
        for name, address, hop, port in zip(
            names, LINK_ADDRESSES, NEXT_HOPS, config.ports, strict=True
        )
    ]


def routed(config: DutTestConfig, names: tuple[str, str]) -> list[str]:
    """CSIT's ``Initialize IPv4 forwarding in circular topology`` of the two /16s, its order."""
    ports = _ports(config, names)
    return [
        *(f"set interface state {name} up" for name in names),
        *(f"set ip neighbor {name} {hop} {mac} static" for name, _, hop, mac in ports),
        *(f"set interface ip address {name} {address}" for name, address, _, _ in ports),
        *(
            f"ip route add {prefix} via {hop} {name}"
            for prefix, (name, _, hop, _) in zip((CLIENTS, SERVERS), ports, strict=True)
        ),
    ]


def routed_undo(config: DutTestConfig, names: tuple[str, str]) -> list[str]:
    """The two /16 routes deleted (the addresses and neighbours go with the test's ports, as
    the ip4base families' ``vppip.ip4_base_undo``)."""
    ports = _ports(config, names)
    return [
        f"ip route del {prefix} via {hop} {name}"
        for prefix, (name, _, hop, _) in zip((CLIENTS, SERVERS), ports, strict=True)
    ]


def nat44ed(hosts: int, ports: int, protocol: TransactionProtocol, kind: TransactionKind) -> NatVpp:
    """CSIT's NAT44-ED set-up of the ``hosts`` x ``ports`` family of ``protocol`` and ``kind``:
    inside the clients' network, the servers' /16 as destination; cps resets each trial."""
    servers = ipaddress.IPv4Network(SERVERS)
    return NatVpp(
        "ed",
        hosts,
        ports,
        inside=str(ipaddress.IPv4Network(CLIENTS).network_address),
        destination=str(servers.network_address),
        destination_len=servers.prefixlen,
        protocol=protocol,
        reset_each_trial=kind == "cps",
    )
