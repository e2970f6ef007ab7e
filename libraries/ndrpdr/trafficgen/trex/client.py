"""The TRex STL client calls the trex driver makes (a protocol), and what goes with them.

``TrexClient`` is the protocol: exactly the ``STLClient`` calls the trex
driver needs, with plain arguments (port lists, ``StreamSpec``s, a rate
multiplier string such as ``"1250000.000pps"``). Implementations may
raise any exception (TRex raises ``TRexError``); the driver turns them
into TrafficGeneratorError naming the node and the step. The real one is
``childclient.ChildClient``: TRex's own client in a child process.

Which client: ``client_path`` (topology option) is the directory holding
TRex's ``trex`` package, i.e. ``<TRex>/automation/trex_control_plane/
interactive`` as shipped with the server; without it, PyPI
``trex_stl_lib``, an unofficial 2017 repackaging that only TRex
v2.28..v2.8x servers accept. A server that does not accept the client's
API version refuses the connection ("RPC version mismatch: a newer client
version is required"); ``is_version_refusal`` recognises those texts so
the driver can say which client to use.

``core_mask`` is the rule for how a start spreads the ports' traffic over
TRex's data-plane cores (see its docstring).
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Protocol

from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.trex.child import SHIPPED_CLIENT_DIR, error_text
from ndrpdr.trafficgen.trex.streams import StreamSpec

CoreMask = Literal["pin", "split"]
#: TRex's mode: stateless (STL: streams of frames) or advanced stateful (ASTF: connections).
TrexMode = Literal["stl", "astf"]

#: Texts of TRex's refusals of a client's API version (server and client side).
VERSION_REFUSALS = (
    "rpc version mismatch",
    "a newer client version is required",
    "client version is too new",
    "mismatch between client and server versions",
)

__all__ = [
    "SHIPPED_CLIENT_DIR",
    "VERSION_REFUSALS",
    "ClientFactory",
    "ClientSettings",
    "CoreMask",
    "TrexClient",
    "TrexClientError",
    "TrexMode",
    "core_mask",
    "error_text",
    "is_version_refusal",
    "version_refusal_message",
]


class TrexClientError(TrafficGeneratorError):
    """A TRex client call failed; ``trex_text`` is TRex's own text when TRex raised it."""

    def __init__(self, message: str, trex_text: str | None = None) -> None:
        super().__init__(message)
        self.trex_text = trex_text


@dataclasses.dataclass(frozen=True)
class ClientSettings:
    """Where the client connects, which client it is and where it runs.

    ``node`` is the TG's node key (for messages naming its options);
    ``namespace`` the network namespace of this machine the client runs
    in (None: this process's own), so it reaches a TRex listening there;
    ``mode`` which of TRex's clients (STLClient or ASTFClient).
    """

    node: str
    server: str
    sync_port: int = 4501
    async_port: int = 4500
    client_path: str | None = None
    namespace: str | None = None
    mode: TrexMode = "stl"

    @property
    def description(self) -> str:
        """Which client this is, for messages."""
        if self.client_path is None:
            return "PyPI trex_stl_lib (no options.client_path)"
        return f"the TRex client at client_path={self.client_path}"


