"""The det44 family on the real VPP v26.06 (local-vpp.yaml): translation and the session check.

VPP runs the family's set-up (det44 of 192.168.0.0/16 to 68.142.68.0/26);
the TG sends a small sample of its flows (2 inside hosts x 63 ports, the
family's own sample: direction 1 goes to the outside ports det44 gives
them). Frames to the outside find no session and are dropped until
direction 0 made them; the ramp-up makes them, the state check counts
them with VPP's own ``show det44 mappings``, and a check that expects more
sessions than the flows made fails naming the count. Then the NAT44-ED
udir family: direction 0's sample crosses, translated, and VPP counts one
UDP session per flow.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from familybed import FamilyBed, family_bed, pid_alive, require_vpp

from ndrpdr.families import get_family
from ndrpdr.families.kinds.nat.vpp import NatVpp
from ndrpdr.families.stateful import RampUp, StateCount, StatePlan
from ndrpdr.profiles import Profile, build_frames
from ndrpdr.rampup import RampedTraffic, StateCheckError
from ndrpdr.search import TrialResult

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

DET = "ethip4udp-nat44det-h65536-p63-s4128758"
UDIR = "ethip4udp-nat44ed-h65536-p63-s4128768-udir"
#: Two inside hosts' flows.
FLOWS = 126


@pytest.fixture(scope="module")
def bed() -> Iterator[FamilyBed]:
    require_vpp()
    with family_bed("vpp") as made:
        made.configure(DET)
        yield made
        pids = made.close()
        assert pids and not any(pid_alive(pid) for pid in pids)


class BedTG:
    """A TG sending every frame of the sample once per trial, in each direction, for real."""

    max_load_pps = 1e6

    def __init__(self, bed: FamilyBed, sample: Profile) -> None:
        self.bed = bed
        self.frames = [frames(bed, sample, d) for d in (0, 1)]

    def measure(self, duration: float, load: float) -> TrialResult:
        sent = received = 0
        for direction in (0, 1):
            out, back = self.bed.send(direction, self.frames[direction], attempts=1)
            sent, received = sent + out, received + back
        return TrialResult(duration, load, sent, forwarded_count=received)

    def stop_traffic(self) -> None:
        """Nothing runs between trials."""

    def close(self) -> None:
        """Nothing to release."""


def frames(bed: FamilyBed, sample: Profile, direction: int) -> list[bytes]:
    src = bed.tg_mac("port1" if direction == 0 else "port2")
    return build_frames(sample, 64, direction, src, bed.entry_mac(direction))


def sessions(bed: FamilyBed, family: str = DET) -> StateCount:
    """The family's session count on DUT1, read as the state check reads it."""
    vpp = get_family(family).setup.vpp
    assert isinstance(vpp, NatVpp)
    check = vpp.state_check
    output = bed.drivers["DUT1"].run_cli(check.command)
    return StateCount("DUT1", check.what, check.command, check.parse(output))


def test_det44_translates_the_sample_and_the_session_check_counts_it(bed: FamilyBed) -> None:
    profile = get_family(DET).profile
    assert profile.sampler is not None
    sample = profile.sampler(FLOWS)
    assert [d.flows for d in sample.directions] == [FLOWS, FLOWS]
    tg = BedTG(bed, sample)
    # no session yet: det44 drops every frame sent to the outside addresses
    assert bed.send(1, tg.frames[1], attempts=1) == (FLOWS, 0)
    assert sessions(bed).count == 0

    ramped = RampedTraffic(tg, StatePlan(DET, _ramp_up(), 4128768, FLOWS, 2, lambda: sessions(bed)))
    state = ramped.prepare()
    assert state is not None and state.count == FLOWS
    assert ramped.to_json()["state"]["expected"] == FLOWS
    # now both directions cross: direction 1 finds each session direction 0 made
    assert bed.send(1, tg.frames[1]) == (FLOWS, FLOWS)
    assert bed.send(0, tg.frames[0]) == (FLOWS, FLOWS)
    assert sessions(bed).count == FLOWS  # no new sessions: the same flows

    # a check expecting three hosts' sessions while two hosts' flows were sent fails
    short = StatePlan(DET, _ramp_up(), 4128768, FLOWS + 63, 2, lambda: sessions(bed))
    with pytest.raises(StateCheckError, match=rf"DUT1: {FLOWS} DET44 sessions after 2 ramp-up"):
        RampedTraffic(tg, short).prepare()


def _ramp_up() -> RampUp:
    ramp_up = get_family(DET).ramp_up
    assert ramp_up is not None
    return ramp_up


def test_nat44ed_translates_one_way_and_counts_a_session_per_flow(bed: FamilyBed) -> None:
    """Last in the module: it sets the NAT44-ED family up on the bed's VPP (a fresh one)."""
    bed.configure(UDIR)
    profile = get_family(UDIR).profile
    assert profile.sampler is not None and profile.unidirectional
    sample = profile.sampler(FLOWS)
    assert sessions(bed, UDIR).count == 0
    assert bed.send(0, frames(bed, sample, 0)) == (FLOWS, FLOWS)
    assert sessions(bed, UDIR).count == FLOWS  # one UDP session per (source, port, destination)
