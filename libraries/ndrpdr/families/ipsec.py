"""3-node IPsec families in software: DUT1 and DUT2 hold N ESP tunnels between them.

Traffic (CSIT's ``trex-stl-ethip4-ip4dst<N>``): Ethernet/IPv4 (proto 61),
each direction from one source to N destinations in order (direction 0
from 10.0.0.1 to 20.0.0.0 on, direction 1 from 20.0.0.1 to 10.0.0.0 on),
so each destination rides its own tunnel. Variants:

- ``-int-``: route-based (``ipip`` / ``ipsec`` tunnel interfaces, one SA
  pair each); ``-policy-``: policy-based (SPD entries), ``-flow-cache-``
  with the SPD flow cache on;
- ``-udp-``: ESP in UDP (NAT traversal); ``-ar-``: anti-replay on;
- ``-reassembly``: frames above the tunnel MTU are fragmented and
  reassembled;
- the algorithm: ``aes256gcm`` (AEAD) or ``aes128cbc-hmac512sha`` and, for
  the anti-replay set, CSIT's eleven ciphers and integrity algorithms.

Costs (sim): CSIT's results put 64B-1c AES-256-GCM with 4 tunnels near
2.5-3 Mpps per core (about 900 cycles a packet, ~1.5 cycles per extra
byte), AES-CBC with HMAC-SHA-512 about half of that with a steep per-byte
cost, and 10000 tunnels some 30 % below 4; magnitudes.
"""

from __future__ import annotations

from ndrpdr.families.build import cost, setup
from ndrpdr.families.model import Family
from ndrpdr.profiles import ANY_HOST_INTERNAL, Headers, Profile, Vary

#: (cycles per 64 B packet, cycles per byte above 64) of each algorithm, AES-NI assumed.
ALGORITHMS: dict[str, tuple[float, float]] = {
    "aes256gcm": (900.0, 1.4),
    "aes128gcm": (860.0, 1.2),
    "aes128cbc-hmac512sha": (1700.0, 6.0),
    "aes128cbc-hmac256sha": (1550.0, 5.0),
    "aes128cbc-hmac96sha": (1450.0, 4.5),
    "aes256cbc-hmac256sha": (1650.0, 5.5),
    "aes256cbc-hmac96sha": (1550.0, 5.0),
    "aes128ctr-hmac256sha": (1400.0, 4.0),
    "aes128ctr-hmac96sha": (1300.0, 3.5),
    "aes128nullgmac": (820.0, 1.0),
    "aes256nullgmac": (860.0, 1.2),
    "none-hmac96sha": (700.0, 2.5),
}
#: CSIT's anti-replay suites' algorithms (``ethip4ipsec10000tnlsw-udp-ar-ip4base-int-*``).
AR_ALGORITHMS = (
    "aes128cbc-hmac256sha",
    "aes128cbc-hmac96sha",
    "aes128ctr-hmac256sha",
    "aes128ctr-hmac96sha",
    "aes128gcm",
    "aes128nullgmac",
    "aes256cbc-hmac256sha",
    "aes256cbc-hmac96sha",
    "aes256gcm",
    "aes256nullgmac",
    "none-hmac96sha",
)

#: CSIT's tags of each algorithm (cipher, then integrity), as its suites write them.
ALGORITHM_TAGS: dict[str, tuple[str, ...]] = {
    "aes256gcm": ("AES_256_GCM", "AES"),
    "aes128cbc-hmac512sha": ("AES_128_CBC", "HMAC_SHA_512", "HMAC", "AES"),
    "aes128cbc-hmac256sha": ("AES_128_CBC", "AES", "HMAC_SHA_256"),
    "aes128cbc-hmac96sha": ("AES_128_CBC", "AES", "HMAC_SHA_96"),
    "aes128ctr-hmac256sha": ("AES_128_CTR", "AES", "HMAC_SHA_256"),
    "aes128ctr-hmac96sha": ("AES_128_CTR", "AES", "HMAC_SHA_96"),
    "aes128gcm": ("AES_128_GCM", "AES"),
    "aes128nullgmac": ("AES_128_NULL_GMAC", "AES"),
    "aes256cbc-hmac256sha": ("AES_256_CBC", "AES", "HMAC_SHA_256"),
    "aes256cbc-hmac96sha": ("AES_256_CBC", "AES", "HMAC_SHA_96"),
    "aes256nullgmac": ("AES_256_NULL_GMAC", "AES"),
    "none-hmac96sha": ("HMAC_SHA_96",),
}


def _headers(tunnels: int) -> tuple[Headers, Headers]:
    def one(src: str, dst: str) -> Headers:
        return Headers(4, src, dst, ANY_HOST_INTERNAL, vary=(Vary("ip.dst", tunnels),))

    return one("10.0.0.1", "20.0.0.0"), one("20.0.0.1", "10.0.0.0")


def _ipsec(tunnels: int, kind: str, algorithm: str, suffix: str = "") -> Family:
    family = f"ethip4ipsec{tunnels}tnlsw-{kind}-{algorithm}{suffix}"
    cycles, per_byte = ALGORITHMS[algorithm]
    table = 0.0 if tunnels <= 4 else (60.0 if tunnels <= 40 else 280.0)
    tags = [f"TNL_{tunnels}", "IP4FWD", "IPSEC", "IPSECSW"]
    tags.append("IPSECINT" if kind.endswith("-int") else "IPSECTUN")
    if kind.endswith("-flow-cache"):
        tags.append("SPD_FLOW_CACHE")
    tags += ["SCALE", *ALGORITHM_TAGS[algorithm]]
    if kind.startswith("udp"):
        tags.append("UDP_ENCAP")
    if kind.startswith("udp-ar"):
        tags.append("ANTI_REPLAY")
    if suffix:
        tags.append(suffix.strip("-").upper().replace("-", "_"))
    return Family(
        id=family,
        tags=tuple(dict.fromkeys(tags)),
        duts=(2,),
        profile=Profile(
            name=family,
            description=f"Ethernet/IPv4 (proto 61), {tunnels} destinations per direction, "
            f"{tunnels} IPsec ({algorithm}) tunnels between DUT1 and DUT2",
            layer="L3",
            directions=_headers(tunnels),
            cost=cost(
                cycles,
                f"CSIT 64B-1c IPsec {algorithm} in software, {tunnels} tunnels",
                cycles_per_byte=per_byte,
                table_cycles=table,
            ),
        ),
        setup=setup(
            family,
            reasons={
                d: f"the {d} driver has no IPsec set-up for {family} (VPP only)"
                for d in ("linux", "testpmd", "l3fwd", "ovs")
            },
        ),
    )


FAMILIES = [
    *(
        _ipsec(n, "ip4base-int", alg)
        for n in (4, 40, 1000, 10000)
        for alg in ("aes256gcm", "aes128cbc-hmac512sha")
    ),
    _ipsec(4, "ip4base-policy", "aes256gcm"),
    _ipsec(10000, "ip4base-policy", "aes256gcm"),
    _ipsec(10000, "ip4base-policy-flow-cache", "aes256gcm"),
    _ipsec(10000, "udp-ip4base-int", "aes256gcm"),
    *(_ipsec(10000, "udp-ar-ip4base-int", alg) for alg in AR_ALGORITHMS),
    _ipsec(1000, "ip4base-int", "aes256gcm", "-reassembly"),
]
