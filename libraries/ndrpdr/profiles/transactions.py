"""Stateful traffic: what one transaction of a TRex ASTF family is, and how its trials count.

CSIT's stateful families (``...-h65536-p63-s4128768-cps`` and ``-tput``)
do not send a stream of frames at a rate: TRex in ASTF mode opens
connections, and the search runs over ASTF's multiplier, which is the
number of transactions (connections) started per second. Facts, from
CSIT's ``TrafficGenerator`` and its ASTF test suites:

* the scale: ``hosts`` clients times ``ports`` source ports each; a trial
  runs exactly ``scale`` transactions (4128768 = 65536 x 63), so its
  duration is ``scale / load``, not the search's trial duration;
* ``cps`` (``udp_cps``, ``tcp_cps``): the unit is a transaction. Offered is
  the transactions attempted (UDP: the client's requests sent; TCP: the
  client's connection attempts), forwarded the ones completed (UDP: the
  responses the client port received; TCP: the client's established
  connections), and the transactions of ``scale`` never attempted count as
  lost too;
* ``tput`` (``udp_pps``, ``tcp_pps``): the unit is a frame. Each
  transaction sends ``data_frames`` data frames (CSIT's
  ``ASTF_N_DATA_FRAMES``, 5) each way; offered is the frames sent,
  forwarded the frames received, and the frames of ``scale`` x frames per
  transaction never sent count as lost;
* packets per transaction: UDP cps 2 (request, response); TCP cps 7
  (handshake and close, 4 one way and 3 the other, as CSIT counts them);
  UDP tput ``data_frames`` each way; TCP tput the handshake and close plus
  ``data_frames`` each way: 4 + d from the client and 3 + d from the server,
  as TRex v3.08 sent them here with our programs (CSIT's suites give 6 + 2d
  for theirs; a count off by one frame a transaction would read as loss).

The clients live in ``clients`` (TG port 1's side) and the servers in
``servers`` (port 2's). Every built-in family gives CSIT's own ranges:
``hosts`` clients from 192.168.0.0 and as many servers from 20.0.0.0, as
CSIT's ``trex-astf-ethip4{tcp,udp}-<hosts>h`` profiles (the astf kind's
192.168.0.0/16 and 20.0.0.0/16, the SFDP families' by scale); ``CLIENTS``
and ``SERVERS``, TRex's customary ranges, are the defaults of a
``Transactions`` made by hand.

The sim prices a transaction at ``packets_aggregated`` packets of the
family's cost (plus the session's cost, in the family's ``table_cycles``),
so it measures a connection rate as it measures a frame rate.
"""

from __future__ import annotations

import dataclasses
import ipaddress
from typing import Literal, TypeAlias

from ndrpdr.profiles.errors import ProfileError

#: ``cps``: connections per second; ``tput``: frames per second of fixed-size transactions.
TransactionKind: TypeAlias = Literal["cps", "tput"]
#: The L4 protocol of the transactions.
TransactionProtocol: TypeAlias = Literal["tcp", "udp"]
#: Data frames each way in a ``tput`` transaction (CSIT's ASTF_N_DATA_FRAMES).
DATA_FRAMES = 5
#: Destination port of every transaction (the server's listening port).
SERVER_PORT = 8080
#: The clients' /16 by default (TRex ASTF's customary client range; TG port 1's side).
CLIENTS = "16.0.0.0/16"
#: The servers' /16 by default (TG port 2's side).
SERVERS = "48.0.0.0/16"


@dataclasses.dataclass(frozen=True)
class Transactions:
    """One family's stateful traffic (see the module docstring)."""

    kind: TransactionKind
    protocol: TransactionProtocol
    hosts: int
    ports: int
    data_frames: int = DATA_FRAMES
    clients: str = CLIENTS
    servers: str = SERVERS

    def __post_init__(self) -> None:
        """ProfileError naming the field for a kind, protocol, count or range that makes no
        sense (a range must be an IPv4 network of at least ``hosts`` addresses)."""
        if self.kind not in ("cps", "tput"):
            raise ProfileError(f"transactions: kind {self.kind!r} is not 'cps' or 'tput'")
        if self.protocol not in ("tcp", "udp"):
            raise ProfileError(f"transactions: protocol {self.protocol!r} is not 'tcp' or 'udp'")
        for name in ("hosts", "ports", "data_frames"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ProfileError(f"transactions: {name} {value!r} must be an integer >= 1")
        for name in ("clients", "servers"):
            value = getattr(self, name)
            try:
                network = ipaddress.IPv4Network(value)
            except (TypeError, ValueError) as exc:
                raise ProfileError(f"transactions: {name} {value!r}: {exc}") from None
            if network.num_addresses < self.hosts:
                raise ProfileError(
                    f"transactions: {name} {value} holds fewer than {self.hosts} hosts"
                )

    @property
    def scale(self) -> int:
        """Transactions a trial runs (hosts x ports)."""
        return self.hosts * self.ports

    @property
    def transaction_type(self) -> str:
        """CSIT's name of the counting: ``udp_cps``, ``tcp_cps``, ``udp_pps``, ``tcp_pps``."""
        return f"{self.protocol}_{'cps' if self.kind == 'cps' else 'pps'}"

    @property
    def packets_client(self) -> int:
        """Packets one transaction sends from the client side (TG port 1)."""
        if self.protocol == "udp":
            return 1 if self.kind == "cps" else self.data_frames
        return 4 if self.kind == "cps" else 4 + self.data_frames

    @property
    def packets_server(self) -> int:
        """Packets one transaction sends from the server side (TG port 2)."""
        if self.protocol == "udp":
            return 1 if self.kind == "cps" else self.data_frames
        return 3 if self.kind == "cps" else 3 + self.data_frames

    @property
    def packets_aggregated(self) -> int:
        """Packets of one transaction, both ways."""
        return self.packets_client + self.packets_server

    @property
    def unit(self) -> str:
        """What the search's load counts: ``cps`` (transactions) or ``pps`` (frames)."""
        return "cps" if self.kind == "cps" else "pps"

    def expected(self) -> int:
        """What a complete trial attempts: transactions (cps) or frames both ways (tput)."""
        return self.scale if self.kind == "cps" else self.scale * self.packets_aggregated

    def duration_s(self, load: float) -> float:
        """How long a trial of ``scale`` transactions runs at ``load`` (in ``unit`` per second)."""
        if not load > 0:
            raise ProfileError(f"transactions: load {load!r} must be > 0")
        return self.expected() / load
