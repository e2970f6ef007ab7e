"""vppctl on a VPP DUT: one CLI command, an exec script, the plugin and port checks, the log;
VPP's version for the records (``vpp_version``).

Every call is an argument vector run as root through the node's access
(``NodeSteps``); vppctl prints a failed command's error on stdout and may
exit 0, so its output is checked too (``config.cli_error``). Failures are
DutErrors naming the node, the step, the command, its exit code and the
tail of its output.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable

from ndrpdr.access.base import CommandResult, NodeAccess, tail
from ndrpdr.access.processlog import LOG_TAIL_LINES, bounded_log, log_tail
from ndrpdr.access.procstate import describe_exit
from ndrpdr.dut.base import DutError, DutTestConfig
from ndrpdr.dut.nodesteps import NodeSteps
from ndrpdr.dut.vpp import family as vpp_family
from ndrpdr.dut.vpp import vdev as vpp_vdev
from ndrpdr.dut.vpp.config import VppOptions, cli_error, family_plugins, parse_options, plugin_file
from ndrpdr.errors import NdrPdrError
from ndrpdr.systemtools import first_line
from ndrpdr.topology.model import Node

#: Time limit of one vppctl call [s].
VPPCTL_TIMEOUT_S = 30.0
#: The CLI texts telemetry keeps, by name.
TELEMETRY_COMMANDS: tuple[tuple[str, str], ...] = (
    ("show_runtime", "show runtime"),
    ("show_errors", "show errors"),
    ("show_interface", "show interface"),
    ("show_hardware", "show hardware"),
    ("show_threads", "show threads"),
    ("show_rx_placement", "show interface rx-placement"),
)
#: Time limit of one ``vppctl exec`` script (a family's thousands of lines) [s].
EXEC_TIMEOUT_S = 600.0


class VppCli:
    """vppctl of one VPP: its CLI socket and log file on the node."""

    def __init__(
        self, steps: NodeSteps, options: VppOptions, *, socket: str, log_file: str
    ) -> None:
        """Run through ``steps``; ``socket`` and ``log_file`` are paths on the node."""
        self._steps = steps
        self._options = options
        self.socket = socket
        self.log_file = log_file

    def argv(self, command: str) -> list[str]:
        """vppctl's argument vector for ``command``."""
        return [self._options.vppctl, "-s", self.socket, *command.split()]

    def run(self, step: str, command: str) -> str:
        """Run one CLI command; a failed exit or an error VPP printed raises DutError."""
        result = self._steps.run(step, self.argv(command), timeout_s=VPPCTL_TIMEOUT_S, check=False)
        self._check(step, result, cli_error(command, result.stdout + "\n" + result.stderr))
        return result.stdout

    def text(self, command: str) -> str:
        """The output of ``command`` for telemetry (a failure is its text; never raises)."""
        return self._steps.text(self.argv(command))

    def wait(
        self,
        timeout_s: float,
        *,
        interval_s: float,
        clock: Callable[[], float],
        sleep: Callable[[float], None],
        check_process: Callable[[], None],
    ) -> None:
        """Poll ``vppctl show version`` until it answers; DutError after ``timeout_s``.

        ``check_process()`` runs before each try and raises when VPP exited.
        """
        deadline = clock() + timeout_s
        argv = self.argv("show version")
        attempts = 0
        last = ""
        while True:
            check_process()
            attempts += 1
            try:
                result = self._steps.run(
                    "health check", argv, timeout_s=min(VPPCTL_TIMEOUT_S, timeout_s), check=False
                )
            except DutError as exc:  # vppctl hung or the node did not answer: try again
                last = str(exc.__cause__ or exc)
            else:
                if result.exit_code == 0 and "vpp v" in result.stdout:
                    return
                last = describe(result)
            now = clock()
            if now >= deadline:
                break
            sleep(min(interval_s, deadline - now))
        raise self._steps.error(
            "health check",
            f"VPP did not answer within {timeout_s:g} s ({attempts} attempts); "
            f"last {last}\n{self.logs()}",
        )

    def exec_script(self, step: str, commands: list[str], path: str) -> None:
        """Run ``commands`` as one ``vppctl exec`` script written to ``path`` on the node."""
        try:
            self._steps.access.put_file(vpp_family.script(commands), path, mode=0o644, sudo=True)
        except NdrPdrError as exc:
            raise self._steps.error(f"{step}: write {path}", str(exc)) from exc
        result = self._steps.run(
            step, self.argv(f"exec {path}"), timeout_s=EXEC_TIMEOUT_S, check=False
        )
        self._check(
            step, result, vpp_family.exec_error(commands, result.stdout + "\n" + result.stderr)
        )

    def _check(self, step: str, result: CommandResult, said: str | None) -> None:
        """DutError when vppctl exited non-zero or VPP printed an error (``said``)."""
        if result.exit_code != 0 or said is not None:
            reason = f"VPP says: {said}; " if said is not None else ""
            raise self._steps.error(step, f"{reason}{describe(result)}")

    def set_up(
        self, step: str, config: DutTestConfig, commands: list[str], *, vdev: bool, script: str
    ) -> bool:
        """Check the family's plugins (and dpdk_vdev ports), then run ``commands``: one vppctl
        call each, or, when many, one ``vppctl exec`` script at path ``script``. True when a
        script ran (vppctl exec ends quietly when VPP dies during it: the caller checks)."""
        self.check_plugins(step, config)
        if vdev:
            self.check_vdev_ports(step, config)
        if len(commands) > vpp_family.EXEC_THRESHOLD:
            self.exec_script(step, commands, script)
            return True
        for command in commands:
            self.run(step, command)
        return False

    def telemetry(self, *, vdev: bool) -> dict[str, str]:
        """The CLI texts telemetry keeps, by name (dpdk_vdev: also ``show dpdk version``, whose
        EAL arguments name DPDK's driver of each port)."""
        out = {name: bounded_log(self.text(command)) for name, command in TELEMETRY_COMMANDS}
        if vdev:
            out["show_dpdk_version"] = self.text("show dpdk version")
        return out

    def check_plugins(self, step: str, config: DutTestConfig) -> None:
        """DutError naming the family and each plugin it needs that this VPP has not loaded."""
        needed = family_plugins(config)
        if not needed:
            return
        listed = self.run(step, "show plugins")
        missing = [name for name in needed if f" {plugin_file(name)} " not in f" {listed} "]
        if not missing:
            return
        family = config.family
        assert family is not None
        where = ""
        for line in listed.splitlines():
            if "Plugin path is:" in line:
                where = line.split("Plugin path is:", 1)[1].split(",")[0].strip()
        files = ", ".join(str(plugin_file(name)) for name in missing)
        raise self._steps.error(
            step,
            f"family {family.family} needs the VPP plugin(s) {', '.join(missing)} ({files}), "
            f"which this VPP has not loaded: install {files} in its plugin directory"
            f"{f' ({where})' if where else ''} and check startup.conf enables it",
        )

    def check_vdev_ports(self, step: str, config: DutTestConfig) -> None:
        """dpdk_vdev ports: DutError unless VPP's Ethernet0/1 are DPDK ports on the test's
        interfaces, with their MACs (``vdev.hardware_problem``)."""
        problem = vpp_vdev.hardware_problem(self.run(step, "show hardware"), config)
        if problem is not None:
            raise self._steps.error(step, f"{problem}\n{self.logs()}")

    def log_text(self, lines: int) -> str:
        """The last ``lines`` of VPP's log file (never raises)."""
        return bounded_log(self._steps.text(["tail", "-n", str(lines), "--", self.log_file]))

    def logs(self) -> str:
        """The end of VPP's log file, and of its journal (systemd) for an error message."""
        parts = [
            f"VPP log tail ({self.log_file}):\n"
            f"{log_tail(self.log_text(LOG_TAIL_LINES)) or '(empty)'}"
        ]
        if self._options.service == "systemd":
            unit = self._options.systemd_unit
            journal = self._steps.text(
                ["journalctl", "--no-pager", "-o", "cat", "-n", str(LOG_TAIL_LINES), "-u", unit]
            )
            parts.append(f"journal tail ({unit}):\n{log_tail(journal) or '(empty)'}")
        return "\n".join(parts)