class TrexClient(Protocol):
    """The STL client calls of the trex driver (the real STLClient's names and behaviour).

    ``ping`` asks the server (an RPC round trip), unlike
    ``get_server_version`` and ``get_system_info``, which TRex's client
    reads at connect time. ``wait_on_traffic`` returns when the ports
    were seen to stop sending, None when ``timeout_s`` passed first
    (STLClient raises a timeout error). ``get_stats`` returns STLClient's dictionary:
    per port id ``opackets`` / ``ipackets`` / ..., ``"global"``
    (``queue_full``, ``cpu_util``), ``"latency"`` by pg_id. ``get_warnings``
    returns the texts of TRex's warning events since ``clear_events``.
    ``close`` ends the client without a word to the server (after
    ``disconnect``, or when the server is gone); it is idempotent.
    """

    def connect(self) -> None:
        """Connect (RPC and async channels); the server checks the client's API version."""
        ...

    def ping(self) -> None:
        """One RPC round trip to the server (raises if it does not answer)."""
        ...

    def get_server_version(self) -> Mapping[str, Any]:
        """The server's version record (``version``, ``build_date``, ...)."""
        ...

    def get_system_info(self) -> Mapping[str, Any]:
        """The server's system record (``dp_core_count``, ``dp_core_count_per_port``, ...)."""
        ...

    def get_port_attr(self, port: int) -> Mapping[str, Any]:
        """Port attributes, with ``speed`` [Gb/s]."""
        ...

    def acquire(self, ports: Sequence[int], force: bool = False) -> None:
        """Take ownership of ``ports``."""
        ...

    def reset(self, ports: Sequence[int]) -> None:
        """Force-acquire, stop, remove all streams and clear the stats of ``ports``."""
        ...

    def add_streams(self, streams: Sequence[StreamSpec], ports: Sequence[int]) -> None:
        """Attach ``streams`` to ``ports``."""
        ...

    def clear_events(self) -> None:
        """Forget the events (warnings) seen so far."""
        ...

    def start(
        self, ports: Sequence[int], mult: str, duration: float, force: bool, core_mask: CoreMask
    ) -> float | None:
        """Start the ports' streams at ``mult`` (per port) for ``duration`` [s].

        ``force`` and ``core_mask`` are STLClient's: start even if the ports
        are sending; the rule for spreading their traffic over the cores.

        Returns the time to count the traffic from [s, on the driver's clock]
        if the client can tell better than the driver (the child client: TRex's
        reply, seen without its pipes), else None (the driver times the call).
        """
        ...

    def wait_on_traffic(self, ports: Sequence[int], timeout_s: float) -> float | None:
        """Wait until ``ports`` stop sending; None if ``timeout_s`` passed first.

        Returns when they were seen to stop [s, on the driver's clock:
        ``time.monotonic()`` for a real client], which may be well before
        the call returns (TRex's RX-filter delay, the child's reply).
        """
        ...

    def get_stats(self, ports: Sequence[int]) -> Mapping[Any, Any]:
        """Counters since the last reset."""
        ...

    def get_warnings(self) -> list[str]:
        """Warning events since the last ``clear_events``."""
        ...

    def stop(self, ports: Sequence[int]) -> None:
        """Stop sending on ``ports`` (no-op on idle ports)."""
        ...

    def release(self, ports: Sequence[int]) -> None:
        """Give up ownership of ``ports``."""
        ...

    def disconnect(self) -> None:
        """Close the connection (stops traffic, releases ports)."""
        ...

    def close(self) -> None:
        """End the client (no server call); idempotent."""
        ...


#: Makes a client for the settings (the session calls it on first use, not in its constructor).
ClientFactory = Callable[[ClientSettings], TrexClient]


def core_mask(sending_ports: Sequence[int], cores_per_port_pair: int) -> CoreMask:
    """How a start spreads the ports' traffic over TRex's data-plane cores.

    "pin" (each port of a pair on its own half of the pair's cores, as CSIT
    starts bidirectional traffic: the directions do not compete for a
    core) needs both ports of the pair sending and at least 2 cores per
    pair: TRex's client pins port 0 to the even and port 1 to the odd
    cores, and with one core per pair port 1's set is empty, which the
    server refuses ("core_mask: '0xaaaaaaaa' for 1 cores generates an
    empty set"). Otherwise "split": the pair's cores share all traffic
    (the only choice with one core, e.g. a software-mode TRex).
    """
    both = {0, 1} <= set(sending_ports)
    return "pin" if both and cores_per_port_pair >= 2 else "split"


def is_version_refusal(text: str) -> bool:
    """True when ``text`` is TRex refusing the client's API version."""
    lowered = text.lower()
    return any(marker in lowered for marker in VERSION_REFUSALS)


def version_refusal_message(settings: ClientSettings, text: str, install_dir: str) -> str:
    """What to do when the server refused the client (names the option to set)."""
    shipped = os.path.normpath(os.path.join(install_dir, SHIPPED_CLIENT_DIR))
    return (
        f"{settings.node}: the TRex server at {settings.server}:{settings.sync_port} refused "
        f"{settings.description}: {text}. Use the client shipped with the server: copy "
        f"{shipped} from {settings.node} to this machine and set "
        f"nodes.{settings.node}.options.client_path to that directory"
    )
