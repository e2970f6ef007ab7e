"""State shared by the keyword components: the topology, the testbed in use, the last result.

Nothing here does I/O until a keyword asks for it: the topology file is
read on first use and the testbed is set up by ``Set Up Testbed`` (or by
the first keyword that needs it), so Libdoc and ``robot --dryrun`` can
import the library with no testbed at all.
"""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path
from typing import Any

from ndrpdr.activebed.testbed import ActiveTestbed, TestbedError
from ndrpdr.console.progress import ProgressOption
from ndrpdr.localbed.beforerun import remove_leftovers_before_run
from ndrpdr.searchlimits import Given
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import SshAccess, Topology
from NdrPdrLibrary import robotout

#: The library's default topology: the simulator.
DEFAULT_TOPOLOGY = "topologies/sim.yaml"

#: The project root when the library runs from a checkout (editable install).
_CHECKOUT_ROOT = Path(__file__).resolve().parents[2]


def resolve_topology_path(path: str | os.PathLike[str]) -> Path:
    """The topology file to load.

    Absolute paths and paths that exist relative to the working directory
    are taken as they are. The default ``topologies/sim.yaml`` is also found
    in the project checkout the library comes from, so the suites run from
    any directory.
    """
    given = Path(path)
    if given.is_absolute() or given.exists():
        return given
    fallback = _CHECKOUT_ROOT / given
    if fallback.exists():
        return fallback
    return given  # the loader reports the missing file by the name the user gave


class LibraryContext:
    """The topology and testbed of one library instance."""

    def __init__(
        self,
        topology: str | os.PathLike[str] = DEFAULT_TOPOLOGY,
        *,
        nic: str | None = None,
        progress: ProgressOption = ProgressOption.TRIALS,
    ) -> None:
        """Remember the topology file (not read yet), the NIC model to test (None: any)
        and whether searches print a line per trial."""
        self.topology_path = os.fspath(topology)
        #: The topology file given when the library was imported (``use_topology`` changes
        #: ``topology_path`` until the testbed is torn down).
        self.library_topology_path = self.topology_path
        self.nic = nic
        self.progress = progress
        self._topology: Topology | None = None
        self._passwords: dict[str, str] = {}
        self._testbed: ActiveTestbed | None = None
        #: The record of the last search (None before the first one).
        self.last_record: dict[str, Any] | None = None
        #: How many records this run wrote (for unique file names outside tests).
        self.records_written = 0
        #: Records written by this instance (a rerun of a test name gets a new file).
        self.written_paths: set[Path] = set()
        #: Why the last record could not be written ("cannot write the result record: ...").
        self.record_error: str | None = None
        #: Metadata keys a search set on a test, by test name (only the current test).
        self.metadata_keys: dict[str, set[str]] = {}
        #: The suite's search settings by key, named as its variables (`Check Search Settings`).
        self.search_variables: dict[str, Given] = {}

    @property
    def topology(self) -> Topology:
        """The validated topology, read on first use (TopologyError if the file is bad)."""
        if self._topology is None:
            topology = load_topology(resolve_topology_path(self.topology_path))
            self._topology = self._with_passwords(topology)
        return self._topology

    def use_topology(self, path: str | os.PathLike[str]) -> None:
        """Use the topology file ``path`` instead of the library's until ``teardown_testbed``.

        For a testbed chosen at run time (a PabotLib value set). SSH passwords
        set before apply to the new file's nodes of the same names. TestbedError
        when a testbed of another file is up.
        """
        path = os.fspath(path)
        if path == self.topology_path:
            return
        if self._testbed is not None:
            raise TestbedError(
                f"cannot use topology {path}: the testbed of {self.topology_path} is up "
                "(tear it down first)"
            )
        self.topology_path = path
        self._topology = None

    def set_password(self, node: str, password: str) -> None:
        """Use ``password`` for SSH to ``node`` (before the testbed is set up)."""
        if self._testbed is not None:
            raise TestbedError(
                f"set the password of {node!r} before the testbed is set up "
                "(Set Up Testbed opens the connections)"
            )
        topology = self.topology
        if node not in topology.nodes:
            known = ", ".join(topology.nodes)
            raise TestbedError(f"{topology.source}: no node {node!r} (nodes: {known})")
        if not isinstance(topology.nodes[node].access, SshAccess):
            raise TestbedError(
                f"{topology.source}: nodes.{node} is not reached over SSH, so it takes no password"
            )
        self._passwords[node] = password
        self._topology = self._with_passwords(topology)

    def _with_passwords(self, topology: Topology) -> Topology:
        if not self._passwords:
            return topology
        nodes = dict(topology.nodes)
        for key, password in self._passwords.items():
            node = nodes.get(key)
            if node is None:  # a password set before another file was chosen (use_topology)
                raise TestbedError(
                    f"{topology.source}: no node {key!r} (Set SSH Password named it)"
                )
            if isinstance(node.access, SshAccess):
                access = dataclasses.replace(node.access, password=password, password_env=None)
                nodes[key] = dataclasses.replace(node, access=access)
        return dataclasses.replace(topology, nodes=nodes)

    @property
    def is_set_up(self) -> bool:
        """True between ``setup_testbed`` and ``teardown_testbed``."""
        return self._testbed is not None

    def setup_testbed(self) -> ActiveTestbed:
        """Set the testbed up (namespaces, node access, DUT drivers) unless it is up.

        Before it creates anything, it removes what dead runs left (as root)
        and logs what it removed as a warning.
        """
        if self._testbed is None:
            remove_leftovers_before_run(robotout.warn)
            testbed = ActiveTestbed(self.topology, nic=self.nic)
            testbed.setup()
            self._testbed = testbed
        return self._testbed

    @property
    def testbed(self) -> ActiveTestbed:
        """The testbed in use, set up on first use."""
        return self.setup_testbed()

    def teardown_testbed(self) -> dict[str, dict[str, str]]:
        """Tear the testbed down (idempotent); returns the DUT telemetry kept on the way."""
        testbed, self._testbed = self._testbed, None
        if self.topology_path != self.library_topology_path:  # a file given to use_topology
            self.topology_path = self.library_topology_path
            self._topology = None
        if testbed is None:
            return {}
        testbed.teardown()
        return dict(testbed.telemetry)
