"""Short summaries of a result record: the Robot test message and the test metadata.

Both read only the record (``ndrpdr.results.record``), so what a test
reports is exactly what its JSON record says. Rates are aggregate over the
traffic's directions; bandwidths include 20 B of L1 overhead per frame.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from ndrpdr.profiles import bandwidth_bps
from ndrpdr.report.latencysummary import latency_lines, latency_metadata
from ndrpdr.results.caveats import caveat_lines, caveat_metadata
from ndrpdr.results.goalentries import named_goals


def _mpps(pps: float) -> str:
    return f"{pps / 1e6:.4f} Mpps"


def _gbps(bps: float) -> str:
    return f"{bps / 1e9:.3f} Gbps"


def plain_number(value: float) -> str:
    """A number as metadata: plain decimal, at most 3 decimals, no exponent."""
    text = f"{value:.3f}".rstrip("0").rstrip(".")
    return text or "0"


def _rate_and_bandwidth(pps: float, record: Mapping[str, Any]) -> str:
    frame_size = record["profile"]["frame_size"]
    return f"{_mpps(pps)} {_gbps(bandwidth_bps(pps, frame_size))}"


def search_message(record: Mapping[str, Any]) -> str:
    """The test message: one line per goal (NDR, PDR, "loss ≤ 2 %"), lower / upper / conditional.

    Example::

        NDR: lower 4.4140 Mpps 2.966 Gbps, upper 4.4360 Mpps 2.981 Gbps, conditional 4.4140 Mpps
        PDR: lower 4.4360 Mpps 2.981 Gbps, upper 4.4580 Mpps 2.996 Gbps, conditional 4.4190 Mpps

    A missing upper bound (the max load was a lower bound) reads
    ``upper none (max load 0.2772 Mpps reached)``, or, in a search that
    stopped early, ``upper not found (the search stopped first)``; a conditional throughput the
    search did not compute reads ``conditional not computed``. A failed record gives
    ``search failed: <error>`` followed by what was measured. Then the
    caveats: ``bounds incomplete: ...`` after an early stop and
    ``limited by the traffic generator: sent at most X ...``. Last the
    latency (``ndrpdr.report.latencysummary``): ``Latency at 90 % PDR
    (x Mpps): forward min/avg/max 5/12/80 us, p99 40 us; reverse ...``
    per load point, or ``Latency: not measured (why)``.
    """
    lines: list[str] = []
    if record.get("status") == "failed":
        count = record["search"]["trial_count"]
        lines.append(f"search failed: {record.get('error')} ({count} trials kept in the record)")
    for goal in named_goals(record):
        bounds, label = goal.entry, goal.label
        if bounds.get("lower_bound") is None:
            continue
        parts = [f"lower {_rate_and_bandwidth(bounds['lower_bound'], record)}"]
        upper = bounds.get("upper_bound")
        if upper is None and record.get("incomplete"):  # not found: no claim on the max load
            parts.append("upper not found (the search stopped first)")
        elif upper is None:
            parts.append(f"upper none (max load {_mpps(record['search']['max_load_pps'])} reached)")
        else:
            parts.append(f"upper {_rate_and_bandwidth(upper, record)}")
        conditional = bounds.get("conditional_throughput")
        if conditional is not None and math.isfinite(conditional):
            parts.append(f"conditional {_mpps(conditional)}")
        else:  # a binary search's lower bound without the duration sum's seconds
            parts.append("conditional not computed")
        lines.append(f"{label}: " + ", ".join(parts))
    if not lines:
        lines.append("no bounds found")
    lines.extend(caveat_lines(record))  # incomplete, TG-limited
    lines.extend(latency_lines(record))
    return "\n".join(lines)


#: Metadata key endings of a goal's bounds, and the MRR keys of one value each.
_BOUND_SUFFIXES = ("_LOWER", "_UPPER", "_CONDITIONAL")
_MRR_KEYS = ("MRR_AVG", "MRR_STDEV", "MRR_MIN", "MRR_MAX")


def bounds_line(metadata: Mapping[str, str]) -> str:
    """``NDR_LOWER=4413700 NDR_UPPER=4435800 ... PDR_CONDITIONAL=4418600``: a test's bounds
    (or ``MRR_AVG=... MRR_STDEV=... MRR_MIN=... MRR_MAX=...``) [frames/s] in one line.

    The value of the suite metadata entry named for the test, so that
    ``robot --xunit`` files, whose test cases carry no message when they
    pass, carry the numbers as properties of their ``testsuite``.
    """
    keys = [k for k in metadata if k.endswith(_BOUND_SUFFIXES) or k in _MRR_KEYS]
    return " ".join(f"{key}={metadata[key]}" for key in keys)


def search_metadata(record: Mapping[str, Any]) -> dict[str, str]:
    """Machine-readable numbers for output.xml: plain frames per second, aggregate.

    Keys: ``NDR_LOWER``, ``NDR_UPPER``, ``NDR_CONDITIONAL`` and the same for
    ``PDR``; other loss ratios of the search get ``LOSS_<percent>PCT_LOWER``
    etc. (``LOSS_2PCT_LOWER`` for 0.02, ``LOSS_0P1PCT_LOWER`` for 0.001:
    ``ndrpdr.goals.goal_key``). A bound the search did not find is left out
    (e.g. ``NDR_UPPER`` when the max load was a lower bound). Also ``FRAME_SIZE``, ``TRIALS``,
    ``SEARCH_TIME_S`` (sum of trial durations) and ``STATUS``; ``TG_LIMITED``,
    ``TG_MAX_OFFERED_PPS`` and ``INCOMPLETE`` (``ndrpdr.results.caveats``);
    ``LATENCY`` and ``LAT_90PDR_FWD_AVG_US`` etc. (``ndrpdr.report.latencysummary``).
    """
    values: dict[str, str] = {}
    for goal in named_goals(record):
        bounds, label = goal.entry, goal.key
        for field, suffix in (
            ("lower_bound", "LOWER"),
            ("upper_bound", "UPPER"),
            ("conditional_throughput", "CONDITIONAL"),
        ):
            value = bounds.get(field)
            if value is not None and math.isfinite(value):
                values[f"{label}_{suffix}"] = plain_number(value)
    values["FRAME_SIZE"] = str(record["profile"]["frame_size"])
    values["TRIALS"] = str(record["search"]["trial_count"])
    values["SEARCH_TIME_S"] = plain_number(record["search"]["search_time_s"])
    values["STATUS"] = str(record.get("status"))
    values.update(caveat_metadata(record))
    values.update(latency_metadata(record))
    return values
