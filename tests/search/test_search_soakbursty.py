"""The soak fit's bursty model (``ndrpdr.search.soak.soakbursty``) and the switch to it."""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import pytest

from ndrpdr.search.soak import soakbursty, soakspells
from ndrpdr.search.soak.soakfit import WIDTHS, Observation, Posterior, log_likelihood_row
from ndrpdr.search.trial import TrialResult

TARGET = 1e-7


def _trial(duration: float, load: float, lost: float) -> TrialResult:
    frames = duration * load
    return TrialResult(duration, load, frames, frames - lost, lost)


def test_a_clean_trial_far_below_is_likely_and_a_lossy_one_is_not() -> None:
    row_clean = soakbursty.bursty_row(1e6, False, 2e6, 1e-3)
    row_lossy = soakbursty.bursty_row(1e6, True, 2e6, 1e-3)
    assert all(math.exp(v) > 0.99 for v in row_clean)
    assert all(v < math.log(1e-3) for v in row_lossy)
    assert len(row_clean) == len(soakbursty.WIDTHS)
    assert soakspells.columns() == len(soakbursty.WIDTHS) + len(soakspells.SPELL_LEADS)


def test_above_the_critical_load_a_lossy_trial_is_likely_on_a_cliff() -> None:
    cliff = soakbursty.bursty_row(2e6 * 1.01, True, 2e6, 1e-3)[0]  # the narrowest width
    assert math.exp(cliff) > 0.99


def test_the_burst_size_is_the_median_lossy_ratio_when_bursts_keep_their_size() -> None:
    seen = [Observation(1e6, 1e6, lost, 1.0) for lost in (0.0, 10.0, 100.0, 1000.0)]
    size = soakbursty.burst_size(seen, TARGET)
    assert (size.slope, size.lowest, size.events) == (0.0, math.log(1e6), False)
    assert math.exp(size.log_size) == pytest.approx(1e-4)
    assert soakbursty.burst_size(seen[:1], TARGET) == soakbursty.NO_BURSTS  # no lossy trial
    assert soakbursty.chance_at(size, 5e5, TARGET) == pytest.approx(1e-3)


def test_bursts_that_shrink_as_the_load_falls_make_a_lossy_trial_likelier_below() -> None:
    """Spells of a slower capacity: at 9 Mpps a spell costs 100x the frames it costs at
    8.1 Mpps; the size is a power of the load through them, taken as at the lowest burst
    below it, and overload above every clean trial (20 Mpps) is no burst."""
    seen = [
        Observation(9e6, 9e8, 9e4, 100.0),  # ratio 1e-4
        Observation(8.1e6, 8.1e8, 8.1e2, 100.0),  # ratio 1e-6
        Observation(9.5e6, 9.5e8, 0.0, 100.0),  # clean: the top clean load
        Observation(2e7, 2e7, 1e6, 1.0),  # overload, far above: left out
    ]
    size = soakbursty.burst_size(seen, TARGET)
    log_s, slope, lowest, _ = size
    assert slope == pytest.approx(math.log(100.0) / math.log(9e6 / 8.1e6))
    assert lowest == pytest.approx(math.log(8.1e6))
    # The median burst (1e-4 of the frames, the upper of two) at their mean log load.
    middle = math.sqrt(9e6 * 8.1e6)
    assert math.exp(log_s + slope * math.log(middle)) == pytest.approx(1e-4)
    low, high = (soakbursty.chance_at(size, load, TARGET) for load in (8.1e6, 9e6))
    assert low / high == pytest.approx(100.0)  # a lossy trial is 100x likelier at 8.1 Mpps
    assert soakbursty.chance_at(size, 4e6, TARGET) == soakbursty.chance_at(size, 8.1e6, TARGET)
    tiny = soakbursty.BurstSize(math.log(1e-9), 0.0, 0.0)
    assert soakbursty.chance_at(tiny, 1e6, TARGET) == 0.5  # at most


def test_contradicted_pairs_a_lossy_trial_with_a_clean_one_no_lower() -> None:
    seen = [Observation(5e6, 5e7, 5000.0, 10.0), Observation(5e6, 1e8, 0.0, 20.0)]
    assert soakbursty.contradicted(seen, TARGET) == [(0, 1)]
    assert soakbursty.contradicted(seen[::-1], TARGET) == [(1, 0)]
    assert soakbursty.contradicted([seen[0], Observation(4e6, 1e8, 0.0, 25.0)], TARGET) == []


