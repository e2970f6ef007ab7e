"""VPP set-up of the 3-node IPsec families: N ESP tunnels in software between DUT1 and DUT2.

DUT1 (``config.position`` 0) and DUT2 (position 1) mirror each other
(after CSIT's ``Initialize IPSec in 3-node circular topology`` and its
IPsecUtil tunnel keywords, in our addresses):

- each DUT's TG port has its plan address and a static neighbour for the
  TG; decrypted traffic leaves there: DUT1 routes 10.0.0.0/8 (direction
  1's destinations), DUT2 20.0.0.0/8 (direction 0's) to its TG;
- the DUT1 - DUT2 link has its plan addresses and static neighbours; the
  tunnel end points sit on ``loop0``: DUT1 has one per tunnel,
  ``100.0.0.1 + 256 i`` (CSIT's), DUT2 one, ``200.0.0.102``; each DUT
  routes the other's end points (100.0.0.0/8, 200.0.0.0/8) over the link;
- tunnel *i* carries destination ``20.0.0.0 + i`` (direction 0) and
  ``10.0.0.0 + i`` (direction 1): the family's traffic
  (``ndrpdr.families.kinds.ipsec.defs``) gives each destination its own tunnel;
- SAs: SPI/SA id ``100000 + i`` from DUT1 to DUT2, ``200000 + i`` back;
  each tunnel has its own keys, derived from the family, the tunnel and the
  direction (both DUTs render the same keys, no secret is shared at run
  time; CSIT draws random ones).

Kinds: ``int`` (route-based): ``create ipip tunnel instance i`` + ``ipsec
tunnel protect`` with the SA pair, tunnels unnumbered to the link port, a
/32 route per destination into its tunnel; ``policy``: SPD 1 on the link
port with ESP bypass entries and, per tunnel, an outbound PROTECT entry
for its destination and an inbound one for its end points (tunnel-mode
SAs);
``flow_cache``: the same, with the SPD flow caches on (startup.conf
``ipsec`` section). ``udp``: ESP in UDP (``udp-encap``, port 4500);
``anti_replay``: ``use-anti-replay``; ``reassembly``: the link's MTU is
1043 B (CSIT's ``MTU_FOR_FRAGMENTATION``: a 1518 B frame's ESP packet
becomes two fragments) and reassembly is on at the receiving port.

``scheduler`` (``tnlswasync-scheduler``): IPsec in VPP's async crypto
mode (``set ipsec async mode on``) with the ``crypto_sw_scheduler``
plugin's engine handing the crypto work to workers (CSIT's "Enable IPSec
Async Mode" and "Set Data Plane And Feature Plane Workers for IPsec"):
with two or more workers, worker 0 is the data-plane worker, all RX
queues on it (``rx_workers``) and its crypto off; the others do the
crypto only. With one worker it does both.

``hw_async`` (``tnlhwasync``): IPsec in VPP's async crypto mode (``set
ipsec async mode on``, CSIT's ``Enable IPSec Async Mode on all VPP DUTs``,
first of the set-up) with the crypto on the node's QAT
(``ndrpdr.dut.accel.QatCrypto``: its virtual functions in startup.conf's
``dpdk`` section, one per worker, as CSIT's ``Add DPDK Cryptodev``); every
worker reads the ports. ``fast_path`` (``-policy-fastpath-``): the SPD
fast path instead of the flow caches (startup.conf ``ipsec``: flow caches
off, fast path on both ways, ``spd-fast-path-num-buckets`` 10 per tunnel,
CSIT's ``Enable IPsec SPD Fast Path IPv4 Inbound and Outbound``).

``udir`` (2-node, direction 0 only: CSIT's ``Initialize IPSec in 2-node
circular topology`` and its tunnel keywords with the TG's second port as
the far end): DUT1 alone, as on a 3-node chain, its link port facing the
TG's second port, whose plan address stands for DUT2's (static neighbour,
the route of the far end points); DUT1 encrypts direction 0 into the
tunnels and the TG counts the ESP packets.

Every command was checked against VPP v26.06's CLI. A key of the wrong
length crashes v26.06 (SIGSEGV in ``ipsec_sa_init``), so ``ALGORITHMS``
holds the key lengths VPP expects and the tests check every key.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import ipaddress

from ndrpdr.dut.accel import HardwareNeed, QatCrypto
from ndrpdr.dut.base import DutError, DutPort, DutTestConfig
from ndrpdr.families.build import large_tables_startup
from ndrpdr.families.model import FamilyDefinitionError
from ndrpdr.families.vppsetup import FreshVpp

#: The plugin of VPP's software crypto scheduler (the async families).
SCHEDULER_PLUGINS = ("crypto_sw_scheduler",)
#: CSIT's SPD fast path buckets per tunnel (``${${n_tunnels}*10}``).
FAST_PATH_BUCKETS_PER_TUNNEL = 10
#: CSIT's MTU of the DUT1 - DUT2 link for the reassembly family [B] (L3 packet).
MTU_FOR_FRAGMENTATION = 1043
#: First SA id / SPI of the tunnels from DUT1 to DUT2, and of those back.
SPI_FORWARD = 100000
SPI_BACKWARD = 200000
#: The tunnel end points: DUT1's first (one per tunnel, 256 apart), DUT2's one.
DUT1_ENDPOINT = "100.0.0.1"
DUT2_ENDPOINT = "200.0.0.102"
ENDPOINT_STEP = 256
#: The destinations of direction 0 and direction 1 (tunnel i carries first + i).
DESTINATIONS = ("20.0.0.0", "10.0.0.0")
#: Above this many tunnels VPP needs a larger statistics segment and main heap [MiB].
LARGE_TUNNELS = 1000
LARGE_HEAP_MB = 1024
#: Above this many tunnels (CSIT's 40000) twice that heap: 10000 tunnels took 203 MiB of it
#: here, so 40000 would take some 800 MiB (an extrapolation: not measured).
HUGE_TUNNELS = 10000
HUGE_HEAP_MB = 2048
#: The end points' and the destinations' ranges (each DUT routes the far side's).
DUT1_ENDPOINTS, DUT2_ENDPOINTS = "100.0.0.0/8", "200.0.0.0/8"
DESTINATION_RANGES = ("20.0.0.0/8", "10.0.0.0/8")


@dataclasses.dataclass(frozen=True)
class Algorithm:
    """One ESP algorithm set as VPP's CLI names it, with key lengths [B] (0: none)."""

    crypto: str | None
    crypto_key_b: int
    integ: str | None = None
    integ_key_b: int = 0

    def words(self, seed: str) -> list[str]:
        """``crypto-alg ... crypto-key ... integ-alg ... integ-key ...`` with keys from ``seed``."""
        out: list[str] = []
        if self.crypto is not None:
            out += ["crypto-alg", self.crypto, "crypto-key", key(f"{seed}/c", self.crypto_key_b)]
        if self.integ is not None:
            out += ["integ-alg", self.integ, "integ-key", key(f"{seed}/i", self.integ_key_b)]
        return out


