"""Nightly runs for the trend benchmark, made of real searches on the simulated testbed.

Each nightly run holds 24 tests (``TESTS``: 3 profiles x 64 / 128 B x 1 / 2
cores x NDRPDR / MRR). Every test has its own simulated DUT: the noisy
model (``noisyknee``: trials inside a band below the capacity lose at
random), its parameters drawn from the test's seed as ``topologies/sim.yaml``
draws them, the TG and its ports from ``topologies/sim.yaml``. Each night
the same DUT is measured afresh: a new seed for the trials' randomness, so
nights differ only by the noise of the measurement, and the DUT's capacity
times the night's factor (``Plan``: 1 on pure noise, 0.95 from the night of
a 5 % step, a seeded mix of steps and slow drifts for the year of the
report). NDRPDR tests run ``ndrpdr.searchrun.run_search`` with the default
NDR / PDR goals (a few with latency trials afterwards, a few nights with a
search time cap that leaves the record incomplete: the report's caveats);
MRR tests run ten 1 s trials at the max load. The records are the library's
own (``build_record`` / ``build_mrr_record``), dated on their night.

``generate`` spreads the tests over worker processes; each worker writes
its records (``<out>/<run id>/<test>.json``) when asked and returns the
samples (``ndrpdr.trend.history.Sample``) and latency.
"""

from __future__ import annotations

import dataclasses
import datetime
import multiprocessing
import random
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ndrpdr.families import profile_of as get_profile
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.results.journal import write_json_atomically
from ndrpdr.results.mrrrecord import build_mrr_record
from ndrpdr.results.record import RecordTraffic
from ndrpdr.searchrun import SearchRequest, run_search
from ndrpdr.simdut.models.noisyknee import NoisyKnee
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.sim import SimulatedMeasurer, make_model
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator
from ndrpdr.trend.compare import TestKey
from ndrpdr.trend.history import Sample, sample_from_record
from ndrpdr.trend.trendseries import Latency, latency_of_record

SIM_TOPOLOGY = Path(__file__).resolve().parent.parent / "topologies" / "sim.yaml"
#: The first night of a generated year (22:00 UTC, as a nightly job starts).
FIRST_NIGHT = datetime.datetime(2025, 11, 26, 22, 0, tzinfo=datetime.timezone.utc)
#: The highest DUT capacity a test may draw [pps]: below 128 B line rate of the sim TG's ports.
MAX_CAPACITY_PPS = 15e6
#: MRR: this many trials of this many seconds at the max load.
MRR_TRIALS, MRR_TRIAL_S = 10, 1.0
#: Latency trials after the search [s] (only the tests with ``latency``).
LATENCY_TRIAL_S = 1.0
#: Share of NDRPDR nights whose search hits a time cap (an incomplete record, a caveat).
CAPPED_SHARE = 0.01
#: The capped searches' time cap [s] of trial time.
CAP_S = 4.0


@dataclasses.dataclass(frozen=True)
class TestPlan:
    """One test of every nightly run."""

    name: str
    profile: str
    frame_size: int
    kind: str  # "ndrpdr" or "mrr"
    dut_seed: int
    latency: bool


def _dut_seed(index: int) -> int:
    """The first seed from ``1000 + 100 * index`` whose noisy DUT fits the 128 B line rate."""
    seed = 1000 + 100 * index
    while make_model("noisyknee", seed).parameters()["capacity_pps"] > MAX_CAPACITY_PPS:
        seed += 1
    return seed


def _tests() -> tuple[TestPlan, ...]:
    plans: list[TestPlan] = []
    for profile in ("ethip4-ip4base", "ethip4udp-ip4base", "eth-l2xcbase"):
        for frame_size in (64, 128):
            for cores in (1, 2):
                for kind in ("ndrpdr", "mrr"):
                    index = len(plans)
                    plans.append(
                        TestPlan(
                            name=f"{frame_size}B-{cores}c-{profile}-{kind}",
                            profile=profile,
                            frame_size=frame_size,
                            kind=kind,
                            dut_seed=_dut_seed(index),
                            latency=kind == "ndrpdr"
                            and frame_size == 128
                            and cores == 1
                            and index < 8,
                        )
                    )
    return tuple(plans)


#: The 24 tests of a nightly run.
TESTS = _tests()


@dataclasses.dataclass(frozen=True)
class Plan:
    """What the nights of one generation look like."""

    #: "noise" (capacity factor 1), "step" (``step_factor`` from ``step_night``), "drift"
    #: (seeded per test).
    scenario: str
    nights: Sequence[int]
    #: Seeds the nights' measurement noise (the same base and night: the same trials).
    noise_seed: int = 0
    step_night: int = 0
    #: The capacity factor from ``step_night`` on ("step").
    step_factor: float = 0.95
    #: Capped searches (caveats) on a few nights (only in "drift").
    caveats: bool = False


