"""Conformance: every DUT driver keeps the DutDriver contract, for real.

One case per DUT driver of the registry (``ndrpdr.drivers``): ``sim``
(topologies/sim.yaml, no I/O) and the local testbed's ``linux``,
``testpmd``, ``l3fwd``, ``ovs`` and ``vpp`` (topologies/local-<driver>.yaml:
the DUT in a network namespace of this run, real frames from tcpreplay in
the TG namespace; each needs root and its programs, and is skipped with the
reason without them). A driver registered without a case fails the suite.

Each case sets its testbed up once (``ActiveTestbed``, as a suite does)
and is configured for ethip4-ip4base, which every driver runs. The
contract: the configured DUT forwards a short trial at a load it holds
without loss (once more on a loss: a scheduling stall of a shared CPU can
drop a few frames, a DUT that does not forward loses every time); its
health check passes; its telemetry names texts and says its state; a
family it has no set-up for is refused (a skip: UnsupportedFamilyError)
naming the node, the driver and the family, and leaves the DUT healthy;
tearing it down (``stop``, then ``close`` for a driver that keeps its data
plane for the run, as the testbed's teardown does) can be repeated, leaves
none of the processes it started in the DUT's namespace (the sim and the
kernel-forwarding linux driver start none) and leaves a health check that
fails naming the node and driver; set up again it forwards again; the
testbed's teardown leaves none of the run's namespaces and can be repeated.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from dutbed import ROOT, pid_alive, require_local
from test_dut_l3fwd import require_l3fwd
from test_dut_ovs import OVS_PPS, OVS_TOOLS
from test_vpp_real import require_vpp

from ndrpdr.access.netns import NetnsTransport
from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.drivers import driver_names
from ndrpdr.dut.base import DutDriver, DutError, UnsupportedFamilyError
from ndrpdr.families import Family, all_families, get_family
from ndrpdr.localbed.procs import namespace_pids
from ndrpdr.search.trial import TrialResult
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.base import TrafficGenerator

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

#: The family every DUT driver runs.
FAMILY = get_family("ethip4-ip4base")
#: Trial duration of the forwarding checks [s].
DURATION_S = 0.5
#: The load of the local testbed's forwarding checks [pps] (what dutbed's bursts use).
LOCAL_PPS = 10_000.0


def _sim_load(tg: TrafficGenerator) -> float:
    """A tenth of the simulated DUT's NDR."""
    return 0.1 * float(tg.model.true_ndr(1.0))  # type: ignore[attr-defined]


@dataclasses.dataclass(frozen=True)
class Spec:
    """How a driver's case runs: its topology, what it needs, a load it forwards without loss.

    ``processes``: whether the driver starts processes of its own (then tearing it
    down must end them, and the test checks it saw them).
    """

    topology: str
    require: Callable[[], None]
    load: Callable[[TrafficGenerator], float]
    processes: bool = True


SPECS: dict[str, Spec] = {
    "sim": Spec("sim.yaml", lambda: None, _sim_load, processes=False),
    "linux": Spec("local-linux.yaml", require_local, lambda tg: LOCAL_PPS, processes=False),
    "testpmd": Spec(
        "local-testpmd.yaml", lambda: require_local("dpdk-testpmd"), lambda tg: LOCAL_PPS
    ),
    "l3fwd": Spec("local-l3fwd.yaml", require_l3fwd, lambda tg: LOCAL_PPS),
    "ovs": Spec("local-ovs.yaml", lambda: require_local(*OVS_TOOLS), lambda tg: OVS_PPS),
    "vpp": Spec("local-vpp.yaml", require_vpp, lambda tg: LOCAL_PPS),
}


@dataclasses.dataclass
class Bed:
    """One driver's testbed, set up and configured for ``FAMILY``.

    ``namespace``: the DUT's network namespace (None: the sim, which has none);
    ``baseline``: the processes in it before the DUT started (the testbed's own).
    """

    driver: str
    spec: Spec
    testbed: ActiveTestbed
    namespace: str | None
    baseline: frozenset[int]

    @property
    def dut(self) -> DutDriver:
        """The DUT's driver."""
        return self.testbed.duts["DUT1"]

    def dut_processes(self) -> set[int]:
        """Processes in the DUT's namespace that the testbed did not have before the DUT."""
        if self.namespace is None:
            return set()
        return set(namespace_pids(self.namespace)) - self.baseline


