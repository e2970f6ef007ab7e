"""The pure parts: names, plans, batches and scripts (no root needed)."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest
from localbed_helpers import topology_2n1l

from ndrpdr.localbed import LocalTestbed, LocalTestbedError
from ndrpdr.localbed.naming import new_run_id, parse_namespace
from ndrpdr.localbed.plan import DUT_LINK_MTU, cpu_mask, make_plan
from ndrpdr.localbed.plumbing import namespace_script, sink_ruleset, veth_batch
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Interface, LocalAccess, SshAccess

ROOT = Path(__file__).resolve().parents[2]


def test_run_ids_carry_the_pid_and_differ() -> None:
    ids = {new_run_id() for _ in range(50)}
    assert len(ids) > 40
    for run_id in ids:
        parsed = parse_namespace(f"ndrpdr-{run_id}-tg")
        assert parsed is not None
        assert (parsed.pid, parsed.run_id) == (os.getpid(), run_id)
    assert parse_namespace("ndrpdr-ci-run-tg") is None
    assert parse_namespace("other-123-abcd-tg") is None


def test_cpu_mask() -> None:
    assert cpu_mask(0) == "1"
    assert cpu_mask(1) == "2"
    assert cpu_mask(31) == "80000000"
    assert cpu_mask(32) == "1,00000000"
    assert cpu_mask(65) == "2,00000000,00000000"


def test_plan_of_the_2n1l_topology() -> None:
    plan = make_plan(topology_2n1l(dut_options={"cpu": 3}), "42-beef", cpu_count=2)
    assert plan.node_namespaces == {"TG": "ndrpdr-42-beef-tg", "DUT1": "ndrpdr-42-beef-dut"}
    tg, dut = plan.setups
    assert tg.up == ("lo", "tg-if1", "tg-if2")
    assert tg.sink == ("tg-if1", "tg-if2")
    assert tg.rps == ()
    assert dut.rps == (("dut-if1", "2"), ("dut-if2", "2"))  # CPU 3 mod 2 = 1
    assert dut.sink == ()
    batch = veth_batch(plan.veths)
    assert batch.splitlines() == [
        "link add tg-if1 address 02:00:00:00:01:01 netns ndrpdr-42-beef-tg type veth "
        "peer name dut-if1 address 02:00:00:00:01:02 netns ndrpdr-42-beef-dut",
        "link add tg-if2 address 02:00:00:00:02:01 netns ndrpdr-42-beef-tg type veth "
        "peer name dut-if2 address 02:00:00:00:02:02 netns ndrpdr-42-beef-dut",
    ]
    script = namespace_script(dut)
    assert "echo 2 > /sys/class/net/dut-if1/queues/rx-0/rps_cpus" in script
    assert "nft" not in script
    assert "nft -f -" in namespace_script(tg)
    assert sink_ruleset(tg.sink).count("counter drop") == 2


def test_a_link_between_two_duts_carries_jumbo_frames() -> None:
    """A DUT-DUT link gets MTU 9000 (an IPsec tunnel's ESP packet of a 1518 B frame is about
    1560 B); the TG's links keep the kernel's 1500, which the local TG's frame sizes assume."""
    plan = make_plan(load_topology(ROOT / "topologies" / "local-vpp-3n.yaml"), "42-beef")
    mtus = {(p.a.name, p.b.name): p.mtu for p in plan.veths}
    between = [names for names, mtu in mtus.items() if mtu == DUT_LINK_MTU == 9000]
    assert len(between) == 1 and list(mtus.values()).count(None) == 2, mtus
    line = next(line for line in veth_batch(plan.veths).splitlines() if " mtu " in line)
    assert line.count(" mtu 9000 ") == 2  # both ends


def test_a_link_without_macs_gets_random_ones() -> None:
    topology = topology_2n1l(macs={("TG", "port1"): None})
    plan = make_plan(topology, "1-0000", cpu_count=1)
    assert "link add tg-if1 netns" in veth_batch(plan.veths)


@pytest.mark.parametrize("run_id", ["", "has space", "a/b", "x" * 40, "-lead"])
def test_bad_run_ids_are_refused(run_id: str) -> None:
    with pytest.raises(LocalTestbedError, match="run id"):
        LocalTestbed(topology_2n1l(), run_id=run_id)


