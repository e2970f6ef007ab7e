"""checked_trial: the one check of a trial's duration and load that every TG driver makes."""

from __future__ import annotations

import pytest

from ndrpdr.rates import LOAD_SLACK
from ndrpdr.trafficgen.base import TrafficGeneratorError, checked_trial


def test_numbers_come_back_as_floats() -> None:
    duration, load = checked_trial("TG", 1, 0, 1e6)
    assert (duration, load) == (1.0, 0.0)
    assert isinstance(duration, float) and isinstance(load, float)


def test_float_rounding_above_the_maximum_is_taken_and_more_is_not() -> None:
    top = 1e6
    assert checked_trial("TG", 1.0, top * (1 + LOAD_SLACK / 2), top)[1] > top
    with pytest.raises(TrafficGeneratorError, match=r"^TG: trial load 1e\+06 pps is above"):
        checked_trial("TG", 1.0, top * (1 + 10 * LOAD_SLACK), top)


@pytest.mark.parametrize(
    ("duration", "load", "message"),
    [
        (True, 1.0, "TG: trial duration=True s must be a finite number > 0"),
        (1.0, False, "TG: trial load=False pps must be a finite number >= 0"),
        ("1", 1.0, "TG: trial duration='1' s must be a finite number > 0"),
        (1.0, None, "TG: trial load=None pps must be a finite number >= 0"),
    ],
)
def test_what_is_not_a_number_is_named_with_its_unit(
    duration: object, load: object, message: str
) -> None:
    with pytest.raises(TrafficGeneratorError) as raised:
        checked_trial("TG", duration, load, 1e6)
    assert str(raised.value) == message


def test_the_caller_names_what_kind_of_trial() -> None:
    with pytest.raises(TrafficGeneratorError, match=r"^TG1: latency trial duration=0 s"):
        checked_trial("TG1", 0, 1.0, 1e6, "latency trial")
