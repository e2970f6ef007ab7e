"""The VPP of one DUT as a running program: (re)started, waited for, found dead or frozen, ended.

``options.service: systemd`` (the default) restarts and stops the unit with
``systemctl``; ``direct`` (and every VPP of the run, on Linux interfaces)
starts ``<binary> -c <startup_conf>`` as a background process of the node
access and ends it by PID. ``VppService`` does it when the driver
(``driver.VppDriver``) says and keeps what a result must say: a restart after
VPP died (``notes``), its output. The functions before it look at such a
process and word what its state and its end say (a systemd VPP has none of
this: its unit keeps it).
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable

from ndrpdr.access.base import BackgroundProcess
from ndrpdr.access.processlog import log_tail
from ndrpdr.access.procstate import describe_exit, stopped_text
from ndrpdr.dut.base import DutError
from ndrpdr.dut.health import process_state
from ndrpdr.dut.nodesteps import NodeSteps
from ndrpdr.dut.vpp.cli import VppCli
from ndrpdr.dut.vpp.config import VppOptions
from ndrpdr.errors import NdrPdrError
from ndrpdr.systemtools import require

_log = logging.getLogger(__name__)

#: Pause between two ``vppctl show version`` attempts while VPP starts [s].
POLL_INTERVAL_S = 1.0
#: The same for a VPP of the run on af_packet ports (it answers within about 0.2 s) [s].
AF_PACKET_POLL_INTERVAL_S = 0.1

#: How many times a VPP of the run that died is started again before a start fails.
MAX_RESTARTS = 1


def frozen_text(steps: NodeSteps, binary: str, process: BackgroundProcess) -> str | None:
    """What ``process`` is when a signal stopped it ("vpp (pid 7) is stopped ..."), else None."""
    stopped = stopped_text(process_state(process, steps.access))
    return None if stopped is None else f"{binary} (pid {process.pid}) is {stopped}"


def end(steps: NodeSteps, binary: str, process: BackgroundProcess) -> str:
    """Stop ``process`` (SIGINT, escalating) and return its output (DutError if it cannot)."""
    try:
        process.stop(15.0)
        return process.output()
    except (NdrPdrError, OSError) as exc:
        what = f"{binary} (pid {process.pid})"
        raise steps.error("stop", f"could not end {what}: {exc}") from exc


def output_text(process: BackgroundProcess | None, stopped_log: str) -> str:
    """What the process printed (``stopped_log`` once it ended), for telemetry (no raise)."""
    if process is None:
        return stopped_log
    try:
        return process.output()
    except NdrPdrError as exc:
        return f"unavailable: {exc}"


def death(steps: NodeSteps, binary: str, process: BackgroundProcess, logs: str) -> tuple[str, str]:
    """(what happened, its output) of a process found dead: its exit and output, then ``logs``."""
    try:
        code = process.stop(2.0)
    except (NdrPdrError, OSError):
        code = None
    output = steps.process_output("start", process)
    what = (
        f"{binary} (pid {process.pid}) had exited, {describe_exit(code)}; "
        f"its output:\n{log_tail(output) or '(empty)'}\n{logs}"
    )
    return what, output


def exited_error_text(binary: str, process: BackgroundProcess, output: str, logs: str) -> str:
    """The health check's words for a process that exited while VPP was awaited."""
    return f"{binary} (pid {process.pid}) has exited; its output:\n{log_tail(output)}\n{logs}"


def start(steps: NodeSteps, options: VppOptions, startup_conf: str) -> BackgroundProcess:
    """Start ``<binary> -c <startup_conf>`` in the background (the binary checked first)."""
    fail = functools.partial(steps.error, "start")
    require("vpp", steps.access, binary=options.binary, fail=fail)
    return steps.start("start", [options.binary, "-c", startup_conf])


def state_text(
    options: VppOptions, startup_conf: str, process: BackgroundProcess | None, doing: str | None
) -> str:
    """Telemetry's ``state``: how VPP runs, then "stopped" (``doing`` None) or "running", its
    pid and what it does."""
    how = (
        f"systemd unit {options.systemd_unit}"
        if options.service == "systemd"
        else f"{options.binary} -c {startup_conf}"
    )
    if doing is None:
        return f"vpp ({how}): stopped"
    alive = ""
    if process is not None:
        try:
            alive = f" pid={process.pid}" + ("" if process.is_running() else " (exited)")
        except NdrPdrError as exc:
            alive = f" pid={process.pid} (state unknown: {exc})"
    return f"vpp ({how}): running{alive}{doing}"


