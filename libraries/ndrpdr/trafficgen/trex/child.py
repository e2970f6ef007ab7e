"""TRex's STL client in a process of its own: the child program and the line protocol.

TRex's client brings its own scapy (2.4.3) and pyzmq and, on import, puts
them first on ``sys.path``; the project's scapy (2.8) in the same process
breaks it (and a client in this process could not reach a TRex inside
another network namespace). So the parent (``childclient.ChildClient``)
runs this file as a program of its own::

    python -I -c BOOTSTRAP <path of this file>

``-I`` keeps the environment's PYTHONPATH and the current directory off
``sys.path`` and ``runpy`` runs the file without putting its directory
first, so the child starts with the standard library only. This module
must stay that way: it imports nothing of ``ndrpdr`` (whose package
imports would bring the project's scapy) and nothing outside the
standard library at import time. TRex's API is imported by the first
call, ``open``: ``client_path`` (the directory holding TRex's ``trex``
package) first on ``sys.path`` and ``trex.stl.api``, or PyPI
``trex_stl_lib.api`` without one.

Protocol, one JSON object per line:

* request ``{"id": n, "call": name, "args": {...}}`` on stdin;
* reply ``{"id": n, "ok": true, "value": v}`` or ``{"id": n, "ok": false,
  "error": text, "type": exception class}`` on the process's original
  stdout. At start that descriptor is kept aside and fd 1 is pointed at
  stderr, so whatever TRex prints ends in the child's log, never in a reply.

``encode`` / ``decode`` carry what plain JSON would lose: mappings with
keys that are not strings (TRex's counters are keyed by port id and
pg_id) and bytes (the frames). The calls are those of
``client.TrexClient``; streams arrive as plain mappings (see
``stl_stream``) and the child builds TRex's ``STLStream`` objects.
End of input (the parent closed the pipe) ends the process at once.
"""

from __future__ import annotations

import base64
import importlib
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Mapping
from typing import IO, Any

#: The ``python -c`` program that runs this file by path (sys.argv[1]) as __main__.
BOOTSTRAP = "import runpy, sys; runpy.run_path(sys.argv[1], run_name='__main__')"

#: The client package shipped with TRex, relative to the TRex tree / the scripts directory.
SHIPPED_CLIENT_DIR = "automation/trex_control_plane/interactive"

#: How often ``wait_on_traffic`` looks whether the ports still send [s]: the end of the
#: traffic is known to within this (TRex's own wait sleeps 10 ms between looks).
END_POLL_S = 0.001

#: Tags of the encoded forms (a JSON object with one of these keys and nothing else).
PAIRS_TAG = "__ndrpdr_pairs__"
BYTES_TAG = "__ndrpdr_bytes__"


