"""Honest results in real Robot runs and real CLI processes on the simulator.

A TG-limited sim TG (``max_offered_pps``: it sends 1 Mpps while its ports
carry 29.8 Mpps and the DUT forwards 4.4 Mpps) must give a test tagged
``TG_LIMITED`` with the metadata and message saying so; a search stopped
by a Robot test timeout, SIGINT or SIGTERM must leave a record with the
bounds its trials support, marked incomplete. The sim TG's
``wall_time_factor`` makes trials take real time so the stops land mid-search.
"""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from acceptance_helpers import SIM, SUITES, child_env, index_tests, read_output, run_robot

from ndrpdr.results.schema import validate_record

ROOT = SUITES.parent


def _topology(tmp: Path, **tg_options: float) -> Path:
    """sim.yaml with the TG's options extended by ``tg_options``."""
    text = SIM.read_text()
    anchor = "      max_rate_pps: 29761904"
    assert anchor in text
    extra = "".join(f"\n      {key}: {value}" for key, value in tg_options.items())
    path = tmp / "sim-tg.yaml"
    path.write_text(text.replace(anchor, anchor + extra))
    return path


@pytest.mark.parametrize("irregular", ["fail", "warn"])
def test_tg_limited_robot_run(tmp_path: Path, irregular: str) -> None:
    """TG-limited bounds are irregular: the test fails (default ``${IRREGULAR}`` fail), or
    with ``IRREGULAR:warn`` passes with a warning; tagged IRREGULAR and TG_LIMITED either way."""
    topology = _topology(tmp_path, max_offered_pps=1_000_000)
    process = run_robot(
        tmp_path,
        "--variable", f"TOPOLOGY:{topology}",
        "--variable", "DURATION_SUM:2s",
        "--variable", f"IRREGULAR:{irregular}",
        "--include", "64B AND 1C",
        str(SUITES / "ip4" / "ethip4-ip4base-ndrpdr.robot"),
    )  # fmt: skip
    output = process.stdout + process.stderr
    test = index_tests(read_output(tmp_path))["64B-1c-ethip4-ip4base-ndrpdr"]
    record = json.loads((tmp_path / "64B-1c-ethip4-ip4base-ndrpdr.json").read_text())
    assert [item["tag"] for item in record["irregular"]] == ["TG_LIMITED"]
    if irregular == "fail":
        assert process.returncode == 1, output
        assert test.status == "FAIL"
        assert test.message.startswith("NDRPDR search irregular: the traffic generator, not the")
        assert "give a max_rate (${MAX_RATE}) the TG can send" in test.message
        assert record["status"] == "failed" and "irregular result" in record["error"]
    else:
        assert process.returncode == 0, output
        assert test.status == "PASS"
        assert "[ WARN ] NDRPDR search irregular (irregular=warn): the traffic generator" in output
        assert "irregular (allowed): the traffic generator" in test.message
        assert record["status"] == "passed" and record["error"] is None
    assert {"TG_LIMITED", "IRREGULAR"} <= set(test.tags)
    assert test.metadata["TG_LIMITED"] == "true"
    sent = float(test.metadata["TG_MAX_OFFERED_PPS"])
    assert 0.95e6 <= sent <= 1e6  # the calibration capped the search just below 1 Mpps
    assert "limited by the traffic generator: sent at most" in test.message
    record = json.loads((tmp_path / "64B-1c-ethip4-ip4base-ndrpdr.json").read_text())
    validate_record(record)
    cap = record["search"]["max_load_cap"]
    assert cap["capable_pps"] == pytest.approx(1e6, rel=1e-6)
    assert record["search"]["max_load_pps"] == cap["capped_pps"]
    assert record["tg_limit"]["limited"] is True


def test_fast_tg_robot_run_is_not_flagged(tmp_path: Path) -> None:
    process = run_robot(
        tmp_path,
        "--variable", "DURATION_SUM:2s",
        "--include", "64B AND 1C",
        str(SUITES / "ip4" / "ethip4-ip4base-ndrpdr.robot"),
    )  # fmt: skip
    assert process.returncode == 0, process.stdout + process.stderr
    test = index_tests(read_output(tmp_path))["64B-1c-ethip4-ip4base-ndrpdr"]
    assert "TG_LIMITED" not in test.tags
    assert test.metadata["TG_LIMITED"] == "false"
    assert "limited by the traffic generator" not in test.message


