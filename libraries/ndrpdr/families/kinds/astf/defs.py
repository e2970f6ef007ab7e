"""Stateful families (TRex ASTF), CSIT's four ids of each of ``ip4base`` and ``nat44ed``.

``ethip4{tcp,udp}-{ip4base,nat44ed}-h65536-p63-s4128768-{cps,tput}``:

65536 client hosts (192.168.0.0/16, ``vpp.CLIENTS``) times 63 source
ports each: 4128768 transactions a trial, each to one of 65536 server
hosts (20.0.0.0/16, ``vpp.SERVERS``) on port 8080, as CSIT's
``trex-astf-ethip4{tcp,udp}-65536h[-pps]`` profiles. ``cps`` counts
connections (transactions) per second, ``tput`` the frames of transactions
that carry 5 data frames each way (``ndrpdr.profiles.transactions``).
``ip4base``: the DUT routes; ``nat44ed``: the DUT also translates the
clients with NAT44 endpoint-dependent, one session per transaction. VPP's
set-ups are CSIT's (``ndrpdr.families.kinds.astf.vpp``).

As CSIT's suites: the nat44ed tput families ramp up before their search
(and again as the sessions age, ``ndrpdr.rampup``) at CSIT's 30000
transactions/s for the whole scale (``RAMP_UP_TPS``), then DUT1's NAT44
TCP or UDP session count must be the scale; the nat44ed cps families reset
the sessions before each trial (CSIT's resetter: the outside pool deleted
and added again). CSIT's ip4base suites do neither (no state to keep).

Only a TG that speaks ASTF runs them (TRex started with ``--astf``; STL
drivers refuse them) and only VPP among the DUTs; the sim runs them with
the costs below.

Costs (sim): per frame as the STL families (ethip4-ip4base's 145 cycles;
NAT44 ed's in2out/out2in about 1.7x that), plus a session's creation
(``table_cycles``): none for routing; for NAT44 ed about 1500 cycles
(a hash insert and the session's state; general knowledge of CSIT's
reports, unverified: a core opens 1-2 million NAT44 ed sessions a second).
A cps transaction costs ``packets_aggregated`` frames plus its session; a
tput frame costs one frame plus its share of its transaction's session.
"""

from __future__ import annotations

from ndrpdr.families.build import setup, vpp_only
from ndrpdr.families.kinds.astf import vpp as astf
from ndrpdr.families.model import Family
from ndrpdr.families.stateful import astf_ramp_up
from ndrpdr.families.vppsetup import VppCommands
from ndrpdr.profiles import Headers, PacketCost, Profile, Transactions, Vary
from ndrpdr.profiles.transactions import TransactionKind, TransactionProtocol

#: CSIT's scale of these families: hosts and source ports per host.
HOSTS = 65536
PORTS = 63
#: Cycles a frame costs: routing (ethip4-ip4base), NAT44 ed translation.
_FRAME_CYCLES = {"ip4base": 145.0, "nat44ed": 250.0}
#: Cycles a session's creation costs (NAT44 ed only).
_SESSION_CYCLES = {"ip4base": 0.0, "nat44ed": 1500.0}
#: CSIT's ``ramp_up_rate`` of its nat44ed tput suites [transactions/s].
RAMP_UP_TPS = 30_000
#: The NAT44 tags of a nat44ed family, by kind: CSIT's (its tput suites are not tagged a
#: FEATURE nor NAT44_ENDPOINT_DEPENDENT, its cps suites are).
_NAT_TAGS: dict[str, tuple[str, ...]] = {
    "cps": ("FEATURE", "NAT44", "NAT44_ENDPOINT_DEPENDENT"),
    "tput": ("NAT44",),
}
_IP_PROTO_TCP = 6
_REASON = (
    "{family} is stateful: TRex in ASTF mode opens its connections through VPP ({feature}); "
    "the {driver} driver is not a VPP"
)