def drift_factor(test: TestPlan, night: int) -> float:
    """The capacity factor of ``test`` on ``night`` in the year of the report (seeded per test).

    A third of the tests stay flat, a third take one step (3 to 10 %, down
    or up) on a seeded night, a third drift slowly down (0.5 % a month) and
    take a step back up later.
    """
    rng = random.Random(f"drift-{test.name}")
    shape = rng.randrange(3)
    step_night = rng.randrange(40, 330)
    size = rng.uniform(0.03, 0.10) * rng.choice((-1, 1))
    if shape == 0:
        return 1.0
    if shape == 1:
        return 1.0 + size if night >= step_night else 1.0
    drifted = 1.0 - 0.005 * min(night, step_night) / 30
    return drifted + abs(size) if night >= step_night else drifted


def capacity_factor(plan: Plan, test: TestPlan, night: int) -> float:
    """The DUT's capacity on ``night`` relative to its own (1: unchanged)."""
    if plan.scenario == "noise":
        return 1.0
    if plan.scenario == "step":
        return plan.step_factor if night >= plan.step_night else 1.0
    return drift_factor(test, night)


def night_start(night: int, test_index: int) -> datetime.datetime:
    """When ``test_index`` of the run of ``night`` started (a minute apart within a run)."""
    return FIRST_NIGHT + datetime.timedelta(days=night, minutes=test_index)


def run_id(night: int) -> str:
    """The run id (and directory name) of ``night``: "nightly-007"."""
    return f"nightly-{night:03d}"


class _Night:
    """Runs one test's nights: the sim topology and TG are built once per worker."""

    def __init__(self, test: TestPlan) -> None:
        self.test = test
        self.topology: Topology = load_topology(SIM_TOPOLOGY)
        self.tg = SimTrafficGenerator(self.topology, test.frame_size)
        self.base = make_model("noisyknee", test.dut_seed)
        assert isinstance(self.base, NoisyKnee)
        self.profile = get_profile(test.profile)
        self.goals = ndr_pdr_goals()

    def record(self, night: int, factor: float, noise_seed: int, capped: bool) -> dict[str, Any]:
        params = self.base.parameters()
        params["capacity_pps"] *= factor
        model = NoisyKnee(**params)
        seed = hash((noise_seed, self.test.dut_seed, night)) & 0xFFFFFFFF
        self.tg.model = model
        self.tg.measurer = SimulatedMeasurer(
            model, overhead_s=0.5, seed=seed, max_tg_rate_pps=self.tg.max_load_pps
        )
        if self.test.kind == "mrr":
            load = self.tg.max_load_pps
            trials = [self.tg.measure(MRR_TRIAL_S, load) for _ in range(MRR_TRIALS)]
            now = datetime.datetime.now(datetime.timezone.utc)
            record = build_mrr_record(
                traffic=RecordTraffic(self.topology, self.profile, self.test.frame_size, 2),
                load_pps=load,
                trial_duration_s=MRR_TRIAL_S,
                trials=trials,
                started=now,
                finished=now,
            )
        else:
            request = SearchRequest(
                traffic=RecordTraffic(self.topology, self.profile, self.test.frame_size, 2),
                goals=self.goals,
                max_search_time_s=CAP_S if capped else None,
                latency_duration_s=LATENCY_TRIAL_S if self.test.latency else None,
            )
            record = run_search(self.tg, request).record.to_json()
        started = night_start(night, TESTS.index(self.test))
        record["started"] = started.isoformat(timespec="seconds")
        record["finished"] = (started + datetime.timedelta(seconds=50)).isoformat(
            timespec="seconds"
        )
        return record


@dataclasses.dataclass(frozen=True)
class Generated:
    """What a worker made: samples, latency by (run id, test key)."""

    samples: tuple[Sample, ...]
    latency: dict[tuple[str, TestKey], Latency]


def _one_test(args: tuple[Plan, TestPlan, Path | None]) -> Generated:
    plan, test, out = args
    night_runner = _Night(test)
    caveat_rng = random.Random(f"caveats-{test.name}-{plan.noise_seed}")
    samples = []
    latency: dict[tuple[str, TestKey], Latency] = {}
    for night in plan.nights:
        capped = plan.caveats and test.kind == "ndrpdr" and caveat_rng.random() < CAPPED_SHARE
        record = night_runner.record(
            night, capacity_factor(plan, test, night), plan.noise_seed, capped
        )
        if out is not None:
            write_json_atomically(record, out / run_id(night) / f"{test.name}.json", indent=None)
        sample = sample_from_record(test.name, record, run_id=run_id(night))
        samples.append(sample)
        found = latency_of_record(record)
        if found is not None:
            latency[(sample.run_id, sample.key)] = found
    return Generated(tuple(samples), latency)


def generate(
    plan: Plan,
    tests: Sequence[TestPlan] = TESTS,
    *,
    out: Path | None = None,
    jobs: int = 2,
) -> Generated:
    """Every night of ``plan`` for ``tests``, over ``jobs`` processes; records into ``out``."""
    tasks = [(plan, test, out) for test in tests]
    if jobs <= 1:
        parts = [_one_test(task) for task in tasks]
    else:
        with multiprocessing.get_context("fork").Pool(jobs) as pool:
            parts = pool.map(_one_test, tasks, chunksize=1)
    samples = tuple(s for part in parts for s in part.samples)
    latency = {k: v for part in parts for k, v in part.latency.items()}
    return Generated(samples, latency)
