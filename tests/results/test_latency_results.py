"""Latency in the record (schema), the test message, the metadata and the log.html panel."""

from __future__ import annotations

import copy
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from ndrpdr.families import profile_of as get_profile
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.latencyrun import not_measured
from ndrpdr.report.latencyplot import latency_svg
from ndrpdr.report.summary import search_message, search_metadata
from ndrpdr.results.record import RECORD_VERSION
from ndrpdr.results.schema import RecordError, validate_record
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator
from search_call import search_call

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def measured() -> dict[str, Any]:
    topology = load_topology(ROOT / "topologies" / "sim.yaml")
    run = search_call(
        SimTrafficGenerator(topology),
        topology=topology,
        profile=get_profile("ethip4-ip4base"),
        frame_size=64,
        goals=ndr_pdr_goals(),
        latency_duration_s=5.0,
    )
    return run.record.to_json()


def test_record_version_and_schema(measured: dict[str, Any]) -> None:
    assert RECORD_VERSION == "1.14.0" and measured["version"] == RECORD_VERSION
    validate_record(measured)
    zeros = copy.deepcopy(measured)
    zeros["latency"]["points"][0]["directions"][0]["min_us"] = -1
    with pytest.raises(RecordError, match=r"latency\.points\.0\.directions\.0\.min_us"):
        validate_record(zeros)
    old = copy.deepcopy(measured)
    del old["latency"], old["irregular"]  # a 1.1.0 record stays valid
    del old["search"]["max_search_time_s"], old["search"]["time_capped"]
    validate_record(old)


def test_message_has_a_line_per_point(measured: dict[str, Any]) -> None:
    lines = [line for line in search_message(measured).splitlines() if "Latency" in line]
    assert [line.split(" (")[0] for line in lines] == [
        f"Latency at {p} % PDR" for p in (0, 10, 50, 90)
    ]
    point = measured["latency"]["points"][3]
    fwd = point["directions"][0]
    assert f"({point['load_pps'] / 1e6:.4f} Mpps)" in lines[3]
    assert f"forward min/avg/max {fwd['min_us']:.0f}/{fwd['avg_us']:.0f}/" in lines[3]
    assert re.search(r"; reverse min/avg/max [\d.]+/[\d.]+/[\d.]+ us, p99 [\d.]+ us$", lines[3])
    assert "latency streams only" in lines[0]


def test_metadata_per_point_and_direction(measured: dict[str, Any]) -> None:
    metadata = search_metadata(measured)
    assert metadata["LATENCY"] == "measured"
    keys = [k for k in metadata if k.startswith("LAT_")]
    assert len(keys) == 4 * 2 * 5
    rev = measured["latency"]["points"][3]["directions"][1]
    assert float(metadata["LAT_90PDR_REV_AVG_US"]) == pytest.approx(rev["avg_us"], abs=1e-3)
    assert float(metadata["LAT_0PDR_FWD_P99_US"]) > 0


def test_not_measured_is_said_never_zeros(measured: dict[str, Any]) -> None:
    record = copy.deepcopy(measured)
    record["latency"] = not_measured("the local TG cannot measure latency").to_json()
    validate_record(record)
    assert search_message(record).splitlines()[-1] == (
        "Latency: not measured (the local TG cannot measure latency)"
    )
    metadata = search_metadata(record)
    assert metadata["LATENCY"] == "not measured"
    assert not [k for k in metadata if k.startswith("LAT_")]
    assert latency_svg(record) == ""
    record["latency"] = not_measured("turned off").to_json()
    assert "Latency" not in search_message(record)  # the user's choice: no line
    assert "LATENCY" not in search_metadata(record)


def test_panel_is_one_escaped_svg_element(measured: dict[str, Any]) -> None:
    record = copy.deepcopy(measured)
    record["latency"]["points"][1]["directions"][1] = {
        **record["latency"]["points"][1]["directions"][1],
        "frames_measured": 0,
        **dict.fromkeys(("min_us", "avg_us", "max_us", "p50_us", "p90_us", "p99_us", "p99_9_us")),
    }
    svg = latency_svg(record)
    root = ET.fromstring(svg)  # well-formed
    assert root.tag == "{http://www.w3.org/2000/svg}svg"
    texts = "".join(root.itertext())
    for label in ("0 % PDR", "90 % PDR", "forward", "reverse", "latency [us]"):
        assert label in texts
    circles = root.findall(".//{http://www.w3.org/2000/svg}circle")
    assert len(circles) == 4 * 2 - 1  # an average per measured direction and point
    titles = [t.text or "" for t in root.iter("{http://www.w3.org/2000/svg}title")]
    assert any("reverse at 10 % PDR" in t and "0 frames" in t for t in titles)
    assert "<script" not in svg and "href" not in svg
