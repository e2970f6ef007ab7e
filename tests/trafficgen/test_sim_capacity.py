"""The sim DUT models a real one: capacity from the family's cost, frame size, cores, seed."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from ndrpdr.dut.sim import SimDutDriver
from ndrpdr.families import all_families, get_family
from ndrpdr.profiles import IMIX, PacketCost, Profile
from ndrpdr.profiles.cost import SIM_CORE_HZ
from ndrpdr.profiles.errors import ProfileError
from ndrpdr.profiles.framesize import average_frame_size
from ndrpdr.search.errors import SearchInputError
from ndrpdr.simdut.capacity import (
    SEED_FACTOR_MAX,
    SEED_FACTOR_MIN,
    modelled_capacity,
    seed_factor,
)
from ndrpdr.simdut.modelled import modelled
from ndrpdr.simdut.models import MODEL_NAMES, ChainModel, make_model
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator

TOPOLOGIES = Path(__file__).resolve().parents[2] / "topologies"
IP4BASE = get_family("ethip4-ip4base").profile
IPSEC = get_family("ethip4ipsec4tnlsw-ip4base-int-aes256gcm").profile


@pytest.fixture(scope="module")
def sim() -> Topology:
    return load_topology(TOPOLOGIES / "sim.yaml")


@pytest.fixture(scope="module")
def sim3n() -> Topology:
    return load_topology(TOPOLOGIES / "sim-3n.yaml")


def _capacity(tg: SimTrafficGenerator, index: int = 0) -> float:
    capacity = tg.capacities[index]
    assert capacity is not None
    return capacity.capacity_pps


def test_seed_factor_is_reproducible_small_and_differs_by_seed() -> None:
    factors = [seed_factor(seed) for seed in range(200)]
    assert all(SEED_FACTOR_MIN <= f <= SEED_FACTOR_MAX for f in factors)
    assert factors == [seed_factor(seed) for seed in range(200)]
    assert len(set(factors)) == 200
    assert min(factors) < 0.98 and max(factors) > 1.02  # the range is used, not one corner


def test_capacity_is_the_cost_at_the_mean_frame_size_times_the_seed_factor() -> None:
    cost = PacketCost(cycles=200.0, cycles_per_byte=1.0, core_scaling=0.9)
    imix = modelled_capacity("x", cost, IMIX, 2, seed=5)
    mean = average_frame_size(IMIX)
    one_core = SIM_CORE_HZ / (200.0 + (mean - 64))
    assert imix.family_pps == pytest.approx(one_core * 1.9)
    assert imix.capacity_pps == pytest.approx(imix.family_pps * seed_factor(5))
    assert "x IMIX B 2 core(s)" in imix.describe()
    assert f"{imix.capacity_pps / 1e6:.4f} Mpps" in imix.describe()


def test_each_further_core_adds_less_than_the_first() -> None:
    cost = IP4BASE.cost
    one, two, four = (cost.capacity_pps(64, n) for n in (1, 2, 4))
    assert one < two < four
    assert two < 2 * one and four < 4 * one  # not linear: RSS imbalance, shared cache
    assert two - one == pytest.approx(cost.core_scaling * one)


@pytest.mark.parametrize("cores", [0, -1, 1.5, True])
def test_bad_core_count(cores: object) -> None:
    with pytest.raises(ProfileError, match=f"cores {cores!r}"):
        IP4BASE.cost.capacity_pps(64, cores)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", MODEL_NAMES)
def test_a_given_capacity_keeps_the_seeds_shape(name: str) -> None:
    drawn = make_model(name, seed=7).parameters()
    given = make_model(name, seed=7, capacity_pps=12e6).parameters()
    capacity_key = next(iter(drawn))  # capacity_pps, or the knee of gradual
    assert given[capacity_key] == 12e6 != drawn[capacity_key]
    scaled = {"buffer_frames"}  # transient and duration buffers hold a time's worth at capacity
    for key in drawn.keys() - {capacity_key} - scaled:
        assert given[key] == drawn[key], key


def test_a_bad_capacity_names_the_model() -> None:
    with pytest.raises(SearchInputError, match=r"sharp model capacity_pps=-1\.0"):
        make_model("sharp", 1, capacity_pps=-1.0)


def test_without_a_profile_the_capacity_is_drawn_as_before(sim: Topology) -> None:
    tg = SimTrafficGenerator(sim)
    assert tg.capacities == (None,)
    assert tg.model.parameters() == make_model("sharp", 1).parameters()


def test_families_order_and_cores_on_sim(sim: Topology) -> None:
    def capacity(family: str, cores: int = 1) -> float:
        profile = get_family(family).profile
        return _capacity(SimTrafficGenerator(sim, 64, profile=profile, cores=cores))

    l2xc, ip4base, scale2m = (
        capacity(f) for f in ("eth-l2xcbase", "ethip4-ip4base", "ethip4-ip4scale2m-rnd")
    )
    assert l2xc > ip4base > scale2m
    assert capacity("ethip4-ip4base", 2) > ip4base
    # One seed, one factor: ratios between families are the cost model's.
    assert ip4base / scale2m == pytest.approx(
        IP4BASE.cost.capacity_pps(64, 1)
        / get_family("ethip4-ip4scale2m-rnd").profile.cost.capacity_pps(64, 1)
    )


def test_seeds_differ_a_little(sim: Topology) -> None:
    def with_seed(seed: int) -> float:
        dut = dataclasses.replace(sim.duts[0], options={"model": "sharp", "seed": seed})
        topology = dataclasses.replace(sim, nodes={**sim.nodes, dut.key: dut})
        return _capacity(SimTrafficGenerator(topology, 64, profile=IP4BASE))

    capacities = [with_seed(seed) for seed in range(10)]
    assert len(set(capacities)) == 10
    family_pps = IP4BASE.cost.capacity_pps(64, 1)
    assert all(
        SEED_FACTOR_MIN * family_pps <= c <= SEED_FACTOR_MAX * family_pps for c in capacities
    )


def test_the_model_shapes_loss_around_the_family_capacity(sim: Topology) -> None:
    dut = dataclasses.replace(sim.duts[0], options={"model": "gradual", "seed": 1})
    topology = dataclasses.replace(sim, nodes={**sim.nodes, dut.key: dut})
    tg = SimTrafficGenerator(topology, 64, profile=IP4BASE)
    # The gradual model's knee is the capacity; its NDR lies within a frame's worth above.
    assert tg.model.true_ndr(1.0) == pytest.approx(_capacity(tg), rel=1e-3)
    assert tg.model.true_pdr(1.0) > tg.model.true_ndr(1.0)


def test_a_3_node_chain_gives_each_dut_the_family_capacity(sim3n: Topology) -> None:
    one, two = (SimTrafficGenerator(sim3n, 64, profile=IPSEC, cores=c) for c in (1, 2))
    assert isinstance(one.model, ChainModel)
    family_pps = IPSEC.cost.capacity_pps(64, 1)
    for index, seed in enumerate((1, 2)):  # sim-3n.yaml's seeds
        assert _capacity(one, index) == pytest.approx(family_pps * seed_factor(seed))
    assert one.model.true_ndr(1.0) == pytest.approx(min(_capacity(one, i) for i in (0, 1)))
    assert two.model.true_ndr(1.0) > one.model.true_ndr(1.0)


def test_the_link_still_caps_the_max_load(sim: Topology) -> None:
    tg = SimTrafficGenerator(sim, 64, profile=get_family("eth-l2xcbase").profile, cores=4)
    assert _capacity(tg) > tg.max_load_pps  # 4 cores forward more than two 10GE ports carry
    result = tg.measure(1.0, tg.max_load_pps)
    assert result.loss_ratio == 0.0


def test_the_dut_node_remembers_what_was_modelled(sim: Topology) -> None:
    profile: Profile = get_family("eth-l2xcbase").profile
    tg = SimTrafficGenerator(sim, 1518, profile=profile, cores=2)
    seen = modelled(sim.duts[0])
    assert seen is not None and seen.capacity == tg.capacities[0]
    assert seen.model is tg.model
    SimTrafficGenerator(sim)  # a TG without a profile: the next telemetry says "drawn"
    again = modelled(sim.duts[0])
    assert again is not None and again.capacity is None


@pytest.mark.parametrize("family", [f.id for f in all_families()])
def test_every_family_scales_with_cores_and_frame_size(family: str) -> None:
    cost = get_family(family).profile.cost
    one, two, four = (cost.capacity_pps(64, n) for n in (1, 2, 4))
    assert one < two < four < 4 * one, family
    assert cost.capacity_pps(1518, 1) <= one  # a bigger frame never costs less
    assert cost.capacity_pps(average_frame_size(IMIX), 1) <= one


def test_the_sim_dut_telemetry_before_and_after_a_tg() -> None:
    topology = load_topology(TOPOLOGIES / "sim.yaml")  # its own node objects
    dut = SimDutDriver(topology.duts[0])
    before = dut.telemetry()
    assert (before["family"], before["cores"]) == ("-", "-")
    assert before["capacity"].startswith("not modelled yet")
    tg = SimTrafficGenerator(topology, "IMIX", profile=IPSEC, cores=4)
    after = dut.telemetry()["capacity"]
    capacity = tg.capacities[0]
    assert capacity is not None
    mpps = capacity.capacity_pps / 1e6
    assert after.startswith(f"{IPSEC.name} IMIX B 4 core(s): {mpps:.4f} Mpps")
    assert after.endswith(repr(tg.model))
