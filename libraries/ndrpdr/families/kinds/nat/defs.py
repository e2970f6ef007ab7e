"""NAT44 families: deterministic NAT (det44) and endpoint-dependent NAT44 of 4,128,768 UDP flows.

``ethip4udp-nat44det-h65536-p63-s4128758`` (CSIT's id, its "s4128758" as
CSIT spells it; the sessions are 65536 x 63 = 4,128,768) sends CSIT's
``trex-stl-ethip4udp-65536u63p``: direction 0 from the 65536 inside hosts
192.168.0.0 - 192.168.255.255, each from UDP ports 1024 - 1086, to
20.0.0.0:1024; direction 1 from 20.0.0.0:1024 to every outside address
68.142.68.0 - .63 and port 1024 - 65535, the translations of direction 0.
``ethip4udp-nat44ed-h65536-p63-s4128768-udir`` sends CSIT's
``trex-stl-ethip4udp-65536u63p-udir``: direction 0 only, the same inside
hosts and ports to 20.0.0.0 - 20.0.255.255:8080 (one destination per
host: 4,128,768 sessions). VPP's set-ups are ``ndrpdr.families.kinds.nat.vpp``.

The order is CSIT's field engine's: direction 0's source host steps every
frame and its UDP source port only when the hosts wrap (TRex's
``next_var``), so frame *k* comes from host *k* mod 65536, port 1024 +
*k* // 65536 (udir: the destination 20.0.0.0 + *k* mod 65536 steps every
frame too, with the host, so host *i* always goes to destination *i*);
direction 1's outside address steps every frame and its destination port
when the 64 addresses wrap: frame *k* goes to 68.142.68.(*k* mod 64),
port 1024 + *k* // 64. Every frame is thus a new session for the first
65536 frames. CSIT pads its frames with unseeded random letters; ours
with the frame signature and zeros.

Each flow is one NAT session. Before the search CSIT sends ramp-up
traffic that makes every session (det44: 66061 pps per direction for
63.9 s; NAT44-ED: 500000 pps for 18.2 s) and checks the session count
(``ndrpdr.families.stateful``, ``ndrpdr.rampup``).

A TG that sends a frame list (the local TG's pcap, at most 65536 frames a
direction) cannot send 4,128,768 flows; it sends the family's own sample
(``sample``): the first *h* inside hosts (at most 1024) with all their 63
ports, in CSIT's order (the host every frame, the port every *h* frames;
udir: destination *i* for host *i*), so that direction 1 returns to
exactly the outside ports their sessions got: det44 gives host *i* < 1024
the ports 1024 + 63 i .. + 62 of 68.142.68.0 (its session of source port
*p* the port 1024 + 63 i + *p* mod 63), so direction 1 walks ports 1024 ..
1024 + 63 *h* - 1 of that one address, a port every frame. The ramp-up
and the session check then count the sample's 63 *h* flows. TRex's field
engine sends every flow.

Costs (sim), per packet, relative to ``ethip4-ip4base`` (general knowledge
of CSIT's published reports, unverified): det44 at 4M sessions about 0.3
of it (two session table lookups per packet, cache misses of a 1.5 GiB
table), NAT44-ED at 4M sessions about 0.25.
"""

from __future__ import annotations

import dataclasses

from ndrpdr.families.build import cost, setup, vpp_only
from ndrpdr.families.kinds.nat.vpp import DESTINATION, OUTSIDE_FIRST, NatVpp
from ndrpdr.families.model import Family
from ndrpdr.families.stateful import RampUp
from ndrpdr.profiles import Headers, Profile, Vary

#: CSIT's scale: inside hosts, UDP source ports per host, outside addresses.
HOSTS, PORTS, OUTSIDE = 65536, 63, 64
SESSIONS = HOSTS * PORTS
INSIDE_FIRST = "192.168.0.0"
FIRST_PORT = 1024
#: Outside ports per outside address (1024 - 65535).
OUTSIDE_PORTS = 65536 - FIRST_PORT
#: CSIT's UDP destination port of the NAT44-ED udir profile.
UDIR_DPORT = 8080


def _inside(hosts: int, dst: str, dport: int, destinations: int) -> Headers:
    """Direction 0: ``hosts`` inside hosts x PORTS source ports, ``destinations`` destinations.

    As CSIT's: the host (and a destination) every frame, the port when the hosts wrap.
    """
    vary: tuple[Vary, ...] = (Vary("ip.src", hosts), Vary("udp.sport", PORTS, every=hosts))
    if destinations > 1:
        vary = (*vary, Vary("ip.dst", destinations))
    return Headers(4, INSIDE_FIRST, dst, sport=FIRST_PORT, dport=dport, vary=vary)


