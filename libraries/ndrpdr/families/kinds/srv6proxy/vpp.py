"""VPP set-up of the SRv6 proxy families: an SR-unaware service function behind each DUT.

After CSIT's ``Initialize SRv6 with '<behavior>' SR-unaware Service
Function`` (its SIDs, memif addresses and next hops; our link addresses
and routed prefixes). DUT1 (``config.position`` 0) and DUT2 mirror each
other:

- both ports up with their plan IPv6 addresses (``ndrpdr.families.kinds.srv6.vpp.ip6_ports``);
- two memifs to the service function (``ndrpdr.families.kinds.memif.vpp``'s
  socket, names and MACs; CSIT's container: a second VPP, here in a
  network namespace of its own, cross-connecting its two memifs): memif1/1
  goes to it, memif1/2 comes back; each has a /128 (CSIT's 3001:1::1 and
  ::2 on DUT1, 3002:1::1 and ::2 on DUT2), and the next hop of the proxy
  (4002:: on DUT1, 4001:: on DUT2) is a static neighbour on memif1/1 with
  memif1/2's MAC, so what the service function returns is addressed to
  the DUT;
- the DUT steers its TG's traffic (the far port's routed prefix) into an
  SR policy of three SIDs: the other DUT's proxy SID, then the two SIDs of
  its direction's way out, which the other DUT routes to its TG (the TG
  receives Ethernet/IPv6/SRH/IPv6);
- it holds the proxy SID of the other direction: ``End.AD`` (dynamic
  proxy, ``-dyn``), ``End.AM`` (masquerading, ``-masq``) or ``End.AS``
  (static proxy, ``-stat``: the other DUT's encapsulation source and the
  way-out SIDs configured), out on memif1/1 to the next hop, back on
  memif1/2.

SIDs (CSIT's): DUT1 encapsulates from 2002:1:: with binding SID 2002:1::1,
DUT2 from 2003:1:: with 2003:1::1; the proxy SIDs are 2002:2:: (DUT2) and
2003:2:: (DUT1); direction 0 leaves by 2002:3:: and 2002:4::, direction 1
by 2003:3:: and 2003:4::. Every command was checked against VPP v26.06
(srv6ad, srv6am, srv6as and memif plugins).
"""

from __future__ import annotations

import dataclasses

from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.families.kinds.memif.vpp import MEMIF_MACS, MEMIFS, PEER_COMMANDS, SOCKET, memif_create
from ndrpdr.families.kinds.srv6.vpp import ip6_ports
from ndrpdr.families.kinds.vxlan.vpp import three_node_sides
from ndrpdr.families.model import FamilyDefinitionError
from ndrpdr.families.vppip import MLD_SETTLE_S
from ndrpdr.families.vppsetup import FreshVpp

#: Each proxy behaviour's plugin and VPP's name of it.
BEHAVIOURS: dict[str, tuple[str, str]] = {
    "dyn": ("srv6ad", "end.ad"),
    "masq": ("srv6am", "end.am"),
    "stat": ("srv6as", "end.as"),
}
#: Per DUT position: encapsulation source, binding SID, the proxy SID it holds.
SOURCES = ("2002:1::", "2003:1::")
BSIDS = ("2002:1::1", "2003:1::1")
PROXY_SIDS = ("2003:2::", "2002:2::")
#: Per direction: the SIDs after the proxy, the first routed to the far TG.
WAY_OUT = (("2002:3::", "2002:4::"), ("2003:3::", "2003:4::"))
#: Per DUT position: the memifs' /128 prefix (::1 on memif1/1, ::2 on memif1/2), the next hop.
MEMIF_NETS = ("3001:1::", "3002:1::")
NEXT_HOPS = ("4002::", "4001::")


@dataclasses.dataclass(frozen=True)
class Srv6ProxyVpp(FreshVpp):
    """An SRv6 proxy family's VPP set-up; ``behaviour`` "dyn", "masq" or "stat"."""

    behaviour: str
    #: Seconds to wait after the set-up for frames VPP sends of its own (MLD reports) [s].
    settle_s: float = MLD_SETTLE_S
    #: The service function's commands (the memif families' second VPP: a cross-connect).
    peer_commands: tuple[str, ...] = (*memif_create("slave"), *PEER_COMMANDS)

    def check(self) -> None:
        """FamilyDefinitionError naming the family for an unknown behaviour."""
        if self.behaviour not in BEHAVIOURS:
            raise FamilyDefinitionError(
                f"family {self.family}: behaviour {self.behaviour!r} is not one of "
                f"{', '.join(BEHAVIOURS)}"
            )

    @property
    def plugins(self) -> tuple[str, ...]:
        """memif (the service function's ports) and the behaviour's plugin."""
        behaviour = BEHAVIOURS.get(self.behaviour)
        return ("memif",) if behaviour is None else ("memif", behaviour[0])

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The vppctl lines for DUT1 (position 0) or DUT2 (position 1) of a 3-node chain."""
        tg_index, link_index = three_node_sides(self.family, config)
        me, other = config.position, 1 - config.position
        tg_name, link_name = names[tg_index], names[link_index]
        tg_port, link_port = config.ports[tg_index], config.ports[link_index]
        if link_port.routed_prefix6 is None:
            raise DutError(f"family {self.family}: port {link_port.key} has no routed IPv6 prefix")
        out, back = MEMIFS
        net, nh = MEMIF_NETS[me], NEXT_HOPS[me]
        lines = ip6_ports(self.family, config, names)
        lines += [line.replace("{socket}", SOCKET) for line in memif_create("master")]
        for index, memif in enumerate(MEMIFS):
            lines += [
                f"set interface state {memif} up",
                f"set interface ip address {memif} {net}{index + 1}/128",
                f"ip6 nd {memif} ra-suppress",
            ]
        sids = " ".join(f"next {sid}" for sid in (PROXY_SIDS[other], *WAY_OUT[me]))
        lines += [
            f"set ip neighbor {out} {nh} {MEMIF_MACS[1]} static",
            f"ip route add {PROXY_SIDS[other]}/64 via {link_port.peer_ip6} {link_name}",
            f"ip route add {WAY_OUT[other][0]}/64 via {tg_port.peer_ip6} {tg_name}",
            f"set sr encaps source addr {SOURCES[me]}",
            f"sr policy add bsid {BSIDS[me]} {sids} encap",
            f"sr steer l3 {link_port.routed_prefix6} via bsid {BSIDS[me]}",
        ]
        proxy = (
            f"sr localsid address {PROXY_SIDS[me]} behavior {BEHAVIOURS[self.behaviour][1]} "
            f"nh {nh} oif {out} iif {back}"
        )
        if self.behaviour == "stat":
            proxy += f" src {SOURCES[other]} " + " ".join(f"next {s}" for s in WAY_OUT[other])
        return [*lines, proxy]
