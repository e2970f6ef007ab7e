"""The mlr controller's names: a goal's stage, a trial's phase, the rule that chose it.

All are ``str`` enums whose member is its value as text (``f"{member}"``,
``str(member)`` and JSON give "expect-pass", not "Rule.EXPECT_PASS"), so
traces, records and console lines read the same plain words as before
(``enum.StrEnum`` does this from Python 3.11 on; we support 3.10).
"""

from __future__ import annotations

import enum


class _Text(str, enum.Enum):
    """A ``str`` enum that prints as its value, in ``str()`` and in f-strings alike."""

    def __str__(self) -> str:
        return str.__str__(self)

    def __format__(self, format_spec: str) -> str:
        return str.__format__(self, format_spec)


class Phase(_Text):
    """What a trial serves: the whole search, or one goal's stage (see ``Stage``)."""

    PROBE = "probe"
    SHORT = "short"
    SCOUT = "scout"
    FINAL = "final"
    INTERMEDIATE = "intermediate"
    """An intermediate-duration trial run before a load's first full-length
    one (``search(..., intermediate_trials=True)``)."""


class Stage(_Text):
    """How far one goal has got: short trials, full-length scouting, the goal itself."""

    SHORT = "short"
    SCOUT = "scout"
    FINAL = "final"

    @property
    def phase(self) -> Phase:
        """The phase of the trials this stage nominates by default."""
        return Phase(self.value)


class Expect(_Text):
    """What a nominated trial is expected to show for its goal."""

    PASS = "pass"
    FAIL = "fail"


class Rule(_Text):
    """The rule that chose a trial's load (``TrialReason.strategy``).

    A ``*_GROWN`` member is its rule with the step grown because a bound
    kept moving the same way (see ``Rule.grown``).
    """

    PROBE = "probe"
    CONTINUE = "continue"
    MIN_LOAD = "min-load"
    BISECT = "bisect"
    EXPECT_PASS = "expect-pass"
    EXPECT_FAIL = "expect-fail"
    EXPAND_UP = "expand-up"
    EXPAND_DOWN = "expand-down"
    SCOUT_START = "scout-start"
    KNEE_FIT = "knee-fit"
    SCOUTED_MIDDLE = "scouted-middle"
    SCOUTED_LOWER = "scouted-lower"
    SCOUTED_UPPER = "scouted-upper"
    BELOW_UPPER = "below-upper"
    PROBE_GROWN = "probe-grown"
    BISECT_GROWN = "bisect-grown"
    EXPECT_PASS_GROWN = "expect-pass-grown"
    EXPECT_FAIL_GROWN = "expect-fail-grown"
    EXPAND_UP_GROWN = "expand-up-grown"
    EXPAND_DOWN_GROWN = "expand-down-grown"
    SCOUTED_LOWER_GROWN = "scouted-lower-grown"
    SCOUTED_UPPER_GROWN = "scouted-upper-grown"

    @property
    def grown(self) -> Rule:
        """This rule with a grown step (ValueError for rules that never grow)."""
        return Rule(f"{self.value}-grown")

    @property
    def guided(self) -> bool:
        """Did the estimate choose the load (a pass or a fail expected next to it)?"""
        return self in (Rule.EXPECT_PASS, Rule.EXPECT_FAIL)


class Direction(_Text):
    """Which way a goal's bound moved: the lower bound up or the upper bound down."""

    UP = "up"
    DOWN = "down"
