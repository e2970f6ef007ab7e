"""2-node GENEVE families: the DUT routes IPv4 into N GENEVE tunnels and out of them.

``ethip4--ethip4udpgeneve-{1,4,16,64,256,1024}tun-ip4base`` (CSIT's
``tests/vpp/perf/ip4_tunnels``, its ``2n1l-`` suites: 2-node) send CSIT's
``trex-stl-ethip4-geneve-<N>t``, in CSIT's own addresses (the
destinations do not fit a /24):

- direction 0 (TG port 1 -> DUT): Ethernet/IPv4 (proto 61) from
  10.128.1.0 to 10.0.1.0, source and destination walking N x 256 values
  together; the DUT routes destination 10.0.1.0 + 256 i + j into tunnel
  *i* and sends it to TG port 2 GENEVE-encapsulated;
- direction 1 (TG port 2 -> DUT): GENEVE-encapsulated frames
  (``ndrpdr.profiles.traffic.Tunnel``): outer IPv4 1.1.1.1 -> 1.1.1.2, UDP from
  1024 + k to 6081, VNI 1 + i, inner Ethernet to tunnel *i*'s MAC
  (d0:0b:ee:d0:00:00 + i) from 00:00:00:02:00:00 (TRex's scapy's
  default source, which CSIT's profile leaves unset), inner IPv4 (proto 61) from 10.0.1.0 + k to
  10.128.1.0 + k, for k = 256 i + j over N x 256 values; the DUT
  decapsulates and routes the inner packet to TG port 1. The outer
  source port is CSIT's 1024 + k modulo 2^16, one variable with the
  others (CSIT writes its one flow variable k into every field): N x 256
  values, for 256 tunnels all 65536 (1024 .. 65535, then 0 .. 1023), for
  1024 tunnels those 65536 four times over.

Frame sizes are CSIT's: direction 0 sends the test's frame size;
direction 1's template is padded to 110 B before the frame size, so it
sends frames of max(frame size, 114 B) with FCS (114 B in the 64B test and
for IMIX's 64 B frames); the line rate of the test's frame size is kept
(CSIT counts a 50 B overhead into its max rate). CSIT pads with unseeded
random letters; ours with the frame signature and zeros.

Costs (sim), relative to ``ethip4-ip4base`` (general knowledge of CSIT's
published reports, unverified): encapsulation one way and decapsulation
the other about 0.5-0.6 on the one DUT; 64 and 256 tunnels a little
lower (more routes and adjacencies). The figures follow that; 1024
tunnels (four times 256's routes and adjacencies) half as much again
lower than 256 (an estimate, unverified).
"""

from __future__ import annotations

from ndrpdr.families.build import cost, setup, vpp_only
from ndrpdr.families.kinds.geneve.vpp import (
    FIRST_VNI,
    FROM_TUNNEL,
    LOCAL,
    REMOTE,
    STEP,
    TO_TUNNEL,
    TUNNEL_MAC,
    GeneveVpp,
)
from ndrpdr.families.model import Family
from ndrpdr.profiles import ANY_HOST_INTERNAL, Headers, Profile, Vary
from ndrpdr.profiles.traffic import Tunnel

#: CSIT's tunnel counts (issue 23's list).
TUNNELS = (1, 4, 16, 64, 256, 1024)
#: Cycles per 64 B packet (one DUT), and the table cost of many tunnels.
CYCLES = 270.0
#: The outer UDP source port's first value (it walks 1024 + k modulo 2^16), and its values.
SPORT = 1024
SPORTS = 1 << 16
#: The inner Ethernet source: CSIT's profile leaves it to TRex's scapy, whose default
#: Ethernet source is this (on any TG host: TRex's scapy does not read the host's MACs).
INNER_SRC_MAC = "00:00:00:02:00:00"


def _headers(tunnels: int) -> tuple[Headers, Headers]:
    flows = tunnels * STEP
    to_dut = Headers(
        4, FROM_TUNNEL, TO_TUNNEL, ANY_HOST_INTERNAL,
        vary=(Vary("ip.src", flows), Vary("ip.dst", flows)),
    )  # fmt: skip
    encapsulated = Headers(
        4,
        TO_TUNNEL,
        FROM_TUNNEL,
        ANY_HOST_INTERNAL,
        tunnel=Tunnel(
            src=REMOTE,
            dst=LOCAL,
            vni=FIRST_VNI,
            eth_dst=TUNNEL_MAC,
            eth_src=INNER_SRC_MAC,
            sport=SPORT,
        ),
        vary=(
            Vary("ip.src", flows),
            Vary("ip.dst", flows),
            # 256 tunnels: all 65536, wrapping after 65535; 1024: the same 65536 again and again
            Vary("tunnel.sport", min(flows, SPORTS)),
            Vary("tunnel.vni", tunnels, every=STEP),
            Vary("inner.eth.dst", tunnels, every=STEP),
        ),
    )
    return to_dut, encapsulated


def _geneve(tunnels: int) -> Family:
    family = f"ethip4--ethip4udpgeneve-{tunnels}tun-ip4base"
    table = 0.0 if tunnels <= 16 else 25.0 if tunnels <= 64 else 60.0 if tunnels <= 256 else 90.0
    return Family(
        csit_profile=f"trex-stl-ethip4-geneve-{tunnels}t",
        id=family,
        tags=(
            "ETH",
            "IP4FWD",
            "IP4BASE",
            "UDP",
            "ENCAP",
            "GENEVE_L3MODE",
            "BASE" if tunnels == 1 else "SCALE",  # CSIT's: one tunnel is a base test
            f"GENEVE4_{tunnels}TUN",
        ),
        plugins=("geneve",),
        profile=Profile(
            name=family,
            description=f"Ethernet/IPv4 (proto 61) to the DUT, {tunnels * STEP} flows per "
            f"direction, routed into {tunnels} GENEVE tunnel(s) (L3 mode) towards TG port 2, "
            "which sends GENEVE-encapsulated frames back",
            layer="L3",
            directions=_headers(tunnels),
            cost=cost(CYCLES, f"CSIT 64B-1c GENEVE, {tunnels} tunnels", table_cycles=table),
        ),
        note="VPP on a 2-node chain (runs on topologies/local-vpp.yaml; geneve plugin); the "
        "TG sends direction 1 GENEVE-encapsulated (114 B frames at 64B, as CSIT's)",
        setup=setup(
            vpp=GeneveVpp(tunnels),
            reasons=vpp_only(f"the {{driver}} driver has no GENEVE set-up for {family} (VPP only)"),
        ),
    )


#: Where this kind's families come in the list of every family (``registry``).
ORDER = 150

FAMILIES = [_geneve(n) for n in TUNNELS]