# -- values on the wire ----------------------------------------------------------------
def encode(value: Any) -> Any:
    """``value`` as JSON data; non-string keys and bytes tagged, other objects as their text."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (bytes, bytearray)):
        return {BYTES_TAG: base64.b64encode(bytes(value)).decode("ascii")}
    if isinstance(value, Mapping):
        keys = list(value)
        if all(isinstance(k, str) for k in keys) and not {PAIRS_TAG, BYTES_TAG} & set(keys):
            return {k: encode(v) for k, v in value.items()}
        return {PAIRS_TAG: [[encode(k), encode(v)] for k, v in value.items()]}
    if isinstance(value, (list, tuple)):
        return [encode(v) for v in value]
    return str(value)  # TRex's "N/A" objects, enums, ...: their text


def decode(data: Any) -> Any:
    """The inverse of ``encode`` (tuples come back as lists)."""
    if isinstance(data, list):
        return [decode(v) for v in data]
    if isinstance(data, dict):
        if len(data) == 1 and PAIRS_TAG in data:
            return {_key(decode(k)): decode(v) for k, v in data[PAIRS_TAG]}
        if len(data) == 1 and BYTES_TAG in data:
            return base64.b64decode(data[BYTES_TAG])
        return {k: decode(v) for k, v in data.items()}
    return data


def _key(key: Any) -> Any:
    """A decoded key, hashable (a list key was a tuple)."""
    return tuple(key) if isinstance(key, list) else key


def dumps(message: Mapping[str, Any]) -> str:
    """One protocol line (no newline inside)."""
    return json.dumps(encode(message), separators=(",", ":"))


def loads(line: str) -> Any:
    """One protocol line, decoded."""
    return decode(json.loads(line))


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


# -- TRex's API ------------------------------------------------------------------------
class ChildError(Exception):
    """A failure the child explains itself (its text is the whole message)."""


def load_stl_api(node: str, client_path: str | None) -> Any:
    """TRex's STL API module: ``trex.stl.api`` from ``client_path``, else ``trex_stl_lib.api``."""
    if client_path is None:
        name = "trex_stl_lib.api"
    else:
        if not os.path.isdir(os.path.join(client_path, "trex", "stl")):
            raise ChildError(
                f"nodes.{node}.options.client_path: {client_path} has no trex/stl package; "
                f"give the directory {SHIPPED_CLIENT_DIR} of a TRex tree (copied to this machine)"
            )
        if client_path in sys.path:
            sys.path.remove(client_path)
        sys.path.insert(0, client_path)
        name = "trex.stl.api"
    try:
        module = importlib.import_module(name)
    except Exception as exc:
        hint = (
            f"set nodes.{node}.options.client_path to the directory {SHIPPED_CLIENT_DIR} "
            "of the server's TRex tree (copied to this machine), or pip install trex-stl-lib "
            "(accepted only by TRex v2.28..v2.8x servers)"
            if client_path is None
            else f"check nodes.{node}.options.client_path={client_path} (and TREX_EXT_LIBS)"
        )
        raise ChildError(
            f"cannot import the TRex STL client {name}: {error_text(exc)}; {hint}"
        ) from exc
    origin = os.path.abspath(getattr(module, "__file__", None) or "")
    if client_path is not None and not origin.startswith(os.path.abspath(client_path)):
        raise ChildError(
            f"nodes.{node}.options.client_path: {name} was imported from {origin}, "
            f"not from {client_path}"
        )
    return module


def _instruction(api: Any, item: Mapping[str, Any]) -> Any:
    """One field-engine instruction (see ``stl_stream``) as TRex's object."""
    op = item["op"]
    if op == "flow_var":
        kwargs = {k: item[k] for k in ("name", "size", "min_value", "max_value")}
        for key in ("next_var", "init_value"):  # only when set: older clients lack next_var
            if item.get(key) is not None:
                kwargs[key] = item[key]
        if not item.get("random"):
            return api.STLVmFlowVar(op="inc", step=item.get("step", 1), **kwargs)
        if not hasattr(api, "STLVmFlowVarRepeatableRandom"):
            raise ChildError(
                f"flow variable {item['name']!r} draws repeatable random values "
                "(STLVmFlowVarRepeatableRandom), which this TRex client lacks; use TRex's own "
                "client (client_path)"
            )
        return api.STLVmFlowVarRepeatableRandom(seed=item["seed"], limit=item["limit"], **kwargs)
    if op == "write":
        return api.STLVmWrFlowVar(fv_name=item["var"], pkt_offset=item["offset"])
    if op == "fix_ipv4":
        return api.STLVmFixIpv4(offset=item["offset"])
    if op == "fix_udp_checksum":
        return api.STLVmFixChecksumHw(
            l3_offset=item["l3_offset"],
            l4_offset=item["l4_offset"],
            l4_type=api.CTRexVmInsFixHwCs.L4_TYPE_UDP,
        )
    raise ChildError(f"unknown field-engine instruction {item!r}")


