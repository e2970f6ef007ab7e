"""One line of a frame's headers, outermost first, for a reader who wants no Wireshark.

``header_line(frame)`` dissects an Ethernet frame (no FCS) with scapy and
says each header it knows in a few words, joined by `` / ``::

    Ether 02:00:00:00:01:01 > 02:00:00:00:01:02 / IPv4 198.18.0.2 > 198.18.1.2 proto 61

The headers said: Ethernet (source > destination), 802.1Q (VLAN id),
IPv4 and IPv6 (source > destination; the protocol or next header unless
UDP follows), UDP (source port > destination port) and GENEVE (VNI); a
tunnel's inner Ethernet and IP headers follow its GENEVE header. The
payload is left out. Scapy is imported on first use (~0.5 s).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ndrpdr.optionaldeps import optional_part

if TYPE_CHECKING:
    from scapy.packet import Packet


def _layer_words(layer: Packet) -> str | None:
    """``layer`` in a few words, or None for a layer not said (the payload)."""
    from scapy.contrib.geneve import GENEVE  # noqa: PLC0415 - scapy takes ~0.5 s to import
    from scapy.layers.inet import IP, UDP  # noqa: PLC0415
    from scapy.layers.inet6 import IPv6  # noqa: PLC0415
    from scapy.layers.l2 import Dot1Q, Ether  # noqa: PLC0415

    if isinstance(layer, Ether):
        return f"Ether {layer.src} > {layer.dst}"
    if isinstance(layer, Dot1Q):
        return f"802.1Q vlan {layer.vlan}"
    if isinstance(layer, IP):
        proto = "" if isinstance(layer.payload, UDP) else f" proto {layer.proto}"
        return f"IPv4 {layer.src} > {layer.dst}{proto}"
    if isinstance(layer, IPv6):
        next_header = "" if isinstance(layer.payload, UDP) else f" next header {layer.nh}"
        return f"IPv6 {layer.src} > {layer.dst}{next_header}"
    if isinstance(layer, UDP):
        return f"UDP {layer.sport} > {layer.dport}"
    if isinstance(layer, GENEVE):
        return f"GENEVE vni {layer.vni}"
    return None


def header_line(frame: bytes) -> str:
    """The headers of Ethernet ``frame`` (no FCS) in one line (module docstring)."""
    with optional_part("reading a frame's headers"):  # scapy: optional, ~0.5 s to import
        from scapy.contrib.geneve import GENEVE  # noqa: PLC0415, F401 - binds UDP port 6081
        from scapy.layers.l2 import Ether  # noqa: PLC0415

    words: list[str] = []
    layer: Packet = Ether(frame)
    while layer:
        said = _layer_words(layer)
        if said is None:
            break
        words.append(said)
        layer = layer.payload
    return " / ".join(words)
