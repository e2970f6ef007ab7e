"""Header-by-header comparison of the frames CSIT's TRex profile sends and ours.

``header_fields`` dissects a captured frame (scapy 2.8, GENEVE and VXLAN
bound to their UDP ports) into its header fields in order, named
``<layer>[<n>].<field>`` (``eth.src``, ``dot1q.vlan``, ``ip.dst``,
``udp.sport``, ``geneve.vni``, ``eth2.dst`` and ``ip2.src`` for an inner
header), up to the payload (``Raw``/``Padding``), plus ``frame.length``
(the captured frame, without FCS). Payloads differ by design (CSIT's are
random letters, ours carry a signature), so the UDP and TCP checksums,
which cover the payload, are left out; the IPv4 header checksum covers
the header only and is compared.

``compare`` walks both frame lists in order and gives, per field, the
first frame where they differ with both values. A CSIT profile that draws
TRex's repeatable random values (``random=True``) cannot be matched frame
by frame (TRex's draws are not ours): a field that differs is then
compared by range and spread instead: every value of ours within CSIT's
observed range (widened by 1 % of it), and the numbers of distinct values
within 10 % of each other; IPv4 header checksums, which follow the drawn
addresses, are left out of such a comparison.

A family's declared ``CsitDifference`` with ``renumber`` moves CSIT's
addresses into our network (host bits kept) before comparing; a field
covered by a declared difference without ``renumber`` is reported as
"differs on purpose".
"""

from __future__ import annotations

import dataclasses
import ipaddress
from collections.abc import Sequence
from typing import Any

from scapy.contrib.geneve import GENEVE
from scapy.layers.inet import UDP
from scapy.layers.l2 import Ether
from scapy.layers.vxlan import VXLAN
from scapy.packet import Packet, Padding, Raw, bind_layers

from ndrpdr.families.model import CsitDifference

bind_layers(UDP, GENEVE, dport=6081)
bind_layers(UDP, VXLAN, dport=4789)

#: Short layer names (scapy class name -> field prefix).
_LAYER = {"Ether": "eth", "Dot1Q": "dot1q", "IP": "ip", "IPv6": "ipv6", "UDP": "udp",
          "TCP": "tcp", "GENEVE": "geneve", "VXLAN": "vxlan"}  # fmt: skip
#: Fields that cover the payload, which differs by design.
_IPV4_CHECKSUMS = frozenset({"ip.chksum", "ip2.chksum"})
PAYLOAD_CHECKSUMS = frozenset({"udp.chksum", "tcp.chksum", "udp2.chksum", "tcp2.chksum"})


def header_fields(frame: bytes) -> dict[str, Any]:
    """The frame's header fields in order (see the module docstring)."""
    out: dict[str, Any] = {"frame.length": len(frame)}
    seen: dict[str, int] = {}
    layer: Packet = Ether(frame)
    while layer is not None and not isinstance(layer, (Raw, Padding)) and layer.name != "NoPayload":
        kind = type(layer).__name__
        short = _LAYER.get(kind, kind.lower())
        seen[short] = seen.get(short, 0) + 1
        prefix = short if seen[short] == 1 else f"{short}{seen[short]}"
        for field in layer.fields_desc:
            name = f"{prefix}.{field.name}"
            if name in PAYLOAD_CHECKSUMS:
                continue
            value = layer.getfieldval(field.name)
            out[name] = (
                value if isinstance(value, (int, str, bytes)) or value is None else repr(value)
            )
        layer = layer.payload if layer.payload else None
    return out


@dataclasses.dataclass(frozen=True)
class FieldDiff:
    """One field that differs: first frame index and both values, or a spread finding."""

    field: str
    frame: int
    csit: Any
    ours: Any
    purpose: str = ""  # the declared reason, when it differs on purpose

    def text(self) -> str:
        where = f"from frame {self.frame}" if self.frame >= 0 else "in spread"
        head = f"{self.field} {where}: CSIT {self.csit!r}, ours {self.ours!r}"
        return f"{head} (differs on purpose: {self.purpose})" if self.purpose else head


def _renumber(value: Any, rules: tuple[tuple[str, str], ...]) -> Any:
    """CSIT's address moved into our network by the first rule whose CSIT network holds it."""
    try:
        address = ipaddress.ip_address(value)
    except ValueError:
        return value
    for rule in rules:
        theirs, ours = (ipaddress.ip_network(n) for n in rule)
        if address.version == theirs.version and address in theirs:
            host = int(address) - int(theirs.network_address)
            return str(ipaddress.ip_address(int(ours.network_address) + host))
    return value


