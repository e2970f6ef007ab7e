"""NAT44 families at CSIT's scales: deterministic NAT (det44) and endpoint-dependent NAT44 udir.

CSIT's suites come at *h* = 1024, 4096, 16384, 65536 and 262144 inside
hosts of 63 UDP ports each (*h* x 63 sessions), its ids
``ethip4udp-nat44det-h<h>-p63-s<h x 63>`` and
``ethip4udp-nat44ed-h<h>-p63-s<h x 63>-udir`` (``family_id``; CSIT spells
det44's h65536 "s4128758", the sessions being 4,128,768). Each sends
CSIT's ``trex-stl-ethip4udp-<h>u63p`` (det44) or ``...-udir`` (NAT44-ED):

- det44: direction 0 from the *h* inside hosts from 192.168.0.0 (CSIT's
  h262144: from 172.16.0.0), each from UDP ports 1024 - 1086, to
  20.0.0.0:1024; direction 1 from 20.0.0.0:1024 to every outside address
  (*h* / 1024 of them from 68.142.68.0: 64 for 65536 hosts) and port 1024
  - 65535, the translations of direction 0;
- NAT44-ED udir: direction 0 only, the *h* inside hosts from 192.168.0.0
  and their ports to 20.0.0.0 + *i* for host *i*, port 8080 (one
  destination per host).

VPP's set-ups are ``ndrpdr.families.kinds.nat.vpp``. CSIT's one-host
det44 suite (``ethip4udp-nat44det-h1-p1-s1``) sends its
``trex-stl-ethip4udp-1u1p``: one flow each way, 20.0.0.0:1024 to
30.0.0.0:1024, and back from 30.0.0.0:1024 to its translation
200.0.0.0:2048 (det44 maps 20.0.0.0/32 to 200.0.0.0/32: port 1024 + 1024).

The order is CSIT's field engine's: direction 0's source host steps every
frame and its UDP source port only when the hosts wrap (TRex's
``next_var``), so frame *k* comes from host *k* mod *h*, port 1024 +
*k* // *h* (udir: the destination 20.0.0.0 + *k* mod *h* steps every
frame too, with the host, so host *i* always goes to destination *i*);
direction 1's outside address steps every frame and its destination port
when the addresses wrap: frame *k* goes to 68.142.68.(*k* mod *a*),
port 1024 + *k* // *a* for *a* outside addresses. Every frame is thus a
new session for the first *h* frames. CSIT pads its frames with unseeded
random letters; ours with the frame signature and zeros.

Each flow is one NAT session. Before the search CSIT sends ramp-up
traffic that makes every session (det44: 66061 pps per direction,
NAT44-ED: 500000 pps, each for its suite's duration: ``DET44_RAMP_UP_S``,
``UDIR_RAMP_UP_S``) and checks the session count
(``ndrpdr.families.stateful``, ``ndrpdr.rampup``).

A TG that sends a frame list (the local TG's pcap, at most 65536 frames a
direction) cannot send millions of flows; it sends the family's own sample
(``sample``): the first inside hosts (at most 1024 and at most *h*) with
all their 63 ports, in CSIT's order (the host every frame, the port every
sampled-hosts frames; udir: destination *i* for host *i*), so that
direction 1 returns to exactly the outside ports their sessions got: det44
gives host *i* < 1024 the ports 1024 + 63 i .. + 62 of 68.142.68.0 (its
session of source port *p* the port 1024 + 63 i + *p* mod 63), so
direction 1 walks the sampled hosts' ports of that one address, a port
every frame. The ramp-up and the session check then count the sample's
flows. TRex's field engine sends every flow.

Costs (sim), per packet, relative to ``ethip4-ip4base`` (general knowledge
of CSIT's published reports, unverified): det44 at 4M sessions about 0.3
of it (two session table lookups per packet, cache misses of a 1.5 GiB
table), NAT44-ED at 4M sessions about 0.25; at the other scales 40 cycles
more per fourfold sessions (``nat_cycles``: the table's cache misses grow
with its size; an estimate, unverified), and det44's one session 250
cycles (its session always in cache: an estimate, unverified).
"""