@pytest.fixture(scope="module", params=sorted(SPECS))
def bed(request: pytest.FixtureRequest) -> Iterator[Bed]:
    driver: str = request.param
    spec = SPECS[driver]
    spec.require()
    topology = load_topology(ROOT / "topologies" / spec.topology)
    assert topology.nodes["DUT1"].driver == driver
    with ActiveTestbed(topology) as testbed:
        access = testbed.access("DUT1")
        namespace = access.namespace if isinstance(access, NetnsTransport) else None
        baseline = frozenset(namespace_pids(namespace)) if namespace else frozenset()
        testbed.configure_family(FAMILY)
        yield Bed(driver, spec, testbed, namespace, baseline)


def forward(bed: Bed) -> TrialResult:
    """A short trial at the case's load: it must lose nothing (a second try on a loss)."""
    tg = bed.testbed.traffic_generator(FAMILY.profile, 64)
    load = bed.spec.load(tg)
    for _ in range(2):
        trial = tg.measure(DURATION_S, load)
        if trial.loss_count == 0:
            break
    assert trial.offered_count >= load * DURATION_S - 2, trial
    assert trial.forwarded_count == trial.offered_count, trial
    return trial


def refused_family(driver: str) -> Family:
    """A 2-node family ``driver`` has no set-up for: a built-in one, else FAMILY without it
    (for a driver that runs every family, the sim: FAMILY saying why not)."""
    for family in all_families():
        if 1 in family.duts and not family.setup.runs_on(driver):
            return family
    setup = FAMILY.setup
    modes = {name: mode for name, mode in setup.modes.items() if name != driver}
    reasons = {**setup.reasons, driver: f"the {driver} driver is refused {FAMILY.id} here"}
    refused = dataclasses.replace(setup, modes=modes, vpp=None, reasons=reasons)
    return dataclasses.replace(FAMILY, setup=refused)


def tear_down(dut: DutDriver) -> None:
    """What the testbed's teardown does to a DUT: stop, then close."""
    dut.stop()
    dut.close()


# -- the registry ------------------------------------------------------------------------


def test_every_registered_dut_driver_has_a_case() -> None:
    assert set(driver_names("DUT")) == set(SPECS)


def test_every_driver_has_a_family_it_does_not_run() -> None:
    for driver in SPECS:
        family = refused_family(driver)
        assert not family.setup.runs_on(driver), (driver, family.id)
        assert 1 in family.duts


# -- the contract, per driver ------------------------------------------------------------


def test_configured_for_a_family_it_runs_it_forwards(bed: Bed) -> None:
    forward(bed)


def test_a_healthy_dut_passes_its_health_check(bed: Bed) -> None:
    bed.dut.health_check()
    bed.testbed.check_duts(lost_all=True)  # as after a trial that lost every frame


def test_telemetry_names_texts_and_says_the_state(bed: Bed) -> None:
    texts = bed.dut.telemetry()
    assert texts and all(isinstance(k, str) and isinstance(v, str) for k, v in texts.items())
    assert texts["state"].strip()
    assert bed.testbed.collect_telemetry()["DUT1"].keys() >= texts.keys()


def test_a_family_it_does_not_run_is_refused_naming_the_driver_and_family(bed: Bed) -> None:
    family = refused_family(bed.driver)
    with pytest.raises(UnsupportedFamilyError) as info:
        bed.testbed.configure_family(family)
    text = str(info.value)
    assert f"DUT1 ({bed.driver})" in text and family.id in text, text
    bed.dut.health_check()  # refused before anything on the DUT changed


def test_tear_down_is_idempotent_leaves_no_process_and_a_second_set_up_forwards(
    bed: Bed,
) -> None:
    started = bed.dut_processes()
    assert bool(started) == bed.spec.processes, started
    for _ in range(2):
        tear_down(bed.dut)
    assert not bed.dut_processes()
    assert not [pid for pid in started if pid_alive(pid)]
    with pytest.raises(DutError, match=rf"DUT1 \({bed.driver}\)"):
        bed.dut.health_check()
    bed.testbed.configure_family(FAMILY)
    assert bool(bed.dut_processes()) == bed.spec.processes
    forward(bed)


def test_the_testbed_teardown_leaves_no_namespace_and_can_be_repeated(bed: Bed) -> None:
    """Last of a case: the fixture's own teardown then finds nothing to do."""
    run_id, dut = bed.testbed.run_id, bed.dut
    started = bed.dut_processes()
    namespaces = [] if run_id is None else list(Path("/run/netns").glob(f"ndrpdr-{run_id}-*"))
    assert bool(namespaces) == (bed.namespace is not None)
    for _ in range(2):
        bed.testbed.teardown()
    assert not [ns.name for ns in namespaces if ns.exists()]
    assert not [pid for pid in started if pid_alive(pid)]
    assert not bed.testbed.duts
    with pytest.raises(DutError, match=rf"DUT1 \({bed.driver}\)"):
        dut.health_check()
