"""What a result must say besides its bounds: TG-limited, incomplete, irregular.

Read from a result record (``ndrpdr.results.record``, version 1.1 and
later; older records have no caveats), so the test message, the metadata,
the tags, the CLI and the plot all say the same thing.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ndrpdr.goals import NDR_LOSS_RATIO, PDR_LOSS_RATIO
from ndrpdr.results.irregular import irregular_tags
from ndrpdr.units import format_rate

#: The test tag of a result limited by the traffic generator.
TG_LIMITED_TAG = "TG_LIMITED"
#: The test tag of a search stopped before it finished (bounds incomplete).
INCOMPLETE_TAG = "INCOMPLETE"


def tg_limited(record: Mapping[str, Any]) -> bool:
    """True when a bound of the record rests on trials the TG could not offer in full."""
    return bool((record.get("tg_limit") or {}).get("limited"))


def incomplete(record: Mapping[str, Any]) -> bool:
    """True when the search stopped early (its bounds are the ones its trials support)."""
    return bool(record.get("incomplete"))


def tg_limit_line(record: Mapping[str, Any]) -> str | None:
    """``limited by the traffic generator: sent at most X pps (...)``, None when not limited."""
    if not tg_limited(record):
        return None
    limit = record["tg_limit"]
    why: dict[str, list[str]] = {}
    for goal in record.get("goals") or []:
        if goal.get("tg_limited"):
            reason = goal.get("tg_limit_reason") or "limited"
            why.setdefault(reason, []).append(_goal_name(goal["loss_ratio"]))
    reasons = "; ".join(f"{', '.join(names)}: {reason}" for reason, names in why.items())
    sent = limit.get("max_offered_pps")
    most = format_rate(sent) if sent is not None else "unknown"
    return (
        f"limited by the traffic generator: sent at most {most} ({reasons}; "
        f"{limit['limited_trials']} of {len(record.get('trials') or [])} trials sent at less "
        f"than {limit['tolerance']:.0%} of their load)"
    )


def incomplete_line(record: Mapping[str, Any]) -> str | None:
    """``bounds incomplete: ...``, None when the search finished."""
    if not incomplete(record):
        return None
    count = record["search"]["trial_count"]
    return f"bounds incomplete: the search stopped early; these are what its {count} trials support"


def irregular_lines(record: Mapping[str, Any]) -> list[str]:
    """``irregular (allowed): <message>`` per irregularity of a record that passed anyway
    (a failed one says it in its error)."""
    if record.get("status") != "passed":
        return []
    return [f"irregular (allowed): {item['message']}" for item in record.get("irregular") or []]


def startup_lines(record: Mapping[str, Any]) -> list[str]:
    """``startup.conf of DUT1 differs from CSIT's: <line>`` per value a DUT's driver scaled
    (``testbed.duts[].startup_scaled``, since record format 1.11.0)."""
    duts = (record.get("testbed") or {}).get("duts") or []
    return [
        f"startup.conf of {dut['node']} differs from CSIT's: {line}"
        for dut in duts
        for line in dut.get("startup_scaled") or []
    ]


def caveat_lines(record: Mapping[str, Any]) -> list[str]:
    """The caveat lines of the test message and the CLI, in order (none for a plain result):
    incomplete, TG-limited, irregular (allowed), then each DUT's startup.conf scaling."""
    lines = [line for line in (incomplete_line(record), tg_limit_line(record)) if line is not None]
    return lines + irregular_lines(record) + startup_lines(record)


def caveat_metadata(record: Mapping[str, Any]) -> dict[str, str]:
    """``TG_LIMITED`` and ``INCOMPLETE`` ("true"/"false"), plus ``TG_MAX_OFFERED_PPS``
    when TG-limited; empty for a record without these fields (before version 1.1)."""
    values: dict[str, str] = {}
    if "tg_limit" in record:
        values["TG_LIMITED"] = str(tg_limited(record)).lower()
        sent = record["tg_limit"].get("max_offered_pps")
        if tg_limited(record) and sent is not None:
            values["TG_MAX_OFFERED_PPS"] = f"{sent:.0f}"
    if "incomplete" in record:
        values["INCOMPLETE"] = str(incomplete(record)).lower()
    return values


def caveat_tags(record: Mapping[str, Any]) -> list[str]:
    """The test tags: TG_LIMITED_TAG and/or INCOMPLETE_TAG when they apply, then
    ``IRREGULAR`` and each irregularity's tag (``MIN_LOAD_LOSSY``...; ``TG_LIMITED`` once)."""
    tags = []
    if tg_limited(record):
        tags.append(TG_LIMITED_TAG)
    if incomplete(record):
        tags.append(INCOMPLETE_TAG)
    return list(dict.fromkeys([*tags, *irregular_tags(record)]))


def _goal_name(loss_ratio: float) -> str:
    if loss_ratio == NDR_LOSS_RATIO:
        return "NDR"
    if loss_ratio == PDR_LOSS_RATIO:
        return "PDR"
    return f"loss {100 * loss_ratio:g} %"
