"""Commands on one DUT node, each failure a DutError naming the node, the driver and the step.

Every DUT driver that drives a real node (linux, ovs, vpp, testpmd, l3fwd)
runs its commands through ``NodeSteps``: the node's NodeAccess (local,
netns or SSH) runs them as root, and a failed command or an unreachable
node becomes a DutError "NODE (driver): step: detail" with the command's
output tail. Nothing here assumes the node is this machine.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ndrpdr.access.base import BackgroundProcess, CommandResult, NodeAccess
from ndrpdr.dut.base import DutError
from ndrpdr.errors import NdrPdrError


class NodeSteps:
    """Commands on one node; every failure becomes a DutError naming node, driver and step."""

    def __init__(self, node: str, driver: str, access: NodeAccess) -> None:
        """``node``: key for messages; ``driver``: driver name; ``access``: the node's transport."""
        self.node = node
        self.driver = driver
        self.access = access

    def option_error(self, field: str, detail: str) -> DutError:
        """A DutError "NODE (driver): options.FIELD: detail" (for ``read_options``)."""
        return DutError(f"{self.node} ({self.driver}): options.{field}: {detail}")

    def error(self, step: str, detail: str) -> DutError:
        """A DutError "NODE (driver): step: detail"."""
        prefix = f"{self.node}: "
        detail = detail[len(prefix) :] if detail.startswith(prefix) else detail
        return DutError(f"{self.node} ({self.driver}): {step}: {detail}")

    def run(
        self,
        step: str,
        argv: Sequence[str],
        *,
        timeout_s: float = 30.0,
        check: bool = True,
        stdin: str | bytes | None = None,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        """Run ``argv``; a failed command (when ``check``) or unreachable node raises DutError."""
        try:
            return self.access.run(
                argv, timeout_s=timeout_s, check=check, stdin=stdin, env=env, sudo=True
            )
        except NdrPdrError as exc:
            raise self.error(step, str(exc)) from exc

    def output(self, step: str, argv: Sequence[str], **kwargs: Any) -> str:
        """The stdout of ``argv`` (run as in ``run``)."""
        return self.run(step, argv, **kwargs).stdout

    def undo(self, errors: list[str], step: str, argv: Sequence[str]) -> None:
        """Run a clean-up step; its failure is added to ``errors`` instead of raised.

        A stop undoes everything it can and reports all that failed at once.
        """
        try:
            self.run(step, argv)
        except DutError as exc:
            errors.append(str(exc))

    def start(
        self, step: str, argv: Sequence[str], *, env: Mapping[str, str] | None = None
    ) -> BackgroundProcess:
        """Start ``argv`` in the background (DutError if it cannot be started)."""
        try:
            return self.access.start(argv, env=env, sudo=True)
        except NdrPdrError as exc:
            raise self.error(step, str(exc)) from exc

    def process_output(self, step: str, process: BackgroundProcess) -> str:
        """The log of ``process`` so far (DutError when the node cannot be reached)."""
        try:
            return process.output()
        except NdrPdrError as exc:
            raise self.error(step, f"cannot read the log of pid {process.pid}: {exc}") from exc

    def process_running(self, step: str, process: BackgroundProcess) -> bool:
        """True while ``process`` runs (DutError when the node cannot be reached)."""
        try:
            return process.is_running()
        except NdrPdrError as exc:
            raise self.error(step, f"cannot tell whether pid {process.pid} runs: {exc}") from exc

    def track_path(self, path: str) -> None:
        """On a local run, have its crash cleanup remove ``path`` too (other accesses: no-op)."""
        track = getattr(self.access, "track_path", None)
        if callable(track):
            track(path)

    def text(self, argv: Sequence[str], *, env: Mapping[str, str] | None = None) -> str:
        """For telemetry: the stdout of ``argv``, or a line saying why there is none (no raise)."""
        try:
            result = self.access.run(argv, timeout_s=15.0, check=False, env=env, sudo=True)
        except NdrPdrError as exc:
            return f"unavailable: {exc}"
        if result.exit_code != 0:
            return f"unavailable: {result.command} exited {result.exit_code}: {result.stderr}"
        return result.stdout
