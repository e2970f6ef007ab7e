"""TRex on memif ports: trex_cfg.yaml's net_memif devices, the option checks, the link wait.

No TRex runs here (``tests/acceptance/test_labbox_memif.py`` runs the real
one against the real VPP): the config of labbox-2n-vpp-memif.yaml is read
back as YAML and its device strings parsed as DPDK reads them (name, then
key=value pairs).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
import yaml

from ndrpdr.labbox.memif import with_memif_sockets
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.trex.config import render_config, trex_ports
from ndrpdr.trafficgen.trex.memif import LINK_POLL_S, wait_for_links
from ndrpdr.trafficgen.trex.options import parse_options
from ndrpdr.trafficgen.trex.session import TrexSession

ROOT = Path(__file__).resolve().parents[2]
TOPOLOGY = ROOT / "topologies" / "labbox-2n-vpp-memif.yaml"
RUN_DIR = Path("/run/ndrpdr/labbox-1234-abcd")


@pytest.fixture(scope="module")
def memif() -> Topology:
    """The memif topology as a lab in a box runs it (its sockets in the run directory)."""
    return with_memif_sockets(load_topology(TOPOLOGY), RUN_DIR)


def with_tg_options(topology: Topology, **options: Any) -> Topology:
    tg = dataclasses.replace(topology.tg, options={**topology.tg.options, **options})
    return dataclasses.replace(topology, nodes={**topology.nodes, "TG": tg})


def devargs(device: str) -> tuple[str, dict[str, str]]:
    """``--vdev=<name>,<k>=<v>,...`` as DPDK splits it."""
    assert device.startswith("--vdev=")
    name, *pairs = device.removeprefix("--vdev=").split(",")
    return name, dict(pair.split("=", 1) for pair in pairs)


def test_memif_ports_are_net_memif_servers_of_their_links_sockets(memif: Topology) -> None:
    options = parse_options(memif)
    config = yaml.safe_load(render_config(trex_ports(memif, options), options))[0]
    devices = [devargs(device) for device in config["interfaces"]]
    assert [name for name, _ in devices] == ["net_memif0", "net_memif1"]
    for (_, args), link, mac in zip(
        devices, ("link1", "link2"), ("02:00:00:00:01:01", "02:00:00:00:02:01"), strict=True
    ):
        assert args == {
            "role": "server",
            "id": "0",
            "socket": f"{RUN_DIR}/memif-{link}.sock",
            "socket-abstract": "no",
            "mac": mac,
        }
    # TRex's DPDK path on one core: low_end without --software; no platform, no c
    assert config["low_end"] is True and config["low_end_core"] == 0
    assert "platform" not in config and "c" not in config
    assert [p["dest_mac"] for p in config["port_info"]] == [
        "02:00:00:00:01:02",
        "02:00:00:00:02:02",
    ]


def test_the_session_counts_one_core_per_port_pair(memif: Topology) -> None:
    topology = with_tg_options(memif, start_server=False)
    session = TrexSession(topology, access=None)
    assert session.cores_per_port_pair == 1
    assert [p.memif_socket for p in session.ports] == [
        f"{RUN_DIR}/memif-link1.sock",
        f"{RUN_DIR}/memif-link2.sock",
    ]
    assert "--software" not in " ".join(session.options.extra_args)


def test_memif_refuses_software_mode(memif: Topology) -> None:
    topology = with_tg_options(memif, software_mode=True, low_end=False)
    with pytest.raises(TrafficGeneratorError, match=r"nodes\.TG\.options\.software_mode: memif"):
        trex_ports(topology, parse_options(topology))


def test_a_memif_port_needs_its_socket() -> None:
    topology = load_topology(TOPOLOGY)  # not through a lab in a box: no socket given
    with pytest.raises(
        TrafficGeneratorError, match=r"nodes\.TG\.interfaces\.port1\.memif_socket: a memif port"
    ):
        trex_ports(topology, parse_options(topology))


def test_memif_and_a_nic_do_not_mix(memif: Topology) -> None:
    tg = memif.tg
    nic = dataclasses.replace(
        tg.interfaces["port2"], model=None, memif_socket=None, pci_address="0000:17:00.1"
    )
    changed = dataclasses.replace(tg, interfaces={**tg.interfaces, "port2": nic})
    topology = dataclasses.replace(memif, nodes={**memif.nodes, "TG": changed})
    with pytest.raises(TrafficGeneratorError, match="one TRex port is memif and the other is not"):
        trex_ports(topology, parse_options(topology))


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds


def test_wait_for_links_returns_once_every_port_is_up() -> None:
    clock = Clock()
    up_at = {0: 1.0, 1: 2.5}  # the DUT's memif client connects port 1 later

    def attr(port: int) -> dict[str, str]:
        return {"link": "UP" if clock.now >= up_at[port] else "DOWN"}

    waited = wait_for_links("TG", attr, {0: "/s0", 1: "/s1"}, clock=clock, sleep=clock.sleep)
    assert 2.5 <= waited < 2.5 + LINK_POLL_S + 1e-9


def test_wait_for_links_names_the_port_still_down() -> None:
    clock = Clock()

    def attr(port: int) -> dict[str, str]:
        return {"link": "UP" if port == 0 else "DOWN"}

    with pytest.raises(
        TrafficGeneratorError, match=r"port 1 \(memif socket /s1\) had no link after 3 s"
    ) as info:
        wait_for_links(
            "TG", attr, {0: "/s0", 1: "/s1"}, timeout_s=3.0, clock=clock, sleep=clock.sleep
        )
    assert "port 0" not in str(info.value)
    assert clock.now >= 3.0
