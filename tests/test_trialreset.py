"""The DUT's state reset before every trial (CSIT's ``${resetter}``): order, commands, record.

The search runs on the sim's TG with a reset that logs its calls next to
the trials; the commands come from the families' VPP set-ups, run by a
fake VPP DUT on a fake testbed (the real VPP cannot run on this machine:
SIGILL, no AVX-512), and are CSIT's (``NATUtil.set_nat44_address_range``'s
resetter, ``Sfdp.create_sfdp_resetter``), checked line by line.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from ndrpdr.activebed.statecount import trial_reset
from ndrpdr.dut.base import DutError
from ndrpdr.families import get_family
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.runsetup import RunSetup
from ndrpdr.search import TrialResult
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator
from ndrpdr.trialreset import ResetTraffic
from NdrPdrLibrary.traffic import Traffic, prepared_tg
from search_call import search_call

SIM = Path(__file__).resolve().parents[1] / "topologies" / "sim.yaml"
NAT_CPS = "ethip4udp-nat44ed-h65536-p63-s4128768-cps"
NAT_TPUT = "ethip4udp-nat44ed-h65536-p63-s4128768-tput"
SFDP_CPS = "ethip4tcp-sfdp-l4ip4-h65536-p63-s4128768-cps"
POOL = "nat44 add address 68.142.68.0 - 68.142.68.63"


class LoggedTG:
    """The sim's TG, each trial logged in ``log`` as "trial"."""

    def __init__(self, tg: SimTrafficGenerator, log: list[str]) -> None:
        self.tg, self.log = tg, log
        self.max_load_pps = tg.max_load_pps
        self.sends_frame_list = False

    def measure(self, duration: float, load: float) -> TrialResult:
        self.log.append("trial")
        return self.tg.measure(duration, load)

    def stop_traffic(self) -> None:
        self.tg.stop_traffic()

    def close(self) -> None:
        self.tg.close()


def _search(log: list[str], reset: Any) -> dict[str, Any]:
    topology = load_topology(SIM)
    profile = get_family(NAT_CPS).profile
    tg = LoggedTG(SimTrafficGenerator(topology, profile=profile), log)
    goals = ndr_pdr_goals(duration_sum_s=2.0, relative_width=0.05)
    run = search_call(tg, topology=topology, profile=profile, frame_size=64, goals=goals,
                      trial_reset=reset, calibrate=True)  # fmt: skip
    assert run.error is None
    return run.record.to_json()


def test_every_trial_follows_one_reset_and_the_record_is_as_without_it() -> None:
    log: list[str] = []
    record = _search(log, lambda: log.append("reset"))
    trials = log.count("trial")
    assert trials >= 5 and log == ["reset", "trial"] * trials  # calibration's trials too
    plain: list[str] = []
    without = _search(plain, None)
    assert plain == ["trial"] * trials
    assert record["trials"] == without["trials"]
    assert len(record["trials"]) == record["search"]["trial_count"] == trials - calibration(record)
    for key in ("ndr", "pdr", "goals"):
        assert record[key] == without[key], key
    for key in ("trial_count", "max_load_cap", "min_load_pps", "max_load_pps"):
        assert record["search"][key] == without["search"][key], key
    assert "ramp_up" not in record["search"]  # no other section for the reset


def calibration(record: dict[str, Any]) -> int:
    """The calibration's trials (not the search's: not in the record's trials)."""
    cap = record["search"]["max_load_cap"]
    return len(cap["trials"]) if cap else 0


def test_a_failed_reset_fails_the_run_before_its_trial() -> None:
    log: list[str] = []

    def reset() -> None:
        raise DutError("DUT1: cli `nat44 add address ...`: no such pool")

    topology = load_topology(SIM)
    profile = get_family(NAT_CPS).profile
    tg = LoggedTG(SimTrafficGenerator(topology, profile=profile), log)
    run = search_call(tg, topology=topology, profile=profile, frame_size=64,
                      goals=ndr_pdr_goals(duration_sum_s=2.0), trial_reset=reset)  # fmt: skip
    assert run.error is not None and "no such pool" in run.error
    assert log == [] and run.record.to_json()["trials"] == []


def test_the_wrapper_resets_before_latency_trials_and_passes_the_rest_through() -> None:
    calls: list[str] = []

    class Latency:
        max_load_pps, sends_frame_list = 5.0, False

        def measure(self, duration: float, load: float) -> TrialResult:
            calls.append("trial")
            return TrialResult(duration, load, 10, forwarded_count=10)

        def measure_latency(self, duration_s: float, load_pps: float) -> None:
            calls.append("latency")

        def stop_traffic(self) -> None:
            calls.append("stop")

        def close(self) -> None:
            calls.append("close")

    wrapped = ResetTraffic(Latency(), lambda: calls.append("reset"))  # type: ignore[arg-type]
    assert wrapped.max_load_pps == 5.0 and not wrapped.sends_frame_list
    wrapped.measure(1.0, 2.0)
    wrapped.measure_latency(1.0, 2.0)
    wrapped.stop_traffic()
    wrapped.close()
    assert calls == ["reset", "trial", "reset", "latency", "stop", "close"]
    assert wrapped.resets == 2


