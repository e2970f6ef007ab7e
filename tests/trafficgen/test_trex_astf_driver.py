"""TrexAstfTrafficGenerator and the session's ASTF mode, over a stand-in ASTF client.

A stand-in, because the bundled TRex cannot run ASTF on this machine: it
leaves out ``scripts/astf_schema.json`` and its ASTF server exits when a
client connects (docs/families.rst). The stand-in plays the four real
ASTF trials recorded from TRex v3.08 (``expected/astf_trials_trex_v3.08
.jsonl``: 64 hosts x 4 ports at multiplier 128, 100 B frames), so the
driver's multiplier, duration and counting are checked against what TRex
really counted; a trial cut short returns the share of the counters sent.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest
from trex_standin import CSIT, EXPECTED, FakeClock, RecordingAccess, StandInTrex, topology_with

from ndrpdr.access.base import CommandResult
from ndrpdr.access.local import LocalTransport
from ndrpdr.families import profile_of
from ndrpdr.profiles import Profile, Transactions, max_load_pps
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.base import (
    LatencyMeasurer,
    TrafficContext,
    TrafficGeneratorError,
    UnsupportedTrafficError,
)
from ndrpdr.trafficgen.counting import cutoff_s
from ndrpdr.trafficgen.trex.astf.counts import astf_trial_result
from ndrpdr.trafficgen.trex.astf.driver import (
    CLOSE_GRACE_S,
    TrexAstfTrafficGenerator,
)
from ndrpdr.trafficgen.trex.client import ClientSettings, TrexClient
from ndrpdr.trafficgen.trex.description import make_trex_tg
from ndrpdr.trafficgen.trex.driver import TrexTrafficGenerator
from ndrpdr.trafficgen.trex.options import TrexOptions
from ndrpdr.trafficgen.trex.server import ASTF_SCHEMA, missing_astf_schema
from ndrpdr.trafficgen.trex.session import TrexSession

STATEFUL = "ethip4udp-ip4base-h65536-p63-s4128768-cps"
RECORDED = [json.loads(line) for line in (EXPECTED / "astf_trials_trex_v3.08.jsonl").open()]


def _stats(trial: Mapping[str, Any]) -> dict[Any, Any]:
    return {int(k) if k.isdigit() else k: v for k, v in trial["stats"].items()}


def _scaled(value: Any, share: float) -> Any:
    if isinstance(value, Mapping):
        return {k: _scaled(v, share) for k, v in value.items()}
    return int(value * share) if isinstance(value, int) else value


class StandInAstf(StandInTrex):
    """TRex's ASTF client as the driver calls it: ``load_profile``, one multiplier, all ports."""

    def __init__(self, clock: FakeClock, stats: Mapping[Any, Any], **kwargs: Any) -> None:
        super().__init__(clock, lambda s, r: ({}, {}), **kwargs)
        self.recorded = stats
        self.share = 0.0
        self.profiles: list[Mapping[str, Any]] = []

    def load_profile(self, spec: Mapping[str, Any]) -> None:
        self._record("load_profile", dict(spec))
        self.profiles.append(dict(spec))

    def start(
        self, ports: Sequence[int], mult: str, duration: float, force: bool = True, **_: Any
    ) -> float | None:
        self._record("start", list(ports), mult, duration)
        assert self.profiles, "start before load_profile"
        self.running = {"start": self.clock(), "end": self.clock() + duration + self.stretch_s}
        return self.clock()

    def _finish(self, at: float) -> None:
        run, self.running = self.running, None
        if run is not None:
            self.share = min(1.0, (at - run["start"]) / (run["end"] - run["start"]))

    def get_stats(self, ports: Sequence[int]) -> Mapping[Any, Any]:
        self._record("get_stats", list(ports))
        return _scaled(self.recorded, self.share)


@dataclasses.dataclass
class AstfRig:
    session: TrexSession
    clients: list[StandInAstf]
    settings: list[ClientSettings]
    access: RecordingAccess
    clock: FakeClock

    def tg(self, profile: Profile, frame_size: int = 100) -> TrexAstfTrafficGenerator:
        return TrexAstfTrafficGenerator(
            self.session.topology,
            profile,
            frame_size,
            session=self.session,
            clock=self.clock,
            sleep=self.clock.sleep,
        )


class NoSchemaAccess(RecordingAccess):
    """A TG whose TRex lacks ASTF's schema file (``test -f`` fails)."""

    def run(self, argv: Sequence[str], *, sudo: bool = False, **kwargs: Any) -> CommandResult:
        done = super().run(argv, sudo=sudo, **kwargs)
        return dataclasses.replace(done, exit_code=1 if argv[0] == "test" else 0)


