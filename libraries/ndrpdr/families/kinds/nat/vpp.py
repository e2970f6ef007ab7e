"""VPP set-ups of the NAT44 families: deterministic NAT (det44) and endpoint-dependent NAT44.

After CSIT's ``Initialize IPv4 forwarding for NAT44 in circular topology``
and ``Initialize NAT44 deterministic mode`` / ``endpoint-dependent mode``
(2-node, DUT1), with CSIT's addresses, for *h* inside hosts of 63 ports
(CSIT's scales h1024 ... h262144):

- the port facing TG port 1 is *inside*, the one facing TG port 2
  *outside*; they get CSIT's link addresses 10.0.0.1/24 and 12.0.0.1/24,
  each a static neighbour for its TG port (10.0.0.2, 12.0.0.2). Not our
  plan's 192.168.10.0/24 and 192.168.20.0/24: those lie inside CSIT's
  inside network 192.168.0.0/16, and frames translated back to such a host
  would go to the connected /24 instead of the TG;
- the inside network, *h* hosts from 192.168.0.0 (CSIT's det44 h262144:
  from 172.16.0.0), e.g. 192.168.0.0/16 for 65536 hosts, is routed to TG
  port 1, the destinations (20.0.0.0/24 for det44, 20.0.0.0/8 for
  NAT44-ED, as CSIT) to TG port 2;
- the outside addresses are *h* / 1024 (at least one) from 68.142.68.0: 64
  for 65536 hosts, 256 for 262144, one for 1024;
- det44: ``det44 add in <inside> out <outside>``, e.g. ``in
  192.168.0.0/16 out 68.142.68.0/26``: each outside address serves 1024
  inside hosts, 63 ports each from 1024 up (host *i*'s block starts at
  port 1024 + 63 (i mod 1024));
- NAT44-ED: ``nat44 plugin enable sessions <n>`` with CSIT's sessions per
  thread (``max_translations_per_thread``), the outside pool of the
  outside addresses (68.142.68.0 - 68.142.68.63 for 65536 hosts).

The state check reads the session count as CSIT does: the det44 map's
``sessions number`` (CSIT reads ``ses_num`` of ``det44_map_dump``), and
NAT44-ED's ``show nat44 summary`` UDP (or, for TCP traffic, TCP) total
less the timed-out ones.

The stateful (TRex ASTF) NAT44-ED families (``kinds/astf``) take the same
set-up with CSIT's destination /16 (``destination_len``; the udir suites'
is /8). Those of them without a ramp-up (CSIT's cps suites) reset the
sessions before each trial as CSIT's resetter of ``Set NAT44 Address
Range`` does (``trial_reset``): the outside pool deleted and added again,
which drops every session of its addresses (det44 alike: its map deleted
and added again).

Memory (VPP v26.06, measured here at 65536 hosts): ``det44 add`` of a /16
allocates its session table at once (1000 slots per inside host: 1.46
GiB, 11 s on this machine's 2 shared CPUs); ``nat44 plugin enable sessions
5242880`` takes 1.7 GiB per thread (3 GiB with one worker). The set-ups
ask for main heaps that hold that, in proportion at other scales (det44:
1.5 GiB per 65536 hosts; NAT44-ED: 3 GiB per 5242880 sessions per
thread of one worker), plus 1 GiB for the rest of VPP (4 KiB pages are
populated only as used).
Every command was checked against VPP v26.06 (det44 and nat plugins).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import math
import re

from ndrpdr.dut.base import DutError, DutTestConfig, StateCheck, TrialReset
from ndrpdr.families.build import (
    check_mode,
    check_scale,
    large_tables_startup,
    nat_heap_size_mult,
)
from ndrpdr.families.model import FamilyDefinitionError
from ndrpdr.families.vppsetup import FreshVpp

#: CSIT's first inside host, first outside address and destination network.
INSIDE_FIRST = "192.168.0.0"
OUTSIDE_FIRST = "68.142.68.0"
DESTINATION = "20.0.0.0"
#: Inside hosts per outside address (det44's sharing ratio; CSIT's NAT44-ED pools alike).
HOSTS_PER_OUTSIDE = 1024
#: CSIT's UDP source ports per inside host.
PORTS = 63
#: CSIT's link addresses (inside, outside) and its TG's next hops on them.
LINK_ADDRESSES = ("10.0.0.1/24", "12.0.0.1/24")
NEXT_HOPS = ("10.0.0.2", "12.0.0.2")
#: Main heaps [MiB] (see the docstring): the rest of VPP, det44's session table per 65536
#: hosts (1.46 GiB measured), NAT44-ED's per 5242880 sessions per thread (one worker).
BASE_HEAP_MB = 1024
DET44_HEAP_MB_PER_65536_HOSTS = 1536
NAT44ED_HEAP_MB_PER_5242880 = 3072
#: The NAT modes: deterministic (det44) and endpoint-dependent (nat44-ed).
MODES = ("det44", "ed")

_DET44_SESSIONS = re.compile(r"sessions number:\s*(\d+)")
#: The L4 protocols whose NAT44-ED sessions ``show nat44 summary`` counts.
PROTOCOLS = ("udp", "tcp")


def max_translations_per_thread(sessions: int, threads: int) -> int:
    """CSIT's NAT44-ED sessions per thread: 10 x the power of two at or above sessions / (10 t)."""
    if sessions < 1:
        raise FamilyDefinitionError(f"NAT44-ED: {sessions} sessions; give at least 1")
    per_thread = sessions / (10 * max(1, threads))
    return int(10 * 2 ** max(0, math.ceil(math.log2(per_thread))))


