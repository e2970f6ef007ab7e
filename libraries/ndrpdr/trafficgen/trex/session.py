"""TrexSession: the TRex server and the connected STL client of one testbed.

A TRex server takes seconds to start, so a testbed starts it once (as
CSIT does per suite) and every test's TrexTrafficGenerator uses this
session. The constructor only checks (options, ports, MACs, the config
text); ``open`` (idempotent) starts the server over the TG's node access
(unless ``options.start_server`` is false) and makes the client, which
``handshake`` connects (reading the server's version and its cores per
port pair, for ``core_mask``) and has acquire TRex ports 0 and 1.
``watched`` watches the server during a trial (``watch``); ``health_check``
finds a server that died (or stopped answering) and restarts it once;
``close`` (idempotent) stops traffic, releases the ports, disconnects and
stops the server, reporting every failure together.

The client runs in a child process (``childclient``); ``namespace`` puts
that child into the TG's network namespace on this machine (a TG with
netns access), where a TRex listens on its own addresses.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

from ndrpdr.access.base import NodeAccess
from ndrpdr.access.netns import NetnsTransport
from ndrpdr.topology.model import Topology
from ndrpdr.topology.path import TrafficPath
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.trex.astf.client import make_trex_client
from ndrpdr.trafficgen.trex.client import (
    ClientFactory,
    ClientSettings,
    CoreMask,
    TrexClient,
    TrexMode,
    core_mask,
)
from ndrpdr.trafficgen.trex.config import TrexPort, render_config, trex_ports
from ndrpdr.trafficgen.trex.handshake import handshake, trex_text
from ndrpdr.trafficgen.trex.memif import memif_sockets
from ndrpdr.trafficgen.trex.options import TrexOptions, parse_options, where
from ndrpdr.trafficgen.trex.perrun import per_run_options
from ndrpdr.trafficgen.trex.server import ServerExitedError, TrexServer
from ndrpdr.trafficgen.trex.watch import watching

_log = logging.getLogger(__name__)

#: TRex ports of the pair the driver uses.
PORTS = (0, 1)

_T = TypeVar("_T")


class TrexCallError(TrafficGeneratorError):
    """A client call failed; ``server_problem`` is what became of the server started here
    (None: it runs, or was not started here), as ``TrexServer.diagnose`` says."""

    def __init__(self, message: str, *, server_problem: str | None) -> None:
        super().__init__(message)
        self.server_problem = server_problem


#: How many times ``open`` starts a server that fails to come up (CSIT: 3).
SERVER_STARTS = 3


class TrexSession:
    """One testbed's TRex: its server (when started here) and the connected client."""

    def __init__(
        self,
        topology: Topology,
        *,
        access: NodeAccess | None,
        namespace: str | None = None,
        path: TrafficPath | None = None,
        client_factory: ClientFactory | None = None,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        """Check the TG node and its options; no I/O.

        ``path``: the testbed's traffic path, whose TG ports are TRex ports 0
        and 1 (default: ``compute_path(topology)``).

        ``access`` is the TG's node access (needed unless
        ``options.start_server`` is false); ``namespace`` the TG's real
        network namespace on this machine, if it has one (the client then
        runs there; default: the namespace of a NetnsTransport ``access``,
        else none); ``client_factory`` makes the client (default: TRex's
        real client in a child process); ``sleep`` paces the API retries.
        A TG in a local network namespace gets its own config file and DPDK
        prefix (``perrun``), so concurrent runs share nothing.
        """
        self.topology = topology
        tg = topology.tg
        self.node = tg.key
        if tg.driver != "trex":
            raise TrafficGeneratorError(
                f"{where(topology, tg, 'driver')}: {tg.driver!r} is not trex"
            )
        self.options: TrexOptions = per_run_options(parse_options(topology), tg.options, access)
        self.ports: tuple[TrexPort, ...] = trex_ports(topology, self.options, path)
        self.config_text = render_config(self.ports, self.options)
        if self.options.start_server and access is None:
            raise TrafficGeneratorError(
                f"{self.node}: the TG's node access is needed to start the TRex server "
                f"(or set nodes.{tg.key}.options.start_server to false to use a running one)"
            )
        self.access = access
        if namespace is None and isinstance(access, NetnsTransport):
            namespace = access.namespace
        self.settings = ClientSettings(
            node=self.node,
            server=self.options.server or "localhost",
            sync_port=self.options.sync_port,
            async_port=self.options.async_port,
            client_path=self.options.client_path,
            namespace=namespace,
        )
        self._factory: ClientFactory = client_factory or make_trex_client
        self._sleep = sleep
        self._lock = threading.RLock()
        self._client: TrexClient | None = None
        self._server: TrexServer | None = None
        self._aborted = False  # the watch ended the client (``watched``)
        #: How many times this session started a TRex server.
        self.starts = 0
        #: The server's version ("v3.08"), once open.
        self.server_version: str | None = None
        #: Data-plane cores per port pair: the server's figure once open, else the options'.
        self.cores_per_port_pair = self.default_cores_per_port_pair(self.options)

    @staticmethod
    def default_cores_per_port_pair(options: TrexOptions) -> int:
        """Cores per port pair the options ask for (a low_end TRex, software mode too, has 1)."""
        return 1 if options.one_core else options.cores

    # -- state -------------------------------------------------------------------------
    @property
    def is_open(self) -> bool:
        """True between a successful ``open`` and ``close``."""
        return self._client is not None

    @property
    def client(self) -> TrexClient:
        """The connected client (TrafficGeneratorError before ``open``)."""
        client = self._client
        if client is None:
            raise TrafficGeneratorError(f"{self.node}: the TRex session is not open")
        return client

    @property
    def server_pid(self) -> int | None:
        """PID of the server process started here (the start wrapper), if one runs."""
        server = self._server
        process = server.process if server is not None else None
        return process.pid if process is not None else None

    @property
    def lock(self) -> threading.RLock:
        """Held around each client call (a trial's calls and stop_traffic from another thread)."""
        return self._lock

    def core_mask(self, sending_ports: Sequence[int]) -> CoreMask:
        """The core mask for a start of ``sending_ports`` (see ``client.core_mask``)."""
        return core_mask(sending_ports, self.cores_per_port_pair)

    def call(self, what: str, action: Callable[[], _T]) -> _T:
        """Run a client call under the lock; its failure becomes an error naming the node.

        When the server started here died or froze, the error says so
        first (``TrexServer.diagnose``: pid, signal or state, log tail),
        then what the client saw.
        """
        try:
            with self._lock:
                return action()
        except Exception as exc:
            raise self.failure(what, exc) from exc

    def failure(self, what: str, exc: BaseException) -> TrexCallError:
        """The error for client call ``what`` that failed with ``exc`` (see ``call``)."""
        said = f"TRex {what}: {trex_text(exc)}"
        server = self._server
        problem = None if server is None else server.diagnose()
        if server is None or problem is None:
            return TrexCallError(f"{self.node}: {said}", server_problem=None)
        pid = self.server_pid if server.process is not None else None
        started = f" (started as pid {pid})" if pid is not None else ""
        seen = f"TRex {what} was cut short for it" if self._aborted else f"the client saw: {said}"
        return TrexCallError(
            f"{self.node}: the TRex server{started} {problem}; {seen}\n"
            f"the TRex server's log (tail):\n{server.log_tail()}",
            server_problem=problem,
        )

    def reconnect(self) -> None:
        """A new client for the running server (the old one is dropped without a word).

        For a call that failed while the server runs: the client child may
        be gone or out of step. TrafficGeneratorError when the server does
        not take the new client.
        """
        with self._lock:
            self._discard_client()
            self._client = self._new_client()

    # -- lifecycle ---------------------------------------------------------------------
    @property
    def mode(self) -> TrexMode:
        """TRex's mode: ``stl`` until a stateful family's test asks for ``astf``."""
        return self.settings.mode

    def use_mode(self, mode: TrexMode) -> str | None:
        """Serve ``mode`` from now on; a note when an open session had to restart TRex for it.

        TRex runs in one mode (``--astf`` or not) with one kind of client,
        so an open session in the other mode is closed and opened again
        (server and client); one not open yet opens in ``mode`` later.
        """
        with self._lock:
            previous = self.settings.mode
            if mode == previous:
                return None
            was_open = self.is_open
            if was_open:
                self.close()
            self.settings = dataclasses.replace(self.settings, mode=mode)
            if not was_open:
                return None
            self.open()
            note = (
                f"{self.node}: TRex restarted in {mode} mode (pid {self.server_pid}): it ran in "
                f"{previous} mode for an earlier test"
            )
            _log.warning("%s", note)
            return note

    def open(self) -> None:
        """Start the server (unless start_server is false), connect, acquire ports 0 and 1.

        A server started here that exits while starting is started again, up
        to ``SERVER_STARTS`` times in all (as CSIT does: on a loaded machine a
        TRex sometimes dies while starting, starved); one that runs but never
        answers, or refuses the client, is not. The error after the last
        start says how many there were.
        """
        with self._lock:
            if self._client is None:
                for start in range(1, SERVER_STARTS + 1):  # only a server started here exits
                    try:
                        self._open()
                        return
                    except ServerExitedError as exc:
                        if start == SERVER_STARTS:
                            raise TrafficGeneratorError(
                                f"{exc}\n(the TRex server was started {start} times)"
                            ) from exc
                        _log.warning(
                            "%s: TRex start %d of %d failed, starting it again: %s",
                            self.node, start, SERVER_STARTS, str(exc).splitlines()[0],
                        )  # fmt: skip

    @contextlib.contextmanager
    def watched(self) -> Iterator[None]:
        """Watch the server started here while the block (a trial) runs (``watch``).

        A server that died or froze has its client ended at once (``abort``),
        so the call waiting on it fails now, naming the server (``call``).
        """

        def abort() -> None:
            end = getattr(self._client, "abort", None)
            if end is not None:
                self._aborted = True
                end()

        self._aborted = False
        with watching(self._server, abort, f"{self.node} TRex watch"):
            yield

    def health_check(self) -> str | None:
        """None when the server runs and answers; else restart it once and say so.

        A session not open yet is opened. A server started here that exited
        or does not answer is stopped and started again (once per call):
        the note returned names the dead server's PID and has the tail of
        its log. TrafficGeneratorError (with that log) when the restart
        fails, or when the server was not started here (start_server false).
        """
        with self._lock:
            if self._client is None:
                self._open()
                return None
            problem = self._problem()
            if problem is None:
                return None
            if self._server is None:
                raise TrafficGeneratorError(
                    f"{self.node}: the TRex server at {self.settings.server}:"
                    f"{self.settings.sync_port} {problem}; it was not started here "
                    f"(options.start_server is false): restart it by hand"
                )
            dead_pid = self.server_pid
            self._discard_client()
            with contextlib.suppress(TrafficGeneratorError):
                self._server.stop()
            dead_log = self._server.log_tail()
            try:
                self._open()
            except TrafficGeneratorError as exc:
                raise TrafficGeneratorError(
                    f"{self.node}: the TRex server (pid {dead_pid}) {problem}, and restarting it "
                    f"failed: {exc}\nthe dead server's log (tail):\n{dead_log}"
                ) from exc
            note = (
                f"{self.node}: the TRex server (pid {dead_pid}) {problem}; restarted it once "
                f"(pid {self.server_pid}); the dead server's log (tail):\n{dead_log}"
            )
            _log.warning("%s", note)
            return note

    def close(self) -> None:
        """Stop traffic, release the ports, disconnect, stop the server (idempotent).

        Every step is tried; their failures come together as one
        TrafficGeneratorError.
        """
        errors: list[str] = []
        with self._lock:
            server = self._server
            if server is not None and not server.is_running():
                self._discard_client()  # nothing to talk to: RPCs would only time out
            client, self._client = self._client, None
            if client is not None:
                for what, action in (
                    ("stop", lambda: client.stop(PORTS)),
                    ("release", lambda: client.release(PORTS)),
                    ("disconnect", client.disconnect),
                    ("close", client.close),
                ):
                    try:
                        self.call(what, action)
                    except TrafficGeneratorError as exc:
                        errors.append(str(exc))
            self._server = None
            if server is not None:
                try:
                    server.stop()
                except TrafficGeneratorError as exc:
                    errors.append(str(exc))
                else:
                    _log.info("%s: TRex server stopped", self.node)
        if errors:
            raise TrafficGeneratorError(f"{self.node}: closing TRex: " + "; ".join(errors))

    # -- parts -------------------------------------------------------------------------
    def _problem(self) -> str | None:
        """What is wrong with the server (None: it runs and answers)."""
        server = self._server
        problem = None if server is None else server.diagnose()
        if problem is not None:
            return problem
        try:
            self.call("ping", self.client.ping)
        except TrafficGeneratorError as exc:
            return f"did not answer ({exc})"
        return None

    def _discard_client(self) -> None:
        """Drop the client without a word to the server (it is gone)."""
        client, self._client = self._client, None
        if client is not None:
            with contextlib.suppress(Exception):
                client.close()

    def _open(self) -> None:
        started = time.monotonic()
        process = None
        if self.options.start_server:
            assert self.access is not None  # checked in the constructor
            if self._server is None:
                self._server = TrexServer(
                    self.access,
                    self.options,
                    self.config_text,
                    stale_files=memif_sockets([port.memif_socket for port in self.ports]),
                    mode=self.settings.mode,
                )
            self._server.start()
            self.starts += 1
            process = self._server.process
        try:
            client = self._new_client()
        except BaseException:
            server, self._server = self._server, None
            if server is not None:
                with contextlib.suppress(TrafficGeneratorError):
                    server.stop()
            raise
        self._client = client
        if process is not None:
            _log.info(
                "%s: TRex server started (pid %d), %s, API answered after %.1f s",
                self.node,
                process.pid,
                self.server_version,
                time.monotonic() - started,
            )

    def _new_client(self) -> TrexClient:
        """A client made, connected and holding the ports (``handshake``); one that fails is
        closed."""
        client = self.call("client", lambda: self._factory(self.settings))
        try:
            said = handshake(
                client,
                settings=self.settings,
                options=self.options,
                process=self._server.process if self._server is not None else None,
                ports=PORTS,
                call=self.call,
                sleep=self._sleep,
            )
        except BaseException:
            with contextlib.suppress(Exception):
                client.disconnect()
            with contextlib.suppress(Exception):
                client.close()
            raise
        self.server_version = said.version
        if said.cores_per_port_pair is not None:
            self.cores_per_port_pair = said.cores_per_port_pair
        return client

    def __repr__(self) -> str:
        state = "open" if self.is_open else "closed"
        return (
            f"TrexSession(node={self.node!r}, server={self.settings.server!r}, "
            f"namespace={self.settings.namespace!r}, {self.mode}, {state}, starts={self.starts})"
        )
