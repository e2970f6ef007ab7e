"""VPP set-up of the 3-node GTP-U families: IPv4 routed over a GTP-U tunnel between DUT1 and DUT2.

After CSIT's ``Initialize IP4 forwarding with GTPU tunnel in 3-node
circular topology``, in our plan's addresses: each DUT's TG port has its
plan address and a static neighbour for the TG, and routes the TG side's
prefix there; the port facing the other DUT has its plan address and a
static neighbour for the other DUT's port; one GTP-U tunnel (CSIT's TEID
10) runs from that address to the other DUT's, decapsulating to IPv4
(``decap-next ip4``, CSIT's ``decap_next_index`` 2), with CSIT's tunnel
addresses (10.10.1.2/24 on DUT1, 10.10.1.1/24 on DUT2); the far side's
prefix is routed into it. The DUT - DUT link carries the TG's frames as
Ethernet/IPv4/UDP(2152)/GTP-U/IPv4 (36 B more).

``reassembly``: the DUT - DUT link's MTU is CSIT's 1043 B (``Lower
DUT1-DUT2 MTU For Fragmentation``), so a tunnelled packet above it leaves
in fragments, which the other DUT reassembles before GTP-U decapsulates
it (VPP reassembles what it receives for itself). As in CSIT, VPP's
default limit of 3 fragments a packet stands: a 9000B frame (9 fragments)
is dropped.

``offload`` (``ethip4gtpuhw-ip4base``): after the routes, each DUT asks
its port facing the other DUT to classify the tunnel's packets (``set
flow-offload gtpu hw <port> rx gtpu_tunnel0``, CSIT's ``Vpp Enable GTPU
Offload rx`` on DUT1's second and DUT2's first port); for jumbo frames
(above 1518 B) that port's protocol MTUs go to CSIT's 9145 B first, as
CSIT's ``increase_protocol_mtus_if_jumbo`` does (the offload refreshes the
adjacencies). The node needs such a NIC (``ndrpdr.dut.accel.FlowOffload``).

Every command was checked against VPP v26.06 (gtpu plugin); the offload
line's syntax against the plugin's help text (``set flow-offload gtpu hw
<interface-name> rx <tunnel-name> [del]``), not on a NIC.
"""

from __future__ import annotations

import dataclasses

from ndrpdr.dut.accel import FlowOffload, HardwareNeed
from ndrpdr.dut.base import DutTestConfig
from ndrpdr.families.kinds.ipsec.vpp import MTU_FOR_FRAGMENTATION
from ndrpdr.families.kinds.vxlan.vpp import three_node_sides
from ndrpdr.families.vppsetup import FreshVpp

#: CSIT's TEID of the DUT1 - DUT2 tunnel.
TEID = 10
#: VPP's name of the first GTP-U tunnel interface it creates.
TUNNEL = "gtpu_tunnel0"
#: CSIT's tunnel interface addresses (DUT1, DUT2).
TUNNEL_ADDRESSES = ("10.10.1.2/24", "10.10.1.1/24")
#: CSIT's protocol MTU for jumbo frames (``Constants.MTU_JUMBO``) [B], and the largest
#: frame that is not one [B].
MTU_JUMBO = 9145
STANDARD_MAX_FRAME_B = 1518


def _plain(address: str) -> str:
    return address.split("/", 1)[0]


@dataclasses.dataclass(frozen=True)
class GtpuVpp(FreshVpp):
    """A GTP-U family's VPP set-up; ``reassembly`` lowers the DUT - DUT MTU, ``offload``
    has the NIC classify the tunnel's packets (module docstring)."""

    reassembly: bool = False
    offload: bool = False
    plugins: tuple[str, ...] = ("gtpu",)

    @property
    def hardware(self) -> HardwareNeed | None:
        """A NIC with GTP-U flow offload (``offload``)."""
        return FlowOffload() if self.offload else None

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The vppctl lines for DUT1 (position 0) or DUT2 (position 1) of a 3-node chain."""
        tg_index, link_index = three_node_sides(self.family, config)
        tg_name, link_name = names[tg_index], names[link_index]
        tg_port, link_port = config.ports[tg_index], config.ports[link_index]
        lines = [f"set interface state {tg_name} up", f"set interface state {link_name} up"]
        if self.reassembly:
            lines.append(f"set interface mtu packet {MTU_FOR_FRAGMENTATION} {link_name}")
        lines += [
            f"set interface ip address {tg_name} {tg_port.ip4_address}",
            f"set interface ip address {link_name} {link_port.ip4_address}",
            f"set ip neighbor {tg_name} {tg_port.peer_ip4} {tg_port.peer_mac.lower()} static",
            f"set ip neighbor {link_name} {link_port.peer_ip4} {link_port.peer_mac.lower()} static",
            f"ip route add {tg_port.routed_prefix} via {tg_port.peer_ip4} {tg_name}",
            f"create gtpu tunnel src {_plain(link_port.ip4_address)} dst {link_port.peer_ip4} "
            f"teid {TEID} decap-next ip4",
            f"set interface state {TUNNEL} up",
            f"set interface ip address {TUNNEL} {TUNNEL_ADDRESSES[config.position]}",
            f"ip route add {link_port.routed_prefix} via {TUNNEL}",
        ]
        if self.offload:
            if config.max_frame_size_b > STANDARD_MAX_FRAME_B:
                lines.append(f"set interface mtu packet {MTU_JUMBO} {link_name}")
            lines.append(f"set flow-offload gtpu hw {link_name} rx {TUNNEL}")
        return lines
