"""The trace plot's zoom panel: NDR and PDR apart on screen, labels apart, numbered bars."""

from __future__ import annotations

import copy
import itertools
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from record_helpers import SIM, sim_record

from ndrpdr.report.plotpanel import LABEL_GAP
from ndrpdr.report.traceplot import trace_svg
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.units import format_rate

SVG = "{http://www.w3.org/2000/svg}"


@pytest.fixture(scope="module")
def topology() -> Topology:
    return load_topology(SIM)


@pytest.fixture(scope="module")
def passed(topology: Topology) -> dict[str, Any]:
    """64 B, default goals: NDR and PDR bounds within about 1 % of each other."""
    return sim_record(topology)


def _group(root: ET.Element, name: str) -> ET.Element | None:
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class") == name]
    assert len(groups) <= 1, name
    return groups[0] if groups else None


def _panels(record: dict[str, Any], **size: int) -> tuple[ET.Element, ET.Element | None]:
    root = ET.fromstring(trace_svg(record, **size))
    whole = _group(root, "whole")
    assert whole is not None
    return whole, _group(root, "zoom")


def _bound_line_y(panel: ET.Element) -> dict[str, float]:
    """The y [px] of each bound line, by its label text ("NDR lower 4.414 Mpps").

    Read from each label's leader path, which starts on its line.
    """
    found = {}
    children = list(panel)
    for leader, text in itertools.pairwise(children):
        if text.tag == f"{SVG}text" and text.get("class") == "bound-label":
            match = re.match(r"M[\d.]+ ([\d.]+)L", leader.get("d", ""))
            assert match, leader.get("d")
            found["".join(text.itertext())] = float(match.group(1))
    return found


def _label_y(panel: ET.Element) -> list[float]:
    labels = [t for t in panel.iter(f"{SVG}text") if t.get("class") == "bound-label"]
    return sorted(float(t.get("y", "nan")) for t in labels)


def _labels(goal: str, entry: dict[str, Any]) -> tuple[str, str]:
    return (
        f"{goal} lower {format_rate(entry['lower_bound'])}",
        f"{goal} upper {format_rate(entry['upper_bound'])}",
    )


def test_ndr_and_pdr_one_percent_apart_are_far_apart_when_zoomed(passed: dict[str, Any]) -> None:
    ndr_lower, ndr_upper = _labels("NDR", passed["ndr"])
    pdr_lower, pdr_upper = _labels("PDR", passed["pdr"])
    spread = passed["pdr"]["upper_bound"] / passed["ndr"]["lower_bound"] - 1
    assert 0.009 < spread < 0.011  # the simulator's bounds: about 1 % from NDR lower to PDR upper
    whole, zoom = _panels(passed)
    assert zoom is not None
    on_whole, on_zoom = _bound_line_y(whole), _bound_line_y(zoom)
    # The whole search squeezes them onto a few pixels ...
    assert on_whole[ndr_lower] - on_whole[pdr_upper] < 5
    # ... the zoom panel puts 1 % at least 100 px apart and each 0.5 % step at least 50 px.
    assert on_zoom[ndr_lower] - on_zoom[pdr_upper] >= 100
    assert on_zoom[ndr_lower] - on_zoom[ndr_upper] >= 50
    assert on_zoom[pdr_lower] - on_zoom[pdr_upper] >= 50
    # Every bound line lies inside the zoom panel's plot area.
    axis = next(p for p in zoom.iter(f"{SVG}path") if p.get("d", "").startswith("M78 "))
    top, bottom = map(float, re.findall(r"M78 ([\d.]+)V([\d.]+)", axis.get("d", ""))[0])
    assert all(top < y < bottom for y in on_zoom.values())


def test_zoom_window_is_marked_on_the_whole_panel(passed: dict[str, Any]) -> None:
    root = ET.fromstring(trace_svg(passed))
    marks = [r for r in root.iter(f"{SVG}rect") if r.get("class") == "zoom-window"]
    assert len(marks) == 1
    mark = marks[0]
    assert mark.get("fill") == "none"
    assert float(mark.get("height", "0")) >= 6  # visible even where the window is 1 px tall
    title = mark.find(f"{SVG}title")
    assert title is not None and (title.text or "").startswith("zoomed below: ")
    heading = next(t for t in root.iter(f"{SVG}text") if t.get("class") == "zoom-heading")
    # The probe at the max load (trial 1) is outside; the zoom starts with trial 2.
    assert ", trials 2 to 34;" in "".join(heading.itertext())