def _address(value: int) -> str:
    return str(ipaddress.ip_address(value))


def _spread(field: str, csit: list[Any], ours: list[Any]) -> FieldDiff | None:
    if not all(isinstance(v, (int, str)) for v in csit + ours):
        return FieldDiff(field, -1, "values not comparable", "")

    def number(v: Any) -> int:
        return v if isinstance(v, int) else int(ipaddress.ip_address(v))

    c, o = [number(v) for v in csit], [number(v) for v in ours]
    slack = (max(c) - min(c)) // 100
    if min(o) < min(c) - slack or max(o) > max(c) + slack:
        show = _address if field.startswith("ip") and field.endswith((".src", ".dst")) else str
        return FieldDiff(
            field, -1, f"range {show(min(c))}..{show(max(c))}", f"{show(min(o))}..{show(max(o))}"
        )
    dc, do = len(set(c)), len(set(o))
    if abs(dc - do) > 0.1 * max(dc, do):
        return FieldDiff(field, -1, f"{dc} distinct values", f"{do} distinct values")
    return None


class Frames:
    """A list of frames of one stream, read field by field without dissecting every frame.

    Frame 0 is dissected (scapy); each of its header bytes is then
    flipped once to learn which fields it holds (``spans``). A field's
    value in frame *k* is read as those bytes; a frame is dissected only
    where a value is reported (``fields``). A frame of another length, or
    whose layer-choosing bytes (those whose flip changed the layers found)
    differ from frame 0's, is dissected whole.
    """

    def __init__(self, frames: Sequence[bytes]) -> None:
        self.frames = list(frames)
        self._dissected: dict[int, dict[str, Any]] = {}
        self._columns: dict[str, list[Any]] = {}
        first = self.fields(0) if self.frames else {}
        self.names = list(first)
        self.spans: dict[str, tuple[int, ...]] = {}
        if not self.frames:
            return
        frame = self.frames[0]
        size = _header_size(frame)
        held: dict[str, list[int]] = {n: [] for n in self.names}
        structural = []  # the bytes that choose the layers: flipped, other layers follow
        for i in range(size):
            flipped = bytearray(frame)
            flipped[i] ^= 0xFF
            try:
                other = header_fields(bytes(flipped))
            except Exception:
                structural.append(i)
                continue
            if list(other) != self.names:
                structural.append(i)
            for name, value in first.items():
                if name in other and other[name] != value:
                    held[name].append(i)
        self.spans = {n: tuple(v) for n, v in held.items()}
        # a frame of frame 0's length and layer-choosing bytes has frame 0's layout
        shape = bytes(frame[i] for i in structural)
        self.same_layout = [
            len(f) == len(frame) and bytes(f[i] for i in structural) == shape for f in self.frames
        ]

    def fields(self, k: int) -> dict[str, Any]:
        """Frame ``k`` dissected (kept)."""
        if k not in self._dissected:
            self._dissected[k] = header_fields(self.frames[k])
        return self._dissected[k]

    def column(self, name: str) -> list[Any]:
        """Field ``name`` of every frame: its bytes where the layout allows, else its value."""
        if name not in self._columns:
            span = self.spans.get(name)
            if name == "frame.length":
                out: list[Any] = [len(f) for f in self.frames]
            elif span and span == tuple(range(span[0], span[-1] + 1)):
                a, b = span[0], span[-1] + 1
                out = [f[a:b] for f in self.frames]
            elif span:
                out = [bytes(f[i] for i in span) for f in self.frames]
            else:
                out = [None] * len(self.frames)
            self._columns[name] = [
                v if same and span else self.fields(k).get(name)
                for k, (v, same) in enumerate(zip(out, self.same_layout, strict=True))
            ] if name != "frame.length" else out  # fmt: skip
        return self._columns[name]

    def bad_ipv4_checksum(self, prefix: str) -> int | None:
        """The first frame whose IPv4 header ``prefix`` (``ip``, ``ip2``) has a wrong checksum."""
        span = self.spans.get(f"{prefix}.version")
        for k, frame in enumerate(self.frames):
            if span and self.same_layout[k]:
                start = span[0]
                header = frame[start : start + 4 * (frame[start] & 0x0F)]
            else:
                header = _ipv4_header(frame, prefix)
            total = sum(int.from_bytes(header[i : i + 2], "big") for i in range(0, len(header), 2))
            while total > 0xFFFF:
                total = (total & 0xFFFF) + (total >> 16)
            if total != 0xFFFF:
                return k
        return None

    def value(self, name: str, k: int) -> Any:
        return self.fields(k).get(name)


