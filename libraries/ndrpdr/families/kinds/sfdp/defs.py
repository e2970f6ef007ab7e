"""SFDP families (TRex ASTF through VPP's stateful flow data plane): CSIT's 32 SFDP ids.

``ethip4{tcp,udp}-sfdp-{ip4,l4ip4}-h<h>-p63-s<63 h>-{cps,tput}`` for *h* =
1024, 4096, 16384, 65536 client hosts (CSIT's ``tests/vpp/perf/sfdp``; its
daily job runs the h65536 ones). The traffic is the stateful families'
(``kinds/astf``, ``ndrpdr.profiles.transactions``): *h* clients from
192.168.0.0 times 63 connections each, *h* x 63 transactions a trial, to
*h* servers from 20.0.0.0 on port 8080, as CSIT's
``trex-astf-ethip4{tcp,udp}-<h>h`` (cps) and ``...-<h>h-pps`` (tput)
profiles; ``cps`` counts connections per second (64B), ``tput`` the frames
of transactions of 5 data frames each way (100B, 1518B, 9000B). The DUT
routes through SFDP: a session per connection, each packet through the
tenant's services, ``ip4-lookup`` (``ip4``) or also ``sfdp-l4-lifecycle``
(``l4ip4``); VPP's set-up is ``ndrpdr.families.kinds.sfdp.vpp``. CSIT tags
both variants alike (``IP4BASE``, no SFDP tag).

Only a TG that speaks ASTF runs them, and only VPP among the DUTs (with
the ``sfdp_services`` plugin); the sim runs them with the costs below.
As CSIT's suites: the tput families ramp up before their search (and
again as the sessions age, ``ndrpdr.rampup``) at CSIT's 50000
transactions/s for the whole scale (``RAMP_UP_TPS``; CSIT checks no session
count after it, nor do we); the cps families kill every SFDP session and
wait for an empty table before each trial (CSIT's resetter,
``SfdpVpp.trial_reset``), so that each trial creates its sessions anew.

Costs (sim; general knowledge of VPP's SFDP and CSIT's reports,
unverified), per frame relative to ``ethip4-ip4base`` (145 cycles): a
frame's session lookup (a 5-tuple bihash) and service chain cost 260
cycles (``ip4``, 0.56x ethip4-ip4base) or 300 (``l4ip4``: the lifecycle
service's state and timer, 0.48x) at h65536's 4M sessions, 30 cycles less
per fourfold fewer sessions (a smaller table misses the cache less: 170
and 210 at h1024); a session's creation 1000 cycles (``ip4``) or 1300
(``l4ip4``, arming its timer). A cps transaction costs its frames plus its
session, a tput frame one frame plus its share of a session
(``astf.defs.transaction_cost``).
"""

from __future__ import annotations

import math

from ndrpdr.families.build import IP4BASE_CYCLES, setup, vpp_only
from ndrpdr.families.kinds.astf.defs import transaction_cost
from ndrpdr.families.kinds.sfdp.vpp import CLIENTS_FIRST, SERVERS_FIRST, SfdpVpp
from ndrpdr.families.model import Family
from ndrpdr.families.stateful import astf_ramp_up
from ndrpdr.profiles import Headers, Profile, Transactions, Vary
from ndrpdr.profiles.transactions import TransactionKind, TransactionProtocol

#: CSIT's ``ramp_up_rate`` of its SFDP tput suites [transactions/s] (every scale).
RAMP_UP_TPS = 50_000
#: CSIT's scales: client hosts (as many servers), and connections (source ports) per host.
HOSTS = (1024, 4096, 16384, 65536)
PORTS = 63
#: The sim's cycles a frame at 4M sessions, per fourfold fewer sessions less; a session's.
_FRAME_CYCLES_4M = {"ip4": 260.0, "l4ip4": 300.0}
_CYCLES_PER_4X = 30.0
_SESSION_CYCLES = {"ip4": 1000.0, "l4ip4": 1300.0}
_IP_PROTO_TCP = 6
_REASON = (
    "{family} is stateful: TRex in ASTF mode opens its connections through VPP's SFDP; "
    "the {driver} driver is not a VPP"
)


