"""The search-trace SVG: well-formed, self-contained, one marker per trial, bounds, escaping."""

from __future__ import annotations

import copy
import dataclasses
import itertools
import re
import xml.etree.ElementTree as ET
from typing import Any

import pytest
from record_helpers import SIM, sim_record

from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.report.traceplot import trace_svg
from ndrpdr.report.trialfacts import (
    HIGH_LOSS,
    LOSS_COLOURS,
    LOW_LOSS,
    ZERO_LOSS,
    format_percent,
    goal_names,
    is_full_length,
    loss_class,
)
from ndrpdr.results.record import trial_entry
from ndrpdr.search.trial import TrialReason
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator
from ndrpdr.units import format_rate

SVG = "{http://www.w3.org/2000/svg}"
#: An error text with everything XML fears: markup, entities, quotes, a control character.
NASTY = 'TG <trex> said "a < b & c" \x1b[31m' + "and on " * 40 + "</svg>"


@pytest.fixture(scope="module")
def topology() -> Topology:
    return load_topology(SIM)


@pytest.fixture(scope="module")
def passed(topology: Topology) -> dict[str, Any]:
    """64 B, default goals: 1 s trials, all three loss classes."""
    return sim_record(topology)


@pytest.fixture(scope="module")
def mixed(topology: Topology) -> dict[str, Any]:
    """0.5 s initial and 2 s final trials: both short and full-length trials."""
    goals = ndr_pdr_goals(
        final_trial_duration_s=2.0, initial_trial_duration_s=0.5, duration_sum_s=4.0
    )
    return sim_record(topology, goals=goals)


def _parse(svg: str) -> ET.Element:
    root = ET.fromstring(svg)
    assert root.tag == f"{SVG}svg"
    return root


def _group(root: ET.Element, name: str) -> ET.Element:
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class") == name]
    assert len(groups) == 1, name
    return groups[0]


def _markers(root: ET.Element) -> list[ET.Element]:
    """The bars of the whole-search panel."""
    groups = [g for g in root.iter(f"{SVG}g") if g.get("class") == "trials"]
    assert len(groups) == 1
    return groups[0].findall(f"{SVG}rect")


def _texts(root: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in root.iter(f"{SVG}text")]


def _tooltip(marker: ET.Element) -> str:
    title = marker.find(f"{SVG}title")
    assert title is not None and title.text
    return title.text


def test_standalone_well_formed_svg(passed: dict[str, Any]) -> None:
    svg = trace_svg(passed)
    assert svg.startswith('<svg xmlns="http://www.w3.org/2000/svg" ')
    assert svg.endswith("</svg>")
    root = _parse(svg)
    assert (root.get("width"), root.get("height")) == ("760", "600")
    assert root.get("viewBox") == "0 0 760 600"
    tags = {element.tag.removeprefix(SVG) for element in root.iter()}
    assert tags.isdisjoint({"style", "script", "image", "foreignObject", "use", "a"})
    for element in root.iter():
        assert not any("href" in name or name.startswith("on") for name in element.attrib)
    assert "url(" not in svg
    assert "@import" not in svg


def test_custom_size(passed: dict[str, Any]) -> None:
    root = _parse(trace_svg(passed, width=1000, height=500))
    assert (root.get("width"), root.get("height")) == ("1000", "500")
    with pytest.raises(ValueError, match="too small"):
        trace_svg(passed, width=200)
    with pytest.raises(ValueError, match="too small"):
        trace_svg(passed, height=100)


def test_one_marker_per_trial_with_tooltip(passed: dict[str, Any]) -> None:
    root = _parse(trace_svg(passed))
    markers = _markers(root)
    trials = passed["trials"]
    assert len(markers) == len(trials) == 34
    for marker, trial in zip(markers, trials, strict=True):
        reason = trial["reason"]
        expected = (
            f"#{trial['index'] + 1} {format_rate(trial['load_pps'])} x 1 s, "
            f"loss {format_percent(trial['loss_ratio'])} %, {reason['phase']}/{reason['strategy']}"
        )
        assert _tooltip(marker).startswith(expected)
    assert _tooltip(markers[0]) == "#1 29.762 Mpps x 1 s, loss 85.2 %, probe/probe"
    assert _tooltip(markers[-1]).endswith("final/continue (PDR)")


