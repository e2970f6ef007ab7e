"""A lab's own test family: IPv4 routing with 16 flows per direction.

Copy this file into a directory of your own, change it, and point
``NDRPDR_FAMILIES`` at that directory (several: separated by ``:``); the
family is then accepted wherever a built-in one is (``ndrpdr search
--profile``, the keywords' ``profile``), and ``ndrpdr suites --write --lab
--dir DIR`` writes its suites. See "Adding a family" in docs/running.rst.

A family file defines ``FAMILIES``, a list of ``Family``: an id (not one of
the built-in ids: ``ndrpdr families`` lists them), Robot tags, the traffic
(``Profile``: both directions' headers and what varies in them), and how each
DUT driver forwards it (``setup``). This one sends what ``ethip4-ip4base``
sends, from 16 source hosts per direction instead of 253 (fewer flows: a
DUT's flow cache stays warm), and sets the DUTs up as ``ethip4-ip4base``
does: routes for the two test networks.
"""

from ndrpdr.families import Family, vppip
from ndrpdr.families.build import cost, setup, src_range_traffic
from ndrpdr.families.vppsetup import VppCommands
from ndrpdr.profiles import Profile

FAMILIES = [
    Family(
        id="ethip4-ip4lab16",
        tags=("ETH", "IP4FWD", "LAB"),
        profile=Profile(
            name="ethip4-ip4lab16",
            description="Ethernet/IPv4 (proto 61), 16 flows per direction, DUT routes IPv4",
            layer="L3",
            # IPv4, from host .2 on of each direction's network, 16 source hosts
            directions=src_range_traffic(4, 2, 16),
            # what one packet costs the simulated DUT: used only on the simulator
            cost=cost(145.0, "as ethip4-ip4base: a lab's guess"),
        ),
        setup=setup(
            # the forwarding mode each local or lab DUT driver runs it with
            {"linux": "ip4base", "testpmd": "ip4base", "l3fwd": "ip4base", "ovs": "ip4base"},
            # VPP: the CLI lines that set it up and take it down
            vpp=VppCommands((), vppip.ip4_base, vppip.ip4_base_undo),
        ),
    )
]
