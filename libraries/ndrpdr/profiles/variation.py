"""Which value each varied field takes in frame *k* of a direction (``Vary``, ``Headers``).

A field's values are ``base + i * step`` for ``i`` in ``0 .. count - 1``,
where ``base`` is the header's own value (an address as an integer: a MAC
is 48 bits, IPv4 32, IPv6 128; ports, the VLAN id and a tunnel's VNI as
they are; a ``None`` Ethernet address is the TG's or its peer's MAC); the
last must fit the field, but a field walking every value it holds (a port's
65536, step 1: ``spans_field``) may start anywhere and wraps to 0 after its
largest value, as CSIT's GENEVE source port 1024 + k mod 2^16. Frame *k* takes
value index ``(k // every) % count`` (``inc``), or for ``random`` a
reproducible draw in ``0 .. count - 1`` made from the field's seed and
``k // every`` (a 64-bit mix, the same on every run and machine). TRex
draws its own repeatable random sequence from the same seed
(``ndrpdr.trafficgen.trex.streams``): the same range, not the same order.
"""

from __future__ import annotations

from ndrpdr.profiles.errors import ProfileError
from ndrpdr.profiles.layout import FrameLayout
from ndrpdr.profiles.traffic import TUNNEL_FIELDS, FieldName, Headers, Vary

_MASK64 = (1 << 64) - 1
#: Highest VLAN id (4095 is reserved).
MAX_VLAN = 4094


def mac_int(mac: str) -> int:
    """``02:00:00:00:00:01`` as an integer."""
    return int(mac.replace(":", ""), 16)


def random_seed(direction: int, position: int) -> int:
    """The seed of the ``position``-th varied field of ``direction`` (>= 1, as CSIT's 1 and 2)."""
    return direction + 1 + 2 * position


def _mix(seed: int, step: int) -> int:
    """A 64-bit hash of (seed, step) (splitmix64's finaliser)."""
    z = (seed * 0x9E3779B97F4A7C15 + step + 1) & _MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def value_index(vary: Vary, frame: int, seed: int) -> int:
    """The value index (0 .. count - 1) ``vary`` gives frame ``frame`` (module docstring)."""
    tick = frame // vary.every
    if vary.op == "inc":
        return tick % vary.count
    return _mix(seed, tick) % vary.count


def base_value(headers: Headers, field: FieldName, src_mac: str, dst_mac: str) -> int:
    """The value of ``field`` in ``headers`` as an integer (a ``None`` MAC: the given one)."""
    if field == "eth.src":
        return mac_int(headers.eth_src or src_mac)
    if field == "eth.dst":
        return mac_int(headers.eth_dst or dst_mac)
    if field == "vlan.id":
        if headers.vlan is None:
            raise ProfileError("vlan.id varies, but the frames carry no VLAN tag")
        return headers.vlan
    if field in TUNNEL_FIELDS:
        tunnel = headers.tunnel
        if tunnel is None:
            raise ProfileError(f"{field} varies, but the frames carry no tunnel")
        if field == "inner.eth.dst":
            return mac_int(tunnel.eth_dst)
        return tunnel.sport if field == "tunnel.sport" else tunnel.vni
    if field in ("ip.src", "ip.dst"):
        import ipaddress  # noqa: PLC0415 - only here

        return int(ipaddress.ip_address(headers.src if field == "ip.src" else headers.dst))
    return headers.sport if field == "udp.sport" else headers.dport


def field_limit(layout: FrameLayout, field: FieldName) -> int:
    """The largest value ``field`` can hold."""
    if field == "vlan.id":
        return MAX_VLAN
    return (1 << (8 * layout.width(field))) - 1


def spans_field(layout: FrameLayout, vary: Vary) -> bool:
    """Whether ``vary`` walks every value its field holds (step 1), so it wraps (docstring)."""
    return (
        vary.field != "vlan.id"
        and vary.step == 1
        and vary.count == field_limit(layout, vary.field) + 1
    )


def field_value(layout: FrameLayout, vary: Vary, base: int, frame: int, seed: int) -> int:
    """The value ``vary`` (from ``base``, its field's ``seed``) gives frame ``frame``."""
    value = base + value_index(vary, frame, seed) * vary.step
    return value & field_limit(layout, vary.field) if spans_field(layout, vary) else value


def last_value(vary: Vary, base: int) -> int:
    """The field's last value, ``base + (count - 1) * step``."""
    return base + (vary.count - 1) * vary.step


def check_range(layout: FrameLayout, vary: Vary, base: int) -> None:
    """ProfileError naming the field when its last value does not fit the field."""
    last = last_value(vary, base)
    if last > field_limit(layout, vary.field) and not spans_field(layout, vary):
        raise ProfileError(
            f"{vary.field}: {vary.count} values from {base:#x} by {vary.step} end at {last:#x}, "
            f"beyond the field's largest value {field_limit(layout, vary.field):#x}"
        )