from __future__ import annotations

import dataclasses
import math

from ndrpdr.families.build import relative_cost, setup, vpp_only
from ndrpdr.families.kinds.nat.vpp import (
    DESTINATION,
    HOSTS_PER_OUTSIDE,
    INSIDE_FIRST,
    OUTSIDE_FIRST,
    PORTS,
    NatVpp,
    outside_addresses,
)
from ndrpdr.families.model import CsitDifference, Family
from ndrpdr.families.stateful import RampUp
from ndrpdr.profiles import Headers, Profile, Vary

#: CSIT's ramp-up of its det44 and NAT44-ED udir suites: the rate [pps per direction], and
#: the duration [s] per scale (inside hosts); the scales are these durations' keys.
DET44_RAMP_UP_PPS = 66061.0
DET44_RAMP_UP_S = {1024: 2.0, 4096: 5.0, 16384: 16.8, 65536: 63.9, 262144: 252.3}
UDIR_RAMP_UP_PPS = 500_000.0
UDIR_RAMP_UP_S = {1024: 1.0, 4096: 1.1, 16384: 4.5, 65536: 18.2, 262144: 72.7}
#: CSIT's det44 one-host suite: its ramp-up [s], addresses and ports (``trex-stl-ethip4udp-1u1p``).
ONE_HOST_RAMP_UP_S = 2.0
ONE_HOST_INSIDE, ONE_HOST_DESTINATION, ONE_HOST_OUTSIDE = "20.0.0.0", "30.0.0.0", "200.0.0.0"
ONE_HOST_OUTSIDE_PORT = 2048
#: CSIT's det44 h262144 inside hosts start here (its other scales at INSIDE_FIRST).
DET44_LARGE_INSIDE = "172.16.0.0"
FIRST_PORT = 1024
#: Outside ports per outside address (1024 - 65535).
OUTSIDE_PORTS = 65536 - FIRST_PORT
#: CSIT's UDP destination port of the NAT44-ED udir profile.
UDIR_DPORT = 8080
#: Where CSIT's id spells the sessions otherwise than hosts x ports.
_CSIT_SESSIONS = {("det44", 65536): "4128758"}
#: The sim's cycles at 4M sessions (the module docstring), per fourfold sessions, one session.
_CYCLES_4M = {"det44": 480.0, "ed": 580.0}
_CYCLES_PER_4X = 40.0
_ONE_SESSION_CYCLES = 250.0


def family_id(mode: str, hosts: int, ports: int = PORTS) -> str:
    """CSIT's id of the det44 ("det44") or NAT44-ED udir ("ed") suite of this scale."""
    sessions = _CSIT_SESSIONS.get((mode, hosts), str(hosts * ports))
    if mode == "det44":
        return f"ethip4udp-nat44det-h{hosts}-p{ports}-s{sessions}"
    return f"ethip4udp-nat44ed-h{hosts}-p{ports}-s{sessions}-udir"


def csit_profile(mode: str, hosts: int, ports: int = PORTS) -> str:
    """CSIT's TRex profile of that suite (``trex-stl-ethip4udp-<h>u<p>p[-udir]``)."""
    return f"trex-stl-ethip4udp-{hosts}u{ports}p" + ("" if mode == "det44" else "-udir")


def nat_cycles(mode: str, sessions: int) -> float:
    """The sim's cycles per packet of ``sessions`` sessions (the module docstring)."""
    if sessions == 1:
        return _ONE_SESSION_CYCLES
    return _CYCLES_4M[mode] + _CYCLES_PER_4X * math.log(sessions / (65536 * PORTS), 4)


def det44_inside(hosts: int) -> str:
    """CSIT's first inside host of its det44 suite of ``hosts`` hosts."""
    return DET44_LARGE_INSIDE if hosts > 65536 else INSIDE_FIRST


