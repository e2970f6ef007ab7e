"""A record's goals with their names: the label people read and the metadata key prefix."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from ndrpdr.goals import PDR_LOSS_RATIO, goal_key, goal_label


@dataclasses.dataclass(frozen=True)
class NamedGoal:
    """One goal entry of a record, with its label ("NDR", "loss ≤ 2 %") and key ("LOSS_2PCT")."""

    label: str
    key: str
    entry: Mapping[str, Any]


def record_pdr_loss_ratio(record: Mapping[str, Any]) -> float:
    """The loss ratio a record calls PDR (0.005 in records that do not say)."""
    return float(record.get("search", {}).get("pdr_loss_ratio", PDR_LOSS_RATIO))


def named_goals(record: Mapping[str, Any]) -> list[NamedGoal]:
    """The record's goals in order, one per name: a later goal with the same loss ratio is left out.

    (``ndr`` and ``pdr`` of a record are the first such goals too.)
    """
    pdr = record_pdr_loss_ratio(record)
    seen: set[str] = set()
    named = []
    for entry in record.get("goals", ()):
        ratio = float(entry["loss_ratio"])
        key = goal_key(ratio, pdr)
        if key in seen:
            continue
        seen.add(key)
        named.append(NamedGoal(goal_label(ratio, pdr), key, entry))
    return named