def _outside(ports: int, addresses: int) -> Headers:
    """Direction 1: to ``addresses`` outside addresses x ``ports`` ports from 1024 up.

    As CSIT's: the address every frame, the port when the addresses wrap.
    """
    if addresses == 1:
        vary: tuple[Vary, ...] = (Vary("udp.dport", ports),)
    else:
        vary = (Vary("ip.dst", addresses), Vary("udp.dport", ports, every=addresses))
    return Headers(4, DESTINATION, OUTSIDE_FIRST, sport=FIRST_PORT, dport=FIRST_PORT, vary=vary)


def det44_directions(hosts: int) -> tuple[Headers, Headers]:
    """The det44 family's traffic of the first ``hosts`` inside hosts (all: CSIT's).

    Direction 1 goes to the outside ports det44 gives those hosts: with
    fewer than 1024 hosts a run of ports of 68.142.68.0 (see the module
    docstring), with all of them every outside address and port.
    """
    inside = _inside(hosts, DESTINATION, FIRST_PORT, 1)
    if hosts >= HOSTS:
        return inside, _outside(OUTSIDE_PORTS, OUTSIDE)
    return inside, _outside(hosts * PORTS, 1)


def udir_directions(hosts: int) -> tuple[Headers, Headers]:
    """The NAT44-ED udir family's traffic of the first ``hosts`` inside hosts (direction 0)."""
    inside = _inside(hosts, DESTINATION, UDIR_DPORT, hosts)
    return inside, Headers(4, DESTINATION, OUTSIDE_FIRST, sport=UDIR_DPORT, dport=FIRST_PORT)


def sample_hosts(max_flows: int) -> int:
    """Inside hosts whose PORTS flows fit ``max_flows`` (at most 1024: one outside address)."""
    return max(1, min(HOSTS // OUTSIDE, max_flows // PORTS))


def _nat(family: str, mode: str, tags: tuple[str, ...], *, udir: bool, cycles: float,
         ramp_up: RampUp) -> Family:  # fmt: skip
    directions = udir_directions if udir else det44_directions
    what = "det44" if mode == "det44" else "NAT44-ED"
    profile = Profile(
        name=family,
        description=f"Ethernet/IPv4/UDP, {HOSTS} inside hosts x {PORTS} ports "
        f"({SESSIONS} flows{', direction 0 only' if udir else ' per direction'}), "
        f"DUT translates them with {what}",
        layer="L3",
        directions=directions(HOSTS),
        cost=cost(cycles, f"{family}: {145.0 / cycles:.2f}x ethip4-ip4base"),
        unidirectional=udir,
    )

    def sample(max_flows: int) -> Profile:
        hosts = sample_hosts(max_flows)
        return dataclasses.replace(profile, directions=directions(hosts), sampler=None)

    return Family(
        csit_profile="trex-stl-ethip4udp-65536u63p" + ("-udir" if udir else ""),
        id=family,
        tags=tags,
        plugins=("det44",) if mode == "det44" else ("nat",),
        profile=dataclasses.replace(profile, sampler=sample),
        ramp_up=ramp_up,
        note=f"VPP on a 2-node chain ({'det44' if mode == 'det44' else 'nat'} plugin); ramp-up "
        "and session check before the search; the local TG sends a sample of "
        f"{HOSTS // OUTSIDE} hosts' flows",
        setup=setup(
            vpp=NatVpp(mode, SESSIONS),
            reasons=vpp_only(f"the {{driver}} driver has no NAT44 set-up for {family} (VPP only)"),
        ),
    )


#: CSIT's tags of the two suites.
_DET_TAGS = ("ETH", "IP4FWD", "FEATURE", "NAT44", "NAT44_DETERMINISTIC", "SCALE", "HOSTS_65536",
             "UDP", "UDP_BIDIR")  # fmt: skip
_ED_TAGS = ("ETH", "IP4FWD", "FEATURE", "NAT44", "UDP", "UDP_UDIR", "NAT44_ENDPOINT_DEPENDENT",
            "SCALE", "HOSTS_65536")  # fmt: skip

#: Where this kind's families come in the list of every family (``registry``).
ORDER = 160

FAMILIES = [
    _nat(
        "ethip4udp-nat44det-h65536-p63-s4128758",
        "det44",
        (
            "ETH",
            "IP4FWD",
            "FEATURE",
            "NAT44",
            "NAT44_DETERMINISTIC",
            "SCALE",
            "HOSTS_65536",
            "UDP",
            "UDP_BIDIR",
        ),
        udir=False,
        cycles=480.0,
        ramp_up=RampUp(rate_pps=66061.0, duration_s=63.9),
    ),
    _nat(
        "ethip4udp-nat44ed-h65536-p63-s4128768-udir",
        "ed",
        (
            "ETH",
            "IP4FWD",
            "FEATURE",
            "NAT44",
            "UDP",
            "UDP_UDIR",
            "NAT44_ENDPOINT_DEPENDENT",
            "SCALE",
            "HOSTS_65536",
        ),
        udir=True,
        cycles=580.0,
        ramp_up=RampUp(rate_pps=500_000.0, duration_s=18.2),
    ),
]
