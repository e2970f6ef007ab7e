"""trex_cfg.yaml from topologies, and the trex options' checks.

No TRex ran: the expected files under ``expected/`` follow the platform
YAML of TRex's manual ("Platform YAML (--cfg argument)", "Low-end
machines", "Linux interfaces"): a list of one mapping with ``version: 2``,
``interfaces``, ``port_info`` (``src_mac`` / ``dest_mac``), ``c`` and the
``platform`` section, or ``low_end`` for a software-mode server.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
import yaml

from example_topologies import filled
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Interface, Link, LinkEnd, LocalAccess, Node, Topology
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.trex.config import config_text, render_config, trex_ports
from ndrpdr.trafficgen.trex.options import OPTION_KEYS, TrexOptions, parse_options

ROOT = Path(__file__).resolve().parents[2]
CSIT = filled("csit-2n-example.yaml")
EXPECTED = Path(__file__).resolve().parent / "expected"


@pytest.fixture(scope="module")
def csit() -> Topology:
    return load_topology(CSIT)


def with_tg(topology: Topology, **changes: Any) -> Topology:
    """``topology`` with its TG node changed (``options=...``, ``interfaces=...``)."""
    tg = dataclasses.replace(topology.tg, **changes)
    return dataclasses.replace(topology, nodes={**topology.nodes, tg.key: tg})


def software_topology(**options: Any) -> Topology:
    """A TG and a DUT on this host, TRex on veths tg-if1 / tg-if2 in software mode."""

    def ports(prefix: str, node: int) -> dict[str, Interface]:
        return {
            f"port{i}": Interface(
                f"port{i}", f"{prefix}-if{i}", f"02:00:00:00:0{node}:0{i}", link=f"link{i}"
            )
            for i in (1, 2)
        }

    tg = Node("TG", "TG", "trex", LocalAccess(sudo=True), ports("tg", 1), options=options)
    dut = Node("DUT1", "DUT", "linux", LocalAccess(sudo=True), ports("dut", 2))
    links = {
        f"link{i}": Link(f"link{i}", (LinkEnd("TG", f"port{i}"), LinkEnd("DUT1", f"port{i}")))
        for i in (1, 2)
    }
    return Topology({"TG": tg, "DUT1": dut}, links)


def test_csit_example_as_is(csit: Topology) -> None:
    text = config_text(csit, parse_options(csit))
    assert text == (EXPECTED / "trex_cfg_csit_2n.yaml").read_text()
    (entry,) = yaml.safe_load(text)
    assert entry["interfaces"] == ["0000:17:00.0", "0000:17:00.1"]
    # src: the TG port's MAC; dest: the MAC of the DUT port on the same link.
    assert entry["port_info"][0] == {
        "src_mac": "b4:96:91:00:00:40",
        "dest_mac": "b4:96:91:00:00:50",
    }
    assert entry["port_info"][1] == {
        "src_mac": "b4:96:91:00:00:41",
        "dest_mac": "b4:96:91:00:00:51",
    }


def test_csit_example_with_threads_ports_and_memory(csit: Topology) -> None:
    options = {
        "cores": 2,
        "master_thread_id": 0,
        "latency_thread_id": 1,
        "threads": [2, 3],
        "limit_memory": 4096,
        "sync_port": 4601,
        "async_port": 4600,
    }
    topology = with_tg(csit, options=options)
    text = config_text(topology, parse_options(topology))
    assert text == (EXPECTED / "trex_cfg_csit_2n_threads.yaml").read_text()
    (entry,) = yaml.safe_load(text)
    assert entry["platform"] == {
        "master_thread_id": 0,
        "latency_thread_id": 1,
        "dual_if": [{"socket": 0, "threads": [2, 3]}],
    }


def test_software_mode_lists_linux_interfaces_and_low_end() -> None:
    topology = software_topology(software_mode=True, low_end_core=1)
    text = config_text(topology, parse_options(topology))
    assert text == (EXPECTED / "trex_cfg_software.yaml").read_text()
    (entry,) = yaml.safe_load(text)
    assert entry["low_end"] is True and "platform" not in entry and "c" not in entry


def test_ports_follow_port_order_not_file_order(csit: Topology) -> None:
    # port2 listed first in the node: TRex port 0 is still port1.
    reordered = dict(reversed(list(csit.tg.interfaces.items())))
    topology = with_tg(csit, interfaces=reordered)
    ports = trex_ports(topology, parse_options(topology))
    assert [(p.index, p.key, p.device) for p in ports] == [
        (0, "port1", "0000:17:00.0"),
        (1, "port2", "0000:17:00.1"),
    ]


def test_options_default_from_the_ssh_access(csit: Topology) -> None:
    options = parse_options(csit)
    assert options == TrexOptions(server="10.0.0.1")
    assert parse_options(software_topology()).server == "localhost"
    assert OPTION_KEYS[0] == "install_dir" and "client_path" in OPTION_KEYS


def test_uppercase_macs_are_written_in_lower_case(csit: Topology) -> None:
    port1 = dataclasses.replace(csit.tg.interfaces["port1"], mac_address="B4:96:91:00:00:4A")
    topology = with_tg(csit, interfaces={**csit.tg.interfaces, "port1": port1})
    assert '"b4:96:91:00:00:4a"' in config_text(topology, parse_options(topology))


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"core": 2}, r"nodes\.TG\.options\.core: unknown option \(did you mean 'cores'\?\)"),
        ({"cores": 0}, r"options\.cores: 0 is not an integer >= 1"),
        ({"cores": True}, r"options\.cores: True is not an integer >= 1"),
        ({"threads": [2, 3]}, r"options\.master_thread_id: missing"),
        ({"master_thread_id": 0}, r"options\.threads: missing"),
        ({"master_thread_id": 0, "threads": []}, r"options\.threads: \[\] is empty"),
        (
            {"cores": 3, "master_thread_id": 0, "threads": [2, 3]},
            r"options\.threads: \[2, 3\] has fewer than cores=3",
        ),
        ({"master_thread_id": 2, "threads": [2, 3]}, r"master_thread_id: 2 is also in threads"),
        ({"latency_thread_id": 1}, r"options\.latency_thread_id: needs master_thread_id"),
        ({"low_end_core": 1}, r"options\.low_end_core: only a software_mode or low_end server"),
        ({"sync_port": 70000}, r"options\.sync_port: 70000 is not an integer >= 1 and <= 65535"),
        ({"async_port": 4501}, r"options\.async_port: 4501 is also the sync_port"),
        ({"install_dir": "opt/trex"}, r"options\.install_dir: 'opt/trex' is not an absolute"),
        ({"client_path": 5}, r"options\.client_path: 5 is not an absolute path"),
        ({"extra_args": "--hdrh"}, r"options\.extra_args: '--hdrh' is not a list"),
        ({"max_rate_pps": 0}, r"options\.max_rate_pps: 0 is not a finite number > 0"),
        ({"latency_pps": -1}, r"options\.latency_pps: -1 is not a finite number >= 0"),
        ({"software_mode": "yes"}, r"options\.software_mode: 'yes' is not true or false"),
        ({"server": "a b"}, r"options\.server: 'a b' is not a host name"),
        ({"api_retries": 0}, r"options\.api_retries: 0 is not an integer >= 1"),
    ],
)
def test_bad_options_name_the_field(csit: Topology, options: dict[str, Any], message: str) -> None:
    with pytest.raises(TrafficGeneratorError, match=message) as info:
        parse_options(with_tg(csit, options=options))
    assert str(info.value).startswith(f"{CSIT}: nodes.TG.options.")


def test_missing_pci_address_or_mac_names_the_field(csit: Topology) -> None:
    port1 = dataclasses.replace(csit.tg.interfaces["port1"], pci_address=None)
    topology = with_tg(csit, interfaces={**csit.tg.interfaces, "port1": port1})
    with pytest.raises(TrafficGeneratorError, match=r"nodes\.TG\.interfaces\.port1\.pci_address"):
        trex_ports(topology, parse_options(topology))
    dut = csit.nodes["DUT1"]
    dut_port2 = dataclasses.replace(dut.interfaces["port2"], mac_address=None)
    dut = dataclasses.replace(dut, interfaces={**dut.interfaces, "port2": dut_port2})
    topology = dataclasses.replace(csit, nodes={**csit.nodes, "DUT1": dut})
    with pytest.raises(
        TrafficGeneratorError, match=r"nodes\.DUT1\.interfaces\.port2\.mac_address: None"
    ):
        trex_ports(topology, parse_options(topology))


def test_software_mode_needs_interface_names() -> None:
    topology = software_topology(software_mode=True)
    port2 = dataclasses.replace(topology.tg.interfaces["port2"], name=None)
    topology = with_tg(topology, interfaces={**topology.tg.interfaces, "port2": port2})
    with pytest.raises(TrafficGeneratorError, match=r"nodes\.TG\.interfaces\.port2\.name"):
        trex_ports(topology, parse_options(topology))


def test_one_linked_port_is_not_enough(csit: Topology) -> None:
    port2 = dataclasses.replace(csit.tg.interfaces["port2"], link=None)
    topology = with_tg(csit, interfaces={**csit.tg.interfaces, "port2": port2})
    links = {name: link for name, link in csit.links.items() if name != "link2"}
    topology = dataclasses.replace(topology, links=links)
    with pytest.raises(TrafficGeneratorError, match=r"no free link from DUT1 to TG"):
        trex_ports(topology, parse_options(topology))


def test_render_config_is_pure(csit: Topology) -> None:
    options = parse_options(csit)
    ports = trex_ports(csit, options)
    assert render_config(ports, options) == render_config(ports, options)