def test_bad_topologies_are_refused_without_io() -> None:
    topology = topology_2n1l()
    tg = topology.tg
    nameless = dataclasses.replace(
        tg, interfaces={**tg.interfaces, "port1": Interface("port1", None, link="link1")}
    )
    with pytest.raises(LocalTestbedError, match="TG: interface port1 has no name"):
        LocalTestbed(dataclasses.replace(topology, nodes={**topology.nodes, "TG": nameless}))
    long_name = dataclasses.replace(
        tg, interfaces={**tg.interfaces, "port1": Interface("port1", "x" * 16, link="link1")}
    )
    with pytest.raises(LocalTestbedError, match="not valid"):
        LocalTestbed(dataclasses.replace(topology, nodes={**topology.nodes, "TG": long_name}))
    with pytest.raises(LocalTestbedError, match=r"options\.cpu"):
        LocalTestbed(topology_2n1l(dut_options={"cpu": "one"}))
    local = {k: dataclasses.replace(n, access=LocalAccess()) for k, n in topology.nodes.items()}
    with pytest.raises(LocalTestbedError, match="no node has netns access"):
        LocalTestbed(dataclasses.replace(topology, nodes=local))


def test_host_namespaces_give_an_ssh_node_its_ports_in_a_namespace() -> None:
    topology = topology_2n1l()
    ssh = dataclasses.replace(topology.nodes["DUT1"], access=SshAccess("127.0.0.1", port=2222))
    topology = dataclasses.replace(topology, nodes={**topology.nodes, "DUT1": ssh})
    alone = make_plan(topology, "42-beef", cpu_count=2)
    assert alone.node_namespaces == {"TG": "ndrpdr-42-beef-tg"}
    assert alone.veths == ()  # no namespace for the SSH node: its links are not built
    plan = make_plan(topology, "42-beef", cpu_count=2, host_namespaces={"DUT1": "dut"})
    assert plan.node_namespaces == {"TG": "ndrpdr-42-beef-tg", "DUT1": "ndrpdr-42-beef-dut"}
    assert [(p.a.name, p.b.name) for p in plan.veths] == [
        ("tg-if1", "dut-if1"),
        ("tg-if2", "dut-if2"),
    ]
    assert plan.setups[1].rps == (("dut-if1", "2"), ("dut-if2", "2"))
    with pytest.raises(LocalTestbedError, match="nodes the topology does not have: DUT9"):
        make_plan(topology, "42-beef", host_namespaces={"DUT9": "dut"})
    with pytest.raises(LocalTestbedError, match="TG: host namespace 'x' given, but it has netns"):
        make_plan(topology, "42-beef", host_namespaces={"TG": "x"})
    with pytest.raises(LocalTestbedError, match="namespace 'a/b' is not valid"):
        make_plan(topology, "42-beef", host_namespaces={"DUT1": "a/b"})


def test_a_dut_with_several_worker_cpus_gets_rps_on_all_of_them() -> None:
    topology = topology_2n1l(dut_options={"cpu": 1, "worker_cores": [1, 2, 3], "rx_queues": 3})
    plan = make_plan(topology, "42-beef", cpu_count=4)
    assert {pair.queues for pair in plan.veths} == {3}
    assert veth_batch(plan.veths).splitlines()[0] == (
        "link add tg-if1 address 02:00:00:00:01:01 netns ndrpdr-42-beef-tg numtxqueues 3 "
        "numrxqueues 3 type veth peer name dut-if1 address 02:00:00:00:01:02 "
        "netns ndrpdr-42-beef-dut numtxqueues 3 numrxqueues 3"
    )
    tg, dut = plan.setups
    assert dut.rps == (("dut-if1", "e"), ("dut-if2", "e"))  # CPUs 1-3: every worker's
    assert dut.queues == (("dut-if1", 3), ("dut-if2", 3)) and tg.queues[0] == ("tg-if1", 3)
    script = namespace_script(dut)
    for queue in range(3):
        assert f"echo e > /sys/class/net/dut-if2/queues/rx-{queue}/rps_cpus" in script
    assert cpu_mask([1, 2, 3]) == "e" and cpu_mask([0, 33]) == "2,00000001"
    workers_only = make_plan(
        topology_2n1l(dut_options={"worker_cores": [1, 2]}), "42-beef", cpu_count=4
    )
    assert [pair.queues for pair in workers_only.veths] == [1, 1]  # no AF_XDP sockets asked


def test_rx_queues_option_sets_the_veth_queues() -> None:
    plan = make_plan(topology_2n1l(dut_options={"rx_queues": 2}), "42-beef", cpu_count=2)
    assert [pair.queues for pair in plan.veths] == [2, 2]
    plan = make_plan(topology_2n1l(), "42-beef", cpu_count=2)
    assert [pair.queues for pair in plan.veths] == [1, 1]
    assert "numtxqueues" not in veth_batch(plan.veths)