def test_the_posterior_switches_to_the_bursty_model_on_bursts_only() -> None:
    smooth = Posterior(TARGET, 1e5, 3e7)
    for load in (2e7, 1e7, 5e6):
        smooth.add(_trial(10.0, load, max(0.0, (load - 8e6) * 10.0)))
    assert not smooth.bursty
    bursty = Posterior(TARGET, 1e5, 3e7)
    for _ in range(3):
        bursty.add(_trial(10.0, 5e6, 5000.0))
        bursty.add(_trial(20.0, 5e6, 0.0))
    assert bursty.bursty and bursty.coarse is not None and bursty.coarse.bursty
    assert 0.0 < soakbursty.chance_at(bursty.size, 4e6, TARGET) <= 0.5
    estimate = bursty.estimate()
    assert estimate.low < 5e6  # lossy trials at 5 Mpps: the critical load lies below


def test_a_few_frames_per_trial_are_taken_off_once_a_longer_trial_allows_them() -> None:
    short = Observation(5e6, 5e6, 30.0, 1.0)  # 1 s: 60x its allowance of 0.5 frames
    allows_it = Observation(6e6, 6e8, 0.0, 100.0)  # allows 60 frames, at a higher load
    assert soakbursty.per_trial_frames([short, allows_it], TARGET) == 30.0
    # The same pair is then no burst: the longer trial would have kept within its allowance.
    assert soakbursty.contradicted([short, allows_it], TARGET) == []


def test_no_frames_per_trial_without_a_longer_trial_at_a_load_no_lower_that_allows_them() -> None:
    short = Observation(5e6, 5e6, 30.0, 1.0)
    too_few = Observation(6e6, 1.2e8, 0.0, 20.0)  # allows 12 frames only: a burst
    lower = Observation(4e6, 4e8, 0.0, 100.0)  # allows 40 frames, but at a lower load
    assert soakbursty.per_trial_frames([short, too_few, lower], TARGET) == 0.0
    assert soakbursty.contradicted([short, too_few], TARGET) == [(0, 1)]
    # A loss that a trial as long, at a load no lower, makes plausible is not excused.
    near = Observation(5e6, 5e8, 30.0, 100.0)  # within its allowance of 50
    plausible = Observation(6e6, 6e8, 20.0, 100.0)  # 36 or more expected: 20 is no surprise
    assert soakbursty.per_trial_frames([near, plausible], TARGET) == 0.0


def test_frames_lost_within_the_allowance_are_taken_off_when_a_longer_trial_lost_far_fewer() -> (
    None
):
    """The ``sporadic`` DUT's few frames land in long trials too, within their allowance: a
    smooth curve reads them as a loss ratio that a longer trial at a load no lower (36 or
    more frames expected) shows to be false."""
    near = Observation(5e6, 5e8, 30.0, 100.0)
    spared = Observation(6e6, 6e8, 0.0, 100.0)
    assert soakbursty.per_trial_frames([near, spared], TARGET) == 30.0
    assert soakbursty.per_trial_frames([near, dataclasses.replace(spared, load=4e6)], TARGET) == 0


def test_a_longer_trial_within_the_trial_to_trial_spread_is_no_proof_of_loss_per_trial() -> None:
    """A DUT whose loss ratio moves from trial to trial by a factor (sim ``plateau``, the
    kernel on the lab in a box) has a longer trial at a load no lower lose a third of the
    first one's ratio: implausible for a Poisson count, plain for a spread of a factor of a
    few. Read as loss per trial it took up to 142 frames off every trial, and the soak's
    estimate went above the truth (plateau seeds 11000: the interval held it in 45 %)."""
    near = Observation(5e6, 5e8, 40.0, 100.0)  # allowance 50
    third = Observation(5e6, 6e8, 16.0, 120.0)  # 48 expected from the first's ratio
    assert soakbursty.implausibly_few(third.lost, 48.0)
    assert soakbursty.per_trial_frames([near, third], TARGET) == 0.0
    tenth = dataclasses.replace(third, lost=4.0)  # below a tenth of the first one's ratio
    assert soakbursty.per_trial_frames([near, tenth], TARGET) == 40.0


