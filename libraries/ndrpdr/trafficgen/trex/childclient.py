"""ChildClient: a TrexClient whose TRex STL client runs in a child process (``child.py``).

The child is this interpreter (``sys.executable``) running ``child.py``
by path with ``-I`` (see that module), optionally inside a network
namespace of this machine (``ip netns exec <namespace>``, as root;
``sudo -n`` otherwise) so it reaches a TRex listening only there. Each
call is one request line and one reply line (``child.dumps`` /
``child.loads``), with a timeout: a child that does not answer in time
is killed (by its PID) and one that died ends the call; both become a
TrexClientError naming the call, the child's PID and the tail of its
stderr (where TRex's own printing goes). ``disconnect`` (after TRex's
disconnect) and ``close`` (without a word to the server) end the child;
a ChildClient is not reused after that.
"""

from __future__ import annotations

import collections
import contextlib
import itertools
import os
import queue
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import IO, Any

from ndrpdr.access.pdeathsig import die_with_parent
from ndrpdr.trafficgen.trex import child
from ndrpdr.trafficgen.trex.client import ClientSettings, CoreMask, TrexClient, TrexClientError
from ndrpdr.trafficgen.trex.streams import (
    FixIpv4,
    FixUdpChecksum,
    FlowVar,
    Instruction,
    StreamSpec,
    WriteVar,
)

#: The child program, run by path.
CHILD_PATH = str(Path(child.__file__).resolve())
#: Longest wait for the child to import TRex and make its client (``open``) [s].
OPEN_TIMEOUT_S = 60.0
#: Longest wait for any other reply, beyond the call's own timeout [s]. TRex's client
#: gives up on an RPC after 3 s; connect makes a few.
CALL_TIMEOUT_S = 30.0
#: How long a closing child gets to exit before it is killed [s].
CLOSE_TIMEOUT_S = 5.0
#: How much of the child's stderr is kept for messages [characters].
STDERR_TAIL_CHARS = 4000


def child_argv(
    settings: ClientSettings, python: str = sys.executable, program: str = CHILD_PATH
) -> list[str]:
    """The command that runs the child ``program`` (in ``settings.namespace``, if any)."""
    argv = [python, "-I", "-c", child.BOOTSTRAP, program]
    if settings.namespace is None:
        return argv
    prefix = ["ip", "netns", "exec", settings.namespace]
    if os.geteuid() != 0:
        prefix = ["sudo", "-n", "--", *prefix]
    return [*prefix, *argv]


def instruction_payload(instruction: Instruction) -> dict[str, Any]:
    """A field-engine instruction as the child's ``stl_stream`` reads it."""
    if isinstance(instruction, FlowVar):
        return {
            "op": "flow_var",
            "name": instruction.name,
            "size": instruction.size,
            "min_value": instruction.min_value,
            "max_value": instruction.max_value,
            "step": instruction.step,
            "random": instruction.op == "random",
            "seed": instruction.seed,
            "limit": instruction.limit,
            "next_var": instruction.next_var,
            "init_value": instruction.init_value,
        }
    if isinstance(instruction, WriteVar):
        return {"op": "write", "var": instruction.var, "offset": instruction.offset}
    if isinstance(instruction, FixIpv4):
        return {"op": "fix_ipv4", "offset": instruction.offset}
    if isinstance(instruction, FixUdpChecksum):
        return {
            "op": "fix_udp_checksum",
            "l3_offset": instruction.l3_offset,
            "l4_offset": instruction.l4_offset,
        }
    raise TypeError(f"unknown field-engine instruction {instruction!r}")


def stream_payload(spec: StreamSpec) -> dict[str, Any]:
    """A StreamSpec as the child's ``stl_stream`` reads it."""
    return {
        "name": spec.name,
        "packet": spec.packet,
        "pps": spec.pps,
        "latency_pg_id": spec.latency_pg_id,
        "field_engine": [instruction_payload(i) for i in spec.field_engine],
    }


class _Tail:
    """The last ``limit`` characters written (thread-safe)."""

    def __init__(self, limit: int) -> None:
        self._limit = limit
        self._chunks: collections.deque[str] = collections.deque()
        self._size = 0
        self._lock = threading.Lock()

    def add(self, text: str) -> None:
        with self._lock:
            self._chunks.append(text)
            self._size += len(text)
            while self._size - len(self._chunks[0]) >= self._limit:
                self._size -= len(self._chunks.popleft())

    def text(self) -> str:
        with self._lock:
            joined = "".join(self._chunks)
        return joined if len(joined) <= self._limit else "..." + joined[-self._limit :]


def _pump_lines(stream: IO[str], lines: queue.Queue[str | None]) -> None:
    """Reply lines into ``lines``; None at the end of the stream."""
    try:
        for line in stream:
            lines.put(line)
    except (OSError, ValueError):
        pass
    finally:
        lines.put(None)


STDERR_DRAIN_S = 2.0
"""How long an exited child's stderr may take to be read to its end [s]."""


def _pump_text(stream: IO[str], tail: _Tail) -> None:
    with contextlib.suppress(OSError, ValueError):
        for line in stream:
            tail.add(line)


