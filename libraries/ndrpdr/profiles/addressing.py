"""The address ranges test traffic uses: RFC 2544's 198.18.0.0/15 and RFC 5180's 2001:2::/48.

Direction 0 leaves TG port 1, crosses the DUT and comes back on TG port 2;
direction 1 is the reverse. Traffic to ``DIRECTION_PREFIXES[i]`` (IPv6:
``DIRECTION_PREFIXES6[i]``) leaves the DUT on its port facing TG port
*i + 1* (DUT drivers route by this; DPDK l3fwd's built-in LPM table holds
exactly the two IPv4 /24s). So direction *d* is sent from prefix *d* to
prefix *1 - d*. Which hosts of them a family sends from and to, and which
fields vary, is the family's (``ndrpdr.families``, ``Headers``).
"""

from __future__ import annotations

from ndrpdr.profiles.errors import ProfileError

#: RFC 2544's benchmarking range.
BENCHMARK_RANGE = "198.18.0.0/15"

#: Traffic to prefix *i* leaves the DUT on its port *i + 1* (the one facing TG port *i + 1*).
DIRECTION_PREFIXES: tuple[str, str] = ("198.18.0.0/24", "198.18.1.0/24")
#: The same for IPv6, in RFC 5180's benchmarking range 2001:2::/48.
DIRECTION_PREFIXES6: tuple[str, str] = ("2001:2::/64", "2001:2:0:1::/64")

#: The most flows per direction of a multi-flow family (its UDP source port from 1024 up).
MAX_FLOWS = 65536 - 1024


def check_direction(direction: int) -> int:
    """``direction`` if it is 0 or 1, else ProfileError."""
    if isinstance(direction, bool) or direction not in (0, 1):
        raise ProfileError(f"direction {direction!r} is not valid: give 0 or 1")
    return direction


def check_flow_count(flows: int) -> int:
    """``flows`` if it is an int in 1..MAX_FLOWS, else ProfileError."""
    if isinstance(flows, bool) or not isinstance(flows, int) or not 1 <= flows <= MAX_FLOWS:
        raise ProfileError(f"flow count {flows!r} is not valid: give an integer 1..{MAX_FLOWS}")
    return flows
