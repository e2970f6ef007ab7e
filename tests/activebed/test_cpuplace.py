"""CPU placement of a run's nodes: which nodes, which CPU, what the telemetry line says.

Claims are real flocks in a private directory; the "other run" is a second
CpuClaims of this process (a flock belongs to an open file, so two of them
conflict exactly as two processes do; tests/localbed/test_cpuclaim.py has
the claims of real child processes).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest

from example_topologies import filled
from ndrpdr.activebed.cpuplace import (
    CpuPlacement,
    choose_cpu,
    cpu_option_default,
    machine_text,
    place_cpus,
    placed_nodes,
    single_cpu_problem,
    with_joined,
)
from ndrpdr.localbed.cpuclaim import CpuClaims, CpuHolder
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology

TOPOLOGIES = Path(__file__).resolve().parents[2] / "topologies"


@pytest.fixture
def claim_dir(tmp_path: Path) -> Path:
    return tmp_path / "state" / "cpus"


def with_options(topology: Topology, key: str, **options: Any) -> Topology:
    node = topology.nodes[key]
    nodes = {**topology.nodes, key: dataclasses.replace(node, options={**node.options, **options})}
    return dataclasses.replace(topology, nodes=nodes)


def test_choose_cpu_prefers_the_default_then_the_highest() -> None:
    assert choose_cpu(1, [0, 1, 2, 3], {}) == 1
    assert choose_cpu(1, [0, 1, 2, 3], {1: 1}) == 3
    assert choose_cpu(1, [0, 1, 2, 3], {1: 1, 3: 1, 2: 1}) == 0
    assert choose_cpu(1, [0, 1, 2, 3], {0: 2, 1: 1, 2: 1, 3: 1}) == 1  # fewest, default on tie
    assert choose_cpu(1, [0, 1, 2, 3], {0: 1, 1: 2, 2: 1, 3: 1}) == 3
    assert choose_cpu(5, [0, 2], {}) == 2  # the default is not allowed here


def test_which_nodes_are_placed() -> None:
    local = load_topology(TOPOLOGIES / "local-testpmd.yaml")
    assert placed_nodes(local, ["TG", "DUT1"]) == ["TG", "DUT1"]
    assert (cpu_option_default(local.tg), cpu_option_default(local.nodes["DUT1"])) == (0, 1)
    labbox = load_topology(TOPOLOGIES / "labbox-2n.yaml")
    assert placed_nodes(labbox, ["TG", "DUT1"]) == ["DUT1"]  # TRex has no cpu option
    lab = load_topology(filled("2n-trex-testpmd.yaml.example"))
    assert placed_nodes(lab, ["TG", "DUT1"]) == []  # SSH lab hosts: other machines
    sim = load_topology(TOPOLOGIES / "sim.yaml")
    assert placed_nodes(sim, ["TG", "DUT1"]) == []


def test_alone_the_defaults_are_claimed(claim_dir: Path) -> None:
    topology = load_topology(TOPOLOGIES / "local-testpmd.yaml")
    with CpuClaims("run-a", claim_dir) as claims:
        placed, placements = place_cpus(
            topology, ["TG", "DUT1"], claims, cpu_count=4, allowed=[0, 1, 2, 3]
        )
        assert {k: p.text for k, p in placements.items()} == {
            "TG": "cpu 0 (claimed)",
            "DUT1": "cpu 1 (claimed)",
        }
        assert placed.tg.options["cpu"] == 0 and placed.nodes["DUT1"].options["cpu"] == 1
        assert "cpu" not in topology.nodes["DUT1"].options  # the input is left as it was
        assert sorted(p.name for p in claims.held) == [
            "cpu0.run-a.TG.lock",
            "cpu1.run-a.DUT1.lock",
        ]


def test_a_second_run_gets_free_cpus(claim_dir: Path) -> None:
    topology = load_topology(TOPOLOGIES / "local-testpmd.yaml")
    with CpuClaims("run-a", claim_dir) as first, CpuClaims("run-b", claim_dir) as second:
        place_cpus(topology, ["TG", "DUT1"], first, cpu_count=4, allowed=[0, 1, 2, 3])
        placed, placements = place_cpus(
            topology, ["TG", "DUT1"], second, cpu_count=4, allowed=[0, 1, 2, 3]
        )
        assert {k: p.text for k, p in placements.items()} == {
            "TG": "cpu 3 (claimed)",
            "DUT1": "cpu 2 (claimed)",
        }
        assert not any(p.shared for p in placements.values())
        assert (placed.tg.options["cpu"], placed.nodes["DUT1"].options["cpu"]) == (3, 2)


def test_when_all_cpus_are_claimed_the_least_shared_is_taken(claim_dir: Path) -> None:
    topology = load_topology(TOPOLOGIES / "local-testpmd.yaml")
    with CpuClaims("run-a", claim_dir) as first, CpuClaims("run-b", claim_dir) as second:
        place_cpus(topology, ["TG", "DUT1"], first, cpu_count=2, allowed=[0, 1])
        _, placements = place_cpus(topology, ["TG", "DUT1"], second, cpu_count=2, allowed=[0, 1])
        tg, dut = placements["TG"], placements["DUT1"]
        assert (tg.cpu, dut.cpu) == (0, 1)
        assert dut.others == (CpuHolder(1, "run-a", "DUT1", dut.others[0].pid),)
        assert dut.text == (
            f"cpu 1 (shared with run run-a DUT1, pid {dut.others[0].pid}: all 2 CPUs claimed)"
        )
        assert tg.text.startswith("cpu 0 (shared with run run-a TG, pid ")


def test_an_explicit_cpu_is_honoured_claimed_and_its_share_said(claim_dir: Path) -> None:
    topology = with_options(load_topology(TOPOLOGIES / "local-testpmd.yaml"), "DUT1", cpu=5)
    with CpuClaims("run-a", claim_dir) as first, CpuClaims("run-b", claim_dir) as second:
        _, alone = place_cpus(topology, ["DUT1"], first, cpu_count=4, allowed=[0, 1, 2, 3])
        assert alone["DUT1"].text == "cpu 1 (claimed: set by options.cpu)"  # 5 modulo 4
        placed, shared = place_cpus(topology, ["DUT1"], second, cpu_count=4, allowed=[0, 1, 2, 3])
        assert shared["DUT1"].cpu == 1  # although 0, 2 and 3 are free
        assert shared["DUT1"].text.startswith("cpu 1 (shared with run run-a DUT1, pid ")
        assert shared["DUT1"].text.endswith(": set by options.cpu)")
        assert placed.nodes["DUT1"].options["cpu"] == 5  # left as the topology says


def test_nodes_of_one_run_on_one_cpu_are_not_a_share(claim_dir: Path) -> None:
    topology = load_topology(TOPOLOGIES / "local-linux-3n.yaml")
    with CpuClaims("run-a", claim_dir) as claims:
        _, placements = place_cpus(
            topology, ["TG", "DUT1", "DUT2"], claims, cpu_count=2, allowed=[0, 1]
        )
    assert [p.cpu for p in placements.values()] == [0, 1, 1]  # the 2-CPU layout of old
    assert placements["DUT2"].text == "cpu 1 (claimed, also DUT1 of this run: all 2 CPUs claimed)"
    assert not placements["DUT2"].shared


def test_no_claim_directory_leaves_the_default_and_says_why(tmp_path: Path) -> None:
    blocker = tmp_path / "state"
    blocker.write_text("a file where the state directory should be")
    topology = load_topology(TOPOLOGIES / "local-testpmd.yaml")
    claims = CpuClaims("run-a", blocker / "cpus")
    placed, placements = place_cpus(topology, ["TG", "DUT1"], claims, cpu_count=2, allowed=[0, 1])
    assert placements["DUT1"].cpu == 1
    assert placements["DUT1"].text.startswith(
        f"cpu 1 (not claimed: run run-a: cannot use the CPU claim directory {blocker}/cpus: "
    )
    assert "cpu" not in placed.nodes["DUT1"].options  # the driver's default applies
    assert claims.held == ()


def test_placement_text_names_every_sharer() -> None:
    others = (CpuHolder(0, "1-ab12", "DUT1", 11), CpuHolder(0, "2-cd34", "TG", 22))
    placement = CpuPlacement("DUT1", 0, False, others, cpu_count=2, all_claimed=True)
    assert placement.text == (
        "cpu 0 (shared with run 1-ab12 DUT1, pid 11 and run 2-cd34 TG, pid 22: all 2 CPUs claimed)"
    )


def test_a_run_that_came_later_is_named_too(claim_dir: Path) -> None:
    topology = load_topology(TOPOLOGIES / "local-testpmd.yaml")
    with CpuClaims("run-a", claim_dir) as first:
        _, early = place_cpus(topology, ["TG", "DUT1"], first, cpu_count=2, allowed=[0, 1])
        assert early["DUT1"].text == "cpu 1 (claimed)"
        with CpuClaims("run-b", claim_dir) as second:
            place_cpus(topology, ["TG", "DUT1"], second, cpu_count=2, allowed=[0, 1])
        late = with_joined(early["DUT1"], first)  # run-b has finished: it is still named
        (joiner,) = late.joined
        assert late.shared and not early["DUT1"].shared
        assert (
            late.text == f"cpu 1 (shared with run run-b DUT1, pid {joiner.pid}, which came later)"
        )
        assert with_joined(early["TG"], first).text.startswith("cpu 0 (shared with run run-b TG")


def test_a_vpp_dut_gets_its_cpu_then_the_cpus_no_node_of_the_run_has(claim_dir: Path) -> None:
    topology = load_topology(TOPOLOGIES / "local-vpp.yaml")
    claims = CpuClaims("1-a", claim_dir)
    try:
        placed, placements = place_cpus(
            topology, ["TG", "DUT1"], claims, cpu_count=4, allowed=[0, 1, 2, 3]
        )
    finally:
        claims.release()
    assert (placements["TG"].cpu, placements["DUT1"].cpu) == (0, 1)
    assert placements["DUT1"].workers == (1, 2, 3) and placements["TG"].workers == ()
    assert placed.nodes["DUT1"].options["worker_cores"] == [1, 2, 3]
    assert "worker_cores" not in placed.nodes["TG"].options
    assert machine_text(placements) == (
        "this machine has 4 CPU(s) for the run: TG on cpu 0, DUT1 on cpu 1 (workers: cpu 1,2,3)"
    )


def test_on_two_cpus_a_vpp_dut_has_one_cpu_for_workers(claim_dir: Path) -> None:
    topology = load_topology(TOPOLOGIES / "local-vpp.yaml")
    claims = CpuClaims("1-a", claim_dir)
    try:
        placed, placements = place_cpus(
            topology, ["TG", "DUT1"], claims, cpu_count=2, allowed=[0, 1]
        )
    finally:
        claims.release()
    assert placed.nodes["DUT1"].options["worker_cores"] == [1]
    assert machine_text(placements).endswith("TG on cpu 0, DUT1 on cpu 1 (workers: cpu 1)")


def test_worker_cores_the_topology_lists_are_kept(claim_dir: Path) -> None:
    topology = with_options(load_topology(TOPOLOGIES / "local-vpp.yaml"), "DUT1", worker_cores=[3])
    claims = CpuClaims("1-a", claim_dir)
    try:
        placed, placements = place_cpus(
            topology, ["TG", "DUT1"], claims, cpu_count=4, allowed=[0, 1, 2, 3]
        )
    finally:
        claims.release()
    assert placed.nodes["DUT1"].options["worker_cores"] == [3] and placements["DUT1"].workers == ()


def test_a_dut_without_workers_cannot_give_more_than_one_core(claim_dir: Path) -> None:
    topology = load_topology(TOPOLOGIES / "local-linux.yaml")
    claims = CpuClaims("1-a", claim_dir)
    try:
        placed, placements = place_cpus(
            topology, ["TG", "DUT1"], claims, cpu_count=4, allowed=[0, 1, 2, 3]
        )
    finally:
        claims.release()
    dut = placed.nodes["DUT1"]
    assert single_cpu_problem(dut, placements["DUT1"], 1) is None
    assert single_cpu_problem(dut, placements["DUT1"], 2) == (
        "DUT1 (linux) forwards on one CPU (cpu 1) and the test asks for 2 cores"
    )
    assert single_cpu_problem(placed.tg, placements["TG"], 2) is None  # the TG is no DUT
    vpp = load_topology(TOPOLOGIES / "local-vpp.yaml").nodes["DUT1"]
    assert single_cpu_problem(vpp, placements["DUT1"], 4) is None  # its workers say
