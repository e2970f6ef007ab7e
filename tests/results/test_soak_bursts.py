"""Bursty loss in a soak: found in the trials, kept in the record, said in the message."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from record_helpers import SIM, sim_soak_record

from ndrpdr.report.soaksummary import soak_message, soak_metadata
from ndrpdr.results.schema import validate_record
from ndrpdr.results.soakbursts import MIN_CONTRADICTED, bursts_text, find_bursts
from ndrpdr.search.trial import TrialResult
from ndrpdr.topology.loader import load_topology

TARGET = 1e-7


def _trial(duration: float, load: float, lost: int) -> TrialResult:
    offered = round(duration * load)
    return TrialResult(duration, load, offered, offered - lost)


def _bursty(pairs: int) -> list[TrialResult]:
    """``pairs`` trials of 10 s at 5 Mpps that lost 5000 frames (100x the allowance), each
    followed by a 20 s trial at the same load that lost none."""
    trials = []
    for _ in range(pairs):
        trials += [_trial(10.0, 5e6, 5000), _trial(20.0, 5e6, 0)]
    return trials


def test_trials_that_contradict_a_smooth_loss_curve_are_bursts() -> None:
    bursts = find_bursts(_bursty(3), TARGET)
    assert bursts is not None
    assert (bursts.contradicted, bursts.trials, bursts.lowest_load) == (3, 6, 5e6)
    assert bursts.example == (
        "trial 1 (10 s at 5 Mpps) lost 5000 frames, trial 2 (20 s at 5 Mpps) lost none"
    )
    text = bursts_text(bursts.to_json())
    assert text.startswith("loss came in bursts: 3 of 6 trials lost over 10x the target")
    assert text.endswith(
        "the estimate reads how often trials lost, not how much, and its interval is wide"
    )


def test_one_is_enough() -> None:
    assert MIN_CONTRADICTED == 1
    assert find_bursts(_bursty(1), TARGET) is not None
    assert find_bursts(_bursty(0), TARGET) is None


@pytest.mark.parametrize(
    ("clean", "why"),
    [
        (_trial(5.0, 5e6, 0), "shorter: a buffer may have hidden the loss"),
        # A loss ratio of 1e-4 lets a cliff STEEPEST times as steep start 1.25e-5 below:
        # looked for no further than NEAREST_TARGETS (1e-5).
        (_trial(20.0, 5e6 * (1 - 2e-5), 0), "at a lower load, beyond the tolerance"),
        (_trial(20.0, 5e6, 1000), "lost too: 1e-5 is over the target"),
    ],
)
def test_what_a_smooth_curve_or_a_buffer_explains_is_no_burst(clean: TrialResult, why: str) -> None:
    trials = [_trial(10.0, 5e6, 5000), clean] * MIN_CONTRADICTED
    assert find_bursts(trials, TARGET) is None, why


def test_a_load_within_the_target_of_the_lossy_one_is_the_same_load() -> None:
    same = _trial(20.0, 5e6 * (1 - 0.5 * TARGET), 0)  # a soak converges to loads this close
    assert find_bursts([_trial(10.0, 5e6, 5000), same] * MIN_CONTRADICTED, TARGET) is not None


def test_a_clean_trial_closer_below_than_a_steep_loss_allows_shows_bursts() -> None:
    """5000 of 5e7 frames lost: no loss curve up to 8 cliffs steep is clean 5 targets below."""
    below = _trial(20.0, 5e6 * (1 - 5 * TARGET), 0)
    assert find_bursts([_trial(10.0, 5e6, 5000), below] * MIN_CONTRADICTED, TARGET) is not None


def test_a_loss_too_small_to_count_is_no_burst() -> None:
    # 8 frames lost in 1 s at 5 Mpps is 16x the allowance of 0.5 frames, but under MIN_FRAMES.
    trials = [_trial(1.0, 5e6, 8), _trial(2.0, 5e6, 0)] * MIN_CONTRADICTED
    assert find_bursts(trials, TARGET) is None


def _sim(directory: Path, model: str) -> Path:
    text = SIM.read_text()
    assert "model: sharp" in text, "sim.yaml changed: update _sim"
    path = directory / f"{model}.yaml"
    path.write_text(text.replace("model: sharp", f"model: {model}"))
    return path


@pytest.fixture(scope="module")
def bursty_record(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """A real 600 s soak on the simulated DUT whose level moves from trial to trial."""
    path = _sim(tmp_path_factory.mktemp("jitter"), "jitter")
    return sim_soak_record(load_topology(path), soak_time_s=600.0)


def test_a_few_frames_lost_per_trial_whatever_its_length_are_no_bursts() -> None:
    """30 frames lost in a 1 s trial, none in a 100 s trial at a higher load that allowed 60:
    a few frames per trial vanish from the long-run average (``per_trial_frames``)."""
    assert find_bursts([_trial(1.0, 5e6, 30), _trial(100.0, 6e6, 0)], TARGET) is None
    assert find_bursts([_trial(1.0, 5e6, 30), _trial(20.0, 6e6, 0)], TARGET) is not None


def test_a_bursty_duts_soak_record_says_so(bursty_record: dict[str, Any]) -> None:
    validate_record(bursty_record)
    assert bursty_record["version"] == "1.14.0"
    bursts = bursty_record["soak"]["bursts"]
    assert bursts is not None and bursts["contradicted"] >= MIN_CONTRADICTED
    assert bursts["trials"] == bursty_record["soak"]["trial_count"]
    assert bursts["lowest_load_pps"] > 0 and " lost none" in bursts["example"]
    message = soak_message(bursty_record)
    assert message.splitlines()[-1].startswith("WARNING: loss came in bursts: ")
    assert soak_metadata(bursty_record)["SOAK_BURSTS"] == str(bursts["contradicted"])


def test_a_smooth_duts_soak_record_says_nothing_of_bursts() -> None:
    record = sim_soak_record(load_topology(SIM), soak_time_s=600.0)
    validate_record(record)
    assert record["soak"]["bursts"] is None
    assert "bursts" not in soak_message(record) and "SOAK_BURSTS" not in soak_metadata(record)


def test_a_soak_record_of_format_1_8_0_without_bursts_is_still_read(
    bursty_record: dict[str, Any],
) -> None:
    old = {**bursty_record, "version": "1.8.0"}
    old["soak"] = {k: v for k, v in bursty_record["soak"].items() if k != "bursts"}
    validate_record(old)
    assert "bursts" not in soak_message(old) and "SOAK_BURSTS" not in soak_metadata(old)