def test_markers_run_along_search_time(passed: dict[str, Any]) -> None:
    markers = _markers(_parse(trace_svg(passed)))
    starts = [float(m.get("x", "nan")) for m in markers]
    assert starts == sorted(starts)
    assert len(set(starts)) == len(starts)
    # 1 s trials: evenly spaced (within rounding), each as wide as its slot minus a 1 px gap.
    slots = [b - a for a, b in itertools.pairwise(starts)]
    assert max(slots) - min(slots) <= 0.2
    widths = {round(float(m.get("width", "nan"))) for m in markers}
    assert widths == {round(slots[0] - 1)}
    # Higher loads are higher up: the max-load probe is above the converged trials.
    ys = [float(m.get("y", "nan")) for m in markers]
    assert ys[0] < min(ys[1:]) - 100


def test_colours_follow_loss_classes(passed: dict[str, Any]) -> None:
    markers = _markers(_parse(trace_svg(passed)))
    classes = [loss_class(t["loss_ratio"]) for t in passed["trials"]]
    assert set(classes) == {ZERO_LOSS, LOW_LOSS, HIGH_LOSS}  # the test covers every class
    for marker, kind in zip(markers, classes, strict=True):
        assert marker.get("fill") == LOSS_COLOURS[kind]
    assert LOSS_COLOURS[ZERO_LOSS] != LOSS_COLOURS[LOW_LOSS] != LOSS_COLOURS[HIGH_LOSS]


@pytest.mark.parametrize(
    ("ratio", "kind"),
    [
        (0.0, ZERO_LOSS),
        (1e-9, LOW_LOSS),
        (0.005, LOW_LOSS),
        (0.0050001, HIGH_LOSS),
        (0.85, HIGH_LOSS),
        (1.0, HIGH_LOSS),
    ],
)
def test_loss_class_boundaries(ratio: float, kind: str) -> None:
    assert loss_class(ratio) == kind


def test_short_trials_hollow_full_trials_filled(mixed: dict[str, Any]) -> None:
    markers = _markers(_parse(trace_svg(mixed)))
    trials = mixed["trials"]
    full = [is_full_length(t, mixed["goals"]) for t in trials]
    assert sorted(t["duration_s"] for t in trials) == [0.5, 0.5, 0.5, 2.0, 2.0, 2.0]
    assert full == [t["duration_s"] == 2.0 for t in trials]
    for marker, trial, is_full in zip(markers, trials, full, strict=True):
        colour = LOSS_COLOURS[loss_class(trial["loss_ratio"])]
        if is_full:
            assert (marker.get("fill"), marker.get("stroke"), marker.get("height")) == (
                colour,
                None,
                "7",
            )
        else:
            assert (marker.get("fill"), marker.get("stroke"), marker.get("height")) == (
                "#fff",
                colour,
                "5",
            )
    # A 2 s trial is four times as wide as a 0.5 s one (plus the 1 px gap).
    widths = {
        t["duration_s"]: float(m.get("width", "nan")) + 1
        for m, t in zip(markers, trials, strict=True)
    }
    assert widths[2.0] == pytest.approx(4 * widths[0.5], abs=0.3)
    text = " ".join(_texts(_parse(trace_svg(mixed))))
    assert "full-length (\u2265 2 s)" in text