def describe(result: CommandResult) -> str:
    """The command, its exit code and the tail of its output, for an error message."""
    output = "\n".join(t.rstrip() for t in (result.stdout, result.stderr) if t.strip())
    shown = tail(output) if output else "(no output)"
    return f"`{shlex.join(result.argv)}` exited {result.exit_code}; output tail:\n{shown}"


#: A VPP release in ``vpp --version``'s line ("vpp v26.06-release built by ...").
_RELEASE = re.compile(r"\bvpp (v[0-9]+\.[0-9]+\S*)")


def vpp_installed_version(node: Node, access: NodeAccess) -> tuple[str, str]:
    """``("v26.06-release", binary)`` from ``<binary> --version`` on the node, VPP running or
    not (what ``ndrpdr check`` compares); DutError when the binary does not say."""
    binary = parse_options(node).binary
    result = access.run([binary, "--version"], check=False, timeout_s=30.0)
    found = _RELEASE.search(result.stdout)
    if result.exit_code != 0 or found is None:
        said = tail(f"{result.stdout}{result.stderr}".strip(), 200) or "no output"
        status = describe_exit(result.exit_code, shell=True)
        raise DutError(f"{binary} --version: {status}: {said}")
    return found.group(1), binary


def vpp_version(node: Node, access: NodeAccess) -> str | None:
    """``vpp v26.06-release`` as ``vppctl show version`` says it, VPP running (the version
    probe of the vpp driver); None when VPP does not answer."""
    options = parse_options(node)
    line = first_line(access, [options.vppctl, "-s", options.cli_socket, "show", "version"])
    if line is None or not line.startswith("vpp"):
        return None
    return line.split(" built by ")[0].strip()