def astf_rig(
    topology: Topology,
    stats: Mapping[Any, Any],
    access: RecordingAccess | None = None,
    **client_args: Any,
) -> AstfRig:
    clock = FakeClock()
    access = access or RecordingAccess(log="EAL: init\n")
    clients: list[StandInAstf] = []
    made: list[ClientSettings] = []

    def factory(settings: ClientSettings) -> TrexClient:
        made.append(settings)
        clients.append(StandInAstf(clock, stats, **client_args))
        return clients[-1]

    session = TrexSession(topology, access=access, client_factory=factory, sleep=clock.sleep)
    return AstfRig(session, clients, made, access, clock)


def small(kind: str, protocol: str) -> Profile:
    """The stateful family of ``kind`` / ``protocol`` at the recorded trials' scale (64 x 4)."""
    family = profile_of(f"ethip4{protocol}-ip4base-h65536-p63-s4128768-{kind}")
    return dataclasses.replace(family, transactions=Transactions(kind, protocol, 64, 4))  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def csit() -> Topology:
    return topology_with(load_topology(CSIT))


@pytest.mark.parametrize("trial", RECORDED, ids=lambda t: f"{t['protocol']}-{t['kind']}")
def test_a_trial_runs_the_scale_at_the_multiplier_and_counts_as_csit(
    csit: Topology, trial: Mapping[str, Any]
) -> None:
    profile = small(trial["kind"], trial["protocol"])
    traffic = profile.transactions
    assert traffic is not None
    rig = astf_rig(csit, _stats(trial))
    load = trial["mult"] * (1 if traffic.kind == "cps" else traffic.packets_aggregated)
    result = rig.tg(profile).measure(1.0, load)  # the search's 1 s does not apply: the scale does
    client = rig.clients[0]
    assert [s.mode for s in rig.settings] == ["astf"]
    assert "--astf" in rig.access.started[0][0]
    names = client.names()
    assert names[names.index("reset") :] == [
        "reset", "load_profile", "start", *["wait_on_traffic"] * names.count("wait_on_traffic"),
        "get_stats",
    ]  # fmt: skip
    (start,) = [c for c in client.calls if c[0] == "start"]
    assert start[2] == "128.000000"  # 256 transactions in 2 s, whatever the load's unit
    assert start[3] == pytest.approx(256 / 128 + CLOSE_GRACE_S)
    assert client.profiles[0]["limit"] == 256 and client.profiles[0]["payload"] > 0
    assert result == astf_trial_result(traffic, load, _stats(trial), "TG")
    assert result.duration == pytest.approx(2.0)


def test_the_profile_sends_between_the_familys_clients_and_servers(csit: Topology) -> None:
    """An SFDP family's CSIT ranges (192.168.0.0, 20.0.0.0, h hosts each); the astf kind's
    CSIT /16s of the same first addresses (its 65536 hosts)."""
    rig = astf_rig(csit, _stats(RECORDED[0]))
    spec = rig.tg(profile_of("ethip4tcp-sfdp-ip4-h1024-p63-s64512-cps"), 64).spec
    assert (spec["clients"], spec["servers"], spec["limit"]) == (
        ["192.168.0.0", "192.168.3.255"], ["20.0.0.0", "20.0.3.255"], 64512,
    )  # fmt: skip
    routed = rig.tg(profile_of(STATEFUL), 64).spec
    assert (routed["clients"], routed["servers"]) == (
        ["192.168.0.0", "192.168.255.255"], ["20.0.0.0", "20.0.255.255"],
    )  # fmt: skip


def test_a_trial_cut_at_the_deadline_is_stopped_and_short(csit: Topology) -> None:
    (trial,) = [t for t in RECORDED if (t["protocol"], t["kind"]) == ("udp", "tput")]
    rig = astf_rig(csit, _stats(trial), stretch_s=10.0)
    result = rig.tg(small("tput", "udp")).measure(1.0, 1280.0)
    assert "stop" in rig.clients[0].names()
    cutoff = cutoff_s(2.0 + CLOSE_GRACE_S)
    assert result.offered_count == 2 * int(1280 * cutoff / (2.0 + CLOSE_GRACE_S + 10.0))
    assert result.loss_ratio == pytest.approx(1 - result.offered_count / 2560)  # unsent: lost
    assert result.intended_count == 2560


