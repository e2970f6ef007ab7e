"""One TRex ASTF trial's counters -> TrialResult (pure: plain data in, plain data out).

A stateful family's trial (``ndrpdr.profiles.transactions``) runs the
family's whole scale of transactions, at ASTF's multiplier: the load for
``cps``, the load divided by the packets of a transaction for ``tput``
(whose load is frames per second). Counting follows FD.io CSIT
(``TrafficGenerator._get_measurement_result``, its udp_cps, tcp_cps,
udp_pps and tcp_pps branches); client port 0, server port 1:

* ``udp_cps``: offered = the client port's ``opackets`` (one request a
  connection), forwarded = its ``ipackets`` (the responses);
* ``tcp_cps``: offered = the client's ``tcps_connattempt``, forwarded =
  its ``tcps_connects`` (the connections it saw established: with NAT44 the
  session is the client's half);
* ``udp_pps`` / ``tcp_pps``: offered = ``opackets`` of both ports,
  forwarded = their ``ipackets``; TCP's retransmissions (frames sent beyond
  the expected count) count as lost as well, as CSIT's ``abs(unsent)``;
* intended = the family's expected count (``Transactions.expected``):
  what TRex never attempted counts as lost (TrialResult's unsent);
* effective duration = the server's ``m_traffic_duration`` (the client's
  includes TRex's set-up before its first packet, as CSIT notes), or the
  intended duration when TRex gave none.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ndrpdr.profiles.transactions import Transactions
from ndrpdr.search.trial import TrialResult
from ndrpdr.trafficgen.base import TrafficGeneratorError

#: TRex's ports: the client's (sends the requests) and the server's.
CLIENT_PORT, SERVER_PORT = 0, 1


def astf_multiplier(traffic: Transactions, load: float) -> float:
    """ASTF's multiplier (transactions started per second) for a trial ``load`` (in its unit)."""
    return load if traffic.kind == "cps" else load / traffic.packets_aggregated


def _counter(stats: Mapping[Any, Any], node: str, *path: Any) -> float:
    value: Any = stats
    for key in path:
        if not isinstance(value, Mapping) or key not in value:
            if key in ("tcps_connattempt", "tcps_connects"):  # TRex leaves out zero counters
                return 0.0
            where = ".".join(str(p) for p in path)
            raise TrafficGeneratorError(f"{node}: TRex's ASTF statistics have no {where}")
        value = value[key]
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        where = ".".join(str(p) for p in path)
        raise TrafficGeneratorError(f"{node}: TRex's ASTF counter {where} is {value!r}")
    return float(value)


def _frames(stats: Mapping[Any, Any], node: str, field: str) -> float:
    return sum(_counter(stats, node, port, field) for port in (CLIENT_PORT, SERVER_PORT))


def astf_trial_result(
    traffic: Transactions, load: float, stats: Mapping[Any, Any], node: str
) -> TrialResult:
    """The TrialResult of one ASTF trial at ``load`` from TRex's ``get_stats()`` (see module doc).

    TrafficGeneratorError naming ``node`` and the counter when one is
    missing or not a number.
    """
    duration = traffic.duration_s(load)
    expected = float(traffic.expected())
    kind = traffic.transaction_type
    if kind == "udp_cps":
        offered = _counter(stats, node, CLIENT_PORT, "opackets")
        forwarded = _counter(stats, node, CLIENT_PORT, "ipackets")
    elif kind == "tcp_cps":
        offered = _counter(stats, node, "traffic", "client", "tcps_connattempt")
        forwarded = _counter(stats, node, "traffic", "client", "tcps_connects")
    else:
        offered = _frames(stats, node, "opackets")
        forwarded = _frames(stats, node, "ipackets")
        if kind == "tcp_pps" and offered > expected:
            forwarded = max(0.0, forwarded - (offered - expected))  # retransmissions: lost
    ran = _counter(stats, node, "traffic", "server", "m_traffic_duration")
    return TrialResult(
        duration=duration,
        load=load,
        offered_count=offered,
        forwarded_count=forwarded,
        intended_count=max(expected, offered),
        effective_duration=ran if ran > 0 else duration,
    )