@pytest.mark.parametrize(
    ("count", "mean", "implausible"),
    [(0.0, 10.0, True), (0.0, 5.0, False), (20.0, 36.0, False), (20.0, 60.0, True), (9, 8, False)],
)
def test_implausibly_few_is_a_poisson_tail_below_one_in_a_thousand(
    count: float, mean: float, implausible: bool
) -> None:
    assert soakbursty.implausibly_few(count, mean) is implausible


def test_frames_per_trial_turn_the_bursty_model_off_again() -> None:
    posterior = Posterior(TARGET, 1e5, 3e7)
    posterior.add(_trial(1.0, 5e6, 30.0))
    posterior.add(_trial(2.0, 5e6, 0.0))  # allows 1 frame: the 30 look like a burst
    assert posterior.bursty and posterior.per_trial == 0.0
    posterior.add(_trial(100.0, 6e6, 0.0))  # allows 60: 30 frames a trial are no burst
    assert not posterior.bursty and posterior.per_trial == 30.0
    assert posterior.coarse is not None
    assert (posterior.coarse.bursty, posterior.coarse.per_trial) == (False, 30.0)
    # The 30 frames lost at 5 Mpps no longer put the critical load below it.
    assert posterior.estimate().low > 5e6


def test_switching_to_bursts_rebuilds_the_grids_whatever_the_chance() -> None:
    """Lossy trials barely over twice their allowance make the bursts small, so the chance
    of a lossy trial at the critical load is near the most allowed (0.5): the switch must
    still rebuild the grids with the bursty model's columns (it once skipped that and
    crashed)."""
    posterior = Posterior(TARGET, 1e5, 3e7)
    for _ in range(3):
        posterior.add(_trial(10.0, 4e6, 9.0))  # allowance 4 frames: barely bursts
    posterior.add(_trial(10.0, 5e6, 5000.0))
    # Contradicts the 5000 frames (bursts); allows 5 frames, fewer than the 9 lost at 4 Mpps.
    posterior.add(_trial(10.0, 5e6, 0.0))
    assert posterior.bursty and posterior.per_trial == 0.0
    assert 0.4 < soakbursty.chance_at(posterior.size, 4e6, TARGET) <= 0.5
    estimate = posterior.estimate()
    assert 1e5 <= estimate.low <= estimate.high <= 5e6


def test_slack_reads_up_to_that_many_frames_as_maybe_lost() -> None:
    """With a slack of ``k`` frames a trial that lost ``x`` fits curves expecting ``x - k``
    to ``x`` nearly as well as one expecting ``x`` (less the chance of the count spared,
    ``log(k + 1)``); curves expecting more are read as without slack, and curves expecting
    less are penalised less than without it."""
    trial = Observation(5e6, 5e8, 30.0, 100.0)
    for critical in (4.9e6, 5e6, 5.1e6):
        plain = log_likelihood_row(trial, critical, TARGET)
        slack = log_likelihood_row(trial, critical, TARGET, 30.0)
        assert len(slack) == len(plain) == len(WIDTHS) + 1  # and the capacity cliff
        for with_slack, without in zip(slack, plain, strict=True):
            assert with_slack >= without - 1e-9
    # Curves expecting 50 frames or more (the trial is at or above the critical load): alike.
    for critical in (4.9e6, 5e6):
        plain = log_likelihood_row(trial, critical, TARGET)
        assert log_likelihood_row(trial, critical, TARGET, 30.0) == pytest.approx(plain)
    # Far below the critical load the curves expect no loss: the slack excuses all 30 frames,
    # at the cost of their chance (one count in 31): a trial spared them reads best as it is.
    far_below = log_likelihood_row(trial, 6e6, TARGET, 30.0)
    assert max(far_below) == pytest.approx(math.lgamma(31.0) - math.log(31.0), rel=1e-3)


