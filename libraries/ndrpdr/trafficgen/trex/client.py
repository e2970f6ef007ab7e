"""The TRex STL client calls the driver makes, and the adapter over TRex's real client.

``TrexClient`` is the protocol: exactly the ``STLClient`` calls the trex
driver needs, with plain arguments (port lists, ``StreamSpec``s, a rate
multiplier string such as ``"1250000.000pps"``). Implementations may
raise any exception (TRex raises ``TRexError``); the driver turns them
into TrafficGeneratorError naming the node and the step.

``StlClient`` implements it over TRex's own ``STLClient``. TRex is
imported only when one is made (never at import time), from:

* ``client_path`` (topology option): the directory holding TRex's
  ``trex`` package, i.e. ``<TRex>/automation/trex_control_plane/
  interactive`` (as shipped with the server; it finds its own
  ``external_libs`` next to it or through ``TREX_EXT_LIBS``), imported as
  ``trex.stl.api``;
* else PyPI ``trex_stl_lib`` (``trex_stl_lib.api``), an unofficial 2017
  repackaging that only TRex v2.28..v2.8x servers accept.

A server that does not accept the client's API version refuses the
connection ("RPC version mismatch: a newer client version is required");
``is_version_refusal`` recognises those texts so the driver can say which
client to use.
"""

from __future__ import annotations

import dataclasses
import importlib
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal, Protocol, TypeVar

from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.trex.streams import FixIpv4, FlowVar, Instruction, StreamSpec, WriteVar

CoreMask = Literal["pin", "split"]

#: Texts of TRex's refusals of a client's API version (server and client side).
VERSION_REFUSALS = (
    "rpc version mismatch",
    "a newer client version is required",
    "client version is too new",
    "mismatch between client and server versions",
)

#: The client package shipped with TRex, relative to the TRex tree / the scripts directory.
SHIPPED_CLIENT_DIR = "automation/trex_control_plane/interactive"

_T = TypeVar("_T")


class TrexClientError(TrafficGeneratorError):
    """A TRex client call failed; ``trex_text`` is TRex's own text when TRex raised it."""

    def __init__(self, message: str, trex_text: str | None = None) -> None:
        super().__init__(message)
        self.trex_text = trex_text


@dataclasses.dataclass(frozen=True)
class ClientSettings:
    """Where the client connects and which client it is.

    ``node`` is the TG's node key (for messages naming its options).
    """

    node: str
    server: str
    sync_port: int = 4501
    async_port: int = 4500
    client_path: str | None = None

    @property
    def description(self) -> str:
        """Which client this is, for messages."""
        if self.client_path is None:
            return "PyPI trex_stl_lib (no options.client_path)"
        return f"the TRex client at client_path={self.client_path}"


class TrexClient(Protocol):
    """The STL client calls of the trex driver (the real STLClient's names and behaviour).

    ``wait_on_traffic`` returns True when the ports stopped sending, False
    when ``timeout_s`` passed first (STLClient raises a timeout error).
    ``get_stats`` returns STLClient's dictionary: per port id
    ``opackets`` / ``ipackets`` / ..., ``"global"`` (``queue_full``,
    ``cpu_util``), ``"latency"`` by pg_id. ``get_warnings`` returns the
    texts of TRex's warning events since ``clear_events``.
    """

    def connect(self) -> None:
        """Connect (RPC and async channels); the server checks the client's API version."""
        ...

    def get_server_version(self) -> Mapping[str, Any]:
        """The server's version record (``version``, ``build_date``, ...)."""
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
        self,
        ports: Sequence[int],
        mult: str,
        duration: float,
        force: bool = True,
        core_mask: CoreMask = "pin",
    ) -> None:
        """Start the ports' streams at ``mult`` (per port) for ``duration`` [s]."""
        ...

    def wait_on_traffic(self, ports: Sequence[int], timeout_s: float) -> bool:
        """Wait until ``ports`` stop sending; False if ``timeout_s`` passed first."""
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


#: Makes a client for the settings (the driver calls it on first use, not in its constructor).
ClientFactory = Callable[[ClientSettings], TrexClient]


