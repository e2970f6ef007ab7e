"""The accepted range of every search setting, checked before anything starts.

One place for the limits the CLI's help, the Robot resource and the keywords
state, and for the checks both run on the values as the user gave them
(``Given``: the option or variable as typed, ``--min-rate`` or
``${MIN_RATE}``, and its value). A value out of range raises
``BadSettingError`` whose message names the option, the value and the
accepted range: ``--min-rate 0: must be more than 0; accepted: ...``.

``check_search_settings`` checks what can be checked without a testbed
(durations, ratios, rates' syntax and sign, min below max when both are
given in the same unit); ``check_load_range`` checks the rates against the
traffic generator's maximum once it is known, before any trial
(``check_below_tg_max``, the one check of a user's rate against it, which
the keywords' rate arguments use too), and ``default_min_load`` is the min
load of a search or soak given none.

The upper limits keep a search finite: a full-length trial of at most
``FINAL_TRIAL_DURATION_MAX_S``; a duration sum of at most
``DURATION_SUM_MAX_S`` and at most ``DURATION_SUM_MAX_TRIALS`` full-length
trials (MLRsearch needs about 1.5 trials per trial of a duration sum, and the
engine stops at 10 000); a time cap of at most ``MAX_SEARCH_TIME_MAX_S``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping

from ndrpdr.errors import NdrPdrError
from ndrpdr.goals import NDR_LOSS_RATIO, PDR_LOSS_RATIO, loss_ratio_goals, parse_loss_ratios
from ndrpdr.profiles.framesize import FrameSize, frame_size_label
from ndrpdr.rates import above_max, parse_rate
from ndrpdr.search.errors import SearchInputError
from ndrpdr.search.goal import Goal
from ndrpdr.units import UnitError, UnitRangeError, format_rate, parse_duration

#: A full-length trial is at most this long [s] (RFC 2544 asks for 60 s).
FINAL_TRIAL_DURATION_MAX_S = 600.0
#: The full-length seconds that settle a load are at most this many [s].
DURATION_SUM_MAX_S = 3600.0
#: ... and at most this many full-length trials (duration sum / final trial duration).
DURATION_SUM_MAX_TRIALS = 1000
#: The time cap (sum of trial durations) is at most this [s]: one day.
MAX_SEARCH_TIME_MAX_S = 86_400.0
#: The time cap when none is given [s], as in resources/performance.resource.
DEFAULT_MAX_SEARCH_TIME_S = 1200.0
#: A latency trial is at most this long [s].
LATENCY_DURATION_MAX_S = 600.0
#: The initial trial duration when none is given [s] (the final one when that is shorter).
DEFAULT_INITIAL_TRIAL_DURATION_S = 1.0

_RATE_RANGE = (
    "a rate > 0 in pps, kpps, Mpps, bps..Tbps (with the frame size), or above 0 and at "
    "most 100 % of the TG's maximum, e.g. 10Mpps, 10Gbps, 50%"
)


class BadSettingError(NdrPdrError, ValueError):
    """A search setting is not acceptable; the message names it as typed, its value and
    the accepted range."""


@dataclasses.dataclass(frozen=True)
class Given:
    """A setting as the user gave it: ``name`` as typed (``--min-rate``, ``${MIN_RATE}``)
    and ``value`` (text, number, or None when not given)."""

    name: str
    value: object

    def bad(self, problem: str, accepted: str) -> BadSettingError:
        """The error naming this setting: ``--min-rate 0: <problem>; accepted: <range>``
        (``${MIN_RATE}=0: ...`` for a variable, ``min_rate=0: ...`` for an argument)."""
        joiner = " " if self.name.startswith("-") else "="  # --min-rate 0, ${MIN_RATE}=0
        return BadSettingError(f"{self.name}{joiner}{self.value}: {problem}; accepted: {accepted}")


@dataclasses.dataclass(frozen=True)
class CheckedSettings:
    """The settings after the checks [s], defaults filled in; rates stay text (they may
    need the TG's maximum or the frame size)."""

    final_trial_duration_s: float
    initial_trial_duration_s: float
    duration_sum_s: float
    max_search_time_s: float | None
    goal_width: float
    exceed_ratio: float
    loss_ratios: tuple[float, ...] | None
    latency_duration_s: float | None
    min_rate: Given | None
    max_rate: Given | None

    def goals(self, pdr_loss_ratio: float = PDR_LOSS_RATIO) -> tuple[Goal, ...]:
        """The search goals: one per loss ratio given, else NDR and PDR (``pdr_loss_ratio``)."""
        return loss_ratio_goals(
            self.loss_ratios or (NDR_LOSS_RATIO, pdr_loss_ratio),
            final_trial_duration_s=self.final_trial_duration_s,
            initial_trial_duration_s=self.initial_trial_duration_s,
            duration_sum_s=self.duration_sum_s,
            relative_width=self.goal_width,
            exceed_ratio=self.exceed_ratio,
        )


def _text_or_number(value: object) -> str | float:
    """A setting's value as text or a number (ValueError for anything else)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    raise ValueError(f"{value!r} is neither text nor a number")


def duration_range(high_s: float) -> str:
    """``more than 0 s, at most 600 s``."""
    return f"more than 0 s, at most {high_s:g} s (e.g. 1s, 500ms, 2min)"


def _duration(given: Given | None, high_s: float) -> float | None:
    if given is None or given.value is None:
        return None
    accepted = duration_range(high_s)
    try:
        seconds = parse_duration(_text_or_number(given.value))
    except (UnitError, TypeError, ValueError):
        raise given.bad("not a duration", accepted) from None
    if seconds > high_s:
        raise given.bad(f"{seconds:g} s is above the limit", accepted)
    return seconds


def _ratio(given: Given | None, default: float, *, zero_ok: bool) -> float:
    if given is None or given.value is None:
        return default
    accepted = "a number from 0 to below 1" if zero_ok else "a number above 0 and below 1"
    try:
        value = float(given.value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        raise given.bad("not a number", accepted) from None
    low_ok = value >= 0 if zero_ok else value > 0
    if not (math.isfinite(value) and low_ok and value < 1):
        raise given.bad("out of range", accepted)
    return value


def _unit_kind(text: str) -> str:
    """``pps``, ``bps`` or ``%``: rates of one kind compare without a TG or frame size."""
    tail = text.strip().lower()
    if tail.endswith("%"):
        return "%"
    return "bps" if tail.endswith(("bps", "b/s", "bit/s")) else "pps"


def _rate(given: Given | None) -> float | None:
    """The rate's value with stand-ins for the TG maximum and frame size (syntax and sign)."""
    if given is None or given.value is None:
        return None
    try:
        value = _text_or_number(given.value)
        return parse_rate(value, max_rate_pps=1e6, frame_size=64)
    except UnitRangeError as exc:
        raise given.bad(exc.problem, _RATE_RANGE) from None
    except (UnitError, TypeError, ValueError):
        raise given.bad("not a rate", _RATE_RANGE) from None


def check_search_settings(
    given: Mapping[str, Given], *, min_percent_of_tg: bool = False
) -> CheckedSettings:
    """Check the settings named by key before any testbed exists; BadSettingError if one is bad.

    Keys: ``final_trial_duration``, ``initial_trial_duration`` (default 1 s,
    or the final duration when shorter; never above it), ``duration_sum``
    (default max(21 s, final)), ``max_search_time`` (None: no cap),
    ``goal_width``, ``exceed_ratio``, ``loss_ratios``, ``latency_duration``,
    ``min_rate``, ``max_rate``; a missing key takes its default. A min rate
    in % is of the max load (the CLI: always below it), or of the TG's
    maximum with ``min_percent_of_tg`` (the keywords: compared with a max
    rate in % here).
    """
    final = _duration(given.get("final_trial_duration"), FINAL_TRIAL_DURATION_MAX_S) or 1.0
    initial = _duration(given.get("initial_trial_duration"), FINAL_TRIAL_DURATION_MAX_S)
    if initial is not None and initial > final * (1 + 1e-9):
        raise given["initial_trial_duration"].bad(
            f"{initial:g} s is above the final trial duration {final:g} s",
            f"more than 0 s, at most the final trial duration ({final:g} s)",
        )
    initial = min(DEFAULT_INITIAL_TRIAL_DURATION_S, final) if initial is None else initial
    sum_high = min(DURATION_SUM_MAX_S, DURATION_SUM_MAX_TRIALS * final)
    sum_given = given.get("duration_sum")
    total = _duration(sum_given, math.inf)
    sum_range = (
        f"at least the final trial duration ({final:g} s), at most {sum_high:g} s "
        f"({DURATION_SUM_MAX_TRIALS} full-length trials, and {DURATION_SUM_MAX_S:g} s at most)"
    )
    if total is not None and sum_given is not None and not final <= total <= sum_high:
        raise sum_given.bad(f"{total:g} s is out of range", sum_range)
    cap_given = given.get("max_search_time")
    cap = _duration(cap_given, MAX_SEARCH_TIME_MAX_S)
    if cap is not None and cap_given is not None and cap < final:
        raise cap_given.bad(
            f"{cap:g} s is shorter than one full-length trial ({final:g} s)",
            f"at least the final trial duration, at most {MAX_SEARCH_TIME_MAX_S:g} s",
        )
    ratios_given = given.get("loss_ratios")
    ratios = None
    if ratios_given is not None and ratios_given.value is not None:
        try:
            ratios = parse_loss_ratios(ratios_given.value, ratios_given.name)  # type: ignore[arg-type]
        except SearchInputError as exc:
            raise BadSettingError(str(exc)) from None
    _ratio(given.get("pdr_loss_ratio"), 0.005, zero_ok=True)
    low, high = given.get("min_rate"), given.get("max_rate")
    low_pps, high_pps = _rate(low), _rate(high)
    if (
        low is not None
        and high is not None
        and low_pps is not None
        and high_pps is not None
        and _unit_kind(str(low.value)) == _unit_kind(str(high.value))
        and (min_percent_of_tg or _unit_kind(str(low.value)) != "%")
        and low_pps >= high_pps
    ):
        raise low.bad(f"not below {high.name} {high.value}", f"a rate below {high.name}")
    return CheckedSettings(
        final_trial_duration_s=final,
        initial_trial_duration_s=initial,
        duration_sum_s=max(21.0, final) if total is None else total,
        max_search_time_s=cap,
        goal_width=_ratio(given.get("goal_width"), 0.005, zero_ok=False),
        exceed_ratio=_ratio(given.get("exceed_ratio"), 0.5, zero_ok=True),
        loss_ratios=ratios,
        latency_duration_s=_duration(given.get("latency_duration"), LATENCY_DURATION_MAX_S),
        min_rate=None if low is None or low.value is None else low,
        max_rate=None if high is None or high.value is None else high,
    )


def check_trial_settings(rate: Given, duration: Given) -> float:
    """The duration [s] of one trial (``ndrpdr trial``) once its rate's syntax and sign
    and its duration (at most a full-length trial's limit) are checked; BadSettingError
    naming the option otherwise. The rate is resolved against the TG later
    (``check_load_range``)."""
    _rate(rate)
    seconds = _duration(duration, FINAL_TRIAL_DURATION_MAX_S)
    if seconds is None or seconds <= 0:
        raise duration.bad("must be more than 0 s", duration_range(FINAL_TRIAL_DURATION_MAX_S))
    return seconds


def check_load_range(
    min_rate: Given | None,
    max_rate: Given | None,
    *,
    tg_max_pps: float,
    frame_size: FrameSize,
    min_percent_of_tg: bool = False,
) -> tuple[float | None, float]:
    """(min load or None, max load) [pps] once the TG's maximum is known; BadSettingError
    naming the option when a rate is above the TG's maximum or min is not below max.

    A min rate in % is of the max load (the CLI), or of the TG's maximum with
    ``min_percent_of_tg`` (the keywords' `Rate`).
    """
    high = tg_max_pps
    if max_rate is not None and max_rate.value is not None:
        high = _resolve(max_rate, tg_max_pps, frame_size)
        check_below_tg_max(max_rate, high, tg_max_pps=tg_max_pps, frame_size=frame_size)
    if min_rate is None or min_rate.value is None:
        return None, high
    low = _resolve(min_rate, tg_max_pps if min_percent_of_tg else high, frame_size)
    if low >= high:
        given_max = max_rate is not None and max_rate.value is not None
        below = max_rate.name if given_max and max_rate is not None else "the max load"
        raise min_rate.bad(
            f"{format_rate(low)} is not below {below} {format_rate(high)}",
            f"a rate below {format_rate(high)}",
        )
    return low, high


def check_below_tg_max(
    given: Given, load_pps: float, *, tg_max_pps: float, frame_size: FrameSize
) -> float:
    """``load_pps`` (the rate ``given`` resolved) when the TG can be asked for it; else
    BadSettingError: ``--max-rate 50Mpps: 50 Mpps is above the traffic generator's maximum
    for 64B frames; accepted: a rate up to 29.762 Mpps`` (``rates.above_max``)."""
    if above_max(load_pps, tg_max_pps):
        raise given.bad(
            f"{format_rate(load_pps)} is above the traffic generator's maximum "
            f"for {frame_size_label(frame_size)} frames",
            f"a rate up to {format_rate(tg_max_pps)}",
        )
    return load_pps


def default_min_load(max_load_pps: float) -> float:
    """The lowest load a search or soak tries by default [pps]: 1/1000 of the max, at least
    10 kpps (and below the max)."""
    return min(max_load_pps / 2, max(10_000.0, max_load_pps / 1000))


def _resolve(given: Given, max_pps: float, frame_size: FrameSize) -> float:
    try:
        value = _text_or_number(given.value)
        return parse_rate(value, max_rate_pps=max_pps, frame_size=frame_size)
    except (UnitError, TypeError, ValueError):
        raise given.bad("not a rate", _RATE_RANGE) from None
