"""A Linux interface as ``ip -j [-s] link show`` gives it, and whether it can carry frames.

One judgement for every DUT driver whose ports are Linux interfaces: the
linux driver's own ports, and the host links under VPP's af_packet, af_xdp
and DPDK-vdev ports.
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Mapping


@dataclasses.dataclass(frozen=True)
class HostLink:
    """A Linux interface: its flags, operstate and transmitted frames (0 without ``-s``)."""

    flags: tuple[str, ...]
    operstate: str
    tx_packets: int

    @classmethod
    def from_entry(cls, entry: Mapping[str, object]) -> HostLink:
        """The link of one entry of ``ip -j [-s] link show``'s JSON list."""
        stats = entry.get("stats64", entry.get("stats", {}))
        tx = stats.get("tx", {}) if isinstance(stats, Mapping) else {}
        flags = entry.get("flags", ())
        return cls(
            tuple(str(f) for f in flags) if isinstance(flags, list | tuple) else (),
            str(entry.get("operstate", "?")),
            int(tx.get("packets", 0)) if isinstance(tx, Mapping) else 0,
        )

    def fault(self) -> str | None:
        """What keeps the link from carrying frames (None: it is up, with carrier)."""
        state = f"operstate {self.operstate}, flags {','.join(self.flags) or '-'}"
        if "UP" not in self.flags:
            return f"is down ({state})"
        if "LOWER_UP" not in self.flags or "NO-CARRIER" in self.flags:
            return f"has no carrier ({state}): the other end of its link is down"
        return None


def parse_host_link(text: str) -> HostLink | None:
    """The link in ``ip -j -s link show dev X`` output, stderr included (None: no such
    interface; ValueError: neither, e.g. an ``ip`` without ``-j``: no judgement)."""
    if "does not exist" in text:  # Device "X" does not exist.
        return None
    entries = json.loads(text)  # a JSONDecodeError is a ValueError
    if not isinstance(entries, list) or not entries or not isinstance(entries[0], dict):
        raise ValueError(f"not the JSON of one link: {text[:200]!r}")
    return HostLink.from_entry(entries[0])
