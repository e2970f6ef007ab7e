"""ChainModel and the sim TG on a 3-node topology: two simulated DUTs crossed in order."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.families import profile_of as get_profile
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.search.errors import SearchInputError
from ndrpdr.simdut.models import ChainModel, GradualLoss, SharpCliff, make_model
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator
from search_call import search_call

SIM_3N = Path(__file__).resolve().parents[2] / "topologies" / "sim-3n.yaml"


def test_chain_is_as_fast_as_its_slowest_dut() -> None:
    fast, slow = SharpCliff(capacity_pps=2e6), SharpCliff(capacity_pps=1e6)
    chain = ChainModel([fast, slow])
    assert chain.name == "sharp+sharp" and chain.deterministic
    assert chain.true_ndr(1.0) == 1e6
    assert chain.true_pdr(1.0) == pytest.approx(1e6 / 0.995)
    rng = random.Random(0)
    assert chain.trial(1.0, 0.9e6, rng) == (900_000, 900_000)
    offered, forwarded = chain.trial(1.0, 3e6, rng)
    assert (offered, forwarded) == (3_000_000, 1_000_000)  # DUT1 passes 2e6, DUT2 1e6
    assert ChainModel([slow, fast]).trial(1.0, 3e6, rng) == (3_000_000, 1_000_000)
    assert chain.parameters() == {"dut1_capacity_pps": 2e6, "dut2_capacity_pps": 1e6}


def test_losses_of_two_duts_add_up() -> None:
    first = GradualLoss(knee_pps=1e6, loss_coefficient=5.0)
    chain = ChainModel([first, GradualLoss(knee_pps=1e6, loss_coefficient=5.0)])
    rng = random.Random(0)
    alone = first.trial(1.0, 1.2e6, rng)
    both = chain.trial(1.0, 1.2e6, rng)
    assert both[0] == alone[0] and both[1] <= alone[1]
    assert not chain.deterministic or chain.deterministic == first.deterministic


def test_a_chain_needs_a_model() -> None:
    with pytest.raises(SearchInputError):
        ChainModel([])


def test_sim_tg_on_the_3n_topology_chains_both_models() -> None:
    topology = load_topology(SIM_3N)
    tg = SimTrafficGenerator(topology)
    assert isinstance(tg.model, ChainModel)
    truth = min(make_model("sharp", 1).true_ndr(1.0), make_model("gradual", 2).true_ndr(1.0))
    assert tg.model.true_ndr(1.0) == truth


def test_search_on_sim_3n_through_the_testbed() -> None:
    topology = load_topology(SIM_3N)
    profile = get_profile("ethip4-ip4base")
    with ActiveTestbed(topology) as testbed:
        assert testbed.path.duts == ("DUT1", "DUT2")
        testbed.configure_duts("ip4base")
        assert sorted(testbed.duts) == ["DUT1", "DUT2"]
        tg = testbed.traffic_generator(profile, 64)
        run = search_call(
            tg, topology=topology, profile=profile, frame_size=64, goals=ndr_pdr_goals()
        )
    assert run.error is None and run.result is not None
    ndr, pdr = (goal.lower_bound for goal in run.result.goal_results)
    assert ndr is not None and pdr is not None
    assert 0 < ndr <= pdr
    assert isinstance(tg, SimTrafficGenerator)
    # the chain's knee is at or below the slower DUT's own
    assert ndr <= tg.model.true_ndr(1.0) * 1.01
    assert [d["node"] for d in run.record.to_json()["testbed"]["duts"]] == ["DUT1", "DUT2"]
