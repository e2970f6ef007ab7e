"""The trace plot's arithmetic: scales, ticks, the zoom window, label spreading."""

from __future__ import annotations

import itertools

import pytest

from ndrpdr.report.plotscale import (
    MIN_ZOOM_SPAN,
    ZOOM_MARGIN,
    Scale,
    nice_step,
    spread,
    zoom_window,
)


def test_scale_maps_and_clamps() -> None:
    y = Scale(4.0e6, 5.0e6, 300.0, 100.0)  # loads upwards: larger load, smaller y
    assert y(4.0e6) == 300.0
    assert y(5.0e6) == 100.0
    assert y(4.5e6) == pytest.approx(200.0)
    assert y(6.0e6) == pytest.approx(-100.0)
    assert y.clamp(6.0e6) == 100.0
    assert y.clamp(0.0) == 300.0
    assert y.contains(4.0e6) and y.contains(5.0e6)
    assert not y.contains(3.99e6)


@pytest.mark.parametrize(
    ("low", "high", "target", "ticks"),
    [
        (0.0, 30e6, 6, [0.0, 5e6, 10e6, 15e6, 20e6, 25e6, 30e6]),
        (4.402e6, 4.469e6, 8, [4.41e6, 4.42e6, 4.43e6, 4.44e6, 4.45e6, 4.46e6]),
        (0.5, 7.5, 8, [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]),
    ],
)
def test_ticks_are_round_and_inside(
    low: float, high: float, target: int, ticks: list[float]
) -> None:
    got = Scale(low, high, 0.0, 100.0).ticks(target)
    assert got == pytest.approx(ticks)
    assert all(low <= tick <= high for tick in got)


@pytest.mark.parametrize(
    ("span", "step"), [(30e6, 5e6), (0.067e6, 0.02e6), (7.0, 2.0), (1.0, 0.2), (0.06, 0.01)]
)
def test_nice_step(span: float, step: float) -> None:
    assert nice_step(span, 6) == pytest.approx(step)


def test_zoom_window_around_bounds_with_margin() -> None:
    window = zoom_window([4.0e6, 4.2e6, 4.1e6])
    assert window is not None
    span = 0.2e6
    assert window.low == pytest.approx(4.0e6 - ZOOM_MARGIN * span)
    assert window.high == pytest.approx(4.2e6 + ZOOM_MARGIN * span)


@pytest.mark.parametrize("bounds", [[4.4e6], [4.4e6, 4.4e6, 4.4e6], [4.4e6, 4.4001e6]])
def test_zoom_window_of_one_bound_or_equal_bounds_has_a_minimum_span(
    bounds: list[float],
) -> None:
    window = zoom_window(bounds)
    assert window is not None
    assert window.high - window.low >= MIN_ZOOM_SPAN * max(bounds) * (1 + 2 * ZOOM_MARGIN) * 0.999
    middle = (min(bounds) + max(bounds)) / 2
    assert (window.low + window.high) / 2 == pytest.approx(middle)


@pytest.mark.parametrize("bounds", [[], [0.0], [-1.0, float("nan"), float("inf")]])
def test_no_zoom_window_without_a_bound(bounds: list[float]) -> None:
    assert zoom_window(bounds) is None


def test_zoom_window_never_below_zero() -> None:
    window = zoom_window([1.0, 1000.0])
    assert window is not None
    assert window.low == 0.0


def test_spread_leaves_apart_labels_alone() -> None:
    assert spread([10.0, 50.0, 90.0], 0.0, 100.0, 12.0) == [10.0, 50.0, 90.0]


def test_spread_pushes_crowded_labels_apart_in_order() -> None:
    placed = spread([40.0, 40.0, 41.0, 95.0], 0.0, 100.0, 12.0)
    assert placed == sorted(placed)
    assert min(b - a for a, b in itertools.pairwise(placed)) >= 12.0
    assert placed[0] == 40.0
    assert all(0.0 <= y <= 100.0 for y in placed)


def test_spread_pulls_labels_up_from_the_bottom() -> None:
    placed = spread([100.0, 100.0, 100.0], 0.0, 100.0, 12.0)
    assert placed == [76.0, 88.0, 100.0]


def test_spread_too_many_labels_evenly() -> None:
    placed = spread([50.0] * 11, 0.0, 100.0, 12.0)
    assert placed[0] == 0.0
    assert placed[-1] == 100.0
    gaps = [b - a for a, b in itertools.pairwise(placed)]
    assert max(gaps) - min(gaps) < 1e-9
    assert spread([], 0.0, 100.0, 12.0) == []
    assert spread([5.0], 10.0, 100.0, 12.0) == [10.0]
