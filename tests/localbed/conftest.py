"""Fixtures of the local testbed tests: root and tools required, nothing left behind.

``make_testbed`` builds testbeds that are torn down after the test; the
test then fails if a namespace or state file of any of those runs is left,
or a tcpreplay child of this process still runs.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from localbed_helpers import child_pids, run_namespaces

from ndrpdr.localbed import LocalTestbed
from ndrpdr.topology.model import Topology

_TOOLS = ("ip", "nft", "taskset")


@pytest.fixture
def root_and_tools() -> None:
    """Skip unless running as root with the tools a local testbed needs."""
    if os.geteuid() != 0 or any(shutil.which(t) is None for t in _TOOLS):
        pytest.skip(f"the local testbed needs root and {', '.join(_TOOLS)}")


@pytest.fixture
def state_dir(root_and_tools: None, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private state directory (NDRPDR_STATE_DIR) so other runs' files do not interfere."""
    directory = tmp_path / "state"
    monkeypatch.setenv("NDRPDR_STATE_DIR", str(directory))
    return directory


@pytest.fixture
def make_testbed(state_dir: Path) -> Iterator[Callable[..., LocalTestbed]]:
    """Factory of LocalTestbeds (not set up) that checks they left nothing."""
    made: list[LocalTestbed] = []

    def make(topology: Topology, **kwargs: Any) -> LocalTestbed:
        testbed = LocalTestbed(topology, **kwargs)
        made.append(testbed)
        return testbed

    yield make
    left = {t.run_id: sorted(run_namespaces(t.run_id)) for t in made if run_namespaces(t.run_id)}
    states = [str(t.state_file) for t in made if t.state_file.exists()]
    senders = child_pids("tcpreplay")
    for testbed in made:  # clean up even when the test did not
        testbed.teardown()
    assert not left, f"namespaces left: {left}"
    assert not states, f"state files left: {states}"
    assert not senders, f"tcpreplay processes left: {senders}"
