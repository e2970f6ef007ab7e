"""LabboxHosts: the SSH hosts of a lab in a box, one per namespace of a local testbed.

Usage (the local testbed made the namespaces and data veths)::

    localbed = LocalTestbed(topology, host_namespaces={"TG": "tg", "DUT1": "dut1"})
    localbed.setup()
    hosts = LabboxHosts(localbed, ["TG", "DUT1"])   # plans names only: no I/O
    accesses = hosts.start()                        # {"TG": SshAccess(...), ...}
    ...
    hosts.stop()            # the sshds (idempotent)
    localbed.teardown()     # everything else; alone, it removes the sshds too

``start`` makes, per host: a management veth pair from the runner's
namespace (root end ``ndlb<hex><i>``, .1 of a link-local /30) to
``mgmt0`` (.2) in the host's namespace; a host key; sshd in the host's
namespace and a private mount namespace (own /tmp and /run/dpdk), with its
own config, listening on the .2 address, port 22. The run's client key,
known_hosts and configs live in ``/run/ndrpdr/labbox-<run id>/``.
Everything is recorded in the run's state file *before* it is made (the
directory, the root veth ends, the sshd PIDs), so ``localbed.teardown()``
and ``cleanup_leftovers()`` after a crash remove it all. A failed
``start`` removes what it made before raising.

On 2 shared CPUs ``start`` took 0.11 s for 1 host, 0.15 s for 2, 0.16 s
for 4 and 0.47 s for 8 (medians of 3), most of it the sshds' start.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import secrets
import threading
import time
from collections.abc import Iterator, Sequence
from ipaddress import IPv4Address
from pathlib import Path

from ndrpdr.access.base import NodeAccessError
from ndrpdr.access.local import LocalProcess
from ndrpdr.labbox.addresses import choose_networks
from ndrpdr.labbox.errors import LabboxError
from ndrpdr.labbox.keys import known_hosts_line, new_ed25519_key, write_private, write_public
from ndrpdr.labbox.mgmt import MgmtLink, address_lock, create_links, read_blocking_networks
from ndrpdr.labbox.plan import DEFAULT_BASE_DIR, SSH_PORT, HostPlan, LabboxPlan, make_labbox_plan
from ndrpdr.labbox.sshd import descendants, find_sshd, sshd_version_text, wait_for_banner
from ndrpdr.labbox.sshd_config import (
    host_command,
    parse_openssh_version,
    root_shell_sh,
    sshd_config_text,
)
from ndrpdr.localbed.errors import LocalTestbedError
from ndrpdr.localbed.plumbing import delete_links, existing_links
from ndrpdr.localbed.procs import terminate
from ndrpdr.localbed.testbed import LocalTestbed, remove_path
from ndrpdr.topology.model import SshAccess

_log = logging.getLogger(__name__)

#: How long each sshd may take to answer after its start [s].
READY_TIMEOUT_S = 10.0

#: Directories the hosts' mounts and sshd need on the real file system.
#: /run/sshd: sshd's privilege separation directory; /run/dpdk: the mount point.
RUNTIME_DIRS = (Path("/run/sshd"), Path("/run/dpdk"))


@dataclasses.dataclass(frozen=True)
class LabboxHost:
    """A started host: where it is and how to log in.

    ``root_address`` is the runner's end of the management /30,
    ``host_address`` the host's (its sshd listens there, port 22);
    ``sshd_pid`` the sshd listener's PID on this machine.
    """

    node: str
    namespace: str
    root_ifname: str
    host_ifname: str
    root_address: IPv4Address
    host_address: IPv4Address
    sshd_pid: int
    access: SshAccess


class LabboxHosts:
    """The SSH hosts of one local testbed run (see the module docstring)."""

    def __init__(
        self,
        localbed: LocalTestbed,
        nodes: Sequence[str],
        *,
        base_dir: Path = DEFAULT_BASE_DIR,
        ready_timeout_s: float = READY_TIMEOUT_S,
    ) -> None:
        """Plan hosts ``nodes`` of ``localbed`` (LabboxError if one has no own namespace).

        No I/O. ``base_dir``: where the run directory goes (not below /tmp or
        /run/dpdk, which are private to each host); ``ready_timeout_s`` [s]:
        how long the sshds may take to answer.
        """
        self._localbed = localbed
        self.plan: LabboxPlan = make_labbox_plan(
            localbed.run_id,
            localbed.plan.node_namespaces,
            list(nodes),
            token=secrets.token_hex(4),
            port_names={
                key: [i.name for i in node.interfaces.values() if i.name]
                for key, node in localbed.topology.nodes.items()
            },
            base_dir=base_dir,
        )
        self._ready_timeout_s = ready_timeout_s
        self._lock = threading.RLock()
        self._phase = "new"  # -> "started" -> "stopped"; "failed" after a failed start
        self._links: dict[str, MgmtLink] = {}
        self._sshds: dict[str, LocalProcess] = {}
        self._logs: dict[str, str] = {}
        self._hosts: dict[str, LabboxHost] = {}
        self._made_directory = False
        self._own_links: list[str] = []  # root veth names this start checked free and took

    # -- public ----------------------------------------------------------------------
    @property
    def nodes(self) -> tuple[str, ...]:
        """The host nodes, in start order."""
        return tuple(h.node for h in self.plan.hosts)

    @property
    def accesses(self) -> dict[str, SshAccess]:
        """{node: SshAccess} of the started hosts (empty before ``start``)."""
        return {node: host.access for node, host in self._hosts.items()}

    def host(self, node: str) -> LabboxHost:
        """The started host ``node`` (LabboxError if it is unknown or not started)."""
        self.plan.host(node)  # unknown node: names the hosts there are
        try:
            return self._hosts[node]
        except KeyError:
            raise LabboxError(f"run {self.plan.run_id}: host {node} is not started") from None

    def sshd_log(self, node: str) -> str:
        """What host ``node``'s sshd logged (kept after ``stop``)."""
        self.plan.host(node)
        process = self._sshds.get(node)
        return process.output() if process is not None else self._logs.get(node, "")

    def start(self) -> dict[str, SshAccess]:
        """Make the hosts and start their sshds; return {node: SshAccess} once all answer.

        LabboxError names the node and step that failed; what was made is
        removed first. One start per object (make a new one to start again).
        """
        with self._lock:
            if self._phase != "new":
                raise LabboxError(
                    f"run {self.plan.run_id}: labbox hosts were started already ({self._phase})"
                )
            if not self._localbed.is_set_up:
                raise LabboxError(
                    f"run {self.plan.run_id}: the local testbed is not set up: call "
                    "setup() before starting its labbox hosts"
                )
            self._phase = "failed"
            try:
                self._start()
            except BaseException:
                self._undo()
                raise
            self._phase = "started"
            return self.accesses

    def stop(self) -> None:
        """Stop every sshd (SIGTERM, then SIGKILL) and its session processes, by PID.

        Idempotent. The veths and files stay for ``localbed.teardown()``.
        """
        with self._lock:
            self._stop_sshds()
            if self._phase == "started":
                self._phase = "stopped"

    def __enter__(self) -> LabboxHosts:
        """Start the hosts (``start``)."""
        self.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        """Stop the hosts (``stop``)."""
        self.stop()

    def __repr__(self) -> str:
        return f"LabboxHosts(run_id={self.plan.run_id!r}, nodes={list(self.nodes)})"

    # -- steps -----------------------------------------------------------------------
    @contextlib.contextmanager
    def _step(self, what: str, node: str | None = None) -> Iterator[None]:
        """Turn an error inside into LabboxError naming the run, node and step."""
        where = f"run {self.plan.run_id}" + (f", node {node}" if node else "")
        try:
            yield
        except LabboxError as exc:
            if node is not None and f"node {node}" in str(exc):
                raise
            raise LabboxError(f"{where}: {what}: {exc}") from exc
        except (LocalTestbedError, NodeAccessError, OSError, ValueError) as exc:
            raise LabboxError(f"{where}: {what}: {exc}") from exc

    def _start(self) -> None:
        plan = self.plan
        with self._step("finding sshd"):
            sshd = find_sshd()
            version = parse_openssh_version(sshd_version_text(sshd))
        with self._step("creating the run directory"):
            for directory in RUNTIME_DIRS:
                directory.mkdir(mode=0o755, parents=True, exist_ok=True)
            plan.directory.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
            self._localbed.track_path(plan.directory)  # recorded before it exists
            try:
                plan.directory.mkdir(mode=0o700)
            except FileExistsError:
                self._localbed.untrack_path(plan.directory)  # not ours: leave it alone
                raise LabboxError(
                    f"{plan.directory} exists already: left by a dead run with this run id? "
                    "(cleanup_leftovers() removes what dead runs left)"
                ) from None
            self._made_directory = True
        with self._step("writing the client key and passwd copy"):
            client = new_ed25519_key(f"ndrpdr-labbox-{plan.run_id}")
            write_private(plan.client_key, client.private_openssh)
            write_public(plan.client_key.with_suffix(".pub"), client.public + "\n")
            write_public(plan.authorized_keys, client.public + "\n")
            write_public(plan.passwd, root_shell_sh(Path("/etc/passwd").read_text()))
        keys = {}
        for host in plan.hosts:
            with self._step("writing the host key", host.node):
                host.directory.mkdir(mode=0o700, parents=True)
                keys[host.node] = new_ed25519_key(f"ndrpdr-labbox-{host.node}")
                write_private(host.host_key, keys[host.node].private_openssh)
                write_public(host.host_key.with_suffix(".pub"), keys[host.node].public + "\n")
        self._make_links()
        with self._step("writing known_hosts"):
            write_public(
                plan.known_hosts,
                "".join(
                    known_hosts_line(self._links[h.node].host_address, SSH_PORT, keys[h.node])
                    + "\n"
                    for h in plan.hosts
                ),
            )
        for host in plan.hosts:
            self._start_sshd(host, sshd, version)
        deadline = time.monotonic() + self._ready_timeout_s
        for host in plan.hosts:
            process = self._sshds[host.node]
            link = self._links[host.node]
            with self._step("waiting for sshd", host.node):
                wait_for_banner(
                    host.node,
                    link.host_address,
                    SSH_PORT,
                    deadline,
                    is_running=process.is_running,
                    log=process.output,
                )
            self._hosts[host.node] = LabboxHost(
                node=host.node,
                namespace=host.namespace,
                root_ifname=link.root_ifname,
                host_ifname=link.host_ifname,
                root_address=link.root_address,
                host_address=link.host_address,
                sshd_pid=process.pid,
                access=SshAccess(
                    host=str(link.host_address),
                    port=SSH_PORT,
                    username="root",
                    key_file=str(plan.client_key),
                    known_hosts=str(plan.known_hosts),
                    use_agent=False,
                    check_host_key=True,
                ),
            )

    def _make_links(self) -> None:
        """Check, record, choose and create every host's management veth pair.

        All labbox runs create their pairs under ``address_lock``, so names
        found free under it are this run's from then on: only those are
        recorded (and deleted by an undo or teardown), never another run's.
        """
        hosts = self.plan.hosts
        names = [h.root_ifname for h in hosts]
        nodes = ", ".join(h.node for h in hosts)
        with self._step(f"management veths of {nodes}"), address_lock():
            taken = existing_links(names)
            if taken:
                raise LabboxError(
                    f"interface names {', '.join(taken)} are in use in the root namespace "
                    "(another run drew the same random token?): start a new LabboxHosts"
                )
            for name in names:
                self._localbed.track_interface(name)
                self._own_links.append(name)
            networks = choose_networks(len(hosts), read_blocking_networks())
            links = [
                MgmtLink(h.node, h.namespace, h.root_ifname, h.host_ifname, n)
                for h, n in zip(hosts, networks, strict=True)
            ]
            self._links = {link.node: link for link in links}
            create_links(links)

    def _start_sshd(self, host: HostPlan, sshd: str, version: tuple[int, int] | None) -> None:
        link = self._links[host.node]
        with self._step("starting sshd", host.node):
            host.sshd_config.write_text(
                sshd_config_text(
                    listen=link.host_address,
                    port=SSH_PORT,
                    host_key=host.host_key,
                    authorized_keys=self.plan.authorized_keys,
                    pid_file=host.pid_file,
                    openssh_version=version,
                )
            )
            argv = host_command(sshd, host.sshd_config, self.plan.passwd)
            process = self._localbed.access(host.node).start(argv)
            self._sshds[host.node] = process

    # -- undoing ---------------------------------------------------------------------
    def _stop_sshds(self) -> None:
        for node, process in list(self._sshds.items()):
            # Our child until reaped, so its PID is its own; once reaped (e.g. by the
            # local testbed's teardown) the PID may be another process's: not signalled.
            if process.is_running():
                terminate([process.pid, *descendants(process.pid)])
            process.stop(timeout_s=3.0)  # reaps it and collects its log
            self._logs[node] = process.output()
            del self._sshds[node]

    def _undo(self) -> None:
        """Remove what a failed start made (errors are logged: the start's error wins)."""
        try:
            self._stop_sshds()
        except Exception as exc:
            _log.warning("run %s: stopping sshds: %s", self.plan.run_id, exc)
        try:
            delete_links(self._own_links)
            for name in self._own_links:
                self._localbed.untrack_interface(name)
            self._own_links.clear()
        except LocalTestbedError as exc:  # the teardown retries (they stay recorded)
            _log.warning("run %s: %s", self.plan.run_id, exc)
        self._links.clear()
        if self._made_directory:
            remove_path(str(self.plan.directory))
            self._localbed.untrack_path(self.plan.directory)
            self._made_directory = False
