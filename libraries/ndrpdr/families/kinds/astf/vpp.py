"""VPP set-ups of the stateful (TRex ASTF) families: vppctl lines for one DUT, pure functions.

The clients (TG port 1's side) live in ``CLIENTS``, the servers (TG port
2's side) in ``SERVERS``: one /16 each, outside the plan's link /24s and
the STL families' direction prefixes. Every set-up routes each /16 to the
port that faces it, on top of the plan's links (``ip4base``), as CSIT's
"Initialize IPv4 forwarding in circular topology" does with its /16s.

``nat44ed``: NAT44 endpoint-dependent from the client port (inside) to
the server port (outside), translating the clients to the 64 addresses of
``NAT_POOL`` (CSIT's 68.142.68.0/26), with room for every session of the
test's scale. The NAT44 det/ed STL families' module (``families/kinds/nat/vpp.py``,
another branch) writes the same plugin's set-up: join the two at merge.
"""

from __future__ import annotations

import dataclasses

from ndrpdr.dut.base import DutTestConfig
from ndrpdr.families import vppip
from ndrpdr.profiles.transactions import CLIENTS, SERVERS  # the TG's ranges: one place

#: NAT44 ed's outside addresses: first, last (CSIT's 68.142.68.0/26).
NAT_POOL = ("68.142.68.0", "68.142.68.63")


def _routes(verb: str, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
    pairs = zip((CLIENTS, SERVERS), names, config.ports, strict=True)
    return [f"ip route {verb} {prefix} via {port.peer_ip4} {name}" for prefix, name, port in pairs]


def routed(config: DutTestConfig, names: tuple[str, str]) -> list[str]:
    """The plan's links (ip4base), then the client and server /16s."""
    return vppip.ip4_base(config, names) + _routes("add", config, names)


def routed_undo(config: DutTestConfig, names: tuple[str, str]) -> list[str]:
    """The /16 routes deleted, then ip4base's."""
    return _routes("del", config, names) + vppip.ip4_base_undo(config, names)


@dataclasses.dataclass(frozen=True)
class Nat44Ed:
    """NAT44 ed for ``sessions`` sessions (the family's transaction scale), inside on port 1."""

    sessions: int

    def commands(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """Routing, the plugin on with room for the sessions, the two features, the pool."""
        inside, outside = names
        return [
            *routed(config, names),
            f"nat44 plugin enable sessions {self.sessions}",
            f"set interface nat44 in {inside} out {outside}",
            f"nat44 add address {NAT_POOL[0]} - {NAT_POOL[1]}",
        ]

    def undo(self, config: DutTestConfig, names: tuple[str, str]) -> list[str]:
        """The plugin off (its sessions, pool and features go with it), then the routes."""
        return ["nat44 plugin disable", *routed_undo(config, names)]
