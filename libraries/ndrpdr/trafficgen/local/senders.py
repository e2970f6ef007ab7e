"""The local TG's senders: one tcpreplay per direction, run to its end or stopped at the cut-off.

A trial starts every direction's tcpreplay and polls them every POLL_S.
One still sending at the cut-off (``ndrpdr.trafficgen.counting.cutoff_s``
after the start) is stopped, as TRex stops its traffic: a trial lasts its
duration, and what the sender did not send by then is unsent (lost). One
that runs WAIT_FACTOR x duration + WAIT_MARGIN_S is hung: every sender is
stopped and the trial fails. ``stop`` (also from another thread) stops
every sender by PID.
"""

from __future__ import annotations

import dataclasses
import threading
import time
from collections.abc import Mapping, Sequence

from ndrpdr.access.base import NodeAccessError, tail
from ndrpdr.access.local import LocalProcess
from ndrpdr.access.netns import NetnsTransport
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.counting import cutoff_s
from ndrpdr.trafficgen.local import tcpreplay

#: A sender may run WAIT_FACTOR x duration + WAIT_MARGIN_S [s] before it is stopped as hung.
WAIT_FACTOR = 2.0
WAIT_MARGIN_S = 10.0

#: How often running senders are polled [s].
POLL_S = 0.01


@dataclasses.dataclass(frozen=True)
class Sent:
    """What the senders of one trial did: tcpreplay's report by direction, and the directions
    stopped at the cut-off, with how long after the start they still sent [s]."""

    reports: Mapping[int, tcpreplay.TcpreplayReport]
    stopped: Mapping[int, float]

    @property
    def resent(self) -> dict[int, int]:
        """Sends each direction's tcpreplay made again after the kernel refused them (ENOBUFS)."""
        return {d: report.retried_enobufs for d, report in self.reports.items()}


class Senders:
    """The tcpreplay processes one local TG runs (``node`` names it in messages)."""

    def __init__(self, node: str) -> None:
        """Nothing runs yet."""
        self.node = node
        self._running: list[LocalProcess] = []
        self._lock = threading.Lock()

    def run(
        self,
        access: NetnsTransport,
        commands: Mapping[int, Sequence[str]],
        duration: float,
        rate: float,
    ) -> Sent:
        """Run each direction's tcpreplay (``commands``) through ``access`` to its end.

        ``duration`` [s] and ``rate`` [pps per direction] are the trial's, for
        the cut-off and the messages. TrafficGeneratorError when a sender
        fails or hangs; the caller stops the others (``stop``).
        """
        started: dict[int, LocalProcess] = {}
        for direction, argv in commands.items():
            try:
                process = access.start(argv)
            except NodeAccessError as exc:
                raise TrafficGeneratorError(f"{self.node}: cannot start tcpreplay: {exc}") from exc
            with self._lock:
                self._running.append(process)
            started[direction] = process
        start = time.monotonic()
        cutoff = start + cutoff_s(duration)
        deadline = start + WAIT_FACTOR * duration + WAIT_MARGIN_S
        pending = dict(started)
        reports: dict[int, tcpreplay.TcpreplayReport] = {}
        stopped: dict[int, float] = {}
        while pending:
            for direction, process in list(pending.items()):
                now = time.monotonic()
                if process.is_running() and now > cutoff:
                    process.stop(timeout_s=WAIT_MARGIN_S)
                    stopped[direction] = now - start
                if process.is_running():
                    continue
                del pending[direction]
                reports[direction] = self._report(direction, process, rate)
            if pending and time.monotonic() > deadline:
                raise TrafficGeneratorError(
                    f"{self.node}: tcpreplay did not finish {duration:g} s at {rate:g} pps within "
                    f"{WAIT_FACTOR * duration + WAIT_MARGIN_S:g} s; stopped "
                    f"(directions {sorted(pending)})"
                )
            if pending:
                time.sleep(POLL_S)
        with self._lock:
            self._running = [p for p in self._running if p.is_running()]
        return Sent(reports, stopped)

    def _report(
        self, direction: int, process: LocalProcess, rate: float
    ) -> tcpreplay.TcpreplayReport:
        """The report of a sender that ended (TrafficGeneratorError if it failed)."""
        code = process.stop()
        output = process.output()
        report = tcpreplay.parse_report(output) if code == 0 else None
        if report is None:
            raise TrafficGeneratorError(
                f"{self.node}: tcpreplay failed with exit code {code} at {rate:g} pps "
                f"(direction {direction}): {' '.join(process.argv)}\n"
                f"output:\n{tail(output.rstrip()) or '(none)'}"
            )
        return report

    def stop(self) -> None:
        """Stop every sender still running, by PID (idempotent)."""
        with self._lock:
            running, self._running = self._running, []
        for process in running:
            if process.is_running():
                process.stop(timeout_s=3.0)