@pytest.mark.parametrize(
    "size", [{}, {"width": 480, "height": 360}, {"width": 1200, "height": 900}]
)
def test_bound_labels_never_overlap(passed: dict[str, Any], size: dict[str, int]) -> None:
    whole, zoom = _panels(passed, **size)
    assert zoom is not None
    for panel in (whole, zoom):
        ys = _label_y(panel)
        assert len(ys) >= 4
        assert min(b - a for a, b in itertools.pairwise(ys)) >= LABEL_GAP - 0.1


def _with_bounds(record: dict[str, Any], *bounds: tuple[float | None, float | None]) -> dict:
    """``record`` with its goals' (lower, upper) bounds replaced."""
    changed = copy.deepcopy(record)
    for goal, (lower, upper) in zip(changed["goals"], bounds, strict=True):
        goal["lower_bound"], goal["upper_bound"] = lower, upper
    return changed


def test_all_bounds_equal_get_a_window_and_spread_labels(passed: dict[str, Any]) -> None:
    value = passed["ndr"]["lower_bound"]
    record = _with_bounds(passed, (value, value), (value, value))
    whole, zoom = _panels(record)
    assert zoom is not None
    on_zoom = _bound_line_y(zoom)
    assert len(on_zoom) == 4
    assert len(set(on_zoom.values())) == 1  # one line height ...
    ys = _label_y(zoom)
    assert min(b - a for a, b in itertools.pairwise(ys)) >= LABEL_GAP - 0.1  # ... labels apart
    # The lone height sits in the middle of the zoom panel.
    axis = next(p for p in zoom.iter(f"{SVG}path") if p.get("d", "").startswith("M78 "))
    top, bottom = map(float, re.findall(r"M78 ([\d.]+)V([\d.]+)", axis.get("d", ""))[0])
    assert next(iter(on_zoom.values())) == pytest.approx((top + bottom) / 2, abs=1)
    assert min(b - a for a, b in itertools.pairwise(_label_y(whole))) >= LABEL_GAP - 0.1


def test_a_single_bound_gets_a_window(passed: dict[str, Any]) -> None:
    value = passed["ndr"]["lower_bound"]
    _, zoom = _panels(_with_bounds(passed, (value, None), (None, None)))
    assert zoom is not None
    assert list(_bound_line_y(zoom)) == [f"NDR lower {format_rate(value)}"]


def test_bounds_far_apart_all_shown(passed: dict[str, Any]) -> None:
    record = _with_bounds(passed, (1e6, 1.1e6), (20e6, 21e6))
    _, zoom = _panels(record)
    assert zoom is not None
    assert len(_bound_line_y(zoom)) == 4


def test_no_bound_no_zoom_panel(topology: Topology) -> None:
    record = sim_record(topology, fail_at=4)
    assert all(g["lower_bound"] is None and g["upper_bound"] is None for g in record["goals"])
    root = ET.fromstring(trace_svg(record))
    assert _group(root, "zoom") is None
    assert not [r for r in root.iter(f"{SVG}rect") if r.get("class") == "zoom-window"]
    assert root.get("height") == "600"  # the whole panel takes the room
    numbers = _group(root, "trial-numbers")
    assert numbers is not None
    assert ["".join(t.itertext()) for t in numbers] == ["1", "2", "3"]


def test_trials_outside_the_window_are_strips_at_the_edge(topology: Topology) -> None:
    record = sim_record(topology, algorithm="binary")
    _, zoom = _panels(record)
    assert zoom is not None
    group = _group(zoom, "zoom-trials")
    assert group is not None
    bars = group.findall(f"{SVG}rect")
    strips = [bar for bar in bars if bar.get("class") == "off"]
    assert strips  # binary search halves back up to the max load after the first bracket
    assert all(bar.find(f"{SVG}title") is not None for bar in bars)
    heights = {strip.get("height") for strip in strips}
    assert heights == {"3"}


def test_zoom_numbers_sit_on_their_bars(passed: dict[str, Any]) -> None:
    _, zoom = _panels(passed)
    assert zoom is not None
    bars_group, numbers_group = _group(zoom, "zoom-trials"), _group(zoom, "trial-numbers")
    assert bars_group is not None and numbers_group is not None
    bars = {}
    for bar in bars_group.findall(f"{SVG}rect"):
        title = bar.find(f"{SVG}title")
        assert title is not None and title.text
        number = title.text.split()[0].removeprefix("#")
        bars[number] = (float(bar.get("x", "nan")), float(bar.get("width", "nan")))
    numbers = ["".join(t.itertext()) for t in numbers_group]
    # 1 s trials over ~660 px: every trial within the window has room for its number.
    assert numbers == [str(n) for n in range(2, 35)]
    for text in numbers_group:
        x, width = bars["".join(text.itertext())]
        assert x <= float(text.get("x", "nan")) <= x + width
