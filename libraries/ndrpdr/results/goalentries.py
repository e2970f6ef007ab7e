"""A record's goals with their names: the label people read and the metadata key prefix."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Mapping
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


def first_per_name(
    loss_ratios: Iterable[float], pdr_loss_ratio: float
) -> list[tuple[int, str, str]]:
    """(index, label, key) of each goal in order that is the first with its name.

    A later goal with the same loss ratio is left out (``ndr`` and ``pdr`` of a record are
    the first such goals too).
    """
    seen: set[str] = set()
    named = []
    for index, ratio in enumerate(loss_ratios):
        key = goal_key(ratio, pdr_loss_ratio)
        if key not in seen:
            seen.add(key)
            named.append((index, goal_label(ratio, pdr_loss_ratio), key))
    return named


def named_goals(record: Mapping[str, Any]) -> list[NamedGoal]:
    """A JSON record's goals in order, one per name (``first_per_name``)."""
    entries = list(record.get("goals", ()))
    ratios = (float(entry["loss_ratio"]) for entry in entries)
    return [
        NamedGoal(label, key, entries[index])
        for index, label, key in first_per_name(ratios, record_pdr_loss_ratio(record))
    ]
