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
- ``tnlswasync-scheduler``: VPP's async crypto mode, the crypto work
  handed to workers by the ``crypto_sw_scheduler`` plugin (CSIT's
  ``ethip4ipsec{1,8}tnlswasync-scheduler-ip4base-int-*``, and with
  ``-udir`` ``ethip4ipsec{1,2,4,8}tnlswasync-scheduler-...``);
- ``tnlhwasync``: VPP's async crypto mode with the crypto on the node's
  QAT (CSIT's ``ethip4ipsec{4,10000}tnlhwasync-ip4base-{int,policy}-*``,
  ``-policy-fastpath-``: the SPD fast path); a node without a QAT in its
  topology entry (CSIT's ``cryptodev``) skips them, naming it;
- ``-udir`` (2-node, CSIT's ``2n1l-...-udir`` suites,
  ``trex-stl-ethip4-ip4dst<N>-udir``): direction 0 only; DUT1 encrypts it
  into the tunnels and sends the ESP packets to the TG's second port,
  which counts them (the tunnels' far end is the TG). CSIT's three
  ``ethip4ipsec40tnlsw-1atnl-ip4base-int-*-udir-reconf`` suites are not
  families here: their test (``RECONF``) finds the throughput, then adds a
  41st tunnel under traffic at that rate and reports the loss it causes,
  a test type outside NDRPDR, MRR and soak;
- the algorithm: ``aes256gcm`` (AEAD) or ``aes128cbc-hmac512sha`` and, for
  the anti-replay set, CSIT's eleven ciphers and integrity algorithms.

Costs (sim), relative to ``ethip4-ip4base`` (general knowledge of CSIT's
published reports, unverified): AES-256-GCM with 4 tunnels 0.2-0.3 at 64B
(580 cycles a packet here: 0.25x), AES-CBC with HMAC-SHA-512 about half of
GCM with a steeper per-byte cost, 10000 tunnels below 4, policy mode with
10000 tunnels far below interface mode and its flow cache winning part of
it back. The figures follow that.

Hardware async (our choice, general knowledge, unverified): the QAT does
the cipher, so the core pays for the packet and the hand-off to and from
the device but not for the bytes: 90 % of the software cycles at 64B
(``HW_ASYNC_COST``) and 0.15 cycles a byte above 64 (``HW_PER_BYTE``),
whatever the algorithm; the SPD fast path (a hash of the policies) costs
less than the flow cache's misses with 10000 tunnels (``FAST_PATH_CYCLES``).
"""

from __future__ import annotations

from ndrpdr.families.build import cost, setup, vpp_only
from ndrpdr.families.kinds.ipsec.vpp import SCHEDULER_PLUGINS, ipsec_vpp
from ndrpdr.families.model import Family
from ndrpdr.profiles import ANY_HOST_INTERNAL, Headers, Profile, Vary

#: (cycles per 64 B packet, cycles per byte above 64) of each algorithm, AES-NI assumed.
ALGORITHMS: dict[str, tuple[float, float]] = {
    "aes256gcm": (580.0, 1.4),
    "aes128gcm": (555.0, 1.2),
    "aes128cbc-hmac512sha": (1096.0, 6.0),
    "aes128cbc-hmac256sha": (1000.0, 5.0),
    "aes128cbc-hmac96sha": (935.0, 4.5),
    "aes256cbc-hmac256sha": (1064.0, 5.5),
    "aes256cbc-hmac96sha": (1000.0, 5.0),
    "aes128ctr-hmac256sha": (903.0, 4.0),
    "aes128ctr-hmac96sha": (838.0, 3.5),
    "aes128nullgmac": (529.0, 1.0),
    "aes256nullgmac": (555.0, 1.2),
    "none-hmac96sha": (452.0, 2.5),
}
#: What VPP's async mode with the software crypto scheduler costs on top (hand-offs, frames of
#: crypto work): a factor on the cycles (general knowledge, unverified).
SCHEDULER_COST = 1.15
#: Hardware async crypto: a factor on the software cycles at 64B (the core hands the packet
#: to the QAT and back), and the cycles per byte above 64 (the QAT ciphers the bytes).
HW_ASYNC_COST = 0.9
HW_PER_BYTE = 0.15
#: The SPD fast path's table cycles with many tunnels (a hash lookup, not an SPD walk).
FAST_PATH_CYCLES = 300.0
#: CSIT's algorithms of its route-based -udir suites.
UDIR_ALGORITHMS = ("aes128cbc-hmac512sha", "aes128gcm", "aes256gcm")
#: CSIT's tunnel counts of its route-based software -udir suites.
UDIR_TUNNELS = (1, 4, 40, 1000, 10000, 40000)
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


def _ipsec(
    tunnels: int,
    kind: str,
    algorithm: str,
    suffix: str = "",
    *,
    scheduler: bool = False,
    hw_async: bool = False,
) -> Family:
    mode = "hwasync" if hw_async else "swasync-scheduler" if scheduler else "sw"
    family = f"ethip4ipsec{tunnels}tnl{mode}-{kind}-{algorithm}{suffix}"
    cycles, per_byte = ALGORITHMS[algorithm]
    if scheduler:
        cycles *= SCHEDULER_COST
    if hw_async:
        cycles, per_byte = cycles * HW_ASYNC_COST, HW_PER_BYTE
    table = 0.0 if tunnels <= 4 else (40.0 if tunnels <= 40 else 180.0)
    if "policy" in kind and tunnels > 40:  # a linear SPD walk; the flow cache skips most of it
        walk = {"-flow-cache": 400.0, "-fastpath": FAST_PATH_CYCLES}
        table += next((v for k, v in walk.items() if kind.endswith(k)), 1600.0)
    tags = [f"TNL_{tunnels}", "IP4FWD", "IPSEC", "IPSECHW" if hw_async else "IPSECSW"]
    # CSIT's 2n1l hwasync suites have no ASYNC tag; its 2n1l scheduler ones have it
    tags += [*(("ASYNC",) if scheduler or (hw_async and suffix != "-udir") else ())]
    tags.append("IPSECINT" if kind.endswith("-int") else "IPSECTUN")
    if kind.endswith("-flow-cache"):
        tags.append("SPD_FLOW_CACHE")
    if kind.endswith("-fastpath"):
        tags.append("FASTPATH")
    scale = "BASE" if tunnels == 1 else "SCALE"  # CSIT's: one tunnel is a base test
    tags += [scale, *(("SCHEDULER",) if scheduler else ()), *ALGORITHM_TAGS[algorithm]]
    if kind.startswith("udp"):
        tags.append("UDP_ENCAP")
    if kind.startswith("udp-ar"):
        tags.append("ANTI_REPLAY")
    if suffix:
        tags.append(suffix.strip("-").upper().replace("-", "_"))
    udir = suffix == "-udir"
    between = "DUT1 and the TG (direction 0 only)" if udir else "DUT1 and DUT2"
    return Family(
        csit_profile=f"trex-stl-ethip4-ip4dst{tunnels}{'-udir' if udir else ''}",
        id=family,
        tags=tuple(dict.fromkeys(tags)),
        duts=(1,) if udir else (2,),
        plugins=SCHEDULER_PLUGINS if scheduler else (),
        profile=Profile(
            name=family,
            description=f"Ethernet/IPv4 (proto 61), {tunnels} destinations per direction, "
            f"{tunnels} IPsec ({algorithm}) tunnels between {between}"
            + (", crypto in VPP's async mode, scheduled to workers" if scheduler else "")
            + (", crypto in VPP's async mode on a QAT" if hw_async else ""),
            layer="L3",
            directions=_headers(tunnels),
            unidirectional=udir,
            cost=cost(
                cycles,
                f"CSIT 64B-1c IPsec {algorithm} "
                f"{'on a QAT (async)' if hw_async else 'in software'}, {tunnels} tunnels",
                cycles_per_byte=per_byte,
                table_cycles=table,
            ),
        ),
        note=(
            (
                "VPP on a 2-node chain (runs on topologies/local-vpp.yaml), DUT1 alone: it "
                "encrypts direction 0 into the tunnels towards the TG's second port"
                + ("; needs a lab node with a QAT" if hw_async else "")
                if udir
                else "VPP on a 3-node chain of lab nodes with a QAT each (their topology entries' "
                "cryptodev, as CSIT's; a node without one skips the test): its virtual "
                "functions are made and bound to vfio-pci before VPP starts, one per worker "
                "goes to VPP's DPDK cryptodev engine, IPsec runs in async mode"
                if hw_async
                else "VPP on a 3-node chain (runs on topologies/local-vpp-3n.yaml); crypto in "
                "software (VPP v26.06 loads its native and openssl crypto engines itself: "
                "no plugin)"
            )
            + (
                "; more than 1000 tunnels: startup.conf gets a 256 MiB statistics segment and a "
                "1 GiB main heap (10000 tunnels: about 200 MiB of heap, 3.4 s to set up here)"
                + ("; above 10000 a 2 GiB heap (not measured)" if tunnels > 10000 else "")
                if tunnels > 1000
                else ""
            )
            + (
                "; async crypto: the crypto_sw_scheduler plugin hands the crypto work to the "
                "workers; with one worker it forwards and does the crypto, with more worker 0 "
                "forwards (all RX queues, crypto off) and the others do the crypto (CSIT's "
                "suites start at 2 cores)"
                if scheduler
                else ""
            )
            + (
                "; with the SPD flow cache on, VPP v26.06 takes about 15.5 ms per SPD entry "
                "(measured: 1000 tunnels, 2000 entries, 31 s), so 10000 tunnels take some 5 min "
                "per DUT to set up: left out of the real tests, run it in a lab"
                if "flow-cache" in kind
                else ""
            )
            + (
                "; the SPD fast path (startup.conf ipsec: fast path on, flow caches off, "
                f"{tunnels * 10} buckets)"
                if "fastpath" in kind
                else ""
            )
        ),
        setup=setup(
            vpp=ipsec_vpp(tunnels, kind, algorithm, suffix, scheduler=scheduler, hw_async=hw_async),
            reasons=vpp_only(f"the {{driver}} driver has no IPsec set-up for {family} (VPP only)"),
        ),
    )


#: Where this kind's families come in the list of every family (``registry``).
ORDER = 80

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
    *(
        _ipsec(n, "ip4base-int", alg, scheduler=True)
        for n in (1, 8)
        for alg in ("aes256gcm", "aes128cbc-hmac512sha")
    ),
    _ipsec(4, "ip4base-int", "aes256gcm", hw_async=True),
    _ipsec(4, "ip4base-policy", "aes256gcm", hw_async=True),
    _ipsec(10000, "ip4base-int", "aes256gcm", hw_async=True),
    _ipsec(10000, "ip4base-policy-fastpath", "aes256gcm", hw_async=True),
    # 2-node, direction 0 only (CSIT's 2n1l -udir suites)
    *(_ipsec(n, "ip4base-int", alg, "-udir") for n in UDIR_TUNNELS for alg in UDIR_ALGORITHMS),
    *(_ipsec(n, "ip4base-policy", "aes256gcm", "-udir") for n in (1, 4, 40, 1000)),
    *(
        _ipsec(n, "ip4base-int", alg, "-udir", hw_async=True)
        for n in (1, 4, 1000)
        for alg in UDIR_ALGORITHMS
    ),
    *(_ipsec(n, "ip4base-policy", "aes256gcm", "-udir", hw_async=True) for n in (1, 1000)),
    *(
        _ipsec(n, "ip4base-int", alg, "-udir", scheduler=True)
        for n in (1, 2, 4, 8)
        for alg in UDIR_ALGORITHMS
    ),
]
