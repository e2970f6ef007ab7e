"""VPP set-up of the 3-node SRv6 families: DUT1 and DUT2 encapsulate towards each other.

DUT1 (``config.position`` 0) and DUT2 (position 1) mirror each other, after
CSIT's ``Initialize SRv6 encapsulation with N x SID with/without
decapsulation`` (its SIDs; our link addresses and routed prefixes):

- each port up with its plan IPv6 address, router advertisements off, a
  static neighbour for the host at the other end of its link;
- the DUT steers the traffic it forwards towards the other DUT (the
  destination prefix of its direction, the far port's ``routed_prefix6``)
  into an SR policy (encapsulation, binding SID, the other DUT's SIDs) with
  its own encapsulation source, and routes the other DUT's first SID's /64
  over the DUT - DUT link;
- it holds the local SIDs of the other direction: one SID: ``End.DX6`` to
  its TG (decapsulate, cross-connect to the TG's address); two SIDs:
  ``End`` on the first and ``End.DX6`` on the second, or, ``-nodecaps``,
  a route of the second SID's /64 to the TG (the frame leaves encapsulated).

SIDs (CSIT's): DUT1 encapsulates from 2002:1:: with binding SID 2002:1::1
to 2002:2:: (and 2002:3::); DUT2 from 2003:1:: with binding SID 2002:2::1
to 2003:2:: (and 2003:3::). Every command was checked against VPP v26.06.
"""

from __future__ import annotations

import dataclasses

from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.families.model import FamilyDefinitionError
from ndrpdr.families.vppip import MLD_SETTLE_S
from ndrpdr.families.vppsetup import FreshVpp

#: Per DUT position: (encapsulation source, binding SID, the SIDs it owns (the other's targets)).
SIDS: tuple[tuple[str, str, tuple[str, str]], tuple[str, str, tuple[str, str]]] = (
    ("2002:1::", "2002:1::1", ("2003:2::", "2003:3::")),
    ("2003:1::", "2002:2::1", ("2002:2::", "2002:3::")),
)


def _net64(sid: str) -> str:
    return f"{sid}/64"


def ip6_ports(family: str, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
    """Both ports up with their plan IPv6 addresses, no RAs, a static neighbour for the peer."""
    lines: list[str] = []
    for name, port in zip(names, config.ports, strict=True):
        if port.ip6_address is None or port.peer_ip6 is None:
            raise DutError(f"family {family}: port {port.key} has no IPv6 address in the plan")
        lines += [
            f"set interface state {name} up",
            f"set interface ip address {name} {port.ip6_address}",
            f"ip6 nd {name} ra-suppress",
            f"set ip neighbor {name} {port.peer_ip6} {port.peer_mac.lower()} static",
        ]
    return lines


@dataclasses.dataclass(frozen=True)
class Srv6Vpp(FreshVpp):
    """A 3-node SRv6 family's VPP set-up: ``sids`` 1 or 2; ``decap`` False for ``-nodecaps``."""

    sids: int
    decap: bool = True
    plugins: tuple[str, ...] = ()
    #: Seconds to wait after the set-up for frames VPP sends of its own [s].
    settle_s: float = MLD_SETTLE_S

    def check(self) -> None:
        """FamilyDefinitionError naming the family for a SID count other than 1 or 2."""
        if self.sids not in (1, 2):
            raise FamilyDefinitionError(
                f"family {self.family}: {self.sids} SIDs; CSIT's families use 1 or 2"
            )

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The vppctl lines for DUT1 (position 0) or DUT2 (position 1) of a 3-node chain."""
        if config.chain != 2 or config.position not in (0, 1):
            raise DutError(
                f"family {self.family}: runs on a 3-node chain (DUT1 and DUT2); this DUT is "
                f"number {config.position + 1} of {config.chain}"
            )
        me = config.position
        tg_index, link_index = (0, 1) if me == 0 else (1, 0)
        lines = ip6_ports(self.family, config, names)
        tg_name, link_name = names[tg_index], names[link_index]
        tg_port, link_port = config.ports[tg_index], config.ports[link_index]
        source, bsid, _ = SIDS[me]
        targets = SIDS[1 - me][2][: self.sids]
        own = SIDS[me][2][: self.sids]
        steered = link_port.routed_prefix6
        if steered is None:
            raise DutError(f"family {self.family}: port {link_port.key} has no routed IPv6 prefix")
        lines += [
            f"ip route add {_net64(targets[0])} via {link_port.peer_ip6} {link_name}",
            f"set sr encaps source addr {source}",
            f"sr policy add bsid {bsid} {' '.join(f'next {sid}' for sid in targets)} encap",
            f"sr steer l3 {steered} via bsid {bsid}",
        ]
        last = f"{tg_name} {tg_port.peer_ip6}"
        if self.sids == 1:
            lines.append(f"sr localsid address {own[0]} behavior end.dx6 {last}")
        else:
            lines.append(f"sr localsid address {own[0]} behavior end")
            if self.decap:
                lines.append(f"sr localsid address {own[1]} behavior end.dx6 {last}")
            else:
                lines.append(f"ip route add {_net64(own[1])} via {tg_port.peer_ip6} {tg_name}")
        return lines