def test_bound_lines_and_labels(passed: dict[str, Any]) -> None:
    root = _group(_parse(trace_svg(passed)), "whole")
    texts = _texts(root)
    ndr, pdr = passed["ndr"], passed["pdr"]
    wanted = {
        f"NDR lower {format_rate(ndr['lower_bound'])}",
        f"NDR upper {format_rate(ndr['upper_bound'])}",
        f"PDR lower {format_rate(pdr['lower_bound'])}",
        f"PDR upper {format_rate(pdr['upper_bound'])}",
        f"max load {format_rate(passed['search']['max_load_pps'])}",
    }
    assert wanted <= set(texts)
    assert "NDR lower 4.414 Mpps" in texts  # the simulator's known NDR
    # Labels stack by value: higher bounds above lower ones, never overlapping.
    label_y = {
        text: float(element.get("y", "nan"))
        for element in root.iter(f"{SVG}text")
        for text in ["".join(element.itertext())]
        if text in wanted
    }
    order = sorted(label_y, key=label_y.__getitem__)
    assert order[0].startswith("max load")
    assert order[1:] == [
        f"PDR upper {format_rate(pdr['upper_bound'])}",
        f"NDR upper {format_rate(ndr['upper_bound'])}",
        f"PDR lower {format_rate(pdr['lower_bound'])}",
        f"NDR lower {format_rate(ndr['lower_bound'])}",
    ]
    ys = sorted(label_y.values())
    assert min(b - a for a, b in itertools.pairwise(ys)) >= 11.9
    # Upper bounds dotted, lower ones solid; one shaded band per goal.
    lines = [line for line in root.iter(f"{SVG}line") if line.get("stroke-width") == "1.5"]
    assert len(lines) == 4
    assert [line.get("stroke-dasharray") for line in lines] == [None, "2 2", None, "2 2"]
    max_lines = [line for line in root.iter(f"{SVG}line") if line.get("stroke-dasharray") == "6 3"]
    assert len(max_lines) == 1
    assert max_lines[0].get("y1") == max_lines[0].get("y2") != lines[0].get("y1")
    bands = [r for r in root.iter(f"{SVG}rect") if r.get("fill-opacity") == "0.12"]
    assert len(bands) == 2
    legend = " ".join(_texts(_parse(trace_svg(passed))))
    assert f"NDR conditional throughput {format_rate(ndr['conditional_throughput'])}" in legend
    assert f"PDR conditional throughput {format_rate(pdr['conditional_throughput'])}" in legend


def test_title_of_passed_search(passed: dict[str, Any]) -> None:
    title = _texts(_parse(trace_svg(passed)))[0]
    assert title == "ethip4-ip4base, 64 B, mlr: passed (34 trials, 34 s)"


def test_jumbo_frames_without_upper_bound(topology: Topology) -> None:
    record = sim_record(topology, frame_size=9000)
    assert record["ndr"]["upper_bound"] is None
    assert record["pdr"]["upper_bound"] is None
    root = _parse(trace_svg(record))
    texts = _texts(root)
    assert texts[0].startswith("ethip4-ip4base, 9000 B, mlr: passed")
    lower = format_rate(record["ndr"]["lower_bound"])
    assert lower == "277.162 kpps"
    assert {f"NDR lower {lower}", f"PDR lower {lower}"} <= set(texts)
    assert not any("upper" in text and "bound" not in text for text in texts)
    assert "(max load is a lower bound)" in texts
    assert not [r for r in root.iter(f"{SVG}rect") if r.get("fill-opacity")]  # no band
    assert len(_markers(root)) == len(record["trials"])


def test_failed_search_title_is_escaped_and_cut(topology: Topology) -> None:
    record = sim_record(topology, message=NASTY, fail_at=4)
    assert record["status"] == "failed"
    assert len(record["trials"]) == 3
    svg = trace_svg(record)
    assert "<trex>" not in svg
    assert "</svg>" not in svg[:-6]
    assert "\x1b" not in svg
    assert "TG &lt;trex&gt; said &quot;a &lt; b &amp; c&quot;" in svg
    root = _parse(svg)
    title = next(root.iter(f"{SVG}text"))
    tspan = title.find(f"{SVG}tspan")
    assert tspan is not None and tspan.text is not None
    shown = tspan.text
    assert shown.startswith('search failed: TG <trex> said "a < b & c" \ufffd[31m')
    assert shown.endswith("\u2026")
    assert len(shown) < 100
    tooltip = title.find(f"{SVG}title")
    assert tooltip is not None and (tooltip.text or "").endswith("and on </svg>")
    texts = _texts(root)
    assert "NDR no result" in texts
    assert "PDR no result" in texts
    assert not any(text.startswith(("NDR lower", "PDR lower")) for text in texts)
    assert len(_markers(root)) == 3


