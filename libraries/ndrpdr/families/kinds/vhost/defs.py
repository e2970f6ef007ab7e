"""Families with a guest over vhost-user: CSIT's ``-eth-2vhostvr1024-1vm`` ids (one VM).

The DUT's VPP forwards between a TG port and a vhost-user interface, the
guest (CSIT's VM) between its two virtio ports, and back: TG -> DUT port 1
-> vhost 1 -> guest -> vhost 2 -> DUT port 2 -> TG, with CSIT's virtio
rings of 1024 descriptors (``vr1024``). Traffic: CSIT's
``trex-stl-ethip4-ip4src254`` for the L2 ids, ``-ip4src253`` for IPv4.

- ``eth-l2xcbase-eth-2vhostvr1024-1vm``: the DUT cross-connects, the guest
  is testpmd in io mode (CSIT's ``testpmd_io``);
- ``eth-l2bdbasemaclrn-eth-2vhostvr1024-1vm``: the DUT bridges with
  learning, the guest testpmd io;
- their ``-vppl2xc`` variants: the guest is a VPP cross-connecting its two
  ports (CSIT's ``vppl2xc_2vhostvr1024``);
- ``ethip4-ip4base-eth-2vhostvr1024-1vm-vppip4``: the DUT routes IPv4 in
  two VRFs, the guest is a VPP routing between its ports
  (``vppip4noarp_2vhostvr1024``).

No VM is needed: the guest is stood in for by a DPDK process on
``virtio_user`` ports listening on the two sockets (``ndrpdr.dut.guest``),
testpmd or a VPP with the dpdk plugin, on CPUs of its own as CSIT's VM
(its main thread on the next physical core after the DUT's workers, as
many data-plane cores as the DUT's); with ``guest_qemu``,
``guest_kernel`` and ``guest_initrd`` in the node's options the driver
starts a QEMU VM as CSIT does. A node without the guest's program or the CPUs skips the test
naming what is missing.

Costs (sim): every frame crosses the DUT's VPP twice and two vhost-user
copies each way, the guest's forwarding on top; relative to
``ethip4-ip4base`` (general knowledge of CSIT's published reports,
unverified) 0.3-0.5. The figures sit in that range, the bridge and the
routing guest lower than the cross-connects.
"""

from __future__ import annotations

from ndrpdr.families.build import CSIT_RENUMBERED, relative_cost, setup, src_range_traffic, vpp_only
from ndrpdr.families.kinds.vhost.vpp import VhostVpp
from ndrpdr.families.model import Family
from ndrpdr.profiles import Layer, Profile

_GUEST_TEXT = {
    "testpmd_io": "testpmd (io forwarding)",
    "vppl2xc": "a VPP cross-connecting its two ports",
    "vppip4noarp": "a VPP routing IPv4 between its two ports",
}
_SUFFIX = {"testpmd_io": "", "vppl2xc": "-vppl2xc", "vppip4noarp": "-vppip4"}
_NF_TAG = {"testpmd_io": "NF_TESTPMD", "vppl2xc": "NF_VPPL2XC", "vppip4noarp": "NF_VPPIP4"}


def _vhost(base: str, tags: tuple[str, ...], layer: Layer, what: str, cycles: float,
           forwarding: str, vnf: str) -> Family:  # fmt: skip
    family = f"{base}-eth-2vhostvr1024-1vm{_SUFFIX[vnf]}"
    flows, first = (254, 1) if layer == "L2" else (253, 2)
    return Family(
        csit_profile=f"trex-stl-ethip4-ip4src{flows}",
        csit_differences=CSIT_RENUMBERED,
        id=family,
        tags=(*tags, "VHOST", "1VM", "VHOST_1024", _NF_TAG[vnf]),
        duts=(1,),
        plugins=("vhost",),
        profile=Profile(
            name=family,
            description=f"Ethernet/IPv4 (proto 61), {flows} flows per direction, the DUT's VPP "
            f"{what} through two vhost-user interfaces to a guest running {_GUEST_TEXT[vnf]}",
            layer=layer,
            directions=src_range_traffic(4, first, flows),
            cost=relative_cost(cycles, f"{base} through a guest and two vhost-user copies"),
        ),
        setup=setup(
            {"sim": "l2xc" if layer == "L2" else "ip4base"},
            vpp=VhostVpp(forwarding, vnf),
            reasons=vpp_only(
                f"{family} joins VPP to a guest over vhost-user: the {{driver}} driver has no "
                "vhost-user (VPP only)"
            ),
        ),
        note=(
            "the guest (CSIT's VM) is a DPDK process on virtio_user ports (testpmd, or a VPP "
            "with the dpdk plugin) on CPUs of its own, or a QEMU VM when the node's options "
            "name guest_qemu, guest_kernel and guest_initrd; a node without its program or the "
            "CPUs skips the test; it is started and ended with each test"
        ),
    )


#: Where this kind's families come in the list of every family (``registry``).
ORDER = 65

_L2XC: tuple[str, tuple[str, ...], Layer, str] = (
    "eth-l2xcbase",
    ("ETH", "L2XCFWD", "BASE"),
    "L2",
    "cross-connects",
)
_L2BD: tuple[str, tuple[str, ...], Layer, str] = (
    "eth-l2bdbasemaclrn",
    ("ETH", "L2BDMACLRN", "BASE"),
    "L2",
    "bridges",
)

FAMILIES = [
    _vhost(*_L2XC, 400.0, "l2xc", "testpmd_io"),
    _vhost(*_L2BD, 445.0, "l2bd", "testpmd_io"),
    _vhost(*_L2XC, 420.0, "l2xc", "vppl2xc"),
    _vhost(*_L2BD, 465.0, "l2bd", "vppl2xc"),
    _vhost(
        "ethip4-ip4base",
        ("ETH", "IP4FWD", "BASE"),
        "L3",
        "routes IPv4",
        480.0,
        "ip4",
        "vppip4noarp",
    ),
]
