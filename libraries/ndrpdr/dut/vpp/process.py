"""A VPP the driver starts itself (``service: direct``): a background process of the node access.

What its state and its end say: stopped by a signal (frozen), exited with a
code and its output, ended on purpose. The driver keeps the process and
decides; these functions only look and word (a systemd VPP has none of this:
its unit keeps it).
"""

from __future__ import annotations

import functools

from ndrpdr.access.base import BackgroundProcess
from ndrpdr.access.processlog import log_tail
from ndrpdr.access.procstate import describe_exit, stopped_text
from ndrpdr.dut.health import process_state
from ndrpdr.dut.nodesteps import NodeSteps
from ndrpdr.dut.vpp.config import VppOptions
from ndrpdr.errors import NdrPdrError
from ndrpdr.systemtools import require

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
