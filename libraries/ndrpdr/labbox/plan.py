"""The names and paths of a lab in a box's hosts (pure: no I/O).

Each host node gets a management veth pair: its root end, in the runner's
namespace, is named ``ndlb<8 hex digits><index>`` (at most 15 characters;
the hex digits are random per ``LabboxHosts``, so two concurrent runs
never pick the same names), its host end is ``mgmt0``. Files of the run
live in one directory, ``<base>/labbox-<run id>/``: the client key,
authorized_keys, known_hosts and the passwd copy at its top, each host's
key, sshd_config and PID file in ``hosts/<node key>/``.

The run directory must stay visible inside the hosts, whose /tmp and
/run/dpdk are private tmpfs mounts: it may not lie below those.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Collection, Mapping, Sequence
from pathlib import Path, PurePosixPath

from ndrpdr.labbox.errors import LabboxError

#: Root-end names are this prefix, the run's token and the host's index.
ROOT_IFNAME_PREFIX = "ndlb"

#: The host end of each management veth, inside the host's namespace.
HOST_IFNAME = "mgmt0"

#: Where the hosts' sshd listens (on the host end's address).
SSH_PORT = 22

#: Where run directories go unless the caller says otherwise (tmpfs, like namespaces).
DEFAULT_BASE_DIR = Path("/run/ndrpdr")

#: Directories that are private tmpfs mounts inside each host.
PRIVATE_DIRS = (PurePosixPath("/tmp"), PurePosixPath("/run/dpdk"))

#: A token: 8 lowercase hex digits (32 random bits).
_TOKEN = re.compile(r"[0-9a-f]{8}")

#: Node keys used as directory names: short and safe.
_NODE_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")

#: At most this many hosts per run (the index takes up to 3 digits of 15).
MAX_HOSTS = 1000


def root_ifname(token: str, index: int) -> str:
    """The root end's name of host number ``index`` (0-based) for run token ``token``."""
    if not _TOKEN.fullmatch(token):
        raise LabboxError(f"token {token!r} is not 8 lowercase hex digits")
    if not 0 <= index < MAX_HOSTS:
        raise LabboxError(f"host index {index} is out of range 0..{MAX_HOSTS - 1}")
    return f"{ROOT_IFNAME_PREFIX}{token}{index}"


def run_directory(base_dir: Path, run_id: str) -> Path:
    """The run directory of run ``run_id`` under ``base_dir``."""
    return base_dir / f"labbox-{run_id}"


@dataclasses.dataclass(frozen=True)
class HostPlan:
    """One host: its node, real namespace, management veth names and file directory."""

    node: str
    namespace: str
    root_ifname: str
    host_ifname: str
    directory: Path

    @property
    def host_key(self) -> Path:
        """The host's private ed25519 host key (0600)."""
        return self.directory / "ssh_host_ed25519_key"

    @property
    def sshd_config(self) -> Path:
        """The host's sshd_config."""
        return self.directory / "sshd_config"

    @property
    def pid_file(self) -> Path:
        """Where the host's sshd writes its PID."""
        return self.directory / "sshd.pid"


@dataclasses.dataclass(frozen=True)
class LabboxPlan:
    """All hosts of one run and the run's shared files."""

    run_id: str
    directory: Path
    hosts: tuple[HostPlan, ...]

    @property
    def client_key(self) -> Path:
        """The run's SSH client private key (ed25519, 0600)."""
        return self.directory / "id_ed25519"

    @property
    def authorized_keys(self) -> Path:
        """The client's public key, as every host's sshd reads it."""
        return self.directory / "authorized_keys"

    @property
    def known_hosts(self) -> Path:
        """Every host's key for its management address."""
        return self.directory / "known_hosts"

    @property
    def passwd(self) -> Path:
        """The passwd copy bind-mounted on the hosts' /etc/passwd (root's shell: /bin/sh)."""
        return self.directory / "passwd"

    def host(self, node: str) -> HostPlan:
        """The plan of host ``node`` (LabboxError if it is not a host of this run)."""
        for host in self.hosts:
            if host.node == node:
                return host
        known = ", ".join(h.node for h in self.hosts)
        raise LabboxError(f"run {self.run_id}: node {node!r} is not a labbox host ({known})")


def _check_base_dir(base_dir: Path) -> None:
    if not base_dir.is_absolute():
        raise LabboxError(f"labbox base directory {base_dir} is not an absolute path")
    posix = PurePosixPath(base_dir)
    for private in PRIVATE_DIRS:
        if posix == private or private in posix.parents:
            raise LabboxError(
                f"labbox base directory {base_dir} is below {private}, which is private to "
                "each host (a tmpfs): the hosts' sshd would not see its files there"
            )


def make_labbox_plan(
    run_id: str,
    node_namespaces: Mapping[str, str],
    nodes: Sequence[str],
    *,
    token: str,
    base_dir: Path = DEFAULT_BASE_DIR,
    port_names: Mapping[str, Collection[str]] | None = None,
) -> LabboxPlan:
    """The plan for hosts ``nodes`` (in this order) of run ``run_id``.

    ``node_namespaces`` maps node keys to their real namespaces (the local
    testbed's plan). Each host needs its own namespace: one sshd and one
    ``mgmt0`` per namespace. ``port_names``: {node: its data interface
    names}, none of which may be the management interface's name.
    """
    if not nodes:
        raise LabboxError(f"run {run_id}: no host nodes given")
    if len(nodes) > MAX_HOSTS:
        raise LabboxError(f"run {run_id}: {len(nodes)} hosts, at most {MAX_HOSTS}")
    repeated = sorted({n for n in nodes if list(nodes).count(n) > 1})
    if repeated:
        raise LabboxError(f"run {run_id}: host nodes repeat: {', '.join(repeated)}")
    _check_base_dir(base_dir)
    directory = run_directory(base_dir, run_id)
    owners: dict[str, str] = {}
    hosts = []
    for index, node in enumerate(nodes):
        if not isinstance(node, str) or not _NODE_KEY.fullmatch(node):
            raise LabboxError(f"run {run_id}: node key {node!r} is not usable as a host name")
        namespace = node_namespaces.get(node)
        if namespace is None:
            known = ", ".join(node_namespaces) or "none"
            raise LabboxError(
                f"run {run_id}: node {node} has no namespace in the local testbed (nodes with "
                f"one: {known}); give it in LocalTestbed(host_namespaces=...)"
            )
        if namespace in owners:
            raise LabboxError(
                f"run {run_id}: nodes {owners[namespace]} and {node} share namespace "
                f"{namespace}; each labbox host needs its own"
            )
        owners[namespace] = node
        if HOST_IFNAME in (port_names or {}).get(node, ()):
            raise LabboxError(
                f"run {run_id}: node {node} has a port named {HOST_IFNAME}, the name of the "
                "labbox management interface: rename the port in the topology"
            )
        hosts.append(
            HostPlan(
                node=node,
                namespace=namespace,
                root_ifname=root_ifname(token, index),
                host_ifname=HOST_IFNAME,
                directory=directory / "hosts" / node,
            )
        )
    return LabboxPlan(run_id, directory, tuple(hosts))
