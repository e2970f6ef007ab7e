"""Netns transport: commands run on this machine inside a named network namespace.

``ip netns exec`` also gives the command the namespace's own /sys (so
/sys/class/net lists the namespace's interfaces) and, in iproute2 6.x,
execs the command in place, so the PID of a started process is the real
one and signals reach it.
"""

from __future__ import annotations

from ndrpdr.access.local import LocalTransport


class NetnsTransport(LocalTransport):
    """A LocalTransport whose every command runs in network namespace ``namespace``."""

    def __init__(self, node: str, namespace: str, *, sudo: bool = False) -> None:
        """``namespace``: the real (per-run) namespace name under /run/netns."""
        super().__init__(node, sudo=sudo, prefix=("ip", "netns", "exec", namespace))
        self.namespace = namespace
