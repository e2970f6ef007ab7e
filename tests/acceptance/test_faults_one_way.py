"""A black-holed direction on the local testbed (tcpreplay TG, linux DUT): named, not the rate.

The linux DUT of the run drops every frame that enters its first port (an
nft rule in its own namespace, added before the first trial): direction
0->1 receives nothing while 1->0 forwards, so every trial loses 50 %. The
local TG names that direction in each trial's warnings, as the TRex driver
does (ndrpdr.results.oneway), and the lossy min load's message says a lower
min rate will not help, instead of asking for one.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from fault_helpers import LINUX, load_record, note_row
from test_faults import EXIT_GRACE_S, Start, check_lossy_min_load, needs_local, runs

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

__all__ = ["runs"]  # the fixture, shared with test_faults

#: The nft ruleset that drops, in the DUT, every frame entering dut-if1 (direction 0->1).
BLACK_HOLE_RULES = """table inet ndrpdr_fault {
  chain forward {
    type filter hook forward priority 0; policy accept;
    iifname "dut-if1" counter drop
  }
}
"""


@needs_local
def test_a_black_holed_direction_is_named_with_what_to_check(runs: Start, tmp_path: Path) -> None:
    record_path = tmp_path / "record.json"
    run = runs(
        "--topology", LINUX, "--initial-trial-duration", "0.5s", "--final-trial-duration", "0.5s",
        "--duration-sum", "0.5s", "--min-rate", "10kpps", "--max-rate", "11kpps",
        "--width", "0.2", "--no-calibrate", "--no-latency", "--json", record_path, poll_s=0.02,
    )  # fmt: skip
    subprocess.run(
        ["ip", "netns", "exec", run.namespace("dut"), "nft", "-f", "-"],
        input=BLACK_HOLE_RULES,
        text=True,
        check=True,
        capture_output=True,
    )
    added = time.monotonic()
    code = run.finish(60.0)
    took = time.monotonic() - added
    left = run.left_after_exit(EXIT_GRACE_S)
    note_row("one direction black-holed, local TG (tcpreplay), linux DUT", run, code, left)
    check_lossy_min_load(run, code, record_path)
    message = run.message()
    assert "one direction received nothing: direction 0->1: port 1 received nothing" in message
    assert "check that direction's destination MAC and the DUT port it enters" in message
    assert "a lower --min-rate will not help" in message, message
    trials = load_record(record_path)["trials"]
    named = [t for t in trials if any("0->1: port 1 received nothing" in w for w in t["warnings"])]
    assert named == trials, trials  # every trial says it, each one lost direction 0->1
    assert not left, f"left: {left}"
    print(f"local one-way: exit {code} {took:.2f} s after the rule: {message}")
