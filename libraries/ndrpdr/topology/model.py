"""Typed topology objects: what a topology file describes, after validation.

A topology has nodes (one TG, one or more DUTs) keyed as in FD.io CSIT
("TG", "DUT1", "DUT2"...). Each node has a driver (what software runs
there), an access (how commands reach it) and interfaces. Links are
implicit, as in CSIT: two interfaces that name the same ``link`` are
connected.

These objects are frozen and hold no connections; drivers and transports
take them as input.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any, ClassVar, Literal

NodeType = Literal["TG", "DUT"]


def natural_key(text: str) -> tuple[tuple[int, str], ...]:
    """Sort key that orders embedded numbers by value: "port2" < "port10", "DUT2" < "DUT10"."""
    return tuple(
        (0, part.zfill(20)) if part.isdigit() else (1, part)
        for part in re.split(r"([0-9]+)", text)
        if part
    )


@dataclasses.dataclass(frozen=True)
class LocalAccess:
    """Commands run on this machine as subprocesses (``sudo`` prefixes them if set)."""

    kind: ClassVar[str] = "local"
    sudo: bool = False


@dataclasses.dataclass(frozen=True)
class NetnsAccess:
    """Commands run on this machine inside a network namespace.

    ``namespace`` is the logical name from the topology; the local testbed
    maps it to a per-run name so that two runs never collide.
    """

    kind: ClassVar[str] = "netns"
    namespace: str


@dataclasses.dataclass(frozen=True)
class LabboxAccess:
    """The node is a host of a lab in a box: made on this machine for the run.

    The run gives the node a network namespace of its own (named after the
    node key), a management veth from this machine with a link-local
    address, and an sshd with a key made for the run; the drivers then reach
    it over SSH exactly as a lab host (``SshAccess``).
    """

    kind: ClassVar[str] = "labbox"


@dataclasses.dataclass(frozen=True)
class SshAccess:
    """Commands run on ``host`` over SSH (paramiko).

    Authentication, tried in this order: ``key_file`` (path), ``priv_key``
    (PEM text inline, CSIT style), the SSH agent when ``use_agent``, and a
    password read from the environment variable ``password_env`` (or given
    inline as ``password``, CSIT style; discouraged). Host keys are checked
    against ``known_hosts`` (default ``~/.ssh/known_hosts``) unless
    ``check_host_key`` is False.
    """

    kind: ClassVar[str] = "ssh"
    host: str
    port: int = 22
    username: str = "root"
    key_file: str | None = None
    priv_key: str | None = dataclasses.field(default=None, repr=False)
    use_agent: bool = True
    password_env: str | None = None
    password: str | None = dataclasses.field(default=None, repr=False)
    known_hosts: str | None = None
    check_host_key: bool = True
    sudo: bool = False
    connect_timeout_s: float = 10.0
    keepalive_s: float = 10.0


Access = LocalAccess | NetnsAccess | SshAccess | LabboxAccess


@dataclasses.dataclass(frozen=True)
class Interface:
    """One port of a node.

    ``key`` is the topology key ("port1"); ``name`` the OS interface name
    (for local testbeds, the veth name inside the node's namespace);
    ``speed_bps`` the line rate [bit/s] if known; ``vlan`` the VLAN ID (CSIT);
    ``memif_socket`` the socket file of a memif port (``model`` ``memif``).
    """

    key: str
    name: str | None = None
    mac_address: str | None = None
    pci_address: str | None = None
    link: str | None = None
    model: str | None = None
    driver: str | None = None
    ip4_address: str | None = None
    speed_bps: float | None = None
    vlan: int | None = None
    memif_socket: str | None = None

    @property
    def is_memif(self) -> bool:
        """True for a memif port (a shared-memory interface: no Linux interface, no veth)."""
        return self.model == MEMIF_MODEL


#: The ``model`` of memif ports.
MEMIF_MODEL = "memif"


@dataclasses.dataclass(frozen=True)
class Node:
    """A TG or DUT node.

    ``driver`` names the software: for a TG "sim", "local" or "trex"; for a
    DUT "sim", "linux", "testpmd", "l3fwd", "ovs" or "vpp". ``options``
    holds the driver's own settings from the file (validated by the
    driver); ``extra`` keeps CSIT fields this project does not use (arch,
    model, uio_driver...), so nothing in a CSIT file is lost.
    """

    key: str
    type: NodeType
    driver: str
    access: Access
    interfaces: Mapping[str, Interface]
    options: Mapping[str, Any] = dataclasses.field(default_factory=dict)
    extra: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    def interface(self, key: str) -> Interface:
        """The interface with topology key ``key`` (KeyError if none)."""
        return self.interfaces[key]


@dataclasses.dataclass(frozen=True)
class LinkEnd:
    """One end of a link: a node key and an interface key."""

    node: str
    interface: str


@dataclasses.dataclass(frozen=True)
class Link:
    """Two interfaces joined by the same ``link`` name.

    Both ends may be on the TG (CSIT cables two TG ports together for its
    TG self-tests): such a loop is kept, and never used by NDR/PDR tests.
    """

    name: str
    ends: tuple[LinkEnd, LinkEnd]

    @property
    def is_loop(self) -> bool:
        """True when both ends are on one node."""
        return self.ends[0].node == self.ends[1].node

    def other_end(self, node: str, interface: str) -> LinkEnd:
        """The end that is not (node, interface)."""
        first, second = self.ends
        return second if (first.node, first.interface) == (node, interface) else first


@dataclasses.dataclass(frozen=True)
class Topology:
    """A validated topology file.

    ``nodes`` keeps file order; ``links`` is keyed by link name.
    ``source`` is the file it came from (None for one built in memory).
    """

    nodes: Mapping[str, Node]
    links: Mapping[str, Link]
    source: Path | None = None
    metadata: Mapping[str, Any] = dataclasses.field(default_factory=dict)

    @property
    def tg(self) -> Node:
        """The traffic generator node (the node of type TG)."""
        for node in self.nodes.values():
            if node.type == "TG":
                return node
        raise LookupError("topology has no TG node")  # the loader rejects such files

    @property
    def duts(self) -> tuple[Node, ...]:
        """DUT nodes in key order (DUT1, DUT2, ...)."""
        return tuple(
            sorted(
                (n for n in self.nodes.values() if n.type == "DUT"),
                key=lambda n: natural_key(n.key),
            )
        )

    def peer(self, node: str, interface: str) -> LinkEnd | None:
        """The interface at the other end of (node, interface)'s link, or None."""
        iface = self.nodes[node].interfaces[interface]
        if iface.link is None or iface.link not in self.links:
            return None
        return self.links[iface.link].other_end(node, interface)
