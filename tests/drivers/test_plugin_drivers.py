"""A TG and a DUT driver added through ``ndrpdr.drivers.register`` alone run a family.

The ``echo`` TG and the ``mirror`` DUT below exist only in this module: no
table of the package names them. Registered (``register``, as a plugin
does), a topology naming them loads and is checked against the schema, a
search of ``ethip4-ip4base`` on it finds the mirror's capacity, the
record's versions come from their descriptions' probes, ``ndrpdr
families`` lists the mirror with the sim (both run every family), a
stateful family's plan says the mirror counts no state, and a DUT driver
that takes only the basic modes families name for it is refused a family
with the family's own reason. Whatever still branched on driver names
would refuse them, or leave them out.
"""

from __future__ import annotations

import dataclasses
import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from ndrpdr.access.base import NodeAccess
from ndrpdr.activebed.statecount import state_plan
from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.activebed.versions import node_versions
from ndrpdr.cli.main import main
from ndrpdr.drivers import DriverDescription, option, register, registry
from ndrpdr.dut.base import DutDriver, DutError, DutTestConfig, UnsupportedFamilyError
from ndrpdr.families import all_families, get_family
from ndrpdr.search.trial import TrialResult
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Node
from ndrpdr.trafficgen.base import TrafficContext, TrafficGenerator, checked_trial

#: What the mirror DUT forwards at most [pps]; above it the rest is lost.
CAPACITY_PPS = 2_000_000.0


@dataclasses.dataclass(frozen=True)
class EchoOptions:
    """The echo TG's options."""

    max_rate_pps: float = option(10_000_000.0, "highest aggregate load [pps]", minimum=1)


@dataclasses.dataclass(frozen=True)
class MirrorOptions:
    """The mirror DUT's options."""

    label: str = option("mirror", "a name in its telemetry")


class EchoTg(TrafficGenerator):
    """Offers every frame at once; the mirror forwards up to CAPACITY_PPS of them."""

    def __init__(self, context: TrafficContext) -> None:
        self.node = context.topology.tg.key
        self._max = float(context.topology.tg.options.get("max_rate_pps", 10_000_000.0))

    @property
    def max_load_pps(self) -> float:
        return self._max

    def measure(self, duration: float, load: float) -> TrialResult:
        duration_s, load_pps = checked_trial(self.node, duration, load, self._max)
        offered = round(load_pps * duration_s)
        forwarded = min(offered, round(CAPACITY_PPS * duration_s))
        return TrialResult(duration_s, load_pps, offered, forwarded_count=forwarded)

    def stop_traffic(self) -> None:
        pass

    def close(self) -> None:
        pass


class MirrorDut(DutDriver):
    """Nothing to drive: configured, started and stopped in memory."""

    def __init__(self, node: Node, access: NodeAccess) -> None:
        self._node = node.key
        self.config: DutTestConfig | None = None
        self.running = False

    @property
    def node(self) -> str:
        return self._node

    def configure(self, config: DutTestConfig) -> None:
        self.config = config

    def start(self) -> None:
        self.running = True

    def health_check(self) -> None:
        if not self.running:
            raise DutError(f"{self._node} (mirror): not running")

    def stop(self) -> None:
        self.running = False

    def telemetry(self) -> dict[str, str]:
        mode = "not configured" if self.config is None else self.config.mode
        return {"state": f"mirror, mode {mode}, {'running' if self.running else 'stopped'}"}


ECHO = DriverDescription(
    name="echo",
    role="TG",
    summary="a TG of this test",
    options=EchoOptions,
    factory=EchoTg,
    access=("local",),
    default_access="local",
    version=lambda node, access: "echo 1.0",
)
MIRROR = DriverDescription(
    name="mirror",
    role="DUT",
    summary="a DUT of this test that runs every family, as the sim does",
    options=MirrorOptions,
    factory=MirrorDut,
    access=("local",),
    default_access="local",
    port_driver=lambda node: "mirror",
    version=lambda node, access: "mirror 2.0",
    family_setup="every",
)
#: A DUT driver that runs only the families naming a basic mode for it (none names it).
NARROW = dataclasses.replace(MIRROR, name="narrow", family_setup="mode")

