"""The record's ``testbed.cpus``: which CPU did what, from the DUTs' telemetry, schema-valid."""

from __future__ import annotations

import copy
import dataclasses
import json
from pathlib import Path
from typing import Any

import pytest

from ndrpdr.results import record as record_format
from ndrpdr.results.record import cpus_section
from ndrpdr.results.schema import RecordError, validate_record
from ndrpdr.topology.loader import load_topology

ROOT = Path(__file__).resolve().parents[2]
LAYOUT = "main thread on cpu 0, 1 worker(s) on cpu 1 (1 RX queue(s) per port)"
PLACEMENT = "Thread 1 (vpp_wk_0):\n node af-packet-input:\n    host-dut-if1 queue 0 (polling)\n"
MACHINE = "this machine has 2 CPU(s) for the run: TG on cpu 0, DUT1 on cpu 1 (workers: cpu 1)"
TELEMETRY = {
    "DUT1": {
        "state": "running",
        "cpu_layout": LAYOUT,
        "show_rx_placement": PLACEMENT,
        "cpu_placement": "cpu 1 (claimed)",
        "cpus": MACHINE,
    }
}


def test_cpus_come_from_the_telemetry() -> None:
    assert cpus_section(TELEMETRY) == {
        "machine": MACHINE,
        "duts": [
            {
                "node": "DUT1",
                "placement": "cpu 1 (claimed)",
                "layout": LAYOUT,
                "threads": None,
                "rx_placement": PLACEMENT,
                "shared_with": None,
            }
        ],
    }
    assert cpus_section({"DUT1": {"state": "simulated"}}) is None
    assert cpus_section({}) is None


def test_the_testbed_section_has_cpus_only_when_said() -> None:
    topology = load_topology(ROOT / "topologies" / "local-vpp.yaml")
    assert "cpus" not in record_format.testbed_section(topology)
    assert "cpus" not in record_format.testbed_section(topology, {"DUT1": {"state": "x"}})
    assert record_format.testbed_section(topology, TELEMETRY)["cpus"]["duts"][0]["layout"] == LAYOUT


def test_a_record_with_cpus_validates_and_a_wrong_one_does_not() -> None:
    from test_result_record import _searched  # the sim search's record

    topology = load_topology(ROOT / "topologies" / "sim.yaml")
    record: dict[str, Any] = _searched(topology)[1]
    good = copy.deepcopy(record)
    good["testbed"]["cpus"] = cpus_section(TELEMETRY)
    validate_record(good)
    bad = copy.deepcopy(good)
    bad["testbed"]["cpus"]["duts"][0]["layout"] = 1
    with pytest.raises(RecordError, match=r"testbed.cpus.duts.0.layout: 1 is not of type"):
        validate_record(bad)


def test_a_shared_cpu_is_named_and_makes_the_result_irregular() -> None:
    from record_helpers import sim_search  # a real sim search, its typed record

    from ndrpdr.results.irregular import CLI_NAMES, IrregularReason, find_irregularities

    topology = load_topology(ROOT / "topologies" / "sim.yaml")
    typed = sim_search(topology).record
    alone = dataclasses.replace(typed, telemetry=TELEMETRY)
    assert find_irregularities(alone) == []
    shared = {"DUT1": {**TELEMETRY["DUT1"], "cpu_shared_with": "cpu 1: run r-2 DUT1, pid 42"}}
    record = dataclasses.replace(typed, telemetry=shared).to_json()
    validate_record(record)
    assert record["testbed"]["cpus"]["duts"][0]["shared_with"] == "cpu 1: run r-2 DUT1, pid 42"
    (found,) = find_irregularities(dataclasses.replace(typed, telemetry=shared))
    assert found.reason is IrregularReason.CPU_SHARED and found.reason.tag == "CPU_SHARED"
    assert found.message == (
        "the CPU of DUT1 (cpu 1: run r-2 DUT1, pid 42) was shared while the search ran: the "
        f"bounds measure two runs at once; run alone, or accept it with {CLI_NAMES.accept}"
    )


def _smt_plan_json() -> str:
    """The ``cpu_threads`` text of VPP's 1c on a 2-thread SMT node (CPUs 0-3 and 4-7)."""
    from ndrpdr.dut.smt import ThreadPlan, Worker

    plan = ThreadPlan(1, (Worker(2, 2, 0), Worker(6, 2, 1)), smt_used=True, threads_per_core=2)
    return json.dumps(plan.to_json())


def test_the_thread_plan_says_which_cpu_each_thread_got() -> None:
    """A DUT's ``cpu_threads`` text becomes its structured ``thread_plan`` (record 1.10.0)."""
    telemetry = {"DUT1": {**TELEMETRY["DUT1"], "cpu_threads": _smt_plan_json()}}
    dut = cpus_section(telemetry)["duts"][0]  # type: ignore[index]
    assert dut["thread_plan"] == {
        "tag": "2T1C",
        "smt_used": True,
        "threads_per_core": 2,
        "main_cpu": 1,
        "workers": [{"cpu": 2, "core": 2, "thread": 0}, {"cpu": 6, "core": 2, "thread": 1}],
    }
    assert "thread_plan" not in cpus_section(TELEMETRY)["duts"][0]  # type: ignore[index]
    only = cpus_section({"DUT1": {"cpu_threads": _smt_plan_json()}})
    assert only is not None and only["duts"][0]["thread_plan"]["tag"] == "2T1C"


def test_a_record_with_a_thread_plan_validates_and_a_wrong_tag_does_not() -> None:
    from test_result_record import _searched  # the sim search's record

    topology = load_topology(ROOT / "topologies" / "sim.yaml")
    record: dict[str, Any] = _searched(topology)[1]
    telemetry = {"DUT1": {**TELEMETRY["DUT1"], "cpu_threads": _smt_plan_json()}}
    record["testbed"]["cpus"] = cpus_section(telemetry)
    validate_record(record)
    record["testbed"]["cpus"]["duts"][0]["thread_plan"]["tag"] = "2 threads"
    with pytest.raises(RecordError, match=r"thread_plan.tag: '2 threads' does not match"):
        validate_record(record)
