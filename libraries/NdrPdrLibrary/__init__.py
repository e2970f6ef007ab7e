"""NdrPdrLibrary: Robot Framework keywords that find how fast a network data plane forwards."""

from __future__ import annotations

from typing import Any

from robotlibcore import DynamicCore

import ndrpdr
from ndrpdr.console.progress import parse_progress_option
from ndrpdr.errors import NdrPdrError
from NdrPdrLibrary.context import DEFAULT_TOPOLOGY, LibraryContext
from NdrPdrLibrary.keywords.dut import DutKeywords
from NdrPdrLibrary.keywords.results import ResultsKeywords
from NdrPdrLibrary.keywords.search import SearchKeywords
from NdrPdrLibrary.keywords.settings import SettingsKeywords
from NdrPdrLibrary.keywords.soak import SoakKeywords
from NdrPdrLibrary.keywords.testbed import TestbedKeywords
from NdrPdrLibrary.keywords.traffic import TrafficKeywords
from NdrPdrLibrary.outdirclaim import OutputDirInUseError, claim_output_dir
from NdrPdrLibrary.robotview import CONVERTERS, real_value, robot_arguments, robot_types
from NdrPdrLibrary.stopsignals import guard_stop_signals

__version__ = ndrpdr.__version__

#: The keyword that runs while another run holds the output directory (nothing to tear down).
TEARDOWN_KEYWORD = "Tear Down Testbed"


class KeywordError(RuntimeError):
    """A known failure: Robot shows its message alone, without the exception's name."""

    ROBOT_SUPPRESS_NAME = True


class NdrPdrLibrary(DynamicCore):  # type: ignore[misc]
    """NdrPdrLibrary finds how fast a network data plane forwards packets without loss.

    It drives a traffic generator (TG) and the devices under test (DUTs)
    described by a topology file, and finds NDR (no drop rate, zero loss)
    and PDR (partial drop rate, loss ratio at most 0.5 %) with one search:
    short trials first, full-length trials only at the end (MLRsearch,
    RFC 9971).

    %TOC%

    = Topology =

    The library's main argument is the topology file (see
    `Importing`): ``topologies/sim.yaml``, the default, is a simulator that
    runs anywhere in seconds; ``topologies/local-*.yaml`` send real packets
    through network namespaces (root needed); a lab file reaches a TRex host
    and DUT hosts over SSH. The same suites run on all of them. Nothing is
    read or connected when the library is imported (Libdoc and ``robot
    --dryrun`` need no testbed): `Set Up Testbed`, or the first keyword that
    needs the testbed, does it.

    = Keywords =

    - testbed: `Set Up Testbed`, `Tear Down Testbed`, `Set SSH Password`
    - DUTs: `Configure DUTs For Traffic`, `Configure DUTs`, `DUT Thread Tags`,
      `Stop DUTs`, `Show DUT Telemetry`
    - searches: `Check Search Settings`, `Find NDR And PDR`, `Find Throughput
      For Loss Ratios`, `Find Throughput With Binary Search`, `Find Critical
      Load`
    - traffic: `Measure MRR`, `Send Traffic At Rate For Duration`
    - results: `Get Last Search Record`, `Read Result Record`, `Log Result Record`

    Rates (`Rate`: ``10Mpps``, ``10Gbps``, ``50%``), durations (`Duration`:
    ``30s``, ``1 min``) and frame sizes (`FrameSize`: ``64``, ``IMIX``) are
    given as users type them; a test family (`TrafficProfile`) by its CSIT
    id.

    Each search leaves its bounds in the test's message and metadata, a JSON
    record next to output.xml (linked from log.html) and, in log.html, a
    plot of the search and a table of its trials; the console shows a line
    per trial. What each holds, and what happens to failed, irregular and
    incomplete results: the manual's "Reading the results"
    (docs/results.rst). While it runs, a run holds its output directory (a
    lock, ``.ndrpdr-run.lock``): the manual's "Getting started"
    (docs/getting-started.rst).

    = Example =

    | ***** Settings ***** |
    | Library | NdrPdrLibrary |
    | Suite Setup | Set Up Testbed |
    | Suite Teardown | Tear Down Testbed |
    | |
    | ***** Test Cases ***** |
    | 64B-1c-ethip4-ip4base-ndrpdr |
    | | Configure DUTs For Traffic | ethip4-ip4base | 64 |
    | | ${result} = | Find NDR And PDR | ethip4-ip4base | 64 |
    | | Should Be True | ${result}[ndr][lower] > 0 |
    """

    ROBOT_LIBRARY_SCOPE = "GLOBAL"
    ROBOT_LIBRARY_VERSION = __version__
    ROBOT_LIBRARY_DOC_FORMAT = "ROBOT"
    ROBOT_LIBRARY_CONVERTERS = CONVERTERS

    def __init__(
        self, topology: str = DEFAULT_TOPOLOGY, nic: str | None = None, progress: str = "trials"
    ) -> None:
        """``topology``: the topology file (default: the simulator), read on first use.

        ``nic``: the NIC model whose ports the traffic crosses (default: the
        first ports that make a whole 2-node or 3-node path).

        ``progress``: ``trials`` (default) prints a line per trial while a
        search or MRR runs, with every goal's bounds so far and every 10
        trials an estimate of what is left; ``none`` prints none. With
        ``robot --console dotted``, ``quiet`` or ``none`` there are no such
        lines either way.
        """
        self.ctx = LibraryContext(
            topology, nic=nic or None, progress=parse_progress_option(progress)
        )
        guard_stop_signals()  # a second Ctrl-C lets the teardown end and output.xml be whole
        #: Why this run may not use its output directory (another live run holds it), or None.
        self.output_dir_in_use = claim_output_dir()
        DynamicCore.__init__(
            self,
            [
                TestbedKeywords(self.ctx),
                DutKeywords(self.ctx),
                TrafficKeywords(self.ctx),
                SearchKeywords(self.ctx),
                SoakKeywords(self.ctx),
                SettingsKeywords(self.ctx),
                ResultsKeywords(self.ctx),
            ],
        )

    def get_keyword_arguments(self, name: str) -> list[Any]:
        """The keyword's arguments, enum defaults as users type them (``robotview``)."""
        return robot_arguments(DynamicCore.get_keyword_arguments(self, name))

    def get_keyword_types(self, name: str) -> dict[str, Any] | None:
        """The keyword's argument types as Robot is shown them (``robotview``)."""
        return robot_types(DynamicCore.get_keyword_types(self, name))

    def run_keyword(
        self, name: str, args: tuple[Any, ...], kwargs: dict[str, Any] | None = None
    ) -> Any:
        """Run a keyword; a known failure (NdrPdrError) shows as its plain message.

        While another live run holds the output directory every keyword but
        `Tear Down Testbed` fails, stopping the Robot run (``outdirclaim``).
        """
        if self.output_dir_in_use is not None and name != TEARDOWN_KEYWORD:
            raise OutputDirInUseError(self.output_dir_in_use)
        args = tuple(real_value(arg) for arg in args)
        kwargs = {key: real_value(value) for key, value in (kwargs or {}).items()}
        try:
            return DynamicCore.run_keyword(self, name, args, kwargs)
        except NdrPdrError as exc:
            raise KeywordError(str(exc)) from exc