def family_id(protocol: str, services: str, hosts: int, kind: str) -> str:
    """CSIT's id: ``ethip4tcp-sfdp-ip4-h1024-p63-s64512-cps``."""
    return f"ethip4{protocol}-sfdp-{services}-h{hosts}-p{PORTS}-s{hosts * PORTS}-{kind}"


def csit_profile(protocol: str, hosts: int, kind: str) -> str:
    """CSIT's ASTF profile of the suite: ``trex-astf-ethip4tcp-1024h[-pps]``."""
    return f"trex-astf-ethip4{protocol}-{hosts}h" + ("-pps" if kind == "tput" else "")


def frame_cycles(services: str, hosts: int) -> float:
    """The sim's cycles a frame of ``services`` at ``hosts`` client hosts (module docstring)."""
    return _FRAME_CYCLES_4M[services] - _CYCLES_PER_4X * math.log(65536 / hosts, 4)


def _headers(protocol: TransactionProtocol, hosts: int) -> tuple[Headers, Headers]:
    """Client to server and back, for the sim's and the record's sake."""
    l4: int | str = "udp" if protocol == "udp" else _IP_PROTO_TCP
    vary = (Vary("ip.src", hosts), Vary("ip.dst", hosts))
    return (
        Headers(4, CLIENTS_FIRST, SERVERS_FIRST, l4, vary=vary),  # type: ignore[arg-type]
        Headers(4, SERVERS_FIRST, CLIENTS_FIRST, l4, vary=vary),  # type: ignore[arg-type]
    )


def sfdp_family(
    protocol: TransactionProtocol, services: str, hosts: int, kind: TransactionKind
) -> Family:
    """CSIT's SFDP family of ``protocol``, ``services`` ("ip4", "l4ip4"), scale and ``kind``."""
    family = family_id(protocol, services, hosts, kind)
    vpp = SfdpVpp(services, hosts, PORTS, reset_each_trial=kind == "cps")
    clients, servers = vpp.routes
    traffic = Transactions(kind, protocol, hosts, PORTS, clients=clients, servers=servers)
    frame = frame_cycles(services, hosts)
    what = "connections per second" if kind == "cps" else "frames per second of transactions"
    lifecycle = " and its L4 lifecycle service" if services == "l4ip4" else ""
    return Family(
        csit_profile=csit_profile(protocol, hosts, kind),
        id=family,
        tags=(
            "ETH",
            "IP4FWD",
            "IP4BASE",
            protocol.upper(),
            f"{protocol.upper()}_{kind.upper()}",
            "SCALE",
            f"HOSTS_{hosts}",
        ),
        plugins=vpp.plugins,
        profile=Profile(
            name=family,
            description=f"Ethernet/IPv4/{protocol.upper()} ASTF, {hosts} hosts x {PORTS} ports, "
            f"{what}, DUT routes IPv4 through SFDP{lifecycle}",
            layer="L3",
            directions=_headers(protocol, hosts),
            cost=transaction_cost(
                frame,
                _SESSION_CYCLES[services],
                traffic,
                f"SFDP {services}: {IP4BASE_CYCLES / frame:.2f}x ethip4-ip4base a frame",
            ),
            transactions=traffic,
        ),
        ramp_up=None if kind == "cps" else astf_ramp_up(traffic, RAMP_UP_TPS),
        setup=setup(vpp=vpp, reasons=vpp_only(_REASON.format(family=family, driver="{driver}"))),
        note="Stateful (TRex ASTF) through VPP's SFDP (sfdp_services plugin): VPP and the sim "
        "only; STL TGs refuse it. "
        + (
            "SFDP's sessions killed before each trial (CSIT's resetter)."
            if kind == "cps"
            else f"Ramp-up at {RAMP_UP_TPS} transactions/s before the search (CSIT's)."
        ),
    )


#: Where this kind's families come in the list of every family (``registry``).
ORDER = 180

FAMILIES = [
    sfdp_family(protocol, services, hosts, kind)
    for services in ("ip4", "l4ip4")
    for hosts in HOSTS
    for protocol in ("tcp", "udp")
    for kind in ("cps", "tput")
]  # fmt: skip
