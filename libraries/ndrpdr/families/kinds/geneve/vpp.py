"""VPP set-up of the 2-node GENEVE families: IPv4 routed over N GENEVE tunnels in L3 mode.

After CSIT's ``Initialize GENEVE L3 mode in circular topology`` and its
``GeneveUtil`` (CSIT's tunnel addresses and prefixes; our plan's port
addresses): both ports up with their plan IPv4 addresses and a static
neighbour for the TG; the DUT's tunnel end point 1.1.1.2 (CSIT's
``local``; here a /32 on ``loop0``, so GENEVE packets to it are the DUT's
own: CSIT routes it to a tunnel address, which delivers them the same way),
the far end 1.1.1.1 routed to TG port 2; then per tunnel *i* (0 on):

- ``create geneve tunnel ... vni 1 + i l3-mode decap-next node
  ethernet-input``: an L3 tunnel interface ``geneve_tunnel<i>``, whose
  inner frames go to ethernet-input (CSIT's ``decap_next_index``), with
  address 11.0.1.2 + 256 i /24 and TG port 2's MAC as the neighbour of
  TG port 2's address (the inner Ethernet destination of what it sends);
- direction 0's destinations of the tunnel, 10.0.1.0 + 256 i /24, routed
  into it (the DUT encapsulates them towards TG port 2), and direction 1's
  inner destinations, 10.128.1.0 + 256 i /24, routed to TG port 1 (the DUT
  decapsulates them first: they arrive as GENEVE frames with VNI 1 + i,
  inner Ethernet destination the tunnel's own MAC, d0:0b:ee:d0:00:00 + i
  in VPP v26.06, which ``ndrpdr.families.kinds.geneve.defs``'s traffic sends).

Every command was checked against VPP v26.06 (geneve plugin).
"""

from __future__ import annotations

import dataclasses
import ipaddress

from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.families.model import FamilyDefinitionError
from ndrpdr.families.vppsetup import FreshVpp

#: CSIT's tunnel end points (the DUT's, the TG's), first VNI and per-tunnel prefixes.
LOCAL, REMOTE = "1.1.1.2", "1.1.1.1"
FIRST_VNI = 1
TO_TUNNEL = "10.0.1.0"  # direction 0's destinations (+ 256 i): into tunnel i
FROM_TUNNEL = "10.128.1.0"  # direction 1's inner destinations (+ 256 i): to TG port 1
TUNNEL_ADDRESS = "11.0.1.2"
STEP = 256
#: The inner Ethernet address VPP v26.06 gives L3 GENEVE tunnel i: this + i.
TUNNEL_MAC = "d0:0b:ee:d0:00:00"
#: The most tunnels 10.0.0.0/8 holds at 256 addresses each from 10.0.1.0.
MAX_TUNNELS = 65535


def add(address: str, number: int) -> str:
    """``address`` + ``number``."""
    return str(ipaddress.IPv4Address(address) + number)


@dataclasses.dataclass(frozen=True)
class GeneveVpp(FreshVpp):
    """A GENEVE family's VPP set-up: ``tunnels`` L3 GENEVE tunnels (the module docstring)."""

    tunnels: int
    plugins: tuple[str, ...] = ("geneve",)

    def check(self) -> None:
        """FamilyDefinitionError naming the family for a tunnel count 10.0.0.0/8 cannot hold."""
        if not 1 <= self.tunnels <= MAX_TUNNELS:
            raise FamilyDefinitionError(
                f"family {self.family}: {self.tunnels} tunnels; give 1 to {MAX_TUNNELS}"
            )

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The vppctl lines for the DUT of a 2-node chain."""
        if config.chain != 1:
            raise DutError(
                f"family {self.family}: runs on a 2-node chain (one DUT); this chain has "
                f"{config.chain}"
            )
        (name1, name2), (port1, port2) = names, config.ports
        lines = []
        for name, port in ((name1, port1), (name2, port2)):
            lines += [
                f"set interface state {name} up",
                f"set interface ip address {name} {port.ip4_address}",
                f"set ip neighbor {name} {port.peer_ip4} {port.peer_mac.lower()} static",
            ]
        lines += [
            "create loopback interface instance 0",
            "set interface state loop0 up",
            f"set interface ip address loop0 {LOCAL}/32",
            f"ip route add {REMOTE}/32 via {port2.peer_ip4} {name2}",
        ]
        for i in range(self.tunnels):
            tunnel = f"geneve_tunnel{i}"
            lines += [
                f"create geneve tunnel local {LOCAL} remote {REMOTE} vni {FIRST_VNI + i} "
                "l3-mode decap-next node ethernet-input",
                f"set interface state {tunnel} up",
                f"set interface ip address {tunnel} {add(TUNNEL_ADDRESS, i * STEP)}/24",
                f"set ip neighbor {tunnel} {port2.peer_ip4} {port2.peer_mac.lower()} static",
                f"ip route add {add(TO_TUNNEL, i * STEP)}/24 via {port2.peer_ip4} {tunnel}",
                f"ip route add {add(FROM_TUNNEL, i * STEP)}/24 via {port1.peer_ip4} {name1}",
            ]
        return lines