def stl_stream(api: Any, spec: Mapping[str, Any]) -> Any:
    """An ``STLStream`` for one stream mapping (frames keep their own MAC addresses).

    Keys: ``name``, ``packet`` (bytes), ``pps``, ``latency_pg_id`` (int or
    None), ``field_engine`` (a list of ``{"op": "flow_var", "name", "size",
    "min_value", "max_value", "step", "random", "seed", "limit",
    "next_var", "init_value"}``, ``{"op": "write", "var", "offset"}``, ``{"op":
    "fix_ipv4", "offset"}``, ``{"op": "fix_udp_checksum", "l3_offset",
    "l4_offset"}``).
    """
    vm = None
    if spec.get("field_engine"):
        vm = api.STLScVmRaw([_instruction(api, i) for i in spec["field_engine"]])
    kwargs: dict[str, Any] = {
        "name": spec["name"],
        "packet": api.STLPktBuilder(pkt_buffer=spec["packet"], vm=vm),
        "mode": api.STLTXCont(pps=spec["pps"]),
        "mac_src_override_by_pkt": True,
    }
    if hasattr(api, "STLStreamDstMAC_PKT"):
        kwargs["mac_dst_override_mode"] = api.STLStreamDstMAC_PKT
    if spec.get("latency_pg_id") is not None:
        kwargs["flow_stats"] = api.STLFlowLatencyStats(pg_id=spec["latency_pg_id"])
    return api.STLStream(**kwargs)


