"""Keyword argument types that Robot Framework converts from text.

Each type has a converter in ``CONVERTERS`` (registered, as Robot sees
the types, by ``NdrPdrLibrary.robotview``); the type's docstring is what
Libdoc shows users. A conversion error names the value and says what is
accepted.
"""

from __future__ import annotations

import enum
import inspect
from typing import ClassVar

from ndrpdr.families import FamilyError, get_family
from ndrpdr.families.registry import builtin_families
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

    | =Unit= | =Meaning= | =Examples= |
    | none | frames per second | ``250000``, ``1.5e6`` |
    | ``pps``, ``kpps``, ``Mpps``, ``Gpps`` | frames per second | ``250kpps``, ``10Mpps`` |
    | ``bps`` .. ``Tbps`` | bits per second on the wire | ``10Gbps``, ``400Mbps`` |
    | ``%`` | of the TG's maximum, above 0, at most 100 | ``50%``, ``100%`` |

    Units are case-insensitive and may follow a space (``10 mpps``); the
    prefixes are decimal (k = 10^3, M = 10^6, G = 10^9). A bit rate counts
    20 B of L1 overhead per frame and is converted with the test's frame
    size: ``10Gbps`` of 64 B frames is 14.88 Mpps. A rate must be more
    than 0. Where a keyword's default is ``None``, ``NONE`` (or an empty
    value) leaves the rate to the keyword.
    """

    def __init__(self, text: str) -> None:
        """Keep ``text`` after checking its syntax (raises UnitError when it is not a rate)."""
        parse_rate(text, max_rate_pps=_CHECK_MAX_PPS, frame_size=_CHECK_FRAME_SIZE)
        self.text = text.strip()

    @classmethod
    def from_text(cls, text: str | int | float) -> Rate:
        # No docstring: Libdoc would show it in place of the class's.
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
    """A time span in seconds, more than 0.

    | =Form= | =Examples= |
    | a plain number of seconds | ``30``, ``0.5`` |
    | a number with a unit | ``30s``, ``250ms``, ``1 min``, ``2m``, ``1h`` |
    | several parts, added | ``1m 30s``, ``1 min 30 s`` |

    Units (case-insensitive): ``us``, ``ms``, ``s`` (``sec``, ``seconds``),
    ``min`` (``m``, ``minutes``), ``h`` (``hr``, ``hours``). Where a
    keyword's default is ``None``, ``NONE`` (or an empty value) leaves the
    duration to the keyword.
    """

    @classmethod
    def from_text(cls, text: str | int | float) -> Duration:
        # No docstring: Libdoc would show it in place of the class's. UnitError for non-durations.
        return cls(parse_duration(text if isinstance(text, str) else float(text)))

    def __str__(self) -> str:
        return f"{float(self):g}s"

    def __repr__(self) -> str:
        return f"Duration({float(self)!r})"


class FrameSize:
    """A frame size in bytes including the FCS, or ``IMIX``.

    | =Form= | =Examples= |
    | bytes, from 64 to 9018 | ``64``, ``1518``, ``9000`` |
    | bytes with ``B`` or ``bytes`` | ``64B``, ``128 bytes`` |
    | ``IMIX`` (any case) | ``IMIX``, ``imix`` |

    IMIX is the simple IMIX: 64, 570 and 1518 B frames in the ratio 7:4:1.
    """

    def __init__(self, value: FrameSizeValue) -> None:
        """Wrap a checked value (use ``from_text`` for text)."""
        self.value: FrameSizeValue = parse_frame_size(value)

    @classmethod
    def from_text(cls, text: str | int) -> FrameSize:
        # No docstring: Libdoc would show it in place of the class's. ProfileError for non-sizes.
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


def _family_table() -> str:
    """Libdoc's table of the built-in families (a lab's join them at run time)."""
    rows = [f"| ``{f.id}`` | {f.description} | {f.topologies} |" for f in builtin_families()]
    return "\n".join(["| =Family= | =Traffic and DUT set-up= | =Testbeds= |", *rows])


class TrafficProfile:
    """A test family, by its CSIT id: the traffic offered and how the DUTs forward it.

    Any family ``ndrpdr families`` lists: the built-in ones below, and a
    lab's own from the directories in the environment variable
    ``NDRPDR_FAMILIES``. The id is case-insensitive. A testbed whose chain
    (2-node, 3-node) or DUT driver cannot run a family skips the test.
    """

    #: The default of the keywords' ``profile`` argument.
    ETHIP4_IP4BASE: ClassVar[TrafficProfile]

    def __init__(self, family_id: str) -> None:
        """Keep ``family_id`` as given (``from_text`` checks that it names a family)."""
        self.value = family_id

    @classmethod
    def from_text(cls, text: str) -> TrafficProfile:
        # No docstring: Libdoc would show it in place of the class's. ValueError naming the ids.
        try:
            return cls(get_family(str(text)).id)
        except FamilyError as exc:
            raise ValueError(str(exc)) from None

    def __repr__(self) -> str:
        return f"TrafficProfile({self.value!r})"

    def __str__(self) -> str:
        return self.value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TrafficProfile) and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)


TrafficProfile.__doc__ = f"{inspect.cleandoc(TrafficProfile.__doc__ or '')}\n\n{_family_table()}\n"
TrafficProfile.ETHIP4_IP4BASE = TrafficProfile("ethip4-ip4base")


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
    TrafficProfile: TrafficProfile.from_text,
    IrregularPolicy: _enum_converter(IrregularPolicy),
}
