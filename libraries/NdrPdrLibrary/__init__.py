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
    described by a topology file, and runs one search that finds both
    NDR (no drop rate, zero loss) and PDR (partial drop rate, loss ratio
    at most 0.5 %), with short trials first and full-length trials only at
    the end (MLRsearch, RFC 9971).

    %TOC%

    = Topology =

    The library's one argument is the topology file, a YAML description of
    the TG node, the DUT nodes and the links between them. The default,
    ``topologies/sim.yaml``, is a simulator that runs anywhere in seconds.
    ``topologies/local-*.yaml`` send real packets through network
    namespaces on this machine (root needed); lab topologies reach a TRex
    host and DUT hosts over SSH. The same suites run on all of them:

    | ***** Settings *****
    | Library    NdrPdrLibrary    ${TOPOLOGY}    nic=${NIC}
    | ***** Variables *****
    | ${TOPOLOGY}    topologies/sim.yaml
    | ${NIC}         ${NONE}

    and ``robot --variable TOPOLOGY:topologies/local-linux.yaml suites/``.
    Topologies may be 2-node (TG - DUT1 - TG) or 3-node (TG - DUT1 - DUT2 -
    TG); a lab topology may cable several NICs: the optional ``nic``
    argument (a NIC ``model`` of the file, e.g. ``Intel-E810CQ``) chooses
    the ports the traffic crosses, as CSIT's ``${nic_name}`` does (default:
    the first ports that make a whole path).
    Nothing is read or connected when the library is imported (so Libdoc
    and ``robot --dryrun`` need no testbed): the file is read and the
    testbed set up by `Set Up Testbed`, or by the first keyword needing it.

    = Rates, durations and frame sizes =

    Rates (`Rate`) are aggregate over the traffic's directions: ``10Mpps``,
    ``250kpps``, ``10Gbps`` (on the wire, with 20 B of L1 overhead per
    frame) or ``50%`` of the TG's maximum. Durations (`Duration`): ``30s``,
    ``1 min``, ``250ms`` or a number of seconds. Frame sizes (`FrameSize`)
    count bytes including the FCS (``64``, ``1518``, ``9000``) or are
    ``IMIX`` (64, 570 and 1518 B in the ratio 7:4:1).

    = Results =

    Each search leaves, for its test:
    - a test message with NDR and PDR (and any other loss ratio searched):
      lower and upper bounds in Mpps and Gbps, and the conditional
      throughput;
    - test metadata with plain numbers in frames per second: ``NDR_LOWER``,
      ``NDR_UPPER``, ``NDR_CONDITIONAL``, ``PDR_LOWER``, ``PDR_UPPER``,
      ``PDR_CONDITIONAL`` (a bound that was not found is left out), read
      from output.xml with ``robot.api.ExecutionResult``; other loss ratios
      (`Find Throughput For Loss Ratios`) as ``LOSS_2PCT_LOWER`` (0.02),
      ``LOSS_0P1PCT_LOWER`` (0.001), ...;
    - a JSON record next to output.xml, named after the test and linked
      from log.html, holding the settings, the bounds and every trial;
    - in log.html, a plot of the search (load over time, each goal's
      bounds) and a table of the trials;
    - on the console, one line per trial while the search runs, with every
      goal's bounds so far and their width (``upper / lower - 1``), and
      every 10 trials an estimate of what is left (see `Importing`:
      ``progress``; only with Robot's verbose console).

    A search that fails (a TG or DUT error) fails its test with a message
    that says why; traffic is stopped and the trials measured so far stay
    in the record. So does an irregular result (a min load that already
    loses frames, NDR above PDR, bounds limited by the TG, the time cap
    hit), unless ``irregular=warn`` lets it pass with a warning; either way
    the test is tagged ``IRREGULAR`` and the reason (`IrregularPolicy`).
    Settings out of range fail before anything starts, naming the setting
    (`Check Search Settings`).
    A test whose traffic the testbed cannot carry (jumbo frames on local
    veths) is skipped.

    The output directory is the run's while it runs: the library locks it
    (``.ndrpdr-run.lock``) when Robot imports it, as ``bin/run-suites`` does
    before it starts robot (pabot's workers, and the robot run-suites
    starts, share their parent's lock). A run into a directory another
    live run holds stops at once: its first keyword fails naming that run
    (pid, run id, start), and Robot stops the whole run. A record never
    replaces another run's: a name taken by another run's file gets
    ``-2``, ``-3``...

    = Example =

    | ***** Settings *****
    | Library           NdrPdrLibrary
    | Suite Setup       Set Up Testbed
    | Suite Teardown    Tear Down Testbed
    |
    | ***** Test Cases *****
    | 64B-1c-ethip4-ip4base-ndrpdr
    |     Configure DUTs For Traffic    ethip4-ip4base    64
    |     ${result} =    Find NDR And PDR    ethip4-ip4base    64
    |     Should Be True    ${result}[ndr][lower] > 0
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
