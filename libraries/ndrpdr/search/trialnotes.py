"""The notes a trial carries about counts the search cannot take at face value.

Two kinds, each made here once and recognised by its mark, so a trial copied
with new counts (``dataclasses.replace``) gets its note rewritten, never twice:

- surplus: more frames received than sent. Nothing was lost, but the extra
  frames are not the DUT forwarding the TG's traffic: a DUT that duplicates
  frames, or foreign frames reaching the TG's receive ports (a lab port
  shared with other traffic, a switch flooding, a loop);
- sent nothing: a trial with a load but no frame sent (a load times a
  duration below one frame, or a TG that sent none of its frames). It
  measured nothing, so it cannot pass; it is not the DUT losing either.
"""

from __future__ import annotations

from collections.abc import Callable

_SURPLUS_MARK = "frames more than were sent"
_NOTHING_MARK = "sent no frame"


def surplus_note(surplus_count: float, offered_count: float) -> str:
    """The note of a trial that received ``surplus_count`` frames beyond its ``offered_count``."""
    return (
        f"received {surplus_count:.0f} {_SURPLUS_MARK} ({offered_count:.0f}): duplicates from "
        "the DUT or foreign frames on the TG's ports (a shared lab port, flooding, a loop); "
        "counted as no loss, the surplus kept as surplus_count"
    )


def sent_nothing_note(load: float, duration: float, intended_count: float) -> str:
    """The note of a trial at ``load`` [pps] for ``duration`` [s] that sent no frame."""
    if intended_count < 1:
        why = "the load times the duration is less than one frame: raise the min load"
    else:
        why = f"the traffic generator sent none of its {intended_count:.0f} frames"
    return (
        f"the trial {_NOTHING_MARK} at {load:.6g} pps for {duration:g} s ({why}); "
        "it measured nothing and counts as a failed trial, not as DUT loss"
    )


def is_surplus_note(note: str) -> bool:
    """True for a note made by ``surplus_note``."""
    return _SURPLUS_MARK in note


def is_sent_nothing_note(note: str) -> bool:
    """True for a note made by ``sent_nothing_note``."""
    return _NOTHING_MARK in note


def with_note(
    notes: tuple[str, ...], note: str | None, is_kind: Callable[[str], bool]
) -> tuple[str, ...]:
    """``notes`` with its note of ``is_kind``'s kind made ``note``: rewritten where it stands,
    appended when there was none, dropped when ``note`` is None."""
    place = next((index for index, item in enumerate(notes) if is_kind(item)), len(notes))
    kept = [item for item in notes if not is_kind(item)]
    if note is not None:
        kept.insert(place, note)
    return tuple(kept)