def error_text(exc: BaseException) -> str:
    """An exception's message, even when ``str()`` of it fails (trex_stl_lib 0.3 on Python 3.11)."""
    try:
        text = str(exc)
    except Exception:  # a broken __str__ must not hide the error
        message = getattr(exc, "msg", None)
        if isinstance(message, str):
            return message
        try:
            return repr(getattr(exc, "args", exc))
        except Exception:
            return type(exc).__name__
    return text or type(exc).__name__


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


def load_stl_api(settings: ClientSettings) -> Any:
    """TRex's STL API module: ``trex.stl.api`` from ``client_path``, else ``trex_stl_lib.api``."""
    path = settings.client_path
    if path is None:
        name = "trex_stl_lib.api"
    else:
        if not os.path.isdir(os.path.join(path, "trex", "stl")):
            raise TrexClientError(
                f"nodes.{settings.node}.options.client_path: {path} has no trex/stl package; "
                f"give the directory {SHIPPED_CLIENT_DIR} of a TRex tree (copied to this machine)"
            )
        if path not in sys.path:
            sys.path.insert(0, path)
        name = "trex.stl.api"
    try:
        module = importlib.import_module(name)
    except Exception as exc:
        hint = (
            f"set nodes.{settings.node}.options.client_path to the directory "
            f"{SHIPPED_CLIENT_DIR} of the server's TRex tree (copied to this machine), or "
            "pip install trex-stl-lib (accepted only by TRex v2.28..v2.8x servers)"
            if path is None
            else f"check nodes.{settings.node}.options.client_path={path} (and TREX_EXT_LIBS)"
        )
        raise TrexClientError(
            f"cannot import the TRex STL client {name}: {error_text(exc)}; {hint}"
        ) from exc
    origin = getattr(module, "__file__", None) or ""
    if path is not None and not os.path.abspath(origin).startswith(os.path.abspath(path)):
        raise TrexClientError(
            f"nodes.{settings.node}.options.client_path: {name} was already imported from "
            f"{origin}, not from {path}; one process can use one TRex client only"
        )
    return module


def _instruction(api: Any, instruction: Instruction) -> Any:
    if isinstance(instruction, FlowVar):
        if instruction.values is not None:
            try:
                return api.STLVmFlowVar(
                    name=instruction.name,
                    size=instruction.size,
                    op="inc",
                    value_list=list(instruction.values),
                )
            except TypeError as exc:  # clients before TRex v2.42 (trex_stl_lib 0.3)
                raise TrexClientError(
                    f"flow variable {instruction.name!r} needs STLVmFlowVar(value_list=...) "
                    "(more than 254 flows per direction), which this TRex client lacks "
                    f"({error_text(exc)}); use TRex's own client v2.42 or newer (client_path)"
                ) from exc
        return api.STLVmFlowVar(
            name=instruction.name,
            size=instruction.size,
            op="inc",
            min_value=instruction.min_value,
            max_value=instruction.max_value,
        )
    if isinstance(instruction, WriteVar):
        return api.STLVmWrFlowVar(fv_name=instruction.var, pkt_offset=instruction.offset)
    if isinstance(instruction, FixIpv4):
        return api.STLVmFixIpv4(offset=instruction.offset)
    raise TypeError(f"unknown field-engine instruction {instruction!r}")


def stl_stream(api: Any, spec: StreamSpec) -> Any:
    """An ``STLStream`` for ``spec`` (frames keep their own MAC addresses)."""
    vm = None
    if spec.field_engine:
        vm = api.STLScVmRaw([_instruction(api, i) for i in spec.field_engine])
    kwargs: dict[str, Any] = {
        "name": spec.name,
        "packet": api.STLPktBuilder(pkt_buffer=spec.packet, vm=vm),
        "mode": api.STLTXCont(pps=spec.pps),
        "mac_src_override_by_pkt": True,
    }
    if hasattr(api, "STLStreamDstMAC_PKT"):
        kwargs["mac_dst_override_mode"] = api.STLStreamDstMAC_PKT
    if spec.latency_pg_id is not None:
        kwargs["flow_stats"] = api.STLFlowLatencyStats(pg_id=spec.latency_pg_id)
    return api.STLStream(**kwargs)


