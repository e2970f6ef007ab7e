"""3-node WireGuard families in software: DUT1 and DUT2 hold N WireGuard tunnels between them.

``ethip4udpwireguard{1,2,4,8,100,1000}tnlsw-ip4base`` (CSIT's
``tests/vpp/perf/ip4_tunnels``, 3-node only) send CSIT's
``trex-stl-ethip4-ip4src<N>ip4dst<N>``: Ethernet/IPv4 (proto 61),
direction 0 from 10.0.0.0 to 20.0.0.0, direction 1 from 20.0.0.0 to
10.0.0.0, source and destination stepping together by 256 through N
values, so each frame of a direction rides tunnel *i* for its ``+ 256 i``
(``ndrpdr.families.kinds.wireguard.vpp``). The DUT - DUT link carries them as
Ethernet/IPv4/UDP/WireGuard (60 B more).
``ethip4udpwireguard{1,2,4,8,100,1000}tnlhwasync-ip4base``: the same
tunnels with WireGuard in VPP's async mode and the crypto on the node's
QAT (CSIT's ``cryptohw`` suites); a node without a QAT in its topology
entry (CSIT's ``cryptodev``) skips them, naming it.

Costs (sim), per DUT, relative to ``ethip4-ip4base`` (general knowledge of
CSIT's published reports, unverified): ChaCha20-Poly1305 in software about
0.1-0.15 at 64B with a steep per-byte cost; 100 and 1000 tunnels somewhat
lower (more peers and routes). The figures follow that. Hardware async
(our choice, unverified): the QAT does ChaCha20-Poly1305, so the core pays
90 % of the software cycles at 64B (the hand-off to and from the device)
and 0.15 cycles a byte above 64 (``HW_ASYNC_COST``, ``HW_PER_BYTE``, as the
IPsec kind's).
"""

from __future__ import annotations

from ndrpdr.families.build import cost, setup, vpp_only
from ndrpdr.families.kinds.ipsec.defs import HW_ASYNC_COST, HW_PER_BYTE
from ndrpdr.families.kinds.wireguard.vpp import STEP, WireguardVpp
from ndrpdr.families.model import Family
from ndrpdr.profiles import ANY_HOST_INTERNAL, Headers, Profile, Vary

#: Cycles per 64 B packet and per byte above 64 of WireGuard in software (per DUT).
CYCLES, CYCLES_PER_BYTE = 1160.0, 3.0
#: CSIT's tunnel counts.
TUNNELS = (1, 2, 4, 8, 100, 1000)


def _headers(tunnels: int) -> tuple[Headers, Headers]:
    def one(src: str, dst: str) -> Headers:
        vary = (Vary("ip.src", tunnels, step=STEP), Vary("ip.dst", tunnels, step=STEP))
        return Headers(4, src, dst, ANY_HOST_INTERNAL, vary=vary)

    return one("10.0.0.0", "20.0.0.0"), one("20.0.0.0", "10.0.0.0")


def _wireguard(tunnels: int, *, hw_async: bool = False) -> Family:
    family = f"ethip4udpwireguard{tunnels}tnl{'hwasync' if hw_async else 'sw'}-ip4base"
    table = 0.0 if tunnels <= 8 else (40.0 if tunnels <= 100 else 180.0)
    cycles, per_byte = (
        (CYCLES * HW_ASYNC_COST, HW_PER_BYTE) if hw_async else (CYCLES, CYCLES_PER_BYTE)
    )
    setup_vpp = WireguardVpp(tunnels, hw_async=hw_async)
    return Family(
        csit_profile=f"trex-stl-ethip4-ip4src{tunnels}ip4dst{tunnels}",
        id=family,
        tags=(f"TNL_{tunnels}", "IP4FWD", "WIREGUARD", *(("ASYNC",) if hw_async else ())),
        duts=(2,),
        plugins=("wireguard",),
        profile=Profile(
            name=family,
            description=f"Ethernet/IPv4 (proto 61), {tunnels} source and destination pairs per "
            f"direction, {tunnels} WireGuard tunnels between DUT1 and DUT2"
            + (", crypto in VPP's async mode on a QAT" if hw_async else ""),
            layer="L3",
            directions=_headers(tunnels),
            cost=cost(
                cycles,
                f"CSIT 64B-1c WireGuard {'on a QAT (async)' if hw_async else 'in software'}, "
                f"{tunnels} tunnels",
                cycles_per_byte=per_byte,
                table_cycles=table,
            ),
        ),
        note=(
            "VPP on a 3-node chain of lab nodes with a QAT each (their topology entries' "
            "cryptodev, as CSIT's; a node without one skips the test; wireguard plugin, "
            "async mode, the QAT's virtual functions to VPP's DPDK cryptodev engine; "
            if hw_async
            else "VPP on a 3-node chain (runs on topologies/local-vpp-3n.yaml; wireguard plugin; "
        )
        + f"the driver waits {setup_vpp.settle_s:.0f} s after the set-up for "
        "the tunnels' handshakes; one still down starts on the first trial's frames)",
        setup=setup(
            vpp=setup_vpp,
            reasons=vpp_only(
                f"the {{driver}} driver has no WireGuard set-up for {family} (VPP only)"
            ),
        ),
    )


#: Where this kind's families come in the list of every family (``registry``).
ORDER = 100

FAMILIES = [
    *(_wireguard(n) for n in TUNNELS),
    *(_wireguard(n, hw_async=True) for n in TUNNELS),
]
