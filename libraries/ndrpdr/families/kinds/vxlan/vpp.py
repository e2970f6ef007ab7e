"""VPP set-up of the 3-node VXLAN families: an L2 overlay between DUT1 and DUT2.

After CSIT's ``Initialize L2 xconnect with VXLANoIPv4 in 3-node circular
topology`` and its bridge-domain twin, in our plan's addresses: on each DUT
the port facing the other DUT has its plan IPv4 address and a static
neighbour for the other DUT's port; one VXLAN tunnel (CSIT's VNI 24) runs
from that address to the other DUT's; the port facing the TG and the
tunnel are cross-connected both ways (``l2xc``) or are the two members of
bridge domain 1 with MAC learning (``l2bd``). The TG's frames cross the
DUT - DUT link as Ethernet/IPv4/UDP(4789)/VXLAN/Ethernet/IPv4.

Every command was checked against VPP v26.06 (vxlan plugin).
"""

from __future__ import annotations

import dataclasses

from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.families.build import check_mode
from ndrpdr.families.kinds.l2 import vpp as vppl2
from ndrpdr.families.vppsetup import FreshVpp

#: CSIT's VNI of the DUT1 - DUT2 tunnel.
VNI = 24
#: VPP's name of the first VXLAN tunnel interface it creates.
TUNNEL = "vxlan_tunnel0"
#: The L2 modes: cross-connect, or a learning bridge domain.
MODES = ("l2xc", "l2bd")


def three_node_sides(family: str, config: DutTestConfig) -> tuple[int, int]:
    """(TG port index, link port index) of this DUT of a 3-node chain; DutError elsewhere."""
    if config.chain != 2 or config.position not in (0, 1):
        raise DutError(
            f"family {family}: runs on a 3-node chain (DUT1 and DUT2); this DUT is "
            f"number {config.position + 1} of {config.chain}"
        )
    return (0, 1) if config.position == 0 else (1, 0)


def _plain(address: str) -> str:
    return address.split("/", 1)[0]


@dataclasses.dataclass(frozen=True)
class VxlanVpp(FreshVpp):
    """A VXLAN family's VPP set-up: ``mode`` "l2xc" or "l2bd" (the module docstring)."""

    mode: str
    plugins: tuple[str, ...] = ("vxlan",)

    def check(self) -> None:
        """FamilyDefinitionError naming the family for an unknown mode."""
        check_mode(self.family, self.mode, MODES)

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The vppctl lines for DUT1 (position 0) or DUT2 (position 1) of a 3-node chain."""
        tg_index, link_index = three_node_sides(self.family, config)
        tg_name, link_name = names[tg_index], names[link_index]
        link = config.ports[link_index]
        lines = [
            f"set interface state {tg_name} up",
            f"set interface state {link_name} up",
            f"set interface ip address {link_name} {link.ip4_address}",
            f"set ip neighbor {link_name} {link.peer_ip4} {link.peer_mac.lower()} static",
            f"create vxlan tunnel src {_plain(link.ip4_address)} dst {link.peer_ip4} vni {VNI}",
            f"set interface state {TUNNEL} up",
        ]
        if self.mode == "l2xc":
            return [
                *lines,
                f"set interface l2 xconnect {tg_name} {TUNNEL}",
                f"set interface l2 xconnect {TUNNEL} {tg_name}",
            ]
        return [*lines, *vppl2.bridge((tg_name, TUNNEL))]