def _inside(first: str, hosts: int, dport: int, destinations: int) -> Headers:
    """Direction 0: ``hosts`` inside hosts from ``first`` x PORTS ports, ``destinations`` of them.

    As CSIT's: the host (and a destination) every frame, the port when the hosts wrap.
    """
    vary: tuple[Vary, ...] = (Vary("ip.src", hosts), Vary("udp.sport", PORTS, every=hosts))
    if destinations > 1:
        vary = (*vary, Vary("ip.dst", destinations))
    return Headers(4, first, DESTINATION, sport=FIRST_PORT, dport=dport, vary=vary)


def _outside(ports: int, addresses: int) -> Headers:
    """Direction 1: to ``addresses`` outside addresses x ``ports`` ports from 1024 up.

    As CSIT's: the address every frame, the port when the addresses wrap.
    """
    if addresses == 1:
        vary: tuple[Vary, ...] = (Vary("udp.dport", ports),)
    else:
        vary = (Vary("ip.dst", addresses), Vary("udp.dport", ports, every=addresses))
    return Headers(4, DESTINATION, OUTSIDE_FIRST, sport=FIRST_PORT, dport=FIRST_PORT, vary=vary)


def det44_directions(scale: int, hosts: int) -> tuple[Headers, Headers]:
    """The traffic of the first ``hosts`` inside hosts of the det44 family of ``scale`` hosts.

    Direction 1 goes to the outside ports det44 gives those hosts: with
    fewer than 1024 hosts a run of ports of 68.142.68.0 (see the module
    docstring), with all of them every outside address and port.
    """
    inside = _inside(det44_inside(scale), hosts, FIRST_PORT, 1)
    if hosts == scale:
        return inside, _outside(OUTSIDE_PORTS, outside_addresses(hosts))
    return inside, _outside(hosts * PORTS, 1)


def udir_directions(scale: int, hosts: int) -> tuple[Headers, Headers]:
    """The NAT44-ED udir family's traffic of its first ``hosts`` inside hosts (direction 0)."""
    del scale  # every scale's hosts start at INSIDE_FIRST
    inside = _inside(INSIDE_FIRST, hosts, UDIR_DPORT, hosts)
    return inside, Headers(4, DESTINATION, OUTSIDE_FIRST, sport=UDIR_DPORT, dport=FIRST_PORT)