class ChildClient:
    """A TrexClient over TRex's STLClient living in a child process."""

    def __init__(
        self,
        settings: ClientSettings,
        *,
        python: str = sys.executable,
        program: str = CHILD_PATH,
        open_timeout_s: float = OPEN_TIMEOUT_S,
        call_timeout_s: float = CALL_TIMEOUT_S,
    ) -> None:
        """Start the child and make TRex's client there (no connection yet).

        TrexClientError when the child cannot start, TRex's client cannot
        be imported (the message says which option to set) or it does not
        answer within ``open_timeout_s``.
        """
        self.settings = settings
        self.call_timeout_s = call_timeout_s
        self.argv = child_argv(settings, python, program)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._replies: queue.Queue[str | None] = queue.Queue()
        self._stderr = _Tail(STDERR_TAIL_CHARS)
        try:
            self._popen: subprocess.Popen[str] = subprocess.Popen(
                self.argv,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                encoding="utf-8",
                errors="replace",
                cwd="/",
                start_new_session=True,  # Ctrl-C of the runner is the parent's to handle
                preexec_fn=die_with_parent(),  # noqa: PLW1509 - SIGKILL of the runner ends it too
            )
        except OSError as exc:
            raise TrexClientError(
                f"{settings.node}: cannot start the TRex client process {self.argv[0]!r}: "
                f"{exc.strerror}"
            ) from exc
        assert self._popen.stdout is not None and self._popen.stderr is not None
        self._stderr_pump = threading.Thread(
            target=_pump_text, args=(self._popen.stderr, self._stderr), daemon=True
        )
        self._threads = [
            threading.Thread(
                target=_pump_lines, args=(self._popen.stdout, self._replies), daemon=True
            ),
            self._stderr_pump,
        ]
        for thread in self._threads:
            thread.start()
        try:
            self.module = self._request(
                "open",
                {
                    "node": settings.node,
                    "server": settings.server,
                    "sync_port": settings.sync_port,
                    "async_port": settings.async_port,
                    "client_path": settings.client_path,
                },
                timeout_s=open_timeout_s,
                plain_errors=True,
            )
        except BaseException:
            self.close()
            raise

    # -- process -----------------------------------------------------------------------
    @property
    def pid(self) -> int:
        """The child's process id (``ip netns exec`` execs in place: the Python itself)."""
        return self._popen.pid

    def is_running(self) -> bool:
        """True while the child has not exited."""
        return self._popen.poll() is None

    def stderr_tail(self) -> str:
        """The end of what the child wrote to stderr (TRex's printing included)."""
        return self._stderr.text().rstrip() or "(empty)"

    def close(self) -> None:
        """End the child: end of its input (it exits at once), else killed. Idempotent."""
        popen = self._popen
        if popen.stdin is not None and not popen.stdin.closed:
            with contextlib.suppress(OSError):
                popen.stdin.close()
        try:
            popen.wait(CLOSE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self._kill()
        for thread in self._threads:
            thread.join(1.0)

    def abort(self) -> None:
        """End the child at once (SIGKILL), from any thread: a call waiting on it fails now."""
        self._kill()

    def _kill(self) -> None:
        """SIGKILL the child by its PID and reap it."""
        with contextlib.suppress(ProcessLookupError):
            self._popen.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self._popen.wait(5.0)

    def _where(self) -> str:
        namespace = self.settings.namespace
        inside = f" in network namespace {namespace}" if namespace else ""
        return f"the TRex client process (pid {self.pid}{inside})"

    def _request(
        self,
        call: str,
        args: Mapping[str, Any] | None = None,
        *,
        timeout_s: float | None = None,
        plain_errors: bool = False,
    ) -> Any:
        """One call: its reply's value, or TrexClientError (TRex's text in ``trex_text``)."""
        limit = self.call_timeout_s if timeout_s is None else timeout_s
        node = self.settings.node
        with self._lock:
            ident = next(self._ids)
            if self._popen.poll() is not None:
                raise TrexClientError(
                    f"{node}: TRex {call}: {self._where()} has exited "
                    f"(exit code {self._popen.returncode}); its stderr (tail):\n"
                    f"{self.stderr_tail()}"
                )
            line = child.dumps({"id": ident, "call": call, "args": dict(args or {})})
            try:
                assert self._popen.stdin is not None
                self._popen.stdin.write(line + "\n")
                self._popen.stdin.flush()
            except (OSError, ValueError):
                pass  # it died: the reply queue ends and says so below
            reply = self._reply(call, ident, limit)
        if not reply.get("ok"):
            text = str(reply.get("error") or "no error text")
            message = text if plain_errors else f"TRex {call}: {text}"
            raise TrexClientError(message, trex_text=text)
        return reply.get("value")

    def _reply(self, call: str, ident: int, limit: float) -> dict[str, Any]:
        """The reply to request ``ident``, within ``limit`` [s] (the caller holds the lock).

        Replies to earlier requests are dropped: a call interrupted after
        its request went out (Ctrl-C, a Robot timeout) leaves its reply in
        the queue, and the next call must not take it for its own.
        """
        node = self.settings.node
        deadline = time.monotonic() + limit
        while True:
            try:
                raw = self._replies.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self._kill()
                raise TrexClientError(
                    f"{node}: TRex {call}: {self._where()} did not answer within {limit:g} s; "
                    f"killed it; its stderr (tail):\n{self.stderr_tail()}"
                ) from None
            if raw is None:
                self._replies.put(None)  # later calls see the end too
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self._popen.wait(5.0)
                self._stderr_pump.join(STDERR_DRAIN_S)  # its last words may still be in the pipe
                raise TrexClientError(
                    f"{node}: TRex {call}: {self._where()} exited (exit code "
                    f"{self._popen.poll()}) without answering; its stderr (tail):\n"
                    f"{self.stderr_tail()}"
                )
            try:
                reply = child.loads(raw)
            except ValueError as exc:
                raise TrexClientError(
                    f"{node}: TRex {call}: {self._where()} answered {raw[:200]!r}: {exc}"
                ) from exc
            seen = reply.get("id") if isinstance(reply, dict) else None
            if isinstance(seen, int) and seen < ident:
                continue  # the late reply of an interrupted call
            if not isinstance(reply, dict) or seen != ident:
                raise TrexClientError(
                    f"{node}: TRex {call}: {self._where()} answered out of turn: {raw[:200]!r}"
                )
            return reply

    # -- TrexClient --------------------------------------------------------------------
    def connect(self) -> None:
        """STLClient.connect()."""
        self._request("connect")

    def ping(self) -> None:
        """STLClient.ping_rpc_server()."""
        self._request("ping")

    def get_server_version(self) -> Mapping[str, Any]:
        """STLClient.get_server_version()."""
        return dict(self._request("get_server_version") or {})

    def get_system_info(self) -> Mapping[str, Any]:
        """STLClient.get_server_system_info() without its port list."""
        return dict(self._request("get_system_info") or {})

    def get_port_attr(self, port: int) -> Mapping[str, Any]:
        """STLClient.get_port_attr(port)."""
        return dict(self._request("get_port_attr", {"port": port}) or {})

    def acquire(self, ports: Sequence[int], force: bool = False) -> None:
        """STLClient.acquire(ports, force)."""
        self._request("acquire", {"ports": list(ports), "force": force})

    def reset(self, ports: Sequence[int]) -> None:
        """STLClient.reset(ports)."""
        self._request("reset", {"ports": list(ports)})

    def add_streams(self, streams: Sequence[StreamSpec], ports: Sequence[int]) -> None:
        """STLClient.add_streams(STLStreams the child builds from the specs, ports)."""
        payload = [stream_payload(spec) for spec in streams]
        self._request("add_streams", {"streams": payload, "ports": list(ports)})

    def clear_events(self) -> None:
        """STLClient.clear_events()."""
        self._request("clear_events")

    def start(
        self, ports: Sequence[int], mult: str, duration: float, force: bool, core_mask: CoreMask
    ) -> float | None:
        """STLClient.start(ports, mult, force, duration, core_mask=PIN or SPLIT); the time to
        count the traffic from [s, ``time.monotonic()``]: when the child had TRex's reply
        (without the hops through its pipes; see ``child.Served.start``)."""
        args = {
            "ports": list(ports),
            "mult": mult,
            "duration": duration,
            "force": force,
            "core_mask": core_mask,
        }
        started = self._request("start", args)
        return None if started is None else float(started)

    def wait_on_traffic(self, ports: Sequence[int], timeout_s: float) -> float | None:
        """When the ports stopped sending [s, ``time.monotonic()``: the child shares this
        machine's clock], seen by the child; None when ``timeout_s`` passed first."""
        args = {"ports": list(ports), "timeout_s": timeout_s}
        ended = self._request("wait_on_traffic", args, timeout_s=timeout_s + self.call_timeout_s)
        return None if ended is None else float(ended)

    def get_stats(self, ports: Sequence[int]) -> Mapping[Any, Any]:
        """STLClient.get_stats(ports) (int keys kept)."""
        return dict(self._request("get_stats", {"ports": list(ports)}) or {})

    def get_warnings(self) -> list[str]:
        """The messages of STLClient.get_warnings() events."""
        return [str(w) for w in self._request("get_warnings") or []]

    def stop(self, ports: Sequence[int]) -> None:
        """STLClient.stop(ports)."""
        self._request("stop", {"ports": list(ports)})

    def release(self, ports: Sequence[int]) -> None:
        """STLClient.release(ports)."""
        self._request("release", {"ports": list(ports)})

    def disconnect(self) -> None:
        """STLClient.disconnect(), then the child ends."""
        try:
            self._request("disconnect")
        finally:
            self.close()

    def __repr__(self) -> str:
        return f"ChildClient(pid={self.pid}, settings={self.settings!r})"


def make_stl_client(settings: ClientSettings) -> TrexClient:
    """The default ClientFactory: TRex's real client, in a child process."""
    return ChildClient(settings)