def _headers(protocol: TransactionProtocol) -> tuple[Headers, Headers]:
    """Client to server (65536 client hosts) and back, for the sim's and the record's sake."""
    clients, servers = astf.CLIENTS.split("/")[0], astf.SERVERS.split("/")[0]
    l4: int | str = "udp" if protocol == "udp" else _IP_PROTO_TCP
    return (
        Headers(4, clients, servers, l4, vary=(Vary("ip.src", HOSTS),)),  # type: ignore[arg-type]
        Headers(4, servers, clients, l4, vary=(Vary("ip.dst", HOSTS),)),  # type: ignore[arg-type]
    )


def transaction_cost(
    frame: float, session: float, traffic: Transactions, what: str = ""
) -> PacketCost:
    """The sim's cost of ``traffic``: ``frame`` cycles a frame, ``session`` cycles a session.

    A cps transaction costs its ``packets_aggregated`` frames plus its
    session; a tput frame one frame plus its share of its transaction's
    session. ``what`` (optional) leads the basis ("SFDP ip4: 0.56x ...").
    """
    frames = traffic.packets_aggregated
    lead = f"{what}; " if what else ""
    if traffic.kind == "cps":
        return PacketCost(
            cycles=frame * frames,
            table_cycles=session,
            cycles_per_byte=0.0,
            basis=f"{lead}a connection: {frames} frames of {frame:.0f} cycles plus a session of "
            f"{session:.0f}",
        )
    return PacketCost(
        cycles=frame,
        table_cycles=session / frames,
        cycles_per_byte=0.05,
        basis=f"{lead}a frame of {frame:.0f} cycles plus 1/{frames} of a session of {session:.0f}",
    )


def _family(protocol: TransactionProtocol, feature: str, kind: TransactionKind) -> Family:
    family = f"ethip4{protocol}-{feature}-h{HOSTS}-p{PORTS}-s{HOSTS * PORTS}-{kind}"
    traffic = Transactions(kind, protocol, HOSTS, PORTS, clients=astf.CLIENTS, servers=astf.SERVERS)
    nat = feature == "nat44ed"
    what = "connections per second" if kind == "cps" else "frames per second of transactions"
    vpp = (
        astf.nat44ed(HOSTS, PORTS, protocol, kind)
        if nat
        else VppCommands((), astf.routed, astf.routed_undo)
    )
    ramp_up = astf_ramp_up(traffic, RAMP_UP_TPS) if nat and kind == "tput" else None
    state = ""
    if nat:
        state = (
            " NAT44-ED sessions reset before each trial (CSIT's resetter)."
            if kind == "cps"
            else f" Ramp-up at {RAMP_UP_TPS} transactions/s and session check before the "
            "search (CSIT's)."
        )
    return Family(
        csit_profile=f"trex-astf-ethip4{protocol}-{HOSTS}h" + ("-pps" if kind == "tput" else ""),
        id=family,
        tags=(
            "ETH",
            "IP4FWD",
            *(_NAT_TAGS[kind] if nat else ("IP4BASE",)),
            protocol.upper(),
            f"{protocol.upper()}_{kind.upper()}",
            "SCALE",
            f"HOSTS_{HOSTS}",
        ),
        plugins=("nat",) if nat else (),
        profile=Profile(
            name=family,
            description=f"Ethernet/IPv4/{protocol.upper()} ASTF, {HOSTS} hosts x {PORTS} ports, "
            f"{what}, DUT routes IPv4" + (" through NAT44 ed" if nat else ""),
            layer="L3",
            directions=_headers(protocol),
            cost=transaction_cost(_FRAME_CYCLES[feature], _SESSION_CYCLES[feature], traffic),
            transactions=traffic,
        ),
        setup=setup(
            vpp=vpp,
            reasons=vpp_only(_REASON.format(family=family, feature=feature, driver="{driver}")),
        ),
        ramp_up=ramp_up,
        note="Stateful (TRex ASTF): VPP and the sim only; STL TGs refuse it." + state,
    )


#: Where this kind's families come in the list of every family (``registry``).
ORDER = 170

FAMILIES = [
    _family(protocol, feature, kind)
    for feature in ("ip4base", "nat44ed")
    for protocol in ("tcp", "udp")
    for kind in ("cps", "tput")
]  # fmt: skip