#: Our family names' algorithms (CSIT's ``${encr_alg}`` / ``${auth_alg}``) in VPP's CLI words.
ALGORITHMS: dict[str, Algorithm] = {
    "aes256gcm": Algorithm("aes-gcm-256", 32),
    "aes128gcm": Algorithm("aes-gcm-128", 16),
    "aes128cbc-hmac512sha": Algorithm("aes-cbc-128", 16, "sha-512-256", 64),
    "aes128cbc-hmac256sha": Algorithm("aes-cbc-128", 16, "sha-256-128", 32),
    "aes128cbc-hmac96sha": Algorithm("aes-cbc-128", 16, "sha1-96", 20),
    "aes256cbc-hmac256sha": Algorithm("aes-cbc-256", 32, "sha-256-128", 32),
    "aes256cbc-hmac96sha": Algorithm("aes-cbc-256", 32, "sha1-96", 20),
    "aes128ctr-hmac256sha": Algorithm("aes-ctr-128", 16, "sha-256-128", 32),
    "aes128ctr-hmac96sha": Algorithm("aes-ctr-128", 16, "sha1-96", 20),
    "aes128nullgmac": Algorithm("aes-null-gmac-128", 16),
    "aes256nullgmac": Algorithm("aes-null-gmac-256", 32),
    "none-hmac96sha": Algorithm(None, 0, "sha1-96", 20),
}