class VppService:
    """One DUT's VPP: a systemd unit or a process started here; running or not."""

    def __init__(
        self,
        steps: NodeSteps,
        options: VppOptions,
        cli: VppCli,
        *,
        startup_conf: str,
        of_the_run: bool,
        after_end: Callable[[str], None],
        notes: list[str],
        clock: Callable[[], float],
        sleep: Callable[[float], None],
    ) -> None:
        """``of_the_run``: VPP on the node's Linux interfaces (polled faster while it starts);
        ``after_end(step)`` runs after a process started here ended (what it leaves
        behind, an XDP program); a restart after a death is appended to ``notes``."""
        self._steps = steps
        self._options = options
        self._cli = cli
        self._startup_conf = startup_conf
        self._interval_s = AF_PACKET_POLL_INTERVAL_S if of_the_run else POLL_INTERVAL_S
        self._after_end = after_end
        self._notes = notes
        self._clock = clock
        self._sleep = sleep
        #: True from a start until a stop (a process started here may have died since).
        self.running = False
        self._process: BackgroundProcess | None = None
        self._stopped_log = ""
        self._restarts = 0

    @property
    def process(self) -> BackgroundProcess | None:
        """The VPP process started here (None: not started, or a systemd service)."""
        return self._process

    def restart(self) -> None:
        """(Re)start VPP with the written startup.conf."""
        options = self._options
        if options.service == "direct":
            process, self._process = self._process, None
            self.running = False
            if process is not None:
                self.end(process)
                self._after_end("start")  # a VPP that ends leaves its XDP program attached
            self._process = start(self._steps, options, self._startup_conf)
            self.running = True
            return
        argv = ["systemctl", "restart", options.systemd_unit]
        try:
            self._steps.run("start", argv, timeout_s=120.0)
        except DutError as exc:
            self.running = False
            raise DutError(f"{exc}\n{self._cli.logs()}") from exc
        self.running = True

    def stop_unit(self) -> None:
        """``systemctl stop`` the unit (a systemd VPP)."""
        self.running = False
        self._steps.run("stop", ["systemctl", "stop", self._options.systemd_unit], timeout_s=120.0)

    def forget(self) -> BackgroundProcess | None:
        """The process started here (None: a systemd one), taken off: not running (the caller
        ends it)."""
        process, self._process = self._process, None
        self.running = False
        return process

    def end(self, process: BackgroundProcess) -> None:
        """Stop ``process`` (SIGINT, escalating) and keep its output."""
        self._stopped_log = end(self._steps, self._options.binary, process)

    def frozen(self) -> str | None:
        """What a VPP started here that is stopped by a signal is (None: it is not)."""
        process = self._process
        if not self.running or process is None:
            return None
        return frozen_text(self._steps, self._options.binary, process)

    def alive_now(self) -> bool:
        """True when the VPP started here still runs (a systemd VPP: when started)."""
        process = self._process
        return self.running and (
            process is None or self._steps.process_running("health check", process)
        )

    def note_death(self) -> None:
        """VPP died: note it with its log tail, or fail if it was already restarted."""
        process = self._process
        assert process is not None
        what, self._stopped_log = death(
            self._steps, self._options.binary, process, self._cli.logs()
        )
        if self._restarts >= MAX_RESTARTS:
            self._process, self.running = None, False
            raise self._steps.error(
                "start", f"{what}\nnot started again: it was restarted {self._restarts} time(s)"
            )
        self._restarts += 1
        note = f"{self._steps.node}: VPP restarted: {what}"
        self._notes.append(note)
        _log.warning("%s", note)

    def wait_for_cli(self) -> None:
        """Poll ``vppctl show version`` until it answers or ``start_timeout_s`` passes."""
        self._cli.wait(
            self._options.start_timeout_s,
            interval_s=self._interval_s,
            clock=self._clock,
            sleep=self._sleep,
            check_process=self._check_exited,
        )

    def _check_exited(self) -> None:
        """DutError with its output when the VPP started here has exited."""
        process = self._process
        if process is not None and not self._steps.process_running("health check", process):
            self._stopped_log = self._steps.process_output("health check", process)
            text = exited_error_text(
                self._options.binary, process, self._stopped_log, self._cli.logs()
            )
            raise self._steps.error("health check", text)

    def output(self) -> str:
        """What the process started here wrote (the last one's, once it ended)."""
        return output_text(self._process, self._stopped_log)

    def state(self, doing: str) -> str:
        """VPP's state in one line; ``doing`` (what it forwards) is added while it runs."""
        if not self.running:
            return state_text(self._options, self._startup_conf, None, None)
        return state_text(self._options, self._startup_conf, self._process, doing)
