"""Parsing and formatting of rates, bit rates and durations given by users.

Units are case-insensitive and may be separated from the number by spaces,
so "10Mpps", "10 mpps" and "10 MPPS" are the same; SI prefixes are decimal
(k = 10^3, M = 10^6, G = 10^9, T = 10^12). Rates are in frames per second
[pps], bit rates in bits per second [bit/s] and durations in seconds [s].
A bit rate given where a frame rate is wanted is converted by the caller's
function, which knows the frame size (``ndrpdr.rates.parse_rate``): this
module knows nothing of frames.

Loads are aggregate over the traffic's directions, everywhere: a load of
L pps on a bidirectional profile is L / 2 pps each way. The search engine
(``ndrpdr.search``) is given and reports aggregate loads, the traffic
generators take them and split them over the directions (``max_load_pps``
is the sum of the sending ports' rates), and the result record, the
console, the Robot message and metadata, the max/min rate arguments and
``50%`` of the max rate are aggregate too. Frame counts are summed over
the directions. Only latency streams have a rate per direction. This is
the one statement of the convention; other docstrings refer to it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable

from ndrpdr.errors import NdrPdrError


class UnitError(NdrPdrError, ValueError):
    """A rate, bit rate or duration could not be parsed; the message names the text."""


class UnitRangeError(UnitError):
    """A quantity that parsed but lies outside its range; ``problem`` says which range, in words."""

    def __init__(self, message: str, problem: str) -> None:
        """``message`` names the text; ``problem`` is the range broken ("must be more than 0")."""
        super().__init__(message)
        self.problem = problem


#: ``UnitRangeError.problem`` of a quantity that is not finite and > 0.
NOT_POSITIVE = "must be more than 0"
#: ``UnitRangeError.problem`` of a percentage outside (0, 100].
NOT_A_SHARE = "a share must be more than 0 % and at most 100 %"


_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?"
_QUANTITY = re.compile(rf"\s*(?P<number>{_NUMBER})\s*(?P<unit>[^\d\s.+-][^\d\s]*)?\s*", re.I)

_PREFIXES = {"": 1.0, "k": 1e3, "m": 1e6, "g": 1e9, "t": 1e12}
_PPS_UNITS = {"": 1.0, **{f"{p}pps": f for p, f in _PREFIXES.items() if p != "t"}}
_BPS_UNITS = {f"{p}{s}": f for p, f in _PREFIXES.items() for s in ("bps", "b/s", "bit/s")}
_BITRATE_UNITS = {**_BPS_UNITS, **_PREFIXES}
_DURATION_UNITS: dict[str, float] = {
    **dict.fromkeys(("us", "µs", "usec", "microsecond", "microseconds"), 1e-6),
    **dict.fromkeys(("ms", "msec", "millisecond", "milliseconds"), 1e-3),
    **dict.fromkeys(("s", "sec", "secs", "second", "seconds"), 1.0),
    **dict.fromkeys(("m", "min", "mins", "minute", "minutes"), 60.0),
    **dict.fromkeys(("h", "hr", "hrs", "hour", "hours"), 3600.0),
}
_DURATION_PART = re.compile(
    r"\s*(?P<number>(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?)\s*(?P<unit>[a-zµ]+)\s*", re.I
)

_RATE_ACCEPTED = (
    "a positive number of frames/s, or one with a unit: pps, kpps, Mpps, Gpps; "
    "bps, kbps, Mbps, Gbps, Tbps (needs a frame size); % (needs the maximum rate); "
    "e.g. '14.88Mpps', '10 Gbps', '50%'"
)
_BITRATE_ACCEPTED = (
    "a positive number of bit/s, or one with a unit: bps, kbps, Mbps, Gbps, Tbps "
    "(also b/s, bit/s, or just k, M, G, T); e.g. '10Gbps', '25G'"
)
_DURATION_ACCEPTED = (
    "a positive number of seconds, or parts with units us, ms, s, min (or m), h; "
    "e.g. '30s', '500ms', '1 min 30 s', '2m', '1h'"
)


def _plain_number(what: str, value: float, accepted: str) -> float:
    """``value`` as a float if it is a finite number > 0, else UnitError."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise UnitError(f"{what} {value!r} is not valid: give {accepted}")
    if not math.isfinite(value) or value <= 0:
        message = f"{what} {value!r} must be finite and > 0: give {accepted}"
        raise UnitRangeError(message, NOT_POSITIVE)
    return float(value)


def _split(what: str, text: str, accepted: str) -> tuple[float, str]:
    """(number, lower-case unit or "") of ``text``, else UnitError."""
    match = _QUANTITY.fullmatch(text)
    if match is None:
        raise UnitError(f"{what} {text!r} is not valid: give {accepted}")
    return float(match.group("number")), (match.group("unit") or "").lower()


def _positive(what: str, text: str, value: float, accepted: str) -> float:
    if not math.isfinite(value) or value <= 0:
        message = f"{what} {text!r} must be finite and > 0: give {accepted}"
        raise UnitRangeError(message, NOT_POSITIVE)
    return value