def det44_sessions(output: str) -> int:
    """The sessions of every det44 map in ``show det44 mappings`` (ValueError quoting it)."""
    found = _DET44_SESSIONS.findall(output)
    if not found:
        raise ValueError(f"no 'sessions number' in `show det44 mappings`: {output.strip()!r}")
    return sum(int(n) for n in found)


def nat44_sessions(output: str, protocol: str = "udp") -> int:
    """Active ``protocol`` sessions in ``show nat44 summary``: the total after "<protocol>
    sessions:" less its timed-out ones, as CSIT counts them (ValueError quoting the output)."""
    pattern = rf"{protocol} sessions:\s*\n\s*total:\s*(\d+)\s*\(timed out:\s*(\d+)\)"
    found = re.search(pattern, output)
    if found is None:
        raise ValueError(
            f"no '{protocol} sessions: total' in `show nat44 summary`: {output.strip()!r}"
        )
    return int(found.group(1)) - int(found.group(2))


def nat44_udp_sessions(output: str) -> int:
    """Active UDP sessions in ``show nat44 summary`` (``nat44_sessions``)."""
    return nat44_sessions(output, "udp")


def nat44_tcp_sessions(output: str) -> int:
    """Active TCP sessions in ``show nat44 summary`` (``nat44_sessions``)."""
    return nat44_sessions(output, "tcp")


def _two_node(family: str, config: DutTestConfig) -> None:
    if config.chain != 1:
        raise DutError(
            f"family {family}: runs on a 2-node chain (DUT1 only); this DUT is number "
            f"{config.position + 1} of {config.chain}"
        )


def network(first: str, hosts: int) -> str:
    """The network of ``hosts`` addresses from ``first`` ("192.168.0.0/16" for 65536)."""
    return str(ipaddress.IPv4Network(f"{first}/{32 - (hosts - 1).bit_length()}"))


