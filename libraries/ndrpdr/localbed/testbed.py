"""LocalTestbed: the namespaces, veths, RPS masks and TG sink of one run, and their removal.

Lifecycle: ``__init__`` plans (no I/O); ``setup`` writes the run's state
file, starts the run's reaper (a process that removes the run if this one
dies without a teardown, e.g. on SIGKILL: ``ndrpdr.localbed.reaper``),
then creates namespaces and veth pairs and configures each namespace
(about 0.1 s for 2 namespaces); ``teardown`` stops the run's processes,
deletes its root-namespace interfaces (``track_interface``), its
namespaces and files and the state file, then ends the reaper. If setup
fails half way, what was made is removed before the error propagates. Use
it as a context manager to tear down on exceptions and Ctrl-C as well.
"""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import threading
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ndrpdr.access.local import LocalProcess
from ndrpdr.access.netns import NetnsTransport
from ndrpdr.localbed.errors import LocalTestbedError
from ndrpdr.localbed.naming import check_root_ifname, check_run_id, new_run_id
from ndrpdr.localbed.plan import Plan, make_plan
from ndrpdr.localbed.plumbing import (
    configure_namespace,
    delete_links,
    delete_namespaces,
    existing_namespaces,
    netns_add_batch,
    run_ip_batch,
    veth_batch,
)
from ndrpdr.localbed.procs import is_alive, namespace_pids, start_time, terminate
from ndrpdr.localbed.signals import sigint_deferred
from ndrpdr.localbed.state import ProcessRecord, RunState, StateStore
from ndrpdr.localbed.supervisor import start_reaper, stop_reaper
from ndrpdr.systemtools import require
from ndrpdr.topology.model import Topology

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from ndrpdr.access.base import StartOptions


_log = logging.getLogger(__name__)


def _log_path(process: LocalProcess) -> str:
    """Where a LocalProcess writes its output."""
    return str(process.log_path)


class TrackedNetnsTransport(NetnsTransport):
    """A NetnsTransport that reports every process it starts (PID, log file) for the state file.

    ``close`` also collects the output of processes that ended on their own,
    so their log files go (their ``output()`` stays readable).
    """

    def __init__(
        self,
        node: str,
        namespace: str,
        on_start: Callable[[int, str | None], None],
        *,
        run_id: str | None = None,
        on_path: Callable[[str], None] | None = None,
    ) -> None:
        """``on_start(pid, log path)`` is called after each ``start``.

        ``run_id``: the run the namespace belongs to; ``on_path(path)``
        records a file of the run for its teardown (``track_path``).
        """
        super().__init__(node, namespace)
        self._on_start = on_start
        self._on_path = on_path
        self.run_id = run_id
        self._started: list[LocalProcess] = []

    def track_path(self, path: str) -> None:
        """Have the run's teardown (or cleanup_leftovers) remove ``path`` (a file or directory)."""
        if self._on_path is not None:
            self._on_path(path)

    def start(self, argv: Sequence[str], **options: Unpack[StartOptions]) -> LocalProcess:
        """Start ``argv`` in the namespace and record its PID in the run's state."""
        process = super().start(argv, **options)
        for ended in [p for p in self._started if not p.is_running()]:
            ended.stop()  # collects its output (still readable) and deletes its log
            self._started.remove(ended)
        self._started.append(process)
        self._on_start(process.pid, _log_path(process))
        return process

    def close(self) -> None:
        """Stop the processes still running and collect the output of all (idempotent)."""
        super().close()
        started, self._started = self._started, []
        for process in started:
            process.stop()


def remove_path(path: str) -> bool:
    """Remove a file or directory tree; True if something was there."""
    target = Path(path)
    if target.is_dir() and not target.is_symlink():
        shutil.rmtree(target, ignore_errors=True)
        return True
    try:
        target.unlink()
    except FileNotFoundError:
        return False
    return True


