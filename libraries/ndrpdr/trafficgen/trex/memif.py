"""TRex on memif ports: its DPDK path (not software mode) on DPDK's net_memif devices.

A TG port with ``model: memif`` (``ndrpdr.topology.memif``) is a DPDK
virtual device of TRex, listed in trex_cfg.yaml's ``interfaces`` as its
EAL argument ``--vdev=net_memif<i>,role=server,id=0,socket=<file>,
socket-abstract=no,mac=<port MAC>``. TRex is the memif server (master): it
makes the socket file when it starts and lives for the whole suite, while
the DUT (VPP, the client) connects on each test's set-up and again after a
restart of its own. DPDK's default is an abstract socket, which lives in a
network namespace; the DUT is in another, so the socket is a file. DPDK
does not remove a stale file (TRex then finds no port: "Address already in
use"), so the server's start removes it first (``stale_files``).

A port's link is up once the DUT connected: ``wait_for_links`` waits for
that before a test's first trial, so that a trial never runs into a memif
still connecting (everything would count as lost).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ndrpdr.trafficgen.base import TrafficGeneratorError

#: How long the DUT may take to connect a memif after its set-up [s] (VPP retries every 2-3 s).
LINK_TIMEOUT_S = 15.0
#: Pause between two looks at the ports' links [s].
LINK_POLL_S = 0.2


def memif_vdev(index: int, socket: str, mac: str) -> str:
    """The ``interfaces`` entry of memif port ``index`` (TRex's server end of ``socket``)."""
    return f"--vdev=net_memif{index},role=server,id=0,socket={socket},socket-abstract=no,mac={mac}"


def wait_for_links(
    node: str,
    port_attr: Callable[[int], Mapping[str, Any]],
    ports: Mapping[int, str],
    *,
    timeout_s: float = LINK_TIMEOUT_S,
    clock: Callable[[], float] = time.monotonic,
    sleep: Callable[[float], None] = time.sleep,
) -> float:
    """Wait until TRex says every port of ``ports`` ({port: its socket}) has a link; return
    the seconds it took. TrafficGeneratorError names the ports still down after ``timeout_s``.
    """
    start = clock()
    while True:
        down = [port for port in ports if str(port_attr(port).get("link", "")).upper() != "UP"]
        waited = clock() - start
        if not down:
            return waited
        if waited >= timeout_s:
            listed = ", ".join(f"port {port} (memif socket {ports[port]})" for port in down)
            raise TrafficGeneratorError(
                f"{node}: TRex's memif {listed} had no link after {timeout_s:g} s: the DUT did "
                "not connect to the socket (is its port a memif client of that file, admin up?)"
            )
        sleep(LINK_POLL_S)


def memif_sockets(sockets: Sequence[str | None]) -> tuple[str, ...]:
    """The socket files among the ports' ``sockets`` (None: not a memif port)."""
    return tuple(socket for socket in sockets if socket is not None)
