"""A DUT's CPUs read from the node once (lscpu, the ports' NUMA node), each test's thread plan,
and the tags and telemetry made from it, on a fake SMT node reached through a fake access."""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import Any, cast

import pytest

from example_topologies import filled
from ndrpdr.access.base import CommandError, CommandResult, NodeAccess
from ndrpdr.activebed.cputhreads import DutThreads, read_node_cpus
from ndrpdr.dut.plan import plan_dut
from ndrpdr.topology.loader import load_topology

ROOT = Path(__file__).resolve().parents[2]
CSIT = load_topology(filled("csit-2n-example.yaml"))
SIM = load_topology(ROOT / "topologies" / "sim.yaml")
#: 2 sockets x 4 cores x 2 threads (NUMA 0: CPUs 0-3 and 8-11, NUMA 1: 4-7 and 12-15).
LSCPU = "# CPU,Core,Socket,Node\n" + "".join(
    f"{cpu},{cpu % 8},{cpu % 8 // 4},{cpu % 8 // 4}\n" for cpu in range(16)
)


class FakeNode:
    """Answers lscpu and the NUMA node file of a PCI device (``numa``: its text, None: none)."""

    def __init__(self, lscpu: str | None = LSCPU, numa: str | None = "1\n") -> None:
        self.lscpu, self.numa = lscpu, numa
        self.commands: list[tuple[str, ...]] = []

    @property
    def node(self) -> str:
        return "DUT1"

    def run(self, argv: Sequence[str], **options: Any) -> CommandResult:
        self.commands.append(tuple(argv))
        out = self.lscpu if argv[0] == "lscpu" else self.numa
        result = CommandResult("DUT1", tuple(argv), 0 if out is not None else 1, out or "", "", 0)
        if out is None and options.get("check", True):
            raise CommandError(result)
        return result


def access(fake: FakeNode) -> NodeAccess:
    return cast(NodeAccess, fake)


def test_the_cpus_and_the_ports_numa_node_are_read_from_the_node() -> None:
    fake = FakeNode()
    cpus = read_node_cpus(CSIT.duts[0], access(fake))
    assert cpus is not None and cpus.numa == 1 and cpus.layout.threads_per_core == 2
    pci = CSIT.duts[0].interface("port1").pci_address
    assert fake.commands == [
        ("lscpu", "-p=CPU,CORE,SOCKET,NODE"),
        ("cat", f"/sys/bus/pci/devices/{pci}/numa_node"),
    ]


@pytest.mark.parametrize("numa", [None, "-1\n", "\n"])
def test_a_numa_node_not_known_is_0(numa: str | None) -> None:
    cpus = read_node_cpus(CSIT.duts[0], access(FakeNode(numa=numa)))
    assert cpus is not None and cpus.numa == 0


def test_a_node_whose_cpus_cannot_be_read_is_planned_as_before(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.WARNING):
        assert read_node_cpus(CSIT.duts[0], access(FakeNode(lscpu=None))) is None
        assert read_node_cpus(CSIT.duts[0], access(FakeNode(lscpu="junk\n"))) is None
    assert "DUT1: CPUs not known, each taken as a core of its own" in caplog.text


def test_a_test_gets_the_cpus_read_once_and_its_tags_from_the_plan() -> None:
    """VPP on the fake SMT node: 1c is 2T1C (CPUs 6 and 14 on NUMA 1), MTHREAD; the record's
    text names every thread; the node is read once per testbed, not per test."""
    fake, threads = FakeNode(), DutThreads()
    configs = {"DUT1": plan_dut(CSIT, "ip4base", cores=1)}
    ready = threads.prepare(CSIT, configs, lambda key: access(fake))
    threads.note(CSIT.nodes["DUT1"], ready["DUT1"])
    assert threads.tags(["DUT1"], 1) == ["2T1C", "MTHREAD"]
    plan = json.loads(threads.texts("DUT1")["cpu_threads"])
    assert plan["main_cpu"] == 5 and [w["cpu"] for w in plan["workers"]] == [6, 14]
    assert [w["thread"] for w in plan["workers"]] == [0, 1]
    off = threads.prepare(CSIT, configs, lambda key: access(fake), smt=False)
    assert threads.plans == {} and threads.tags(["DUT1"], 1) == ["1T1C", "STHREAD"]
    threads.note(CSIT.nodes["DUT1"], off["DUT1"])
    assert threads.tags(["DUT1"], 1) == ["1T1C", "STHREAD"]
    assert len(fake.commands) == 2  # lscpu and numa_node, once


def test_a_dut_without_workers_is_not_read_and_counts_one_thread_a_core() -> None:
    fake, threads = FakeNode(), DutThreads()
    configs = {"DUT1": plan_dut(SIM, "ip4base", cores=2)}
    ready = threads.prepare(SIM, configs, lambda key: access(fake))
    threads.note(SIM.nodes["DUT1"], ready["DUT1"])
    assert ready["DUT1"].cpus is None and fake.commands == []
    assert threads.tags(["DUT1"], 2) == ["2T2C", "MTHREAD"] and threads.texts("DUT1") == {}