def test_a_heavy_loss_rules_out_a_clean_trial_a_few_targets_below_it() -> None:
    """No DUT loses more steeply than ``STEEPEST`` cliffs: a trial that lost 1e-3 of its
    frames cannot have a longer clean trial 5 targets below it, however its loss curve
    bends; only so far down (``NEAREST_TARGETS``) is such a pair looked for."""
    assert soakbursty.steepest_share(Observation(5e6, 5e7, 5e4, 10.0), TARGET) == pytest.approx(
        soakbursty.NEAREST_TARGETS * TARGET
    )
    assert soakbursty.steepest_share(Observation(5e6, 5e7, 100.0, 10.0), TARGET) == (
        pytest.approx((2e-6 - TARGET) / soakbursty.STEEPEST)
    )
    heavy = Observation(5e6, 5e7, 5e4, 10.0)
    near = Observation(5e6 * (1 - 5 * TARGET), 2e8, 0.0, 40.0)
    far = Observation(5e6 * (1 - 2 * soakbursty.NEAREST_TARGETS * TARGET), 2e8, 0.0, 40.0)
    assert soakbursty.contradicted([heavy, near], TARGET) == [(0, 1)]
    assert soakbursty.contradicted([heavy, far], TARGET) == []


def test_a_shorter_clean_trial_contradicts_a_lossy_one_past_any_plausible_buffer() -> None:
    """Spells (sim ``spells`` seed 50011): a 55 s trial lost 1 % a hair above a clean 50 s
    one. Only a buffer of 5.5 s of the load (a capacity 11 % lower) explains the pair, so it
    is a burst; a 0.19 s buffer behind a capacity 5 % lower (sim ``duration``) explains its
    own pair, and ``buffer_seconds`` reads no more than that buffer."""
    load = 11.45e6
    lossy = Observation(load, 55.0 * load, 0.01 * 55.0 * load, 55.0)
    clean = Observation(load * (1 - 5e-6), 50.0 * load * (1 - 5e-6), 0.0, 50.0)
    assert soakbursty.buffer_seconds(lossy, clean) == pytest.approx(5.5, rel=0.01)
    assert soakbursty.contradicted([lossy, clean], TARGET) == [(0, 1)]
    capacity, buffer = 0.95 * load, 0.19 * load
    behind = Observation(load, 5.0 * load, (load - capacity) * 5.0 - buffer, 5.0)
    short = Observation(load, 3.0 * load, 0.0, 3.0)  # (L - C) 3 s is under the buffer
    assert soakbursty.far_beyond(behind, TARGET)
    assert soakbursty.buffer_seconds(behind, short) <= buffer / load + 1e-9
    assert soakbursty.contradicted([behind, short], TARGET) == []
    assert soakbursty.buffer_seconds(short, behind) == math.inf  # the clean one is longer


def test_a_cliff_between_a_light_loss_and_a_clean_trial_below_is_no_burst() -> None:
    """A trial that lost 20 times its allowance (2e-6) on a cliff is 2e-6 above the capacity:
    a clean trial 1e-6 below it may sit just under the capacity."""
    light = Observation(5e6, 5e7, 100.0, 10.0)
    below = Observation(5e6 * (1 - 1e-6), 2e8, 0.0, 40.0)
    assert soakbursty.far_beyond(light, TARGET)
    assert soakbursty.contradicted([light, below], TARGET) == []


def test_trials_barely_over_their_allowance_are_no_bursts() -> None:
    """Trials that lost 1.5 times their allowance sit on a capacity cliff: the burst size is
    the one that lost 1e-3, not the median of the three."""
    seen = [
        Observation(4e6, 4e7, 6.0, 10.0),  # allowance 4
        Observation(4e6, 4e7, 6.0, 10.0),
        Observation(4e6, 4e7, 4e4, 10.0),
        Observation(4.1e6, 4.1e7, 0.0, 10.0),
    ]
    size = soakbursty.burst_size(seen, TARGET)
    assert size.slope == 0.0 and math.exp(size.log_size) == pytest.approx(1e-3)


def _walk(lost_of: Callable[[int, float], float]) -> list[Observation]:
    """40 trials of 1 s growing to 41 s (x1.1 each) at 1 Mpps, each 0.1 % below the last
    (a soak walking down a hair at a time); ``lost_of(index, duration)`` frames each."""
    trials = []
    for index in range(40):
        duration, load = 1.1**index, 1e6 * (1.0 - 0.001 * index)
        trials.append(Observation(load, load * duration, lost_of(index, duration), duration))
    return trials