class StlClient:
    """A TrexClient over TRex's ``STLClient`` (imported here, on construction)."""

    def __init__(self, settings: ClientSettings, api: Any | None = None) -> None:
        """Import TRex's STL API (unless ``api`` is given) and make an STLClient; no connection."""
        self.settings = settings
        self.api = load_stl_api(settings) if api is None else api
        self._client = self._call(
            "create the client",
            lambda: self.api.STLClient(
                server=settings.server,
                sync_port=settings.sync_port,
                async_port=settings.async_port,
            ),
        )

    @staticmethod
    def _call(what: str, action: Callable[[], _T]) -> _T:
        try:
            return action()
        except TrafficGeneratorError:
            raise
        except Exception as exc:  # TRexError, STLError, ZMQ errors: all become ours
            text = error_text(exc)
            raise TrexClientError(f"TRex {what}: {text}", trex_text=text) from exc

    def connect(self) -> None:
        """STLClient.connect()."""
        self._call("connect", self._client.connect)

    def get_server_version(self) -> Mapping[str, Any]:
        """STLClient.get_server_version()."""
        return dict(self._call("get_server_version", self._client.get_server_version) or {})

    def get_port_attr(self, port: int) -> Mapping[str, Any]:
        """STLClient.get_port_attr(port)."""
        return dict(self._call("get_port_attr", lambda: self._client.get_port_attr(port)) or {})

    def acquire(self, ports: Sequence[int], force: bool = False) -> None:
        """STLClient.acquire(ports, force)."""
        self._call("acquire", lambda: self._client.acquire(ports=list(ports), force=force))

    def reset(self, ports: Sequence[int]) -> None:
        """STLClient.reset(ports)."""
        self._call("reset", lambda: self._client.reset(ports=list(ports)))

    def add_streams(self, streams: Sequence[StreamSpec], ports: Sequence[int]) -> None:
        """STLClient.add_streams(STLStreams built from the specs, ports)."""

        def add() -> None:
            built = [stl_stream(self.api, spec) for spec in streams]
            self._client.add_streams(built, ports=list(ports))

        self._call("add_streams", add)

    def clear_events(self) -> None:
        """STLClient.clear_events()."""
        self._call("clear_events", self._client.clear_events)

    def start(
        self,
        ports: Sequence[int],
        mult: str,
        duration: float,
        force: bool = True,
        core_mask: CoreMask = "pin",
    ) -> None:
        """STLClient.start(ports, mult, force, duration, core_mask=PIN or SPLIT)."""
        mask = self._client.CORE_MASK_PIN if core_mask == "pin" else self._client.CORE_MASK_SPLIT
        self._call(
            "start",
            lambda: self._client.start(
                ports=list(ports), mult=mult, force=force, duration=duration, core_mask=mask
            ),
        )

    def wait_on_traffic(self, ports: Sequence[int], timeout_s: float) -> bool:
        """STLClient.wait_on_traffic(ports, timeout); its timeout error gives False."""
        try:
            self._client.wait_on_traffic(ports=list(ports), timeout=timeout_s)
        except Exception as exc:
            if "timeout" in type(exc).__name__.lower():
                return False
            text = error_text(exc)
            raise TrexClientError(f"TRex wait_on_traffic: {text}", trex_text=text) from exc
        return True

    def get_stats(self, ports: Sequence[int]) -> Mapping[Any, Any]:
        """STLClient.get_stats(ports)."""
        return dict(self._call("get_stats", lambda: self._client.get_stats(ports=list(ports))))

    def get_warnings(self) -> list[str]:
        """The messages of STLClient.get_warnings() events."""
        events = self._call("get_warnings", self._client.get_warnings) or []
        return [str(getattr(event, "msg", event)) for event in events]

    def stop(self, ports: Sequence[int]) -> None:
        """STLClient.stop(ports)."""
        self._call("stop", lambda: self._client.stop(ports=list(ports)))

    def release(self, ports: Sequence[int]) -> None:
        """STLClient.release(ports)."""
        self._call("release", lambda: self._client.release(ports=list(ports)))

    def disconnect(self) -> None:
        """STLClient.disconnect()."""
        self._call("disconnect", self._client.disconnect)


def make_stl_client(settings: ClientSettings) -> TrexClient:
    """The default ClientFactory: an StlClient over TRex's real client."""
    return StlClient(settings)