class FakeVpp:
    """A VPP DUT's CLI: records each command, answers ``show sfdp tenant`` from ``left``."""

    def __init__(self, left: list[int]) -> None:
        self.left = left
        self.commands: list[str] = []

    def run_cli(self, command: str) -> str:
        self.commands.append(command)
        if command.startswith("show sfdp tenant"):
            remaining = self.left.pop(0) if len(self.left) > 1 else self.left[0]
            return f"  created sessions: 100\n  removed sessions: {100 - remaining}\n"
        return ""


def _testbed(driver: str, dut: FakeVpp) -> Any:
    """A 2-node testbed of one DUT ``DUT1`` of ``driver``, as ``trial_reset`` reads one."""
    return SimpleNamespace(
        path=SimpleNamespace(duts=("DUT1",)),
        topology=SimpleNamespace(nodes={"DUT1": SimpleNamespace(driver=driver)}),
        duts={"DUT1": dut},
    )


def test_nat44ed_cps_reset_is_csits_pool_deleted_and_added_before_each_trial() -> None:
    dut = FakeVpp([0])
    reset = trial_reset(_testbed("vpp", dut), get_family(NAT_CPS))
    assert reset is not None
    reset()
    reset()
    assert dut.commands == [f"{POOL} del", POOL] * 2


def test_sfdp_cps_reset_kills_every_session_and_waits_for_an_empty_table() -> None:
    dut, slept = FakeVpp([40, 3, 0]), []
    reset = trial_reset(_testbed("vpp", dut), get_family(SFDP_CPS), sleep=slept.append)
    assert reset is not None
    reset()
    shown, kill, poll = (
        "show sfdp session-table max 10", "kill sfdp session all", "show sfdp tenant 1 detail"
    )  # fmt: skip
    assert dut.commands == [shown, kill, poll, poll, poll]
    assert slept == [0.1, 0.1]


def test_sessions_left_after_the_timeout_fail_naming_them() -> None:
    now = [0.0]

    def sleep(seconds: float) -> None:
        now[0] += seconds

    reset = trial_reset(_testbed("vpp", FakeVpp([3])), get_family(SFDP_CPS), sleep=sleep,
                        clock=lambda: now[0])  # fmt: skip
    assert reset is not None
    with pytest.raises(DutError, match=r"DUT1: SFDP sessions killed: 3 SFDP sessions left after "
                       r"10 s \(`show sfdp tenant 1 detail`\)"):  # fmt: skip
        reset()
    assert now[0] == pytest.approx(10.0, abs=0.11)


@pytest.mark.parametrize(
    ("driver", "family_id"),
    [("sim", NAT_CPS), ("vpp", NAT_TPUT), ("vpp", "ethip4udp-ip4base-h65536-p63-s4128768-cps"),
     ("vpp", "ethip4udp-nat44ed-h65536-p63-s4128768-udir")],
)  # fmt: skip
def test_no_reset_where_csit_sets_no_resetter_or_the_dut_keeps_no_state(
    driver: str, family_id: str
) -> None:
    """The sim keeps no sessions; tput and udir ramp up instead; ip4base keeps none."""
    dut = FakeVpp([0])
    assert trial_reset(_testbed(driver, dut), get_family(family_id)) is None
    assert dut.commands == []


def test_the_run_setup_hands_the_search_its_reset() -> None:
    dut = FakeVpp([0])
    profile = get_family(NAT_CPS).profile
    setup = RunSetup(_testbed("vpp", dut), None, SimpleNamespace(profile=profile))  # type: ignore[arg-type]
    reset = setup.trial_reset()
    assert reset is not None
    reset()
    assert dut.commands == [f"{POOL} del", POOL]


def test_the_keywords_mrr_and_soak_tg_resets_before_each_trial_as_csits() -> None:
    """CSIT calls its resetter before each MRR trial (``Call Resetter``) and soak trial too."""
    dut, log = FakeVpp([0]), []
    profile = get_family(NAT_CPS).profile
    inner = SimpleNamespace(max_load_pps=1e6, sends_frame_list=False,
                            measure=lambda d, load: log.append("trial"))  # fmt: skip
    ctx = SimpleNamespace(testbed=_testbed("vpp", dut), topology=None)
    tg = prepared_tg(ctx, Traffic(profile, 64, inner, 2))  # type: ignore[arg-type]
    assert isinstance(tg, ResetTraffic)
    tg.measure(1.0, 10.0)
    tg.measure(1.0, 10.0)
    assert dut.commands == [f"{POOL} del", POOL] * 2 and log == ["trial", "trial"]
    sim = SimpleNamespace(max_load_pps=1e6, sends_frame_list=False)
    plain = prepared_tg(
        SimpleNamespace(testbed=_testbed("sim", dut), topology=None),  # type: ignore[arg-type]
        Traffic(profile, 64, sim, 2),  # type: ignore[arg-type]
    )
    assert plain is sim