def _every_third(lost: Callable[[float], float]) -> Callable[[int, float], float]:
    """``lost(duration)`` frames in every third trial, none in the others."""
    return lambda index, duration: lost(duration) if index % 3 == 1 else 0.0


def test_a_few_frames_lost_whatever_the_duration_at_one_load_are_per_trial() -> None:
    """The ``sporadic`` trap: a third of the 1 s trials lose 25-30 frames (250x their
    allowance), and so do a third of the 41 s ones; no longer trial at a load no lower
    allows that many (``per_trial_frames``' first rule finds none), but a chance per trial
    and a count that does not grow with the duration tell what the loss is."""
    seen = _walk(lambda index, _: 25.0 + 5.0 * ((index // 3) % 2) if index % 3 == 1 else 0.0)
    lossy_ones = [o for o in seen if o.lost > 0]
    assert max(o.lost for o in lossy_ones) == 30.0
    assert soakbursty.at_one_load(seen, TARGET) == 30.0
    assert soakbursty.per_trial_frames(seen, TARGET) == 30.0
    assert soakbursty.per_trial_gain(lossy_ones, [o for o in seen if o.lost == 0]) > 5.0
    # Spread over more than ONE_LOAD, the trials are no longer at one load.
    spread = [dataclasses.replace(o, load=o.load * 1.02**i) for i, o in enumerate(seen)]
    assert soakbursty.at_one_load(spread, TARGET) == 0.0


def test_loss_that_grows_with_the_duration_is_no_per_trial_loss() -> None:
    """A loss ratio (a noisy knee's lossy trial loses a share of its frames): the lost frames
    grow with the duration; a rate per second (interrupts): long trials lose more often."""
    assert soakbursty.at_one_load(_walk(_every_third(lambda d: 2.0 * d)), TARGET) == 0.0
    per_second = _walk(lambda index, d: 30.0 if d > 20.0 and index % 2 else 0.0)
    per_second[0] = dataclasses.replace(per_second[0], lost=30.0)  # one short lossy trial
    lossy_ones = [o for o in per_second if o.lost > 0]
    assert soakbursty.per_trial_gain(lossy_ones, [o for o in per_second if o.lost == 0]) < 0.0
    assert soakbursty.at_one_load(per_second, TARGET) == 0.0


def test_per_trial_frames_drawn_at_random_grow_slowly_within_their_scatter() -> None:
    """Sim ``sporadic`` seed 70005: at one load four lossy trials lost 2, 23, 22 and 26
    frames in 3.5, 17.4, 23.2 and 66.3 s. The slope of their logs is 0.92, but 0.31 is its
    standard error: ``at_one_load`` asks for a slope ``CLEARLY`` (2) errors above 0.5 before
    it reads growth. Lost frames that grow with the duration without scatter still do."""
    load = 1e6
    drawn = [
        Observation(load, d * load, lost, d)
        for d, lost in ((3.5, 2), (17.4, 23), (23.2, 22), (66.3, 26))
    ]
    assert not soakbursty.lost_grows_slowly(drawn)
    assert soakbursty.lost_grows_slowly(drawn, soakbursty.CLEARLY)
    shares = [Observation(load, d * load, 2.0 * d, d) for d in (3.5, 17.4, 23.2, 66.3)]
    assert not soakbursty.lost_grows_slowly(shares, soakbursty.CLEARLY)


def test_hundreds_of_frames_a_trial_are_no_few_frames_per_trial() -> None:
    seen = _walk(_every_third(lambda _: 250.0))
    assert soakbursty.at_one_load(seen, TARGET) == 0.0
    assert soakbursty.at_one_load(_walk(_every_third(lambda _: 80.0)), TARGET) == 80.0


def test_the_likeliest_rate_of_many_short_lossy_trials_stays_in_a_float() -> None:
    """Ten 1 s trials lost, two 1 s ones did not, one of 1000 s lost: the rate's search
    passes through rates whose ``exp(r D)`` is beyond a float; it must not overflow."""
    lossy_ones = [Observation(1e6, 1e6, 30.0, 1.0)] * 10 + [Observation(1e6, 1e9, 30.0, 1e3)]
    clean = [Observation(1e6, 1e6, 0.0, 1.0)] * 2
    assert soakbursty.per_trial_gain(lossy_ones, clean) < 0.0  # lossy 10 of 12: per second