class LocalTestbed:
    """The local (netns + veth) part of a topology, for one run."""

    def __init__(
        self,
        topology: Topology,
        run_id: str | None = None,
        *,
        host_namespaces: Mapping[str, str] | None = None,
    ) -> None:
        """Plan the run (LocalTestbedError for a topology it cannot build); no I/O.

        ``host_namespaces``: {node key: logical namespace} for nodes without
        netns access whose ports live in a namespace of this run (see make_plan).
        """
        self.topology = topology
        self.run_id = new_run_id() if run_id is None else check_run_id(run_id)
        self.plan: Plan = make_plan(topology, self.run_id, host_namespaces=host_namespaces)
        self._store = StateStore()
        self._state: RunState | None = None
        self._lock = threading.RLock()
        self._transports: dict[str, TrackedNetnsTransport] = {}
        self._reaper: subprocess.Popen[bytes] | None = None

    # -- lifecycle -------------------------------------------------------------------
    @property
    def is_set_up(self) -> bool:
        """True between a successful ``setup`` and ``teardown``."""
        return self._state is not None

    @property
    def state_file(self) -> Path:
        """This run's state file."""
        return self._store.path(self.run_id)

    @property
    def reaper_pid(self) -> int | None:
        """PID of the run's reaper while it runs (None before setup and after teardown)."""
        return None if self._reaper is None else self._reaper.pid

    def setup(self) -> None:
        """Write the state file, start the reaper, create namespaces, veths, RPS masks and the
        TG sink; undo all on any failure."""
        with self._lock:
            if self._state is not None:
                raise LocalTestbedError(f"run {self.run_id}: already set up")
            require("ip")
            if any(setup.sink for setup in self.plan.setups):
                require("nft")
            clash = existing_namespaces(self.plan.namespaces)
            if clash:
                raise LocalTestbedError(
                    f"run {self.run_id}: namespaces {', '.join(clash)} exist already"
                )
            own = os.getpid()
            state = RunState(
                self.run_id, own, start_time(own) or 0, namespaces=list(self.plan.namespaces)
            )
            self._store.create(state)
            self._state = state
            try:
                self._start_reaper(state)
                run_ip_batch(netns_add_batch(self.plan.namespaces), "namespace creation")
                run_ip_batch(veth_batch(self.plan.veths), "veth creation")
                for setup in self.plan.setups:
                    configure_namespace(setup)
            except BaseException:
                try:
                    self.teardown()
                except Exception as exc:  # the setup error is the one to report
                    _log.warning("run %s: teardown after failed setup: %s", self.run_id, exc)
                raise

    def teardown(self) -> None:
        """Stop the run's processes, delete its interfaces, namespaces, files and state file.

        Idempotent; things already gone are no error. Raises LocalTestbedError
        only if something could not be removed (the state file and the reaper
        then stay, so the reaper or ``cleanup_leftovers`` can retry once this
        process has exited).
        """
        with sigint_deferred(), self._lock:
            problems: list[str] = []
            for transport in self._transports.values():
                try:
                    transport.close()
                except Exception as exc:  # go on removing the rest
                    problems.append(f"{transport.node}: stopping processes: {exc}")
            self._transports.clear()
            state = self._state
            if state is None:
                return
            pids = {p.pid for p in state.processes if is_alive(p.pid, p.start_time)}
            for namespace in state.namespaces:
                pids.update(namespace_pids(namespace))
            terminate(sorted(pids))
            try:
                delete_links(state.interfaces)
            except LocalTestbedError as exc:
                problems.append(str(exc))
            try:
                delete_namespaces(state.namespaces)
            except LocalTestbedError as exc:
                problems.append(str(exc))
            for path in [*state.paths, *state.logs]:
                remove_path(path)
            if problems:
                raise LocalTestbedError(
                    f"run {self.run_id}: teardown incomplete:\n" + "\n".join(problems)
                )
            self._store.remove(self.run_id)
            self._state = None
            reaper, self._reaper = self._reaper, None
            if reaper is not None:  # it would leave by itself within 0.2 s: the state file is gone
                stop_reaper(reaper)

    def __enter__(self) -> LocalTestbed:
        self.setup()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.teardown()

    # -- parts -----------------------------------------------------------------------
    def namespace(self, node_key: str) -> str:
        """The real network namespace of node ``node_key`` (LocalTestbedError if it has none)."""
        try:
            return self.plan.node_namespaces[node_key]
        except KeyError:
            known = ", ".join(self.plan.node_namespaces)
            raise LocalTestbedError(
                f"run {self.run_id}: node {node_key!r} has no namespace (netns nodes: {known})"
            ) from None

    def access(self, node_key: str) -> NetnsTransport:
        """The transport into node ``node_key``'s namespace (one per node, made on demand)."""
        with self._lock:
            if node_key not in self._transports:
                self._transports[node_key] = TrackedNetnsTransport(
                    node_key,
                    self.namespace(node_key),
                    self._record_process,
                    run_id=self.run_id,
                    on_path=self.track_path,
                )
            return self._transports[node_key]

    def track_path(self, path: str | Path) -> None:
        """Record a file or directory of this run; teardown (or cleanup_leftovers) removes it."""
        target = Path(path).absolute()
        if len(target.parts) < 3:
            raise LocalTestbedError(f"run {self.run_id}: refusing to track {target}")
        self._update(lambda s: s.paths.append(str(target)))

    def untrack_path(self, path: str | Path) -> None:
        """Forget a path recorded with ``track_path`` (its owner removed it)."""
        target = str(Path(path).absolute())
        self._update(lambda s: s.paths.remove(target) if target in s.paths else None)

    def track_interface(self, name: str) -> None:
        """Record an interface of this run in the runner's (root) network namespace.

        Teardown (or cleanup_leftovers) deletes it before the namespaces, so
        the root end of a veth into a run namespace is gone when teardown
        returns (deleting only the namespace frees the pair later, in the
        kernel's own time). Record it *before* creating it; names must be
        unique to the run, as they are deleted by name.
        """
        check_root_ifname(self.run_id, name)
        self._update(lambda s: s.interfaces.append(name) if name not in s.interfaces else None)

    def untrack_interface(self, name: str) -> None:
        """Forget an interface recorded with ``track_interface`` (its owner deleted it)."""
        self._update(lambda s: s.interfaces.remove(name) if name in s.interfaces else None)

    # -- helpers ---------------------------------------------------------------------
    def _start_reaper(self, state: RunState) -> None:
        """Start the run's reaper and record it in the state file (a warning if it cannot start)."""
        try:
            reaper = start_reaper(
                self.run_id, state.owner_pid, state.owner_start_time, self._store.directory
            )
        except LocalTestbedError as exc:  # the run still works; only a SIGKILL would leave it
            _log.warning("%s; a SIGKILL of this process would leave the run behind", exc)
            return
        self._reaper = reaper
        started = start_time(reaper.pid)
        if started is not None:
            self._update(lambda s: setattr(s, "reaper", ProcessRecord(reaper.pid, started)))

    def _record_process(self, pid: int, log: str | None) -> None:
        started = start_time(pid)

        def add(state: RunState) -> None:
            state.processes[:] = [p for p in state.processes if is_alive(p.pid, p.start_time)]
            state.logs[:] = [path for path in state.logs if os.path.exists(path)]
            if started is not None:
                state.processes.append(ProcessRecord(pid, started))
            if log is not None:
                state.logs.append(log)

        self._update(add)

    def _update(self, change: Callable[[RunState], object]) -> None:
        with self._lock:
            if self._state is None:
                return
            change(self._state)
            try:
                self._store.save(self._state)
            except OSError as exc:
                _log.warning("run %s: cannot update the state file: %s", self.run_id, exc)

    def __repr__(self) -> str:
        return f"LocalTestbed(run_id={self.run_id!r}, namespaces={list(self.plan.namespaces)})"
