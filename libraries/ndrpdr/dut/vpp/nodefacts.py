"""What the vpp driver reads of its node for startup.conf's sizes, and what it says of them.

``NodeFacts`` reads, once per driver, the node's ``/proc/meminfo`` (its
free hugepages and ``MemAvailable``: ``ndrpdr.dut.vpp.memory``) and
``/sys/devices/system/cpu/smt/active`` (SMT on: FD.io CSIT's larger buffer
count) through the node's access; a file it cannot read leaves that fact
unknown (CSIT's values are then kept). ``report`` logs each scaling of a
test's startup.conf once, as a warning, and keeps the test's lines for
its telemetry (``startup_scaled``), from which the result record takes
them (``testbed.duts[].startup_scaled``).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from ndrpdr.access.base import NodeAccess
from ndrpdr.dut.vpp.memory import NodeMemory, parse_meminfo
from ndrpdr.errors import NdrPdrError

_log = logging.getLogger(__name__)

MEMINFO = "/proc/meminfo"
SMT_ACTIVE = "/sys/devices/system/cpu/smt/active"


class NodeFacts:
    """The node's memory and SMT (read on first use), and the scalings of the current test."""

    def __init__(self, node: str, access: NodeAccess) -> None:
        """No I/O yet."""
        self._node = node
        self._access = access
        self._read = False
        self._memory: NodeMemory | None = None
        self._smt: bool | None = None
        #: The current test's lines: where its startup.conf differs from CSIT's, and why.
        self.scaled: tuple[str, ...] = ()
        self._logged: set[str] = set()

    def _text(self, path: str) -> str | None:
        try:
            return self._access.get_file(path).decode(errors="replace")
        except (NdrPdrError, OSError) as exc:
            _log.info("%s (vpp): cannot read %s (%s): CSIT's values kept", self._node, path, exc)
            return None

    def read(self) -> None:
        """Read the node's memory and SMT (once; unreadable files leave them unknown)."""
        if self._read:
            return
        self._read = True
        meminfo = self._text(MEMINFO)
        self._memory = None if meminfo is None else parse_meminfo(meminfo)
        smt = self._text(SMT_ACTIVE)
        self._smt = {"1": True, "0": False}.get((smt or "").strip())

    @property
    def memory(self) -> NodeMemory | None:
        """The node's memory (read on first use; None: unknown)."""
        self.read()
        return self._memory

    @property
    def smt(self) -> bool | None:
        """Whether the node runs SMT (read on first use; None: unknown)."""
        self.read()
        return self._smt

    def report(self, scaled: Sequence[str]) -> None:
        """Keep the test's scaling lines; log each new one as a warning."""
        self.scaled = tuple(scaled)
        for line in self.scaled:
            if line not in self._logged:
                self._logged.add(line)
                _log.warning("%s (vpp): startup.conf differs from CSIT's: %s", self._node, line)

    def telemetry(self) -> dict[str, str]:
        """``startup_scaled``: the test's lines, one per line ("" when CSIT's values hold)."""
        return {"startup_scaled": "\n".join(self.scaled)}
