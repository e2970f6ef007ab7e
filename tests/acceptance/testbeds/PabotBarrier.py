"""Robot listener for test_pabot_testbeds.py: the first robot processes of a pabot run meet.

Each of the first ``parties`` processes (``${PABOTQUEUEINDEX}`` below ``parties``)
marks, at the start of its first test (after its suite setup took a testbed), that
it holds one, then waits until all of them do (at most ``timeout`` seconds). So the
run has a moment where two suites hold testbeds at once whatever the machine's
load, and the test can assert that they were two different testbeds. It only
waits; a lock that does not hold shows as two suites on one testbed, one that
never frees as a wait that times out.
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

from robot.libraries.BuiltIn import BuiltIn


class PabotBarrier:
    """``--listener PabotBarrier.py:DIRECTORY[:PARTIES[:TIMEOUT]]`` (2 parties, 30 s)."""

    ROBOT_LISTENER_API_VERSION = 3

    def __init__(self, directory: str, parties: str = "2", timeout: str = "30") -> None:
        self.directory = Path(directory)
        self.parties = int(parties)
        self.timeout_s = float(timeout)
        self.met = False

    def start_test(self, data: Any, result: Any) -> None:
        """Mark and wait, in this process's first test only."""
        if self.met:
            return
        self.met = True
        index = BuiltIn().get_variable_value("${PABOTQUEUEINDEX}")
        if index is None or int(index) >= self.parties:
            return
        self.directory.mkdir(parents=True, exist_ok=True)
        (self.directory / f"{index}.holding").touch()
        deadline = time.monotonic() + self.timeout_s
        while time.monotonic() < deadline:
            if len(list(self.directory.glob("*.holding"))) >= self.parties:
                return
            time.sleep(0.05)