def key(seed: str, length_b: int) -> str:
    """``length_b`` bytes derived from ``seed``, in hex (the same on every DUT that renders it)."""
    return hashlib.shake_256(seed.encode()).hexdigest(length_b)


@functools.cache
def _as_int(address: str) -> int:
    return int(ipaddress.IPv4Address(address))


def _add(address: str, number: int) -> str:
    # The base is parsed once: 40000 tunnels add to the same few bases 200000 times.
    return str(ipaddress.IPv4Address(_as_int(address) + number))


def _plain(address: str) -> str:
    return str(ipaddress.IPv4Interface(address).ip)


@dataclasses.dataclass(frozen=True)
class IpsecVpp(FreshVpp):
    """A 3-node IPsec family's VPP set-up (the module docstring says what it builds).

    ``family``: the CSIT id (named in errors and in the keys' seed);
    ``kind``: "int" (route-based) or "policy" (SPD).
    """

    tunnels: int
    algorithm: str
    kind: str = "int"
    udp: bool = False
    anti_replay: bool = False
    flow_cache: bool = False
    reassembly: bool = False
    scheduler: bool = False
    hw_async: bool = False
    fast_path: bool = False
    udir: bool = False
    plugins: tuple[str, ...] = ()

    def check(self) -> None:
        """FamilyDefinitionError naming the family: unknown algorithm or kind, too many tunnels."""
        if self.algorithm not in ALGORITHMS:
            raise FamilyDefinitionError(
                f"family {self.family}: algorithm {self.algorithm!r} unknown to VPP's CLI"
            )
        if self.kind not in ("int", "policy"):
            raise FamilyDefinitionError(
                f"family {self.family}: kind {self.kind!r} is neither 'int' nor 'policy'"
            )
        if self.scheduler and self.hw_async:
            raise FamilyDefinitionError(
                f"family {self.family}: async crypto in software (scheduler) or on a QAT "
                "(hw_async), not both"
            )
        if self.tunnels < 1 or self.tunnels * ENDPOINT_STEP >= 1 << 24:
            raise FamilyDefinitionError(
                f"family {self.family}: {self.tunnels} tunnels do not fit 100.0.0.0/8"
            )

    @property
    def startup(self) -> str:
        """startup.conf sections: the SPD flow caches (``-flow-cache-``); room for many tunnels.

        Each tunnel is an interface with its own counters: VPP v26.06's
        default statistics segment runs out before 8000 tunnels (VPP
        aborts), so above ``LARGE_TUNNELS`` the segment gets
        ``LARGE_STATSEG_MB`` and the main heap ``LARGE_HEAP_MB`` (10000
        tunnels used 203 MiB of it here), above ``HUGE_TUNNELS`` ``HUGE_HEAP_MB``.
        """
        text = ""
        if self.flow_cache:
            text += (
                "ipsec {\n  ipv4-outbound-spd-flow-cache on\n  ipv4-inbound-spd-flow-cache on\n}\n"
            )
        if self.fast_path:
            buckets = self.tunnels * FAST_PATH_BUCKETS_PER_TUNNEL
            text += (
                "ipsec {\n  ipv4-outbound-spd-flow-cache off\n  ipv4-inbound-spd-flow-cache off\n"
                "  ipv4-outbound-spd-fast-path on\n  ipv4-inbound-spd-fast-path on\n"
                f"  spd-fast-path-num-buckets {buckets}\n}}\n"
            )
        if self.tunnels > LARGE_TUNNELS:
            heap_mb = HUGE_HEAP_MB if self.tunnels > HUGE_TUNNELS else LARGE_HEAP_MB
            text += large_tables_startup(heap_mb)
        return text

    @property
    def heap_size_mult(self) -> int:
        """FD.io CSIT's multiple of its 3 GiB main heap: its policy (SPD) suites with 40000
        tunnels or more 4, with 10000, an SPD flow cache or the fast path 2; route-based
        ones 1."""
        if self.kind != "policy":
            return 1
        if self.tunnels >= 40000:
            return 4
        return 2 if self.tunnels >= 10000 or self.flow_cache or self.fast_path else 1

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The vppctl lines for DUT1 (position 0) or DUT2 (position 1) of a 3-node chain."""
        chain = 1 if self.udir else 2
        if config.chain != chain or config.position not in range(chain):
            raise DutError(
                f"family {self.family}: runs on a {chain + 1}-node chain "
                f"({'DUT1' if self.udir else 'DUT1 and DUT2'}); this DUT is "
                f"number {config.position + 1} of {config.chain}"
            )
        first = config.position == 0
        tg_index, link_index = (0, 1) if first else (1, 0)
        tg_port, link_port = config.ports[tg_index], config.ports[link_index]
        tg_name, link_name = names[tg_index], names[link_index]
        lines = self._scheduler(config) + self._links(first, tg_port, tg_name, link_port, link_name)
        if self.kind == "int":
            lines += self._route_based(first, link_name)
        else:
            lines += self._policy_based(first, link_port, link_name)
        return lines

    @property
    def rx_workers(self) -> int | None:
        """Workers that read the ports: the data-plane worker alone with the scheduler."""
        return 1 if self.scheduler else None

    @property
    def hardware(self) -> HardwareNeed | None:
        """The QAT of the hardware async families (``hw_async``)."""
        return QatCrypto() if self.hw_async else None

    # -- parts ----------------------------------------------------------------------------
    def _scheduler(self, config: DutTestConfig) -> list[str]:
        """Async mode; with the scheduler and 2+ workers no crypto on worker 0 (the
        data-plane worker)."""
        if self.hw_async:
            return ["set ipsec async mode on"]
        if not self.scheduler:
            return []
        lines = ["set ipsec async mode on"]
        if config.cores >= 2:
            lines.append("set sw_scheduler worker 0 crypto off")
        return lines

    def _links(
        self, first: bool, tg_port: DutPort, tg_name: str, link_port: DutPort, link_name: str
    ) -> list[str]:
        """Both ports up with addresses and static neighbours; loop0 with the end points."""
        lines = [f"set interface state {tg_name} up", f"set interface state {link_name} up"]
        if self.reassembly:
            lines += [
                f"set interface mtu packet {MTU_FOR_FRAGMENTATION} {link_name}",
                f"set interface reassembly {link_name} on",
            ]
        far_endpoints = DUT2_ENDPOINTS if first else DUT1_ENDPOINTS
        exit_range = DESTINATION_RANGES[1] if first else DESTINATION_RANGES[0]
        lines += [
            f"set interface ip address {tg_name} {tg_port.ip4_address}",
            f"set interface ip address {link_name} {link_port.ip4_address}",
            f"set ip neighbor {tg_name} {tg_port.peer_ip4} {tg_port.peer_mac.lower()} static",
            f"set ip neighbor {link_name} {link_port.peer_ip4} {link_port.peer_mac.lower()} static",
            f"ip route add {exit_range} via {tg_port.peer_ip4} {tg_name}",
            f"ip route add {far_endpoints} via {link_port.peer_ip4} {link_name}",
            "create loopback interface instance 0",
            "set interface state loop0 up",
        ]
        if first:
            lines += [
                f"set interface ip address loop0 {self._endpoint(i)}/32"
                for i in range(self.tunnels)
            ]
        else:
            lines.append(f"set interface ip address loop0 {DUT2_ENDPOINT}/32")
        return lines

    def _endpoint(self, tunnel: int) -> str:
        return _add(DUT1_ENDPOINT, tunnel * ENDPOINT_STEP)

    def _sa(self, sa_id: int, *, endpoints: tuple[str, str] | None) -> str:
        """``ipsec sa add`` of SA ``sa_id`` (= its SPI); tunnel mode when given end points."""
        words = ["ipsec sa add", str(sa_id), "spi", str(sa_id), "esp"]
        words += ALGORITHMS[self.algorithm].words(f"{self.family}/{sa_id}")
        if endpoints is not None:
            words += ["tunnel", "src", endpoints[0], "dst", endpoints[1]]
        if self.udp:
            words.append("udp-encap")
        if self.anti_replay:
            words.append("use-anti-replay")
        return " ".join(words)

    def _route_based(self, first: bool, link_name: str) -> list[str]:
        """Per tunnel: an ipip tunnel, its SA pair and tunnel protect, a route into it."""
        out_base, in_base = (SPI_FORWARD, SPI_BACKWARD) if first else (SPI_BACKWARD, SPI_FORWARD)
        destination = DESTINATIONS[0] if first else DESTINATIONS[1]
        lines: list[str] = []
        for i in range(self.tunnels):
            src, dst = (
                (self._endpoint(i), DUT2_ENDPOINT) if first else (DUT2_ENDPOINT, self._endpoint(i))
            )
            tunnel = f"ipip{i}"
            lines += [
                f"create ipip tunnel src {src} dst {dst} instance {i}",
                self._sa(out_base + i, endpoints=None),
                self._sa(in_base + i, endpoints=None),
                f"ipsec tunnel protect {tunnel} sa-out {out_base + i} sa-in {in_base + i}",
                f"set interface unnumbered {tunnel} use {link_name}",
                f"set interface state {tunnel} up",
                f"ip route add {_add(destination, i)}/32 via {tunnel}",
            ]
        return lines

    def _policy_based(self, first: bool, link_port: DutPort, link_name: str) -> list[str]:
        """SPD 1 on the link port: ESP bypass; per tunnel SAs, PROTECT out and in, a route."""
        out_base, in_base = (SPI_FORWARD, SPI_BACKWARD) if first else (SPI_BACKWARD, SPI_FORWARD)
        destination = DESTINATIONS[0] if first else DESTINATIONS[1]
        own, far = ("100", "200") if first else ("200", "100")
        ranges = (
            f"local-ip-range {own}.0.0.0 - {own}.255.255.255 "
            f"remote-ip-range {far}.0.0.0 - {far}.255.255.255"
        )
        esp = "protocol 17" if self.udp else "protocol 50"
        lines = [
            "ipsec spd add 1",
            f"set interface ipsec spd {link_name} 1",
            f"ipsec policy add spd 1 priority 100 inbound action bypass {esp} {ranges}",
            f"ipsec policy add spd 1 priority 100 outbound action bypass {esp} {ranges}",
        ]
        for i in range(self.tunnels):
            mine, theirs = (
                (self._endpoint(i), DUT2_ENDPOINT) if first else (DUT2_ENDPOINT, self._endpoint(i))
            )
            target = _add(destination, i)
            lines += [
                self._sa(out_base + i, endpoints=(mine, theirs)),
                self._sa(in_base + i, endpoints=(theirs, mine)),
                f"ipsec policy add spd 1 priority 10 outbound action protect sa {out_base + i} "
                f"local-ip-range 0.0.0.0 - 255.255.255.255 remote-ip-range {target} - {target}",
                f"ipsec policy add spd 1 priority 10 inbound action protect sa {in_base + i} "
                f"local-ip-range {mine} - {mine} remote-ip-range {theirs} - {theirs}",
                f"ip route add {target}/32 via {link_port.peer_ip4} {link_name}",
            ]
        return lines


def ipsec_vpp(
    tunnels: int,
    kind: str,
    algorithm: str,
    suffix: str = "",
    *,
    scheduler: bool = False,
    hw_async: bool = False,
) -> IpsecVpp:
    """The VPP set-up of a ``defs.ipsec`` family (its ``kind`` and ``suffix`` words)."""
    return IpsecVpp(
        tunnels=tunnels,
        algorithm=algorithm,
        kind="int" if kind.endswith("-int") else "policy",
        udp=kind.startswith("udp"),
        anti_replay=kind.startswith("udp-ar"),
        flow_cache="flow-cache" in kind,
        fast_path="fastpath" in kind,
        reassembly=suffix == "-reassembly",
        udir=suffix == "-udir",
        scheduler=scheduler,
        hw_async=hw_async,
        plugins=SCHEDULER_PLUGINS if scheduler else (),
    )