def test_a_stateless_session_restarts_in_astf_mode_and_back(
    csit: Topology, caplog: pytest.LogCaptureFixture
) -> None:
    (trial,) = [t for t in RECORDED if (t["protocol"], t["kind"]) == ("tcp", "cps")]
    rig = astf_rig(csit, _stats(trial))
    rig.session.open()  # the suite's set-up: stateless until a test says otherwise
    assert rig.session.mode == "stl" and "--astf" not in rig.access.started[0][0]
    with caplog.at_level(logging.WARNING):
        result = rig.tg(small("cps", "tcp")).measure(1.0, 128.0)
    assert result.forwarded_count == 256
    assert [s.mode for s in rig.settings] == ["stl", "astf"]
    assert [("--astf" in argv) for argv, _ in rig.access.started] == [False, True]
    assert rig.clients[0].names()[-2:] == ["disconnect", "close"]
    assert "TG: TRex restarted in astf mode (pid 4243): it ran in stl mode" in caplog.text
    rig.tg(small("cps", "tcp")).measure(1.0, 128.0)  # the next stateful test: no restart
    assert len(rig.access.started) == 2
    stateless = TrexTrafficGenerator(
        csit, profile_of("ethip4-ip4base"), 64, session=rig.session, clock=rig.clock,
        sleep=rig.clock.sleep,
    )  # fmt: skip
    assert rig.session.use_mode(stateless.mode) is not None
    assert [s.mode for s in rig.settings] == ["stl", "astf", "stl"]
    assert rig.session.use_mode("stl") is None


def test_max_load_is_line_rate_in_the_family_unit(csit: Topology) -> None:
    rig = astf_rig(csit, {})
    line = 2 * max_load_pps(10e9, 100)
    cps = rig.tg(small("cps", "tcp"))
    assert cps.max_load_pps == pytest.approx(line / 7)  # 7 frames a TCP connection
    assert rig.tg(small("tput", "udp")).max_load_pps == pytest.approx(line)
    above = r"^TG: trial load 2\.08333e\+07 .* above the maximum 2\.97619e\+06"
    with pytest.raises(TrafficGeneratorError, match=above):
        cps.measure(1.0, line)
    assert rig.access.started == []  # checking the load needed no server


def test_the_trex_description_picks_the_astf_driver_for_a_stateful_family(
    csit: Topology,
) -> None:
    rig = astf_rig(csit, {})
    path = rig.session.topology

    def made(profile: Profile) -> object:
        context = TrafficContext(
            topology=path,
            path=None,
            profile=profile,
            frame_size=64,
            session=rig.session,  # type: ignore[arg-type]
        )
        return make_trex_tg(context)

    stateful = made(profile_of(STATEFUL))
    assert type(stateful) is TrexAstfTrafficGenerator
    assert type(made(profile_of("ethip4-ip4base"))) is TrexTrafficGenerator
    assert isinstance(stateful, LatencyMeasurer)
    assert stateful.measure_latency(1.0, 10.0) is None  # no latency trials: CSIT has none
    assert rig.access.started == []


def test_the_family_and_frame_are_checked(csit: Topology) -> None:
    rig = astf_rig(csit, {})
    with pytest.raises(TrafficGeneratorError, match=r"^TG: family ethip4-ip4base is not stateful"):
        rig.tg(profile_of("ethip4-ip4base"), 64)
    with pytest.raises(TrafficGeneratorError, match=r"one size, not 'IMIX'"):
        rig.tg(profile_of(STATEFUL), "IMIX")  # type: ignore[arg-type]


def test_a_trex_without_astf_schema_skips_the_stateful_test(csit: Topology) -> None:
    rig = astf_rig(csit, {}, access=NoSchemaAccess(log=""))
    context = TrafficContext(
        topology=csit,
        path=None,
        profile=profile_of(STATEFUL),
        frame_size=64,
        session=rig.session,  # type: ignore[arg-type]
    )
    with pytest.raises(UnsupportedTrafficError) as caught:
        make_trex_tg(context)
    schema = f"{rig.session.options.install_dir}/{ASTF_SCHEMA}"
    assert str(caught.value).startswith(f"TG: TRex cannot run ASTF (stateful families): {schema}")
    assert rig.access.commands == [(["test", "-f", schema], True)]
    assert rig.access.started == []  # no server started in a mode it cannot serve


def test_a_trex_without_the_schema_is_named_and_one_with_it_passes(tmp_path: Path) -> None:
    """On a real file system: the schema's path when the directory lacks it, else None.

    The shared TRex bundle now ships ``astf_schema.json``: it passes as any directory with one.
    """
    local = LocalTransport("TG")
    lacking = TrexOptions(install_dir=str(tmp_path / "none"))
    assert missing_astf_schema(local, lacking) == f"{tmp_path}/none/{ASTF_SCHEMA}"  # type: ignore[arg-type]
    bundle = Path("/opt/trex/v3.08")
    if (bundle / "t-rex-64").exists():
        found = missing_astf_schema(local, TrexOptions(install_dir=str(bundle)))  # type: ignore[arg-type]
        assert found == (None if (bundle / ASTF_SCHEMA).is_file() else f"{bundle}/{ASTF_SCHEMA}")
    (tmp_path / ASTF_SCHEMA).write_text("{}")
    supplied = TrexOptions(install_dir=str(tmp_path))
    assert missing_astf_schema(local, supplied) is None  # type: ignore[arg-type]
