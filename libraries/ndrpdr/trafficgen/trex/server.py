"""The TRex server on the TG: write trex_cfg.yaml, start ``t-rex-64 -i``, wait for its API, stop it.

Everything goes through the TG's NodeAccess (SSH for a lab TG), as root:

1. the config text is written to ``options.config_path``;
2. ``<install_dir>/t-rex-64 -i --cfg <config_path> [--astf] [--software] <extra_args>``
   starts as a background process of the access (its output is the
   server log). t-rex-64 is a bash wrapper that must run from its own
   directory and runs the server ``_t-rex-64`` as its child, so a small
   ``sh`` starts it in a session (process group) of its own and passes
   SIGINT / SIGTERM on to that whole group (with SIGCONT, so a server
   frozen by SIGSTOP acts on them too): stopping the background
   process stops the server (TRex shuts down cleanly on either signal),
   not just the wrapper;
3. ``wait_for_api`` tries the client's ``connect`` up to ``api_retries``
   times, ``api_retry_interval_s`` apart (CSIT: 20 tries); a server that
   exits or never answers gives an error with the tail of its log.

4. ``stop`` ends the process group (SIGINT, then SIGTERM, then SIGKILL)
   and removes the DPDK runtime directory ``/var/run/dpdk/<prefix>`` the
   server leaves behind when ``extra_args`` name a ``--prefix``.

A TRex that is already running on the TG is not touched (nothing here
kills processes by name): stop it first, or set ``start_server: false``
to use it.
"""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Sequence

from ndrpdr.access.base import BackgroundProcess, NodeAccess, NodeAccessError
from ndrpdr.access.processlog import log_tail
from ndrpdr.access.procstate import describe_exit, process_tree
from ndrpdr.errors import NdrPdrError
from ndrpdr.systemtools import require
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.trex.client import TrexMode, error_text
from ndrpdr.trafficgen.trex.options import TrexOptions

_log = logging.getLogger(__name__)

#: Runs t-rex-64 from its directory ($1) in its own process group (setsid) and passes
#: SIGINT / SIGTERM to that group; waits until the job has really ended.
SERVER_SCRIPT = """\
cd "$1" || exit 1
shift
setsid ./t-rex-64 "$@" &
job=$!
trap 'kill -INT "-$job" 2>/dev/null; kill -CONT "-$job" 2>/dev/null' INT
trap 'kill -TERM "-$job" 2>/dev/null; kill -CONT "-$job" 2>/dev/null' TERM
wait "$job"
status=$?
while kill -0 "$job" 2>/dev/null; do wait "$job"; status=$?; done
exit "$status"
"""

#: Lines of the server's log a message quotes (escapes and control bytes removed).
LOG_TAIL_LINES = 25
#: How long collecting a server that exited (its exit status, its log) may take [s].
COLLECT_TIMEOUT_S = 5.0
#: How long ``stop`` gives the server to exit (SIGINT, SIGTERM, SIGKILL) [s].
STOP_TIMEOUT_S = 30.0
#: Where DPDK keeps a process's runtime files, in a directory named by its --prefix.
DPDK_RUN_DIR = "/var/run/dpdk"

_PREFIX = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")


def dpdk_prefix(extra_args: Sequence[str]) -> str | None:
    """The ``--prefix`` in t-rex-64 arguments (``--prefix X`` or ``--prefix=X``), if any."""
    found: str | None = None
    for index, arg in enumerate(extra_args):
        if arg == "--prefix" and index + 1 < len(extra_args):
            found = extra_args[index + 1]
        elif arg.startswith("--prefix="):
            found = arg.split("=", 1)[1]
    return found if found is not None and _PREFIX.match(found) else None


#: The file TRex's ASTF server reads when a client connects (trex-core's scripts/
#: astf_schema.json); without it the server exits ("Could not create ASTF validator").
ASTF_SCHEMA = "astf_schema.json"


def missing_astf_schema(access: NodeAccess, options: TrexOptions) -> str | None:
    """The path of ASTF_SCHEMA in the TG's TRex when it is not there (None: it is)."""
    path = f"{options.install_dir}/{ASTF_SCHEMA}"
    try:
        found = access.run(["test", "-f", path], check=False, sudo=True).exit_code == 0
    except (NodeAccessError, NdrPdrError) as exc:
        raise TrafficGeneratorError(f"{access.node}: cannot look for {path}: {exc}") from exc
    return None if found else path


def server_command(options: TrexOptions, mode: TrexMode = "stl") -> list[str]:
    """The argv that starts the server (see SERVER_SCRIPT); ``--astf`` in ASTF mode."""
    argv = ["sh", "-c", SERVER_SCRIPT, "t-rex-64", options.install_dir]
    argv += ["-i", "--cfg", options.config_path]
    if mode == "astf":
        argv.append("--astf")
    if options.software_mode:
        argv.append("--software")
    argv += list(options.extra_args)
    return argv


def _log_tail(process: BackgroundProcess | None) -> str:
    if process is None:
        return "(no server log: the server was not started by this driver)"
    try:
        text = log_tail(process.output(), LOG_TAIL_LINES)
    except NdrPdrError as exc:
        return f"(the server log could not be read: {exc})"
    return text or "(empty)"


class ServerExitedError(TrafficGeneratorError):
    """The server exited while starting (a crash, often a starved one: worth a new start)."""