def parse_frame_rate(
    text: str | float,
    *,
    max_rate_pps: float | None = None,
    pps_of_bps: Callable[[float], float] | None = None,
) -> float:
    """A frame rate [frames/s] from a number (pps) or a text such as "10Mpps".

    Bit rates ("10Gbps") are converted by ``pps_of_bps`` (frames/s of a bit
    rate [bit/s], for the frame size it was made for); without it a bit rate
    is refused as needing a frame size. Percentages ("50%", at most 100 %)
    are of ``max_rate_pps`` [frames/s]. Raises UnitError (naming ``text``)
    when the text is not understood, the needed argument is missing, or the
    rate is not finite and > 0.
    """
    if not isinstance(text, str):
        return _plain_number("rate", text, _RATE_ACCEPTED)
    number, unit = _split("rate", text, _RATE_ACCEPTED)
    if unit in _PPS_UNITS:
        value = number * _PPS_UNITS[unit]
    elif unit in _BPS_UNITS:
        if pps_of_bps is None:
            raise UnitError(f"rate {text!r} is a bit rate: a frame size is needed to convert it")
        bps = _positive("rate", text, number * _BPS_UNITS[unit], _RATE_ACCEPTED)
        value = pps_of_bps(bps)
    elif unit == "%":
        if max_rate_pps is None:
            raise UnitError(f"rate {text!r} is a percentage: the maximum rate is needed")
        if not 0 < number <= 100:
            message = f"rate {text!r} must be more than 0 % and at most 100 %"
            raise UnitRangeError(message, NOT_A_SHARE)
        if isinstance(max_rate_pps, bool) or not (
            isinstance(max_rate_pps, (int, float)) and 0 < max_rate_pps < math.inf
        ):
            raise UnitError(
                f"rate {text!r} is a percentage of the maximum rate {max_rate_pps!r} [pps], "
                "which must be finite and > 0"
            )
        value = max_rate_pps * number / 100
    else:
        raise UnitError(f"rate {text!r} has an unknown unit {unit!r}: give {_RATE_ACCEPTED}")
    return _positive("rate", text, value, _RATE_ACCEPTED)


def parse_bitrate(text: str | float) -> float:
    """A bit rate [bit/s] from a number or a text such as "10Gbps", "100 Mbps" or "25G".

    Raises UnitError (naming ``text``) unless the result is finite and > 0.
    """
    if not isinstance(text, str):
        return _plain_number("bit rate", text, _BITRATE_ACCEPTED)
    number, unit = _split("bit rate", text, _BITRATE_ACCEPTED)
    if unit not in _BITRATE_UNITS:
        raise UnitError(f"bit rate {text!r} has an unknown unit {unit!r}: give {_BITRATE_ACCEPTED}")
    return _positive("bit rate", text, number * _BITRATE_UNITS[unit], _BITRATE_ACCEPTED)


def parse_duration(text: str | float) -> float:
    """A duration [s] from a number of seconds or a text such as "30s", "500ms", "1 min 30 s".

    A text is either a plain number (seconds) or one or more number-unit
    parts, which are added. Raises UnitError (naming ``text``) unless the
    result is finite and > 0.
    """
    if not isinstance(text, str):
        return _plain_number("duration", text, _DURATION_ACCEPTED)
    plain = _QUANTITY.fullmatch(text)
    if plain is not None and plain.group("unit") is None:
        return _positive("duration", text, float(plain.group("number")), _DURATION_ACCEPTED)
    if not text.strip() or re.fullmatch(f"(?:{_DURATION_PART.pattern})+", text, re.I) is None:
        raise UnitError(f"duration {text!r} is not valid: give {_DURATION_ACCEPTED}")
    total = 0.0
    for part in _DURATION_PART.finditer(text):
        unit = part.group("unit").lower()
        if unit not in _DURATION_UNITS:
            raise UnitError(
                f"duration {text!r} has an unknown unit {part.group('unit')!r}: "
                f"give {_DURATION_ACCEPTED}"
            )
        total += float(part.group("number")) * _DURATION_UNITS[unit]
    return _positive("duration", text, total, _DURATION_ACCEPTED)


def _scaled(value: float, unit: str, digits: int, strip: bool) -> str:
    if not math.isfinite(value):
        return f"{value} {unit}"
    # A value that rounds to 1000.000 of one prefix is shown with the next one.
    promote = 1 - 0.5 * 10**-digits / 1000
    for factor, prefix in ((1e12, "T"), (1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(value) >= factor * promote:
            scaled, name = value / factor, prefix + unit
            break
    else:
        scaled, name = value, unit
    number = f"{scaled:.{digits}f}"
    if strip and "." in number:
        number = number.rstrip("0").rstrip(".")
    return f"{number} {name}"


def format_rate(pps: float) -> str:
    """A frame rate [frames/s] for people: "14.881 Mpps", "250 kpps", "999.5 pps".

    Three decimals at most, trailing zeros dropped.
    """
    return _scaled(pps, "pps", 3, strip=True)


def format_bitrate(bps: float) -> str:
    """A bit rate [bit/s] for people, always three decimals: "10.000 Gbps", "812.744 Mbps"."""
    return _scaled(bps, "bps", 3, strip=False)


def format_percent(ratio: float) -> str:
    """A ratio as a percentage with 3 significant digits, trailing zeros dropped.

    0 gives "0", 0.005 "0.5", 0.0039 "0.39", 0.852 "85.2", 2.27e-7 "0.0000227".
    """
    percent = ratio * 100
    if percent == 0 or not math.isfinite(percent):
        return f"{percent:g}"
    decimals = max(0, 2 - math.floor(math.log10(abs(percent))))
    text = f"{percent:.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text
