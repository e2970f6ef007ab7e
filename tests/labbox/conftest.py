"""Fixtures of the lab-in-a-box tests: root, iproute2 and sshd required; nothing left behind.

``labbox`` is one 2-host labbox (TG, DUT1) shared by the tests of a module
that only use it; ``make_labbox`` builds labboxes of a test's own, and
fails the test if anything of them (namespace, root veth end, sshd, run
directory, state file) is left after their teardown.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from labbox_helpers import (
    Labbox,
    RunSnapshot,
    host_namespaces_2n,
    lab_topology_2n,
    open_labbox,
    snapshot,
)

from ndrpdr.labbox import LabboxError
from ndrpdr.labbox.sshd import find_sshd
from ndrpdr.topology.model import Topology

_TOOLS = ("ip", "unshare", "mount", "nft")


def skip_unless_labbox_can_run() -> None:
    """Skip (with the reason) unless root with iproute2, util-linux and sshd."""
    if os.geteuid() != 0:
        pytest.skip("the lab in a box needs root (namespaces, veths, mounts, sshd)")
    missing = [t for t in _TOOLS if shutil.which(t) is None]
    try:
        find_sshd()
    except LabboxError:
        missing.append("sshd (openssh-server)")
    if missing:
        pytest.skip(f"the lab in a box needs: {', '.join(missing)}")


@pytest.fixture(scope="module")
def labbox(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Labbox]:
    """One 2-host labbox for the module (state files in a private directory)."""
    skip_unless_labbox_can_run()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("NDRPDR_STATE_DIR", str(tmp_path_factory.mktemp("labbox-state")))
        box = open_labbox(lab_topology_2n(), host_namespaces_2n())
        made = snapshot(box.localbed, box.hosts)
        try:
            yield box
        finally:
            box.close()
    left = made.left()
    assert not any(left.values()), f"the shared labbox left: {left}"


@pytest.fixture
def state_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A private state directory (NDRPDR_STATE_DIR), after the root/tools check."""
    skip_unless_labbox_can_run()
    directory = tmp_path / "state"
    monkeypatch.setenv("NDRPDR_STATE_DIR", str(directory))
    return directory


@pytest.fixture
def make_labbox(state_dir: Path) -> Iterator[Callable[..., Labbox]]:
    """Factory of the test's own labboxes; after the test, nothing of them may be left."""
    made: list[Labbox] = []
    snapshots: list[RunSnapshot] = []

    def make(topology: Topology | None = None, namespaces: dict[str, str] | None = None) -> Labbox:
        box = open_labbox(topology or lab_topology_2n(), namespaces or host_namespaces_2n())
        made.append(box)
        snapshots.append(snapshot(box.localbed, box.hosts))  # PIDs with their start times
        return box

    yield make
    for box in made:  # the test may have closed it already
        box.close()
    left = {s.run_id: s.left() for s in snapshots if any(s.left().values())}
    assert not left, f"labbox runs left: {left}"