TOPOLOGY = """\
nodes:
  TG:
    type: TG
    driver: echo
    options: {max_rate_pps: 10000000}
    interfaces:
      port1: {mac_address: "02:00:00:00:01:01", link: link1, speed: 10Gbps}
      port2: {mac_address: "02:00:00:00:02:01", link: link2, speed: 10Gbps}
  DUT1:
    type: DUT
    driver: DRIVER
    interfaces:
      port1: {mac_address: "02:00:00:00:01:02", link: link1, speed: 10Gbps}
      port2: {mac_address: "02:00:00:00:02:02", link: link2, speed: 10Gbps}
"""


@pytest.fixture(autouse=True)
def plugins(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The built-in drivers and this module's, for one test (the registry as it was after)."""
    registry.descriptions()  # the built-in ones first, as a plugin would find them
    monkeypatch.setattr(registry, "_drivers", dict(registry._drivers))
    for description in (ECHO, MIRROR, NARROW):
        register(description)
    yield


def _topology(tmp_path: Path, dut: str = "mirror") -> Path:
    path = tmp_path / f"{dut}.yaml"
    path.write_text(TOPOLOGY.replace("DRIVER", dut))
    return path


def test_a_search_on_the_plugins_finds_the_mirrors_capacity(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record_file = tmp_path / "record.json"
    argv = ["search", "--topology", str(_topology(tmp_path)), "--json", str(record_file)]
    code = main([*argv, "--duration-sum", "2s", "--width", "0.02", "--no-latency"])
    assert code == 0, capsys.readouterr().err
    record = json.loads(record_file.read_text())
    for goal in ("ndr", "pdr"):
        lower, upper = record[goal]["lower_bound"], record[goal]["upper_bound"]
        assert lower <= CAPACITY_PPS <= upper, (goal, lower, upper)
        assert lower >= upper * 0.98 * (1 - 1e-9)


def test_the_testbed_runs_a_family_on_them_and_asks_their_versions(tmp_path: Path) -> None:
    with ActiveTestbed(load_topology(_topology(tmp_path))) as testbed:
        testbed.configure_family(get_family("eth-l2xcbase"))
        dut = testbed.duts["DUT1"]
        assert isinstance(dut, MirrorDut) and dut.running
        assert dut.config is not None and dut.config.mode == "l2xc"  # its traffic's own
        assert node_versions(testbed) == {"TG": "echo 1.0", "DUT1": "mirror 2.0"}
        telemetry = testbed.collect_telemetry()
    assert telemetry["DUT1"]["state"] == "mirror, mode l2xc, running"
    assert not dut.running  # stopped, then closed (the protocol's close) at teardown


def test_a_stateful_familys_plan_sends_every_flow_and_counts_no_state(tmp_path: Path) -> None:
    family = next(f for f in all_families() if f.ramp_up is not None)
    with ActiveTestbed(load_topology(_topology(tmp_path))) as testbed:
        testbed.configure_family(family)
        tg = testbed.traffic_generator(family.profile, 64)
        plan = state_plan(testbed, family, tg, 64, 2)
        assert plan is not None
        assert plan.flows_sent == plan.flows == family.profile.directions[0].flows
        assert plan.count_state() is None
        assert plan.uncounted == f"DUT1's mirror driver keeps no count of {family.id}'s state"


def test_families_lists_the_mirror_after_the_sim(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["families", "ethip4-ip4base", "ethip6-ip6base"]) == 0
    out = capsys.readouterr().out
    assert "  DUT drivers: sim, mirror, vpp, linux, testpmd, l3fwd, ovs\n" in out
    assert "  DUT drivers: sim, mirror, vpp\n" in out


def test_a_driver_of_basic_modes_is_refused_with_the_familys_reason(tmp_path: Path) -> None:
    with ActiveTestbed(load_topology(_topology(tmp_path, "narrow"))) as testbed:
        ip6 = "DUT1 (narrow): the narrow driver forwards IPv4 or L2 only; ethip6-ip6base routes"
        with pytest.raises(UnsupportedFamilyError, match=re.escape(ip6)):
            testbed.configure_family(get_family("ethip6-ip6base"))
        runs = "l3fwd, linux, mirror, ovs, sim, testpmd, vpp"  # no reason of its own: the rest
        base = f"the narrow driver has no set-up for ethip4-ip4base (it runs on: {runs})"
        with pytest.raises(UnsupportedFamilyError, match=re.escape(base)):
            testbed.configure_family(get_family("ethip4-ip4base"))
