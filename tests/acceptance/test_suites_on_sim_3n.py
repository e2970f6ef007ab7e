"""Shipped suites unchanged on a 3-node topology (topologies/sim-3n.yaml, two sim DUTs).

The 1-core rows of the NDRPDR and MRR suites of ``PROFILES``, one
``python3 -m robot`` run; every test passes, is tagged
``3_NODE_SINGLE_LINK_TOPO``, and every NDRPDR test reports 0 < NDR <= PDR
at or below the chain's true throughput (the slower DUT's).
"""

from __future__ import annotations

import pytest
from acceptance_helpers import (
    PROFILES,
    TOPOLOGIES,
    index_tests,
    plain_float,
    read_output,
    robot_args,
    run_robot,
    suite_file,
)
from robot.result import TestCase as RobotTest

from ndrpdr.families import profile_of
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator

SIM_3N = TOPOLOGIES / "sim-3n.yaml"


@pytest.fixture(scope="module")
def tests(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RobotTest]:
    outputdir = tmp_path_factory.mktemp("sim-3n-suites")
    suites = [str(suite_file(profile, kind)) for profile in PROFILES for kind in ("ndrpdr", "mrr")]
    process = run_robot(
        outputdir, *robot_args(("TOPOLOGY", str(SIM_3N))), "--include", "1C", *suites
    )
    assert process.returncode == 0, process.stdout + process.stderr
    return index_tests(read_output(outputdir))


def test_every_suite_runs_unchanged(tests: dict[str, RobotTest]) -> None:
    assert len(tests) == 24
    for name, test in tests.items():
        assert test.status == "PASS", f"{name}: {test.message}"
        assert {"3_NODE_SINGLE_LINK_TOPO", "TG_SIM", "DUT_SIM"} <= set(test.tags), name
        assert "2_NODE_SINGLE_LINK_TOPO" not in test.tags


@pytest.mark.parametrize("profile", PROFILES)
def test_ndr_is_at_most_pdr_and_the_chain(tests: dict[str, RobotTest], profile: str) -> None:
    truth = SimTrafficGenerator(load_topology(SIM_3N), 64, profile=profile_of(profile)).model
    test = tests[f"64B-1c-{profile}-ndrpdr"]
    ndr = plain_float(test.metadata["NDR_LOWER"])
    pdr = plain_float(test.metadata["PDR_LOWER"])
    assert 0 < ndr <= pdr
    assert ndr <= truth.true_ndr(1.0) * (1 + 1e-9)
    assert pdr <= truth.true_pdr(1.0) * (1 + 1e-9)