def test_no_trials(topology: Topology) -> None:
    record = sim_record(topology, message=NASTY, fail_at=1)
    assert record["trials"] == []
    svg = trace_svg(record)
    root = _parse(svg)
    assert int(root.get("height", "0")) < 100
    assert "no trials" in _texts(root)
    assert not [g for g in root.iter(f"{SVG}g") if g.get("class") == "trials"]
    assert "search failed: TG &lt;trex&gt;" in svg
    assert len(svg) < 1500


def _many_trials(record: dict[str, Any], topology: Topology, count: int) -> dict[str, Any]:
    """``record`` with ``count`` synthetic sim trials of mixed loads, lengths and reasons."""
    sim = SimTrafficGenerator(topology)
    reasons = [
        TrialReason("mlr", "short", "expect-fail", 0, "lower=1, upper=2"),
        TrialReason("mlr", "final", "continue", 1, "lower=1, upper=2"),
        TrialReason("mlr", "final", "expect-pass", 0, "lower=1, upper=2"),
    ]
    trials = []
    for i in range(count):
        trial = sim.measure(1.0 if i % 3 else 0.5, 3e6 + (i * 7919) % 3_000_000)
        trials.append(trial_entry(i, dataclasses.replace(trial, reason=reasons[i % 3])))
    many = copy.deepcopy(record)
    many["trials"] = trials
    return many


def test_compact_for_a_thousand_trials(passed: dict[str, Any], topology: Topology) -> None:
    many = _many_trials(passed, topology, 1000)
    svg = trace_svg(many)
    root = _parse(svg)
    markers = _markers(root)
    assert len(markers) == 1000
    classes = {m.get("fill") if m.get("fill") != "#fff" else m.get("stroke") for m in markers}
    assert classes == set(LOSS_COLOURS.values())
    # Every trial is drawn twice (whole and zoom panel), each time with its tooltip.
    assert len(svg.encode()) < 350 * 1000
    base = len(trace_svg(_many_trials(passed, topology, 10)).encode())
    assert (len(svg.encode()) - base) / 990 < 350
    assert len(trace_svg(_many_trials(passed, topology, 300)).encode()) < 100_000


def test_coordinates_have_one_decimal_at_most(
    passed: dict[str, Any], mixed: dict[str, Any]
) -> None:
    for record in (passed, mixed):
        svg = trace_svg(record)
        for name, value in re.findall(
            r' (x|y|x1|x2|y1|y2|width|height|d|transform)="([^"]*)"', svg
        ):
            for number in re.findall(r"-?\d+(?:\.\d+)?", value):
                assert re.fullmatch(r"-?\d+(\.\d)?", number), (name, value)


def test_goal_names() -> None:
    assert goal_names([{"loss_ratio": 0.0}, {"loss_ratio": 0.0}, {"loss_ratio": 0.005}]) == [
        "NDR (goal 0)",
        "NDR (goal 1)",
        "PDR",
    ]


def test_other_goal_labels(passed: dict[str, Any]) -> None:
    record = copy.deepcopy(passed)
    record["goals"][1]["loss_ratio"] = 0.02
    texts = _texts(_parse(trace_svg(record)))
    assert f"loss \u2264 2 % lower {format_rate(record['goals'][1]['lower_bound'])}" in texts
    assert not any(text.startswith("PDR") for text in texts)


@pytest.mark.parametrize(
    ("ratio", "text"),
    [
        (0.0, "0"),
        (0.005, "0.5"),
        (0.003893523, "0.389"),
        (0.8515364, "85.2"),
        (1.0, "100"),
        (2.27e-7, "0.0000227"),
    ],
)
def test_format_percent(ratio: float, text: str) -> None:
    assert format_percent(ratio) == text
