"""Topologies built in code for the local testbed tests (also imported by a child process)."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Mapping
from typing import Any

from ndrpdr.topology.model import Interface, Link, LinkEnd, NetnsAccess, Node, Topology

MACS = {
    ("TG", "port1"): "02:00:00:00:01:01",
    ("DUT1", "port1"): "02:00:00:00:01:02",
    ("DUT1", "port2"): "02:00:00:00:02:02",
    ("TG", "port2"): "02:00:00:00:02:01",
}


def topology_2n1l(
    *,
    macs: Mapping[tuple[str, str], str | None] | None = None,
    tg_options: Mapping[str, Any] | None = None,
    dut_options: Mapping[str, Any] | None = None,
) -> Topology:
    """TG (netns "tg": tg-if1, tg-if2) -- DUT1 (netns "dut": dut-if1, dut-if2), two links."""
    mac = {**MACS, **(macs or {})}

    def iface(node: str, port: str, name: str, link: str) -> Interface:
        return Interface(port, name, mac[(node, port)], link=link)

    tg = Node(
        "TG",
        "TG",
        "local",
        NetnsAccess("tg"),
        {
            "port1": iface("TG", "port1", "tg-if1", "link1"),
            "port2": iface("TG", "port2", "tg-if2", "link2"),
        },
        options=dict(tg_options or {}),
    )
    dut = Node(
        "DUT1",
        "DUT",
        "linux",
        NetnsAccess("dut"),
        {
            "port1": iface("DUT1", "port1", "dut-if1", "link1"),
            "port2": iface("DUT1", "port2", "dut-if2", "link2"),
        },
        options=dict(dut_options or {}),
    )
    links = {
        "link1": Link("link1", (LinkEnd("TG", "port1"), LinkEnd("DUT1", "port1"))),
        "link2": Link("link2", (LinkEnd("TG", "port2"), LinkEnd("DUT1", "port2"))),
    }
    return Topology({"TG": tg, "DUT1": dut}, links)


def netns_names() -> set[str]:
    """Names of all named network namespaces now."""
    try:
        return set(os.listdir("/run/netns"))
    except FileNotFoundError:
        return set()


def run_namespaces(run_id: str) -> set[str]:
    """Namespaces of run ``run_id`` that exist now."""
    return {n for n in netns_names() if n.startswith(f"ndrpdr-{run_id}-")}


def child_pids(name: str) -> list[int]:
    """PIDs of this process's children called ``name``."""
    out = subprocess.run(
        ["pgrep", "-P", str(os.getpid()), "-x", name], capture_output=True, text=True, check=False
    ).stdout
    return [int(p) for p in out.split()]


def namespace_pids(namespace: str) -> list[int]:
    """PIDs inside ``namespace`` (``ip netns pids``)."""
    out = subprocess.run(
        ["ip", "netns", "pids", namespace], capture_output=True, text=True, check=False
    ).stdout
    return [int(p) for p in re.findall(r"\d+", out)]