TIMEOUT_SUITE = """\
*** Settings ***
Library    NdrPdrLibrary    {topology}
Suite Setup    Set Up Testbed
Suite Teardown    Tear Down Testbed

*** Test Cases ***
Stopped By Timeout
    [Timeout]    6 seconds
    Configure DUTs For Traffic    ethip4-ip4base    64
    Find NDR And PDR    ethip4-ip4base    64
"""


def test_robot_timeout_leaves_incomplete_bounds(tmp_path: Path) -> None:
    """Default CSIT goals: 34 trials of 0.25 s wall each; bounds exist after 13 (3.25 s),
    the 6 s timeout stops the search before its end (8.5 s): 2.75 s left for Robot's and
    the set-up's own time on a busy machine (with 2 s and 0.1 s trials, CI once had no
    bound yet)."""
    topology = _topology(tmp_path, wall_time_factor=0.25)
    suite = tmp_path / "timeout.robot"
    suite.write_text(TIMEOUT_SUITE.format(topology=topology))
    process = run_robot(tmp_path / "out", str(suite))
    assert process.returncode == 1, process.stdout + process.stderr
    test = index_tests(read_output(tmp_path / "out"))["Stopped By Timeout"]
    assert test.status == "FAIL"
    assert "timeout" in test.message.lower()
    assert "INCOMPLETE" in test.tags
    assert test.metadata["INCOMPLETE"] == "true"
    assert float(test.metadata["NDR_LOWER"]) > 0
    record = json.loads((tmp_path / "out" / "Stopped_By_Timeout.json").read_text())
    validate_record(record)
    assert record["incomplete"] is True and record["status"] == "failed"
    assert "Timeout" in record["error"]
    assert 13 <= record["search"]["trial_count"] < 34
    assert record["ndr"]["lower_bound"] is not None
    assert record["pdr"]["lower_bound"] is not None


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_cli_signal_leaves_incomplete_bounds(tmp_path: Path, signum: int) -> None:
    """A real ``ndrpdr search`` stopped by a signal after its 16th full-length trial."""
    topology = _topology(tmp_path, wall_time_factor=0.1)
    out = tmp_path / "record.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "ndrpdr", "search", "--topology", str(topology), "--json", str(out)],
        cwd=ROOT,
        env=child_env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        seen: list[str] = []
        deadline = time.monotonic() + 60
        for line in process.stdout:
            seen.append(line)
            match = re.match(r"#\s*(\d+)\s", line)
            if match and int(match[1]) >= 16:
                process.send_signal(signum)
                break
            assert time.monotonic() < deadline, "".join(seen)
        rest, err = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 130, err
    text = "".join(seen) + rest
    assert "bounds incomplete" in text
    assert re.search(r"^NDR: lower \d", text, re.MULTILINE)
    record = json.loads(out.read_text())
    validate_record(record)
    assert record["incomplete"] is True
    assert "interrupted" in record["error"]
    assert 16 <= record["search"]["trial_count"] < 34
    assert record["ndr"]["lower_bound"] is not None
    assert record["pdr"]["lower_bound"] is not None


def test_search_time_limit_fails_with_incomplete_bounds(tmp_path: Path) -> None:
    """MAX_SEARCH_TIME stops the default search (34 s of trials) after 20 s: the test
    fails, and its message, metadata, tags and record carry the bounds found so far."""
    process = run_robot(
        tmp_path,
        "--variable", "MAX_SEARCH_TIME:20s",
        "--include", "64B AND 1C",
        str(SUITES / "ip4" / "ethip4-ip4base-ndrpdr.robot"),
    )  # fmt: skip
    assert process.returncode == 1, process.stdout + process.stderr
    test = index_tests(read_output(tmp_path))["64B-1c-ethip4-ip4base-ndrpdr"]
    assert test.status == "FAIL"
    assert "search irregular: the search hit its time cap of 20 s of trials" in test.message
    assert "give a longer max_search_time (${MAX_SEARCH_TIME})" in test.message
    assert {"IRREGULAR", "TIME_CAP"} <= set(test.tags)
    assert re.search(r"^NDR: lower \d", test.message, re.MULTILINE)
    assert "bounds incomplete" in test.message
    assert "INCOMPLETE" in test.tags
    assert float(test.metadata["NDR_LOWER"]) > 0
    record = json.loads((tmp_path / "64B-1c-ethip4-ip4base-ndrpdr.json").read_text())
    assert record["incomplete"] is True
    assert record["ndr"]["lower_bound"] == pytest.approx(
        float(test.metadata["NDR_LOWER"]), abs=1e-3
    )
