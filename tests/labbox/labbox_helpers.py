"""Lab topologies, a labbox opener and "is all of the run gone?" checks for the labbox tests.

Also imported by the crashed-runner child process, so it depends on
nothing from pytest.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from ndrpdr.access.ssh import SshTransport
from ndrpdr.labbox import LabboxHosts
from ndrpdr.localbed import LocalTestbed
from ndrpdr.localbed.procs import NETNS_RUN_DIR, is_alive, start_time
from ndrpdr.topology.model import Interface, Link, LinkEnd, Node, SshAccess, Topology

#: The topology's data ports per node (the labbox makes mgmt0 besides).
PORTS = {"TG": ("tg-if1", "tg-if2"), "DUT1": ("dut-if1", "dut-if2")}


def lab_topology_2n() -> Topology:
    """A 2-node lab topology: TG (trex) -- DUT1 (linux), two links, both nodes over SSH.

    The SSH addresses are placeholders: the labbox gives the real ones.
    """

    def node(key: str, kind: Any, driver: str) -> Node:
        names = PORTS[key]
        interfaces = {
            f"port{i}": Interface(f"port{i}", name, link=f"link{i}")
            for i, name in enumerate(names, 1)
        }
        return Node(key, kind, driver, SshAccess(f"{key.lower()}.lab.invalid"), interfaces)

    links = {
        f"link{i}": Link(f"link{i}", (LinkEnd("TG", f"port{i}"), LinkEnd("DUT1", f"port{i}")))
        for i in (1, 2)
    }
    return Topology({"TG": node("TG", "TG", "trex"), "DUT1": node("DUT1", "DUT", "linux")}, links)


def host_namespaces_2n() -> dict[str, str]:
    """{node: logical namespace} of ``lab_topology_2n``."""
    return {"TG": "tg", "DUT1": "dut1"}


def root_link_exists(name: str) -> bool:
    """True if interface ``name`` exists in this process's network namespace."""
    return Path("/sys/class/net", name).exists()


@dataclasses.dataclass(frozen=True)
class RunSnapshot:
    """What one labbox run made, by name and PID (with start time), to check it is gone."""

    run_id: str
    namespaces: tuple[str, ...]
    root_links: tuple[str, ...]
    pids: tuple[tuple[int, int], ...]
    run_dir: str
    state_file: str

    def to_json(self) -> str:
        """One JSON line (the crashed child prints it)."""
        return json.dumps(dataclasses.asdict(self))

    @classmethod
    def from_json(cls, line: str) -> RunSnapshot:
        data = json.loads(line)
        return cls(
            data["run_id"],
            tuple(data["namespaces"]),
            tuple(data["root_links"]),
            tuple((int(p), int(t)) for p, t in data["pids"]),
            data["run_dir"],
            data["state_file"],
        )

    def left(self) -> dict[str, list[Any]]:
        """What still exists of it (empty lists when all is gone)."""
        return {
            "namespaces": [n for n in self.namespaces if (NETNS_RUN_DIR / n).exists()],
            "root_links": [n for n in self.root_links if root_link_exists(n)],
            "pids": [p for p, t in self.pids if is_alive(p, t)],
            "run_dir": [self.run_dir] if os.path.exists(self.run_dir) else [],
            "state_file": [self.state_file] if os.path.exists(self.state_file) else [],
        }

    def all_there(self) -> bool:
        """True if every part of it still exists."""
        left = self.left()
        return (
            len(left["namespaces"]) == len(self.namespaces)
            and len(left["root_links"]) == len(self.root_links)
            and len(left["pids"]) == len(self.pids)
            and bool(left["run_dir"])
            and bool(left["state_file"])
        )


def snapshot(localbed: LocalTestbed, hosts: LabboxHosts, *extra_pids: int) -> RunSnapshot:
    """What ``hosts`` (started) and ``localbed`` made; ``extra_pids`` run on the hosts."""
    pids = [hosts.host(n).sshd_pid for n in hosts.nodes] + list(extra_pids)
    return RunSnapshot(
        localbed.run_id,
        tuple(localbed.plan.namespaces),
        tuple(hosts.host(n).root_ifname for n in hosts.nodes),
        tuple((p, start_time(p) or -1) for p in pids),
        str(hosts.plan.directory),
        str(localbed.state_file),
    )


@dataclasses.dataclass
class Labbox:
    """A set-up local testbed and its started labbox hosts, with an SSH transport per host."""

    localbed: LocalTestbed
    hosts: LabboxHosts
    ssh: dict[str, SshTransport]

    def close(self) -> None:
        """Close the transports, stop the hosts, tear down (idempotent)."""
        for transport in self.ssh.values():
            transport.close()
        self.hosts.stop()
        self.localbed.teardown()


def open_labbox(topology: Topology, namespaces: dict[str, str]) -> Labbox:
    """Set up a local testbed for ``topology`` and start its hosts (torn down on failure)."""
    localbed = LocalTestbed(topology, host_namespaces=namespaces)
    localbed.setup()
    try:
        hosts = LabboxHosts(localbed, list(namespaces))
        accesses = hosts.start()
    except BaseException:
        localbed.teardown()
        raise
    return Labbox(localbed, hosts, {n: SshTransport(n, a) for n, a in accesses.items()})