def wait_for_api(
    node: str,
    connect: Callable[[], None],
    *,
    process: BackgroundProcess | None,
    retries: int,
    interval_s: float,
    is_fatal: Callable[[BaseException], bool] = lambda exc: False,
    sleep: Callable[[float], None] = time.sleep,
) -> int:
    """Call ``connect`` until it succeeds, at most ``retries`` times; return the tries it took.

    Stops at once (TrafficGeneratorError with the log tail) when the
    server ``process`` exited; an error ``is_fatal`` says will not go away
    (a version refusal) propagates at once.
    """
    last = "no try made"
    for attempt in range(1, retries + 1):
        if process is not None and not process.is_running():
            raise ServerExitedError(
                f"{node}: the TRex server exited while starting (try {attempt} of {retries}); "
                f"server log (tail):\n{_log_tail(process)}"
            )
        try:
            connect()
        except Exception as exc:
            if is_fatal(exc):
                raise
            last = error_text(exc)
            _log.debug("%s: TRex API not ready (try %d of %d): %s", node, attempt, retries, last)
            if attempt < retries:
                sleep(interval_s)
            continue
        if process is not None and not process.is_running():
            raise TrafficGeneratorError(
                f"{node}: a TRex API answered, but the server started here exited (another TRex "
                f"running on {node}? stop it, or set start_server: false to use it); "
                f"server log (tail):\n{_log_tail(process)}"
            )
        return attempt
    raise TrafficGeneratorError(
        f"{node}: the TRex API did not answer after {retries} tries, {interval_s:g} s apart: "
        f"{last}; server log (tail):\n{_log_tail(process)}"
    )


class TrexServer:
    """One TRex server process on the TG, started and stopped by this driver."""

    def __init__(
        self,
        access: NodeAccess,
        options: TrexOptions,
        config_text: str,
        *,
        stale_files: Sequence[str] = (),
        mode: TrexMode = "stl",
    ) -> None:
        """Remember what to start; no I/O. ``stale_files``: files the server makes (memif
        sockets), removed before each start (it would not start over them) and after it;
        ``mode``: TRex's (``--astf`` for ``astf``)."""
        self.mode: TrexMode = mode
        self.access = access
        self.options = options
        self.config_text = config_text
        self.stale_files = tuple(stale_files)
        self.process: BackgroundProcess | None = None
        self._stopped: BackgroundProcess | None = None

    @property
    def node(self) -> str:
        """The TG's node key."""
        return self.access.node

    def start(self) -> None:
        """Write the config and start ``t-rex-64 -i`` in the background."""
        if self.process is not None:
            return
        require("t-rex-64", self.access, binary=f"{self.options.install_dir}/t-rex-64")
        try:
            self.access.put_file(
                self.config_text.encode(), self.options.config_path, mode=0o644, sudo=True
            )
            if self.stale_files:
                self.access.run(["rm", "-f", "--", *self.stale_files], sudo=True)
            self.process = self.access.start(server_command(self.options, self.mode), sudo=True)
        except (NodeAccessError, NdrPdrError) as exc:
            raise TrafficGeneratorError(
                f"{self.node}: cannot start the TRex server: {exc}"
            ) from exc

    def wait_for_api(
        self,
        connect: Callable[[], None],
        *,
        is_fatal: Callable[[BaseException], bool] = lambda exc: False,
        sleep: Callable[[float], None] = time.sleep,
    ) -> int:
        """``wait_for_api`` for this server (``options.api_retries``, ``api_retry_interval_s``)."""
        return wait_for_api(
            self.node,
            connect,
            process=self.process,
            retries=self.options.api_retries,
            interval_s=self.options.api_retry_interval_s,
            is_fatal=is_fatal,
            sleep=sleep,
        )

    def log_tail(self) -> str:
        """The end of the server's log, or of the last stopped one's (for messages)."""
        return _log_tail(self.process or self._stopped)

    def is_running(self) -> bool:
        """True while the server process this driver started has not exited."""
        return self.process is not None and self.process.is_running()

    def diagnose(self) -> str | None:
        """What became of the server started here, in a few seconds; None: it runs.

        "died (killed by SIGKILL (exit status 137))" for a server that
        exited (collected on the way: its exit status, its log), "is
        frozen: _t-rex-64 (pid N) is stopped (SIGSTOP, state T)" for one
        whose process tree (the start wrapper, t-rex-64, the server) has a
        stopped process. A failed look is no diagnosis (None).
        """
        process = self.process
        if process is None:
            return None
        try:
            if not process.is_running():
                code = getattr(process, "exit_code", None)
                if code is None:
                    code = process.stop(COLLECT_TIMEOUT_S)
                return f"died ({describe_exit(code, shell=True)})"
            stopped = [p for p in process_tree(self.access, process.pid) if p.stopped]
        except NdrPdrError as exc:
            _log.debug("%s: no diagnosis of the TRex server: %s", self.node, exc)
            return None
        if not stopped:
            return None
        return f"is frozen: {stopped[-1].describe()}, alive but not answering"

    def stop(self) -> None:
        """Stop the server and remove its DPDK runtime directory (idempotent).

        A server that had already exited is fine; its log stays readable
        through ``log_tail`` until the next ``start``.
        """
        process = self.process
        if process is None:
            return
        try:
            process.stop(timeout_s=STOP_TIMEOUT_S)
        except NdrPdrError as exc:
            raise TrafficGeneratorError(f"{self.node}: cannot stop the TRex server: {exc}") from exc
        finally:
            self._stopped = process
            self.process = None
        prefix = dpdk_prefix(self.options.extra_args)
        left = [f"{DPDK_RUN_DIR}/{prefix}"] if prefix is not None else []
        if left or self.stale_files:
            try:
                self.access.run(["rm", "-rf", "--", *left, *self.stale_files], sudo=True)
            except NdrPdrError as exc:
                raise TrafficGeneratorError(
                    f"{self.node}: cannot remove the TRex server's DPDK directory or memif "
                    f"sockets: {exc}"
                ) from exc
