"""A topology chosen at run time (a PabotLib value set's): used until the testbed is torn down."""

from __future__ import annotations

from pathlib import Path

import pytest
from library_helpers import CSIT, SIM, TOPOLOGIES, run_robot
from robot.api import ExecutionResult

from example_topologies import filled
from ndrpdr.activebed.testbed import TestbedError
from NdrPdrLibrary.context import LibraryContext

SIM_3N = TOPOLOGIES / "sim-3n.yaml"


def test_the_chosen_file_holds_until_teardown() -> None:
    ctx = LibraryContext(SIM)
    ctx.use_topology(SIM_3N)
    assert ctx.topology.source == SIM_3N
    testbed = ctx.setup_testbed()
    assert len(testbed.path.duts) == 2
    ctx.teardown_testbed()
    assert ctx.topology_path == str(SIM)
    assert ctx.topology.source == SIM  # the library's own file again


def test_another_file_while_a_testbed_is_up() -> None:
    ctx = LibraryContext(SIM)
    ctx.setup_testbed()
    try:
        ctx.use_topology(SIM)  # the same file: nothing to change
        with pytest.raises(TestbedError, match=r"cannot use topology .*sim-3n.yaml.*sim.yaml"):
            ctx.use_topology(SIM_3N)
    finally:
        ctx.teardown_testbed()


def test_ssh_passwords_follow_to_the_chosen_file() -> None:
    ctx = LibraryContext(CSIT)
    ctx.set_password("DUT1", "s3cret")
    ctx.use_topology(SIM)  # sim nodes are local: DUT1 there takes no password
    ctx.use_topology(CSIT)
    access = ctx.topology.nodes["DUT1"].access
    assert getattr(access, "password", None) == "s3cret"


def test_a_password_for_a_node_the_chosen_file_lacks() -> None:
    ctx = LibraryContext(filled("3n-trex-vpp.yaml.example"))
    ctx.set_password("DUT2", "s3cret")
    ctx.use_topology(CSIT)  # 2-node: no DUT2
    with pytest.raises(TestbedError, match=r"no node 'DUT2' \(Set SSH Password named it\)"):
        _ = ctx.topology


def test_set_up_testbed_with_a_topology_in_robot(tmp_path: Path) -> None:
    """The keyword argument, in a real Robot run: suite metadata names the chosen file."""
    suite = f"""*** Settings ***
Library           NdrPdrLibrary    {SIM}
Suite Setup       Set Up Testbed    topology={SIM_3N}
Suite Teardown    Tear Down Testbed

*** Test Cases ***
Chosen
    No Operation
"""
    process, output = run_robot(tmp_path, suite)
    assert process.returncode == 0, process.stdout + process.stderr
    result = ExecutionResult(str(output))
    assert result.suite.metadata["Topology"] == str(SIM_3N)
    assert "3_NODE_SINGLE_LINK_TOPO" in result.suite.tests[0].tags