def outside_addresses(hosts: int) -> int:
    """CSIT's outside addresses for ``hosts`` inside hosts: one per 1024 (at least one)."""
    return max(1, hosts // HOSTS_PER_OUTSIDE)


def nat_routing(
    config: DutTestConfig, names: tuple[str, str], inside_net: str, destination: str
) -> list[str]:
    """Ports up, CSIT's link addresses, static neighbours, the inside and destination routes."""
    lines: list[str] = []
    for name, address, hop, port in zip(
        names, LINK_ADDRESSES, NEXT_HOPS, config.ports, strict=True
    ):
        lines += [
            f"set interface state {name} up",
            f"set interface ip address {name} {address}",
            f"set ip neighbor {name} {hop} {port.peer_mac.lower()} static",
        ]
    inside, outside = names
    return [
        *lines,
        f"ip route add {inside_net} via {NEXT_HOPS[0]} {inside}",
        f"ip route add {destination} via {NEXT_HOPS[1]} {outside}",
    ]


@dataclasses.dataclass(frozen=True)
class NatVpp(FreshVpp):
    """A NAT44 family's VPP set-up: ``mode`` "det44" or "ed", for ``hosts`` inside hosts of
    ``ports`` ports each; the first inside host ``inside``, outside address ``outside`` and
    destination ``destination`` (CSIT's, but for its one-host det44 suite).

    ``destination_len``: the destination route's prefix length (None: the
    mode's, det44 /24, NAT44-ED /8); ``protocol``: the sessions the state
    check counts ("udp", "tcp"); ``reset_each_trial``: the sessions are
    reset before each trial (``trial_reset``; CSIT's suites without a
    ramp-up)."""

    mode: str
    hosts: int
    ports: int = PORTS
    inside: str = INSIDE_FIRST
    outside: str = OUTSIDE_FIRST
    destination: str = DESTINATION
    destination_len: int | None = None
    protocol: str = "udp"
    reset_each_trial: bool = False

    def check(self) -> None:
        """FamilyDefinitionError naming the family for an unknown mode or a scale CSIT has not."""
        check_mode(self.family, self.mode, MODES)
        if self.protocol not in PROTOCOLS:
            raise FamilyDefinitionError(
                f"family {self.family}: NAT44 protocol {self.protocol!r}; give one of "
                f"{', '.join(PROTOCOLS)}"
            )
        check_scale(self.family, self.hosts, self.ports)

    @property
    def sessions(self) -> int:
        """Every inside host's every port: one session each."""
        return self.hosts * self.ports

    @property
    def inside_net(self) -> str:
        """The inside hosts' network (CSIT's ``in_net``/``in_mask``)."""
        return network(self.inside, self.hosts)

    @property
    def outside_net(self) -> str:
        """The outside addresses' network (CSIT's ``out_net``/``out_mask``)."""
        return network(self.outside, outside_addresses(self.hosts))

    @property
    def destination_net(self) -> str:
        """The destination route (CSIT's ``dest_net``/``dest_mask``)."""
        length = self.destination_len
        if length is None:
            length = 24 if self.mode == "det44" else 8
        return str(ipaddress.IPv4Network(f"{self.destination}/{length}", strict=False))

    @property
    def pool(self) -> str:
        """NAT44-ED's outside pool as its CLI takes it: "first - last"."""
        outside_net = ipaddress.IPv4Network(self.outside_net)
        return f"{outside_net[0]} - {outside_net[-1]}"

    @property
    def main_heap_mb(self) -> int:
        """The main heap the session tables need [MiB] (the module docstring)."""
        if self.mode == "det44":
            table = DET44_HEAP_MB_PER_65536_HOSTS * self.hosts / 65536
        else:
            per_thread = max_translations_per_thread(self.sessions, 1)
            table = NAT44ED_HEAP_MB_PER_5242880 * per_thread / 5242880
        return BASE_HEAP_MB + math.ceil(table)

    @property
    def plugins(self) -> tuple[str, ...]:
        """det44 or nat (NAT44-ED)."""
        return ("det44",) if self.mode == "det44" else ("nat",)

    @property
    def startup(self) -> str:
        """A main heap for the session tables, and the large statistics segment."""
        return large_tables_startup(self.main_heap_mb)

    @property
    def heap_size_mult(self) -> int:
        """FD.io CSIT's multiple of its 3 GiB main heap for this many sessions."""
        return nat_heap_size_mult(self.sessions)

    @property
    def state_check(self) -> StateCheck:
        """The session count as CSIT verifies it after the ramp-up."""
        if self.mode == "det44":
            return StateCheck("DET44 sessions", "show det44 mappings", det44_sessions)
        if self.protocol == "tcp":
            return StateCheck("NAT44-ED TCP sessions", "show nat44 summary", nat44_tcp_sessions)
        return StateCheck("NAT44-ED UDP sessions", "show nat44 summary", nat44_udp_sessions)

    @property
    def trial_reset(self) -> TrialReset | None:
        """With ``reset_each_trial``: CSIT's resetter, the outside pool (det44: the map)
        deleted and added again, which drops every session; else None."""
        if not self.reset_each_trial:
            return None
        if self.mode == "det44":
            line = f"det44 add in {self.inside_net} out {self.outside_net}"
            return TrialReset("DET44 sessions dropped", (f"{line} del", line))
        line = f"nat44 add address {self.pool}"
        return TrialReset("NAT44-ED sessions dropped", (f"{line} del", line))

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The vppctl lines for DUT1 of a 2-node chain (the module docstring)."""
        _two_node(self.family, config)
        inside, outside = names
        if self.mode == "det44":
            return [
                *nat_routing(config, names, self.inside_net, self.destination_net),
                "det44 plugin enable",
                f"set interface det44 inside {inside} outside {outside}",
                f"det44 add in {self.inside_net} out {self.outside_net}",
            ]
        per_thread = max_translations_per_thread(self.sessions, config.cores)
        return [
            *nat_routing(config, names, self.inside_net, self.destination_net),
            f"nat44 plugin enable sessions {per_thread}",
            f"set interface nat44 in {inside} out {outside}",
            f"nat44 add address {self.pool}",
        ]