def sample_hosts(max_flows: int, scale: int = 65536) -> int:
    """Inside hosts whose PORTS flows fit ``max_flows``: at most 1024 (one outside address)
    and at most the family's ``scale``."""
    return max(1, min(scale, HOSTS_PER_OUTSIDE, max_flows // PORTS))


def _tags(mode: str, hosts: int) -> tuple[str, ...]:
    """CSIT's tags of the suite (its own order)."""
    scale = ("SCALE", f"HOSTS_{hosts}") if hosts > 1 else ("BASE",)
    if mode == "det44":
        return ("ETH", "IP4FWD", "FEATURE", "NAT44", "NAT44_DETERMINISTIC", *scale, "UDP",
                "UDP_BIDIR")  # fmt: skip
    return ("ETH", "IP4FWD", "FEATURE", "NAT44", "UDP", "UDP_UDIR", "NAT44_ENDPOINT_DEPENDENT",
            *scale)  # fmt: skip


#: CSIT's det44 h1024 profile gives its one outside address a field-engine variable of one
#: value whose ``next_var`` is the port: TRex never wraps a one-value variable, so the port
#: never steps and direction 1 is one flow to 68.142.68.0:65535 (seen through the real TRex).
ONE_ADDRESS_PORT = CsitDifference(
    "udp.dport",
    "CSIT's one-value outside address never wraps in TRex, so its port stays at 65535 (one "
    "flow); ours walks every outside port, the translations direction 0 makes, as CSIT's "
    "other scales do",
    direction=1,
)


def _family(mode: str, hosts: int, profile: Profile, vpp: NatVpp, ramp_up: RampUp) -> Family:
    family = profile.name
    one_address = mode == "det44" and hosts * vpp.ports == HOSTS_PER_OUTSIDE * PORTS
    sampled = ""
    if hosts * vpp.ports > HOSTS_PER_OUTSIDE * PORTS:
        sampled = f"; the local TG sends a sample of {HOSTS_PER_OUTSIDE} hosts' flows"
    return Family(
        csit_profile=csit_profile(mode, hosts, vpp.ports),
        csit_differences=(ONE_ADDRESS_PORT,) if one_address else (),
        id=family,
        tags=_tags(mode, hosts),
        plugins=vpp.plugins,
        profile=profile,
        ramp_up=ramp_up,
        note=f"VPP on a 2-node chain ({vpp.plugins[0]} plugin); ramp-up and session check "
        "before the search" + sampled,
        setup=setup(
            vpp=vpp,
            reasons=vpp_only(f"the {{driver}} driver has no NAT44 set-up for {family} (VPP only)"),
        ),
    )


def nat_family(mode: str, hosts: int) -> Family:
    """CSIT's det44 ("det44") or NAT44-ED udir ("ed") family of ``hosts`` inside hosts."""
    udir = mode == "ed"
    family = family_id(mode, hosts)
    directions = udir_directions if udir else det44_directions
    sessions = hosts * PORTS
    what = "det44" if mode == "det44" else "NAT44-ED"
    cycles = nat_cycles(mode, sessions)
    profile = Profile(
        name=family,
        description=f"Ethernet/IPv4/UDP, {hosts} inside hosts x {PORTS} ports "
        f"({sessions} flows{', direction 0 only' if udir else ' per direction'}), "
        f"DUT translates them with {what}",
        layer="L3",
        directions=directions(hosts, hosts),
        cost=relative_cost(cycles, family),
        unidirectional=udir,
    )

    def sample(max_flows: int) -> Profile:
        sampled = sample_hosts(max_flows, hosts)
        return dataclasses.replace(profile, directions=directions(hosts, sampled), sampler=None)

    ramp_up = (
        RampUp(rate_pps=UDIR_RAMP_UP_PPS, duration_s=UDIR_RAMP_UP_S[hosts])
        if udir
        else RampUp(rate_pps=DET44_RAMP_UP_PPS, duration_s=DET44_RAMP_UP_S[hosts])
    )
    inside = INSIDE_FIRST if udir else det44_inside(hosts)
    return _family(
        mode,
        hosts,
        dataclasses.replace(profile, sampler=sample),
        NatVpp(mode, hosts, inside=inside),
        ramp_up,
    )


def one_host_det44() -> Family:
    """CSIT's ``ethip4udp-nat44det-h1-p1-s1``: one flow each way through det44."""
    family = family_id("det44", 1, 1)
    profile = Profile(
        name=family,
        description="Ethernet/IPv4/UDP, one inside host's one flow per direction, DUT "
        "translates it with det44",
        layer="L3",
        directions=(
            Headers(4, ONE_HOST_INSIDE, ONE_HOST_DESTINATION, sport=FIRST_PORT, dport=FIRST_PORT),
            Headers(
                4,
                ONE_HOST_DESTINATION,
                ONE_HOST_OUTSIDE,
                sport=FIRST_PORT,
                dport=ONE_HOST_OUTSIDE_PORT,
            ),
        ),
        cost=relative_cost(_ONE_SESSION_CYCLES, family),
    )
    vpp = NatVpp("det44", 1, 1, ONE_HOST_INSIDE, ONE_HOST_OUTSIDE, ONE_HOST_DESTINATION)
    ramp_up = RampUp(rate_pps=DET44_RAMP_UP_PPS, duration_s=ONE_HOST_RAMP_UP_S)
    return _family("det44", 1, profile, vpp, ramp_up)


#: Where this kind's families come in the list of every family (``registry``).
ORDER = 160

FAMILIES = [
    one_host_det44(),
    *(nat_family("det44", hosts) for hosts in DET44_RAMP_UP_S),
    *(nat_family("ed", hosts) for hosts in UDIR_RAMP_UP_S),
]