class Served:
    """The calls of ``client.TrexClient``, made on one STLClient (after ``open``)."""

    #: The client class of TRex's API module that ``open`` makes.
    client_class = "STLClient"

    def __init__(self, load: Callable[[str, str | None], Any] = load_stl_api) -> None:
        """``load(node, client_path)`` imports TRex's API (tests give a stand-in)."""
        self._load = load
        self.api: Any = None
        self._client: Any = None

    @property
    def client(self) -> Any:
        if self._client is None:
            raise ChildError("no TRex client yet: the first call must be open")
        return self._client

    def open(
        self,
        node: str,
        server: str,
        sync_port: int,
        async_port: int,
        client_path: str | None = None,
    ) -> dict[str, str]:
        """Import TRex's API and make its ``client_class`` (no connection yet)."""
        self.api = self._load(node, client_path)
        make = getattr(self.api, self.client_class)
        self._client = make(server=server, sync_port=sync_port, async_port=async_port)
        return {"module": self.api.__name__, "file": str(getattr(self.api, "__file__", ""))}

    def connect(self) -> None:
        self.client.connect()

    def ping(self) -> None:
        self.client.ping_rpc_server()

    def get_server_version(self) -> Any:
        return dict(self.client.get_server_version() or {})

    def get_system_info(self) -> Any:
        info = dict(self.client.get_server_system_info() or {})
        info.pop("ports", None)  # large, and get_port_attr has them
        return info

    def get_port_attr(self, port: int) -> Any:
        return dict(self.client.get_port_attr(port) or {})

    def acquire(self, ports: list[int], force: bool = False) -> None:
        self.client.acquire(ports=ports, force=force)

    def reset(self, ports: list[int]) -> None:
        self.client.reset(ports=ports)

    def add_streams(self, streams: list[Mapping[str, Any]], ports: list[int]) -> None:
        built = [stl_stream(self.api, spec) for spec in streams]
        self.client.add_streams(built, ports=ports)

    def clear_events(self) -> None:
        self.client.clear_events()

    def start(
        self, ports: list[int], mult: str, duration: float, force: bool, core_mask: str
    ) -> float:
        """Start; the time to count the traffic from [s, ``time.monotonic()``]: the reply.

        The end is seen when TRex's event says the ports went idle, one
        server-to-client hop late (``wait_on_traffic``); taking the start
        at the reply, one server-to-client hop after the server acted,
        makes the two lags cancel. (The middle of the request, the best
        guess of the start alone, left every trial about 10 ms long
        against the real TRex here: 2 % of 1 s trials went over the
        search's 98 % rule with every frame sent.)
        """
        masks = {"pin": self.client.CORE_MASK_PIN, "split": self.client.CORE_MASK_SPLIT}
        if core_mask not in masks:
            raise ChildError(f"core_mask {core_mask!r} is not pin or split")
        self.client.start(
            ports=ports, mult=mult, force=force, duration=duration, core_mask=masks[core_mask]
        )
        return time.monotonic()

    def wait_on_traffic(self, ports: list[int], timeout_s: float) -> float | None:
        """When the ports were seen to stop sending [s, ``time.monotonic()``]; None on timeout.

        The end is the middle between the last look that saw a port
        sending and the first that saw none (looks END_POLL_S apart; the
        ports' state comes from TRex's events). TRex's own wait then
        removes the latency streams' RX filters, which for virtual ports
        takes another 100 ms: timing the trial by that return would
        stretch every trial by it.
        """
        deadline = time.monotonic() + timeout_s
        wanted = set(ports)
        last_busy = time.monotonic()
        while wanted & set(self.client.get_active_ports()):
            if last_busy >= deadline:
                return None
            time.sleep(END_POLL_S)
            last_busy = time.monotonic()
        ended = (last_busy + time.monotonic()) / 2
        try:  # the ports are idle: this returns after the RX-filter delay
            self.client.wait_on_traffic(ports=ports, timeout=timeout_s)
        except Exception as exc:
            if "timeout" in type(exc).__name__.lower():
                return None
            raise
        return ended

    def get_stats(self, ports: list[int]) -> Any:
        return dict(self.client.get_stats(ports=ports))

    def get_warnings(self) -> list[str]:
        events = self.client.get_warnings() or []
        return [str(getattr(event, "msg", event)) for event in events]

    def stop(self, ports: list[int]) -> None:
        self.client.stop(ports=ports)

    def release(self, ports: list[int]) -> None:
        self.client.release(ports=ports)

    def disconnect(self) -> None:
        client, self._client = self._client, None
        if client is not None:
            client.disconnect()

    @property
    def calls(self) -> frozenset[str]:
        """The calls a request may name (CALLS; a subclass adds its own)."""
        return CALLS

    def handle(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """The reply to one request (errors become ``ok: false`` replies, never exceptions)."""
        ident = request.get("id")
        call = request.get("call")
        method = getattr(self, call, None) if isinstance(call, str) else None
        if call not in self.calls or method is None:
            return {"id": ident, "ok": False, "error": f"unknown call {call!r}", "type": "?"}
        try:
            value = method(**dict(request.get("args") or {}))
        except Exception as exc:
            return {"id": ident, "ok": False, "error": error_text(exc), "type": type(exc).__name__}
        return {"id": ident, "ok": True, "value": value}


#: The calls a request may name (Served's methods).
CALLS = frozenset(
    {
        "open",
        "connect",
        "ping",
        "get_server_version",
        "get_system_info",
        "get_port_attr",
        "acquire",
        "reset",
        "add_streams",
        "clear_events",
        "start",
        "wait_on_traffic",
        "get_stats",
        "get_warnings",
        "stop",
        "release",
        "disconnect",
    }
)


def serve(lines: Iterable[str], reply: IO[str], served: Served | None = None) -> None:
    """Answer each request line on ``reply`` until the input ends."""
    served = served or Served()
    for line in lines:
        if not line.strip():
            continue
        try:
            request = loads(line)
        except ValueError as exc:
            answer: Mapping[str, Any] = {
                "id": None,
                "ok": False,
                "error": f"bad request line: {exc}",
                "type": "?",
            }
        else:
            answer = served.handle(request)
        reply.write(dumps(answer) + "\n")
        reply.flush()


def main(served: Served | None = None) -> None:
    """Serve stdin with ``served`` (default: a Served); replies on the original stdout,
    all other printing to stderr.

    At the end of input the process leaves at once (``os._exit``): the
    parent has disconnected already, or the server is gone and a
    disconnect would only wait for RPC timeouts; TRex's client threads
    must not keep it alive.
    """
    reply_fd = os.dup(1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    with os.fdopen(reply_fd, "w", encoding="utf-8") as reply:
        serve(sys.stdin, reply, served)
    sys.stderr.flush()
    os._exit(0)


if __name__ == "__main__":
    main()
