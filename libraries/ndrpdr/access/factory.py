"""Pick the transport for a node from its ``access`` (local, netns or SSH)."""

from __future__ import annotations

from ndrpdr.access.base import NodeAccess
from ndrpdr.access.local import LocalTransport
from ndrpdr.access.netns import NetnsTransport
from ndrpdr.optionaldeps import optional_part
from ndrpdr.topology.model import LocalAccess, NetnsAccess, Node, SshAccess


def open_access(node: Node, *, namespace: str | None = None) -> NodeAccess:
    """The transport for ``node``; nothing is connected until the first command.

    ``namespace`` replaces the logical namespace of a netns node (the local
    testbed maps logical names to per-run names); it is an error for other
    access kinds. A netns transport runs ``ip netns exec`` through ``sudo``
    when not root (a no-op as root). An SSH node needs paramiko (the ``lab``
    extra): without it, MissingPartError says so.
    """
    access = node.access
    if isinstance(access, NetnsAccess):
        return NetnsTransport(node.key, namespace or access.namespace, sudo=True)
    if namespace is not None:
        kind = type(access).__name__
        raise ValueError(f"{node.key}: namespace {namespace!r} given, but its access is {kind}")
    if isinstance(access, LocalAccess):
        return LocalTransport(node.key, sudo=access.sudo)
    if isinstance(access, SshAccess):
        with optional_part(f"node {node.key}'s SSH access"):
            from ndrpdr.access.ssh import SshTransport  # noqa: PLC0415 - paramiko is optional

        return SshTransport(node.key, access)
    raise TypeError(f"{node.key}: unknown access {access!r}")
