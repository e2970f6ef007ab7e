"""The TRex client child of the CSIT comparison: sends one burst of a stream and captures it.

Run by path like ``ndrpdr/trafficgen/trex/child.py`` (standard library
only at import time; the shared protocol and calls are that file's,
loaded by path), inside the TG namespace. Two calls beyond the shared
ones, each sending ``count`` frames as one burst at ``pps`` from
``port`` while an AF_PACKET socket on ``iface`` (the peer of the port's
veth) captures them:

- ``csit_burst``: stream ``direction`` of CSIT's TRex profile file
  ``path`` loaded as CSIT's ``trex_stl_profile.py`` loads it
  (``STLProfile.load(path, direction=0, port_id=0, framesize=..., rate=...)``;
  with two ports its streams are direction 0's, direction 1's, then
  their latency streams);
- ``ours_burst``: one of our stream mappings (``child.stl_stream``).

Both replace the stream's continuous mode by a single burst and drop its
inter-stream gap; the frames come back in arrival order (bytes), with
the VLAN tag a veth hands to the socket apart put back in place.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import struct
import sys
import time
from collections.abc import Mapping
from types import ModuleType
from typing import Any

ETH_P_ALL = 0x0003
SO_RCVBUFFORCE = 33
PACKET_OUTGOING = 4
SOL_PACKET = 263
PACKET_AUXDATA = 8
TP_STATUS_VLAN_VALID = 1 << 4
TP_STATUS_VLAN_TPID_VALID = 1 << 6
#: struct tpacket_auxdata: status, len, snaplen (u32); mac, net, vlan_tci, vlan_tpid (u16).
AUXDATA = struct.Struct("=IIIHHHH")
#: How long the capture waits after the last frame for strays [s].
QUIET_S = 0.1


def _load_child() -> ModuleType:
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "..", "..", "libraries", "ndrpdr", "trafficgen", "trex", "child.py")
    spec = importlib.util.spec_from_file_location("_ndrpdr_trex_child", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


child = _load_child()


def _with_vlan(frame: bytes, ancillary: list[tuple[int, int, bytes]]) -> bytes:
    """The frame as sent: a veth hands a VLAN tag to the socket apart (PACKET_AUXDATA)."""
    for level, kind, data in ancillary:
        if level != SOL_PACKET or kind != PACKET_AUXDATA or len(data) < AUXDATA.size:
            continue
        status, _, _, _, _, tci, tpid = AUXDATA.unpack_from(data)
        if status & TP_STATUS_VLAN_VALID:
            tpid = tpid if status & TP_STATUS_VLAN_TPID_VALID else 0x8100
            return frame[:12] + struct.pack("!HH", tpid, tci) + frame[12:]
    return frame


class Capture:
    """Frames arriving on ``iface`` (AF_PACKET, a large receive buffer)."""

    def __init__(self, iface: str) -> None:
        self.sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        self.sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 256 * 1024 * 1024)
        self.sock.setsockopt(SOL_PACKET, PACKET_AUXDATA, 1)  # the VLAN tag the kernel took off
        self.sock.bind((iface, 0))
        self.sock.setblocking(False)
        self.drain()

    def drain(self) -> None:
        while True:
            try:
                self.sock.recv(65535)
            except BlockingIOError:
                return

    def frames(self, count: int, timeout_s: float) -> list[bytes]:
        """The frames received until ``count`` are in and QUIET_S passed, or ``timeout_s``."""
        out: list[bytes] = []
        deadline = time.monotonic() + timeout_s
        quiet_until = None
        while time.monotonic() < deadline:
            try:
                data, ancillary, _, address = self.sock.recvmsg(65535, 64)
            except BlockingIOError:
                if quiet_until is not None and time.monotonic() > quiet_until:
                    break
                time.sleep(0.001)
                continue
            if address[2] == PACKET_OUTGOING:
                continue
            out.append(_with_vlan(data, ancillary))
            if len(out) >= count and quiet_until is None:
                quiet_until = time.monotonic() + QUIET_S
        return out

    def close(self) -> None:
        self.sock.close()


class CaptureServed(child.Served):  # type: ignore[name-defined,misc]
    """The shared calls plus ``csit_burst`` and ``ours_burst``."""

    @property
    def calls(self) -> frozenset[str]:
        return child.CALLS | {"csit_burst", "ours_burst"}

    def _burst(self, stream: Any, port: int, iface: str, count: int, pps: float) -> list[bytes]:
        stream.fields["mode"] = self.api.STLTXSingleBurst(total_pkts=count, pps=pps).to_json()
        stream.fields["isg"] = 0.0
        client = self.client
        client.reset(ports=[port])
        client.add_streams([stream], ports=[port])
        capture = Capture(iface)
        try:
            client.start(ports=[port], force=True)
            client.wait_on_traffic(ports=[port], timeout=count / pps + 30)
            return capture.frames(count, timeout_s=count / pps + 10)
        finally:
            capture.close()

    def csit_burst(self, path: str, direction: int, framesize: int, port: int, iface: str,
                   count: int, pps: float) -> list[bytes]:  # fmt: skip
        """Frames of ``direction``'s stream of CSIT's profile ``path`` (see the module doc)."""
        folder = os.path.dirname(path)
        if folder not in sys.path:
            sys.path.insert(0, folder)  # its base class lies beside it, as in CSIT's tree
        profile = self.api.STLProfile.load(
            path, direction=0, port_id=0, framesize=framesize, rate="1pps"
        )
        streams = profile.get_streams()
        if len(streams) != 4:
            raise child.ChildError(
                f"{os.path.basename(path)}: {len(streams)} streams, not one per direction "
                "and their latency streams (4)"
            )
        return self._burst(streams[direction], port, iface, count, pps)

    def ours_burst(self, spec: Mapping[str, Any], port: int, iface: str, count: int,
                   pps: float) -> list[bytes]:  # fmt: skip
        """Frames of our stream ``spec`` (``childclient.stream_payload``)."""
        return self._burst(child.stl_stream(self.api, spec), port, iface, count, pps)


if __name__ == "__main__":
    child.main(CaptureServed())
