"""Management veth pairs: from the runner's (root) namespace into each host's namespace.

``create_links`` makes every host's pair with ``ip -batch`` (root end in
the root namespace, host end created straight in the host's namespace),
gives the root end the .1 and the host end the .2 of the host's /30 and
sets both up. The root ends' IPv6 is off (no link-local routes or router
solicitations in the root namespace); the host namespaces have it off
already (LocalTestbed).

Choosing the /30s and assigning them happen under ``address_lock`` (an
flock held for milliseconds), so two runs on one machine never take the
same network; the lock goes with its holder if that dies.
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import json
import os
import time
from collections.abc import Iterator, Sequence
from ipaddress import IPv4Address, IPv4Network
from pathlib import Path
from typing import Any

from ndrpdr.access.base import CommandError, NodeAccessError
from ndrpdr.access.local import LocalTransport
from ndrpdr.labbox.addresses import (
    MGMT_PREFIXLEN,
    blocking_networks,
    host_address,
    parse_ip_addresses,
    parse_ip_routes,
    root_address,
)
from ndrpdr.labbox.errors import LabboxError
from ndrpdr.localbed.errors import LocalTestbedError
from ndrpdr.localbed.plumbing import run_ip_batch

#: The machine-wide lock of management address choice (one root namespace, one lock).
LOCK_PATH = Path("/run/ndrpdr/labbox-addresses.lock")

#: How long to wait for the address lock [s] (it is held for milliseconds).
LOCK_TIMEOUT_S = 30.0

#: Timeout of one ``ip`` command [s].
IP_TIMEOUT_S = 30.0


@dataclasses.dataclass(frozen=True)
class MgmtLink:
    """One host's management veth pair and its /30 (root end .1, host end .2)."""

    node: str
    namespace: str
    root_ifname: str
    host_ifname: str
    network: IPv4Network

    @property
    def root_address(self) -> IPv4Address:
        """The root end's address."""
        return root_address(self.network)

    @property
    def host_address(self) -> IPv4Address:
        """The host end's address: where its sshd listens."""
        return host_address(self.network)


@contextlib.contextmanager
def address_lock(path: Path = LOCK_PATH, timeout_s: float = LOCK_TIMEOUT_S) -> Iterator[None]:
    """Hold the machine-wide management address lock (LabboxError after ``timeout_s`` [s])."""
    path.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
    try:
        deadline = time.monotonic() + timeout_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except OSError as exc:
                if exc.errno not in (errno.EAGAIN, errno.EACCES):
                    raise
                if time.monotonic() >= deadline:
                    raise LabboxError(
                        f"management address lock {path} still held after {timeout_s:g} s"
                    ) from None
                time.sleep(0.01)
        yield
    finally:
        os.close(fd)  # releases the lock


def _ip_json(*args: str) -> Any:
    try:
        result = LocalTransport("localhost").run(["ip", "-j", *args], timeout_s=IP_TIMEOUT_S)
    except (CommandError, NodeAccessError) as exc:
        raise LabboxError(f"reading the root namespace's addresses and routes: {exc}") from exc
    return json.loads(result.stdout or "[]")


def read_blocking_networks() -> list[IPv4Network]:
    """What management /30s must avoid in the runner's namespace (addresses, routes)."""
    addresses = parse_ip_addresses(_ip_json("-4", "addr", "show"))
    routes = parse_ip_routes(_ip_json("-4", "route", "show", "table", "all"))
    return blocking_networks(addresses, routes)


def create_batch(links: Sequence[MgmtLink]) -> str:
    """``ip -batch`` lines creating the pairs (host ends straight in their namespaces)."""
    return "".join(
        f"link add {link.root_ifname} type veth peer name {link.host_ifname} "
        f"netns {link.namespace}\n"
        for link in links
    )


def root_batch(links: Sequence[MgmtLink]) -> str:
    """``ip -batch`` lines addressing the root ends and setting them up."""
    return "".join(
        f"addr add {link.root_address}/{MGMT_PREFIXLEN} dev {link.root_ifname}\n"
        f"link set dev {link.root_ifname} up\n"
        for link in links
    )


def host_batch(link: MgmtLink) -> str:
    """``ip -n NS -batch`` lines addressing the host end and setting it up."""
    return (
        f"addr add {link.host_address}/{MGMT_PREFIXLEN} dev {link.host_ifname}\n"
        f"link set dev {link.host_ifname} up\n"
    )


def _disable_ipv6(ifname: str) -> None:
    path = Path(f"/proc/sys/net/ipv6/conf/{ifname}/disable_ipv6")
    if path.exists():
        path.write_text("1\n")


def create_links(links: Sequence[MgmtLink]) -> None:
    """Create, address and set up ``links`` (LabboxError naming the nodes and the step).

    Call under ``address_lock`` with networks chosen under the same lock.
    What was made before a failure stays: delete it with ``delete_links``.
    """
    nodes = ", ".join(link.node for link in links)
    try:
        run_ip_batch(create_batch(links), f"management veth creation for {nodes}")
        for link in links:
            _disable_ipv6(link.root_ifname)
        run_ip_batch(root_batch(links), f"management addresses (root ends) for {nodes}")
    except LocalTestbedError as exc:
        raise LabboxError(str(exc)) from exc
    except OSError as exc:
        raise LabboxError(f"management veths for {nodes}: turning IPv6 off: {exc}") from exc
    for link in links:
        argv = ["ip", "-n", link.namespace, "-batch", "-"]
        try:
            LocalTransport("localhost").run(argv, stdin=host_batch(link), timeout_s=IP_TIMEOUT_S)
        except (CommandError, NodeAccessError) as exc:
            raise LabboxError(
                f"node {link.node}: management address on {link.host_ifname} in "
                f"{link.namespace}: {exc}"
            ) from exc
