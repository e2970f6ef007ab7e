"""Keyword argument types that Robot Framework converts from text.

Each type has a ``from_text`` converter registered in the library's
``ROBOT_LIBRARY_CONVERTERS``; its docstring is what Libdoc shows users.
A conversion error names the value and says what is accepted.
"""

from __future__ import annotations

import enum

from ndrpdr.profiles import FrameSize as FrameSizeValue
from ndrpdr.profiles import frame_size_label, parse_frame_size
from ndrpdr.rates import parse_rate
from ndrpdr.results.irregular import IrregularPolicy
from ndrpdr.units import parse_duration

#: Stand-ins used only to check the syntax of a rate at conversion time.
_CHECK_MAX_PPS = 1.0e6
_CHECK_FRAME_SIZE = 64


class Rate:
    """A frame rate, aggregate over the traffic's directions.

    Accepted forms: frames per second (``250000``, ``250kpps``, ``10Mpps``),
    a bit rate on the wire including 20 B of L1 overhead per frame
    (``10Gbps``, ``400Mbps``; converted with the test's frame size), or a
    share of the traffic generator's maximum (``50%``, at most ``100%``).
    """

    def __init__(self, text: str) -> None:
        """Keep ``text`` after checking its syntax (raises UnitError when it is not a rate)."""
        parse_rate(text, max_rate_pps=_CHECK_MAX_PPS, frame_size=_CHECK_FRAME_SIZE)
        self.text = text.strip()

    @classmethod
    def from_text(cls, text: str | int | float) -> Rate:
        """Converter for Robot Framework."""
        return cls(str(text))

    def resolve(self, max_rate_pps: float, frame_size: FrameSizeValue) -> float:
        """The rate in frames per second for this traffic [pps]."""
        return parse_rate(self.text, max_rate_pps=max_rate_pps, frame_size=frame_size)

    def __repr__(self) -> str:
        return f"Rate({self.text!r})"

    def __str__(self) -> str:
        return self.text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Rate) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


class Duration(float):
    """A time span in seconds: ``30``, ``0.5``, ``30s``, ``1 min``, ``1m 30s``, ``250ms``."""

    @classmethod
    def from_text(cls, text: str | int | float) -> Duration:
        """Converter for Robot Framework (raises UnitError for anything else)."""
        return cls(parse_duration(text if isinstance(text, str) else float(text)))

    def __str__(self) -> str:
        return f"{float(self):g}s"

    def __repr__(self) -> str:
        return f"Duration({float(self)!r})"


class FrameSize:
    """A frame size in bytes including the FCS (``64``, ``1518``, ``9000``, ``64B``) or ``IMIX``.

    IMIX is the simple IMIX: 64, 570 and 1518 B frames in the ratio 7:4:1.
    Fixed sizes go from 64 to 9018 B.
    """

    def __init__(self, value: FrameSizeValue) -> None:
        """Wrap a checked value (use ``from_text`` for text)."""
        self.value: FrameSizeValue = parse_frame_size(value)

    @classmethod
    def from_text(cls, text: str | int) -> FrameSize:
        """Converter for Robot Framework (raises ProfileError for anything else)."""
        return cls(parse_frame_size(text))

    @property
    def label(self) -> str:
        """As in test names and tags: ``64B`` or ``IMIX``."""
        return frame_size_label(self.value)

    def __repr__(self) -> str:
        return f"FrameSize({self.value!r})"

    def __str__(self) -> str:
        return str(self.value)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, FrameSize) and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)


class SearchAlgorithm(enum.Enum):
    """How the search chooses trials.

    | =Value= | =Search= |
    | ``mlr`` | ours: RFC 9971 goals, short trials first, full-length trials at the end |
    | ``binary`` | RFC 2544 binary search, one goal after the other, full-length trials only |
    | ``bswlv`` | binary search with loss verification (ETSI GS NFV-TST 009) |
    """

    MLR = "mlr"
    BINARY = "binary"
    BSWLV = "bswlv"


class BinaryAlgorithm(enum.Enum):
    """A classic binary search: ``binary`` (RFC 2544) or ``bswlv`` (TST009, loss verification)."""

    BINARY = "binary"
    BSWLV = "bswlv"


class DutMode(enum.Enum):
    """How the DUTs forward: ``ip4base`` (IPv4 routing) or ``l2xc`` (L2 cross-connect, MAC swap)."""

    IP4BASE = "ip4base"
    L2XC = "l2xc"


class TrafficProfile(enum.Enum):
    """The traffic offered.

    | =Value= | =Traffic= | =DUT forwarding= |
    | ``ethip4-ip4base`` | IPv4, one flow per direction | IPv4 routing |
    | ``ethip4udp-ip4base`` | IPv4 UDP, 1024 flows per direction | IPv4 routing |
    | ``eth-l2xcbase`` | Ethernet + IPv4 frames | L2 cross-connect |
    """

    ETHIP4_IP4BASE = "ethip4-ip4base"
    ETHIP4UDP_IP4BASE = "ethip4udp-ip4base"
    ETH_L2XCBASE = "eth-l2xcbase"


def _enum_converter(kind: type[enum.Enum]) -> object:
    """A converter accepting an enum's value (``ethip4-ip4base``) or name, any case."""

    def convert(text: str) -> enum.Enum:
        wanted = text.strip().lower()
        for member in kind:
            if wanted in (str(member.value).lower(), member.name.lower()):
                return member
        choices = ", ".join(str(m.value) for m in kind)
        raise ValueError(f"{text!r} is not one of {choices}")

    convert.__doc__ = kind.__doc__
    return convert


#: Converters for ``ROBOT_LIBRARY_CONVERTERS``.
CONVERTERS: dict[type, object] = {
    Rate: Rate.from_text,
    Duration: Duration.from_text,
    FrameSize: FrameSize.from_text,
    SearchAlgorithm: _enum_converter(SearchAlgorithm),
    BinaryAlgorithm: _enum_converter(BinaryAlgorithm),
    DutMode: _enum_converter(DutMode),
    TrafficProfile: _enum_converter(TrafficProfile),
    IrregularPolicy: _enum_converter(IrregularPolicy),
}