def _ipv4_header(frame: bytes, prefix: str) -> bytes:
    """The bytes of IPv4 header ``prefix`` (``ip``: the first, ``ip2``: the second), dissected."""
    nth = 1 if prefix == "ip" else int(prefix[2:])
    layer: Packet = Ether(frame)
    while layer:
        if type(layer).__name__ == "IP":
            nth -= 1
            if nth == 0:
                return bytes(layer)[: 4 * layer.ihl]
        layer = layer.payload
    return b"\xff\xff"  # no such header: nothing to be wrong


def _header_size(frame: bytes) -> int:
    layer: Packet = Ether(frame)
    while layer.payload and not isinstance(layer.payload, (Raw, Padding)):
        layer = layer.payload
    return len(frame) - len(bytes(layer.payload)) if layer.payload else len(frame)


def _first_difference(
    theirs: Frames, mine: Frames, name: str, renumber: tuple[tuple[str, str], ...]
) -> tuple[int, Any, Any] | None:
    """The first frame where ``name`` differs, with both values (CSIT's as captured)."""
    count = min(len(theirs.frames), len(mine.frames))
    fast = theirs.spans.get(name) == mine.spans.get(name)
    ca, cb = (theirs.column(name), mine.column(name)) if fast else ([], [])
    if fast and renumber:
        ca = [_renumber_bytes(v, renumber) for v in ca]
    if fast and ca[:count] == cb[:count]:
        return None
    for k in range(count):
        if fast and ca[k] == cb[k]:
            continue
        va, vb = theirs.value(name, k), mine.value(name, k)
        if renumber:
            va = _renumber(va, renumber)
        if va != vb:
            return k, theirs.value(name, k), vb
    return None


def _renumber_bytes(value: Any, rules: tuple[tuple[str, str], ...]) -> Any:
    """An address field's bytes (4 or 16) moved as ``_renumber`` moves its value."""
    if not isinstance(value, bytes) or len(value) not in (4, 16):
        return _renumber(value, rules)
    address = int.from_bytes(value, "big")
    for rule in rules:
        theirs, ours = (ipaddress.ip_network(n) for n in rule)
        if theirs.max_prefixlen // 8 == len(value) and address & int(theirs.netmask) == int(
            theirs.network_address
        ):
            moved = address - int(theirs.network_address) + int(ours.network_address)
            return moved.to_bytes(len(value), "big")
    return value


def _values(frames: Frames, name: str, renumber: tuple[tuple[str, str], ...]) -> list[Any]:
    column = frames.column(name)
    if renumber:
        column = [_renumber_bytes(v, renumber) for v in column]
    return [int.from_bytes(v, "big") if isinstance(v, bytes) else v for v in column]


def compare(
    csit: Sequence[bytes] | Frames,
    ours: Sequence[bytes] | Frames,
    direction: int,
    *,
    random: bool = False,
    declared: Sequence[CsitDifference] = (),
) -> list[FieldDiff]:
    """The fields that differ (see the module docstring); [] when the frames match."""
    theirs = csit if isinstance(csit, Frames) else Frames(csit)
    mine = ours if isinstance(ours, Frames) else Frames(ours)
    names = list(dict.fromkeys([*theirs.names, *mine.names]))
    diffs: list[FieldDiff] = []
    if len(theirs.frames) != len(mine.frames):
        diffs.append(
            FieldDiff("frame.count", min(len(theirs.frames), len(mine.frames)),
                      len(theirs.frames), len(mine.frames))
        )  # fmt: skip
    for name in names:
        rules = [d for d in declared if d.covers(direction, name)]
        renumber = tuple(d.renumber for d in rules if d.renumber)
        if name in _IPV4_CHECKSUMS:  # a function of the fields compared: checked valid instead
            prefix = name.split(".")[0]
            for side, frames in (("CSIT", theirs), ("ours", mine)):
                bad = frames.bad_ipv4_checksum(prefix)
                if bad is not None:
                    diffs.append(FieldDiff(name, bad, f"{side}: wrong", frames.value(name, bad)))
            continue
        first = _first_difference(theirs, mine, name, renumber)
        if first is None:
            continue
        if random and len(set(_values(theirs, name, ()))) > 1:
            if name.endswith(".chksum"):
                continue  # follows the drawn fields
            finding = _spread(name, _values(theirs, name, renumber), _values(mine, name, ()))
            if finding is None:
                continue
            first = (finding.frame, finding.csit, finding.ours)
        purpose = next((d.reason for d in rules if not d.renumber), "")
        diffs.append(FieldDiff(name, *first, purpose=purpose))
    return diffs
