"""VPP set-up of ``eth-l2xcbase-1lbvpplacp``: an LACP bond of one link between DUT1 and DUT2.

After CSIT's ``Initialize L2 xconnect with link bonding in 3-node
circular topology`` with its ``dut_dut_links`` 1 (the "1lb" of the id: one
link in the bond): on each DUT a BondEthernet interface in LACP mode with
transmit policy l34 (``create bond mode lacp load-balance l34``), the port
facing the other DUT its one member (``bond add``: active LACP, short
timeout, VPP's defaults), and the TG port and the bond cross-connected
both ways. The TG's frames cross unchanged.

The two DUTs' LACP must agree before the member carries frames: the
driver waits ``settle_s`` after the set-up (LACP's short timeout sends a
PDU a second; VPP v26.06 has both ends collecting and distributing a few
seconds after the second DUT's set-up). Every command was checked against
VPP v26.06 (lacp plugin).
"""

from __future__ import annotations

import dataclasses

from ndrpdr.dut.base import DutTestConfig
from ndrpdr.families.kinds.vxlan.vpp import three_node_sides
from ndrpdr.families.vppsetup import FreshVpp

#: VPP's name of the first bond interface it creates.
BOND = "BondEthernet0"
#: Seconds for both ends' LACP to agree after the set-up [s].
LACP_SETTLE_S = 6.0


@dataclasses.dataclass(frozen=True)
class LacpVpp(FreshVpp):
    """The LACP family's VPP set-up (see the module docstring)."""

    plugins: tuple[str, ...] = ("lacp",)
    #: Seconds to wait after the set-up for LACP to agree [s].
    settle_s: float = LACP_SETTLE_S

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The vppctl lines for DUT1 (position 0) or DUT2 (position 1) of a 3-node chain."""
        tg_index, link_index = three_node_sides(self.family, config)
        tg_name, link_name = names[tg_index], names[link_index]
        return [
            "create bond mode lacp load-balance l34",
            f"bond add {BOND} {link_name}",
            f"set interface state {link_name} up",
            f"set interface state {BOND} up",
            f"set interface state {tg_name} up",
            f"set interface l2 xconnect {tg_name} {BOND}",
            f"set interface l2 xconnect {BOND} {tg_name}",
        ]
