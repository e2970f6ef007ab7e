"""Families with a second VPP over memif: CSIT's ``-eth-2memif-1dcr`` (one "Docker container").

The DUT's VPP forwards between a TG port and a memif interface, the
second VPP (CSIT's container; here a VPP in a network namespace of its own
on the DUT's host) forwards between its two memif interfaces, and back:
TG -> DUT port 1 -> memif1 -> VPP 2 -> memif2 -> DUT port 2 -> TG. The
traffic is CSIT's ``trex-stl-ethip4-ip4src254`` (``ndrpdr.families.kinds.l2.defs``).

``eth-l2xcbase-eth-2memif-1dcr``: both VPPs cross-connect;
``eth-l2bdbasemaclrn-eth-2memif-1dcr``: both bridge with learning;
``ethip4-ip4base-eth-2memif-1dcr``: both route IPv4;
``eth-l2bdbasemaclrn-eth-2memif-dma-1dcr`` (2-node): bridges, the memif
copies on the node's Intel DSA (CSIT's ``chain_dma``,
``ndrpdr.families.kinds.memif.vpp``); a node without a DSA in its topology
entry (CSIT's ``bus`` field, model Intel-DSA) skips it, naming it.

The second VPP is CSIT's container (``ndrpdr.dut.vpp.peer``,
``ndrpdr.dut.vpp.peerthreads``): as many workers as the DUT's, on
physical cores of its own after the DUT's, polling, CSIT's container
startup sections; both VPPs' memifs have one queue per DUT worker each
way. A node without the CPUs for both VPPs skips the test, naming them
(``Nc`` needs ``2N + 2`` physical cores besides the system's).

Costs (sim): every frame crosses two VPPs and two memif copies; relative to
``ethip4-ip4base`` (general knowledge of CSIT's published reports,
unverified) 0.3-0.5. The figures sit in that range. With the DSA doing the
memif master's copies (our choice, unverified) the core saves most of a
copy: 85 % of the bridge's cycles (``DMA_COST``), and its per-byte cost
with it.
"""

from __future__ import annotations

from ndrpdr.families.build import CSIT_RENUMBERED, cost, setup, src_range_traffic, vpp_only
from ndrpdr.families.kinds.memif.vpp import DMA_PLUGIN, MemifVpp
from ndrpdr.families.model import Family
from ndrpdr.profiles import Layer, Profile

#: The DMA family's cycles: a factor on the bridge's (the DSA copies for the core).
DMA_COST = 0.85


def _memif(base: str, tags: tuple[str, ...], layer: Layer, what: str, cycles: float,
           forwarding: str, duts: tuple[int, ...] = (1, 2), *,
           dma: bool = False) -> Family:  # fmt: skip
    family = f"{base}-eth-2memif{'-dma' if dma else ''}-1dcr"
    plugins = ("memif", DMA_PLUGIN) if dma else ("memif",)
    return Family(
        csit_profile="trex-stl-ethip4-ip4src254",
        csit_differences=CSIT_RENUMBERED,
        id=family,
        tags=(*tags, "MEMIF", "DOCKER", *(("DMA",) if dma else ())),
        duts=duts,
        plugins=plugins,
        profile=Profile(
            name=family,
            description=f"Ethernet/IPv4 (proto 61), 254 flows per direction, the DUT's VPP and a "
            f"second VPP over two memif interfaces both {what}"
            + (", the memif copies on a DSA" if dma else ""),
            layer=layer,
            directions=src_range_traffic(4, 1, 254),
            cost=cost(
                cycles * DMA_COST if dma else cycles,
                f"{base} through two VPPs and two memif copies"
                + (", the DSA doing them: 0.85x" if dma else ""),
            ),
        ),
        setup=setup(
            {"sim": "l2xc" if layer == "L2" else "ip4base"},
            vpp=MemifVpp(forwarding, dma=dma, plugins=plugins),
            reasons=vpp_only(
                f"{family} chains two VPPs over memif: the {{driver}} driver has no memif "
                "(VPP only)"
            ),
        ),
        note=(
            "the second VPP (CSIT's container) runs under unshare --net on the DUT's host, "
            "joined by two memifs, with as many workers as the DUT's on CPUs of its own "
            "(a node without them skips the test); it is started and ended with each test"
            + (
                "; the node's DSA (its topology entry's bus field, as CSIT's; a node without "
                "one skips the test) gets a work queue per worker before VPP starts, and the "
                "DUT's VPP, the memif master, copies with it (CSIT's master is its container's "
                "VPP)"
                if dma
                else ""
            )
        ),
    )


#: Where this kind's families come in the list of every family (``registry``).
ORDER = 60

FAMILIES = [
    _memif("eth-l2xcbase", ("ETH", "L2XCFWD", "BASE"), "L2", "cross-connect", 362.0, "l2xc"),
    _memif(
        "eth-l2bdbasemaclrn", ("ETH", "L2BDMACLRN", "BASE"), "L2", "bridge", 414.0, "l2bd", (1,)
    ),
    _memif("ethip4-ip4base", ("ETH", "IP4FWD", "BASE"), "L3", "route IPv4", 453.0, "ip4"),
    _memif(
        "eth-l2bdbasemaclrn",
        ("ETH", "L2BDMACLRN", "BASE"),
        "L2",
        "bridge",
        414.0,
        "l2bd",
        (1,),
        dma=True,
    ),
]
