"""The socket files of a lab in a box's memif links (pure: no I/O).

A memif link (``model: memif`` at both ends, ``ndrpdr.topology.memif``)
joins two hosts through a Unix socket file, which both must see. Each
host's /tmp and /run/dpdk are its own; the run directory
(``/run/ndrpdr/labbox-<run id>``) is seen by all and removed with the run,
so a memif port without a ``memif_socket`` gets the one its peer names,
else ``<run directory>/memif-<link>.sock`` (the same at both ends).
The socket's listener (TRex) makes the file, and removes a stale one
before it starts.
"""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from ndrpdr.topology.model import Topology

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


def memif_socket_path(directory: Path, link: str) -> str:
    """The socket file of memif link ``link`` in run directory ``directory``."""
    return str(directory / f"memif-{_UNSAFE.sub('_', link)}.sock")


def with_memif_sockets(topology: Topology, directory: Path) -> Topology:
    """``topology`` with every memif port that names no socket given its link's: the one its
    peer names, else ``memif_socket_path(directory, link)``."""
    named = {
        iface.link: iface.memif_socket
        for node in topology.nodes.values()
        for iface in node.interfaces.values()
        if iface.memif_socket is not None
    }
    nodes = {}
    for key, node in topology.nodes.items():
        interfaces = {
            name: dataclasses.replace(
                iface,
                memif_socket=named.get(iface.link) or memif_socket_path(directory, iface.link),
            )
            if iface.is_memif and iface.memif_socket is None and iface.link is not None
            else iface
            for name, iface in node.interfaces.items()
        }
        nodes[key] = dataclasses.replace(node, interfaces=interfaces)
    return dataclasses.replace(topology, nodes=nodes)
