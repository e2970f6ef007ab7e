"""Placeholders in a topology file: every one named in one message, before the schema's checks.

``<...>`` values (the examples of topologies/), unrendered ``{{ name }}``
(CSIT's cloud templates) and the all-zero MAC and PCI addresses of CSIT's
example files; CSIT's real lab files have none.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.placeholders import Placeholder, PlaceholderError, is_placeholder

CSIT = Path(__file__).parent / "csit"

SMALL = """\
nodes:
  TG:
    type: TG
    driver: trex
    access: {kind: ssh, host: "<TG host, e.g. 192.0.2.1>", key_file: /root/.ssh/id}
    options:
      install_dir: /opt/trex/v3.06
      client_path: /opt/trex/v3.06/automation/trex_control_plane/interactive
      extra_args: [--hdrh, "<more, e.g. --no-scapy-server>"]
    interfaces:
      port1: {pci_address: "0000:17:00.0", mac_address: "b4:96:91:00:00:40", link: link1}
      port2: {pci_address: "0000:17:00.1", mac_address: "b4:96:91:00:00:41", link: link2}
  DUT1:
    type: DUT
    driver: vpp
    access: {kind: ssh, host: 192.0.2.2, key_file: /root/.ssh/id}
    interfaces:
      port1: {pci_address: "{{ dut1_if1_pci }}", mac_address: "b4:96:91:00:00:50", link: link1}
      port2: {pci_address: "0000:17:00.1", mac_address: "00:00:00:00:00:00", link: link2}
"""


def _error(path: Path) -> PlaceholderError:
    with pytest.raises(PlaceholderError) as raised:
        load_topology(path)
    return raised.value


def test_every_placeholder_in_one_message_in_file_order(tmp_path: Path) -> None:
    path = tmp_path / "lab.yaml"
    path.write_text(SMALL)
    error = _error(path)
    assert str(error) == (
        f"{path}: 4 placeholders to replace with the testbed's own values:\n"
        f"  {path}:5: nodes.TG.access.host: '<TG host, e.g. 192.0.2.1>'\n"
        f"  {path}:9: nodes.TG.options.extra_args[1]: '<more, e.g. --no-scapy-server>'\n"
        f"  {path}:18: nodes.DUT1.interfaces.port1.pci_address: '{{{{ dut1_if1_pci }}}}'\n"
        f"  {path}:19: nodes.DUT1.interfaces.port2.mac_address: '00:00:00:00:00:00'"
    )
    assert error.path == str(path) and error.line is None
    assert [p.where[-1] for p in error.placeholders] == ["host", 1, "pci_address", "mac_address"]


def test_one_placeholder_is_one(tmp_path: Path) -> None:
    path = tmp_path / "lab.yaml"
    path.write_text(
        SMALL.replace('"<TG host, e.g. 192.0.2.1>"', "192.0.2.1")
        .replace('"<more, e.g. --no-scapy-server>"', "--no-scapy-server")
        .replace('"{{ dut1_if1_pci }}"', '"0000:17:00.0"')
    )
    error = _error(path)
    assert str(error) == (
        f"{path}: 1 placeholder to replace with the testbed's own value:\n"
        f"  {path}:19: nodes.DUT1.interfaces.port2.mac_address: '00:00:00:00:00:00'"
    )
    assert error.placeholders == (
        Placeholder(
            ("nodes", "DUT1", "interfaces", "port2", "mac_address"), 19, "00:00:00:00:00:00"
        ),
    )


def test_filled_in_it_loads(tmp_path: Path) -> None:
    path = tmp_path / "lab.yaml"
    path.write_text(
        SMALL.replace('"<TG host, e.g. 192.0.2.1>"', "192.0.2.1")
        .replace('"<more, e.g. --no-scapy-server>"', "--no-scapy-server")
        .replace('"{{ dut1_if1_pci }}"', '"0000:17:00.0"')
        .replace('"00:00:00:00:00:00"', '"b4:96:91:00:00:51"')
    )
    topology = load_topology(path)
    assert topology.nodes["TG"].options["extra_args"] == ["--hdrh", "--no-scapy-server"]


def test_placeholders_come_before_the_schema(tmp_path: Path) -> None:
    """A placeholder MAC breaks the schema's pattern; the message still calls it a placeholder."""
    path = tmp_path / "lab.yaml"
    path.write_text(SMALL.replace('"b4:96:91:00:00:40"', '"<TG port1 MAC address>"'))
    assert "nodes.TG.interfaces.port1.mac_address: '<TG port1 MAC address>'" in str(_error(path))


@pytest.mark.parametrize(
    ("field", "value", "expected"),
    [
        ("host", "<DUT1 host, e.g. 10.0.0.2>", True),
        ("host", "  <DUT1 host>  ", True),
        ("username", "<user>", True),
        ("model", "{{ nic_model }}", True),
        ("host", "dut-{{ index }}.lab", True),
        ("mac_address", "00:00:00:00:00:00", True),
        ("pci_address", "0000:00:00.0", True),
        ("mac_address", "02:00:00:00:00:00", False),
        ("pci_address", "0000:00:01.0", False),
        ("description", "00:00:00:00:00:00", False),  # zero addresses only where addresses go
        ("description", "a <b> c", False),  # a '<' inside a text is no placeholder
        ("extra_args", "<", False),
        (3, "0000:00:00.0", False),  # a list item has no field name
    ],
)
def test_what_is_a_placeholder(field: str | int, value: str, expected: bool) -> None:
    assert is_placeholder(field, value) is expected


@pytest.mark.parametrize(
    "path", sorted(CSIT.glob("lf_*.yaml")), ids=lambda p: p.name
)  # fmt: skip
def test_csit_lab_files_have_none(path: Path) -> None:
    assert load_topology(path).tg.key == "TG"


def test_csit_example_names_each_zero_mac() -> None:
    path = CSIT / "3n_hw_testbed1.yaml.example"
    error = _error(path)
    lines = str(error).splitlines()
    assert lines[0] == f"{path}: 12 placeholders to replace with the testbed's own values:"
    assert lines[1] == (f"  {path}:20: nodes.TG.interfaces.port1.mac_address: '00:00:00:00:00:00'")
    assert {p.where[1] for p in error.placeholders} == {"TG", "DUT1", "DUT2"}
    assert {p.where[-1] for p in error.placeholders} == {"mac_address"}


def test_a_zero_pci_address(tmp_path: Path) -> None:
    text = (CSIT / "3n_hw_testbed1.yaml.example").read_text()
    text = text.replace('mac_address: "00:00:00:00:00:00"', 'mac_address: "02:00:00:00:00:00"')
    text = text.replace('pci_address: "0000:00:01.0"', 'pci_address: "0000:00:00.0"', 1)
    path = tmp_path / "pci.yaml"
    path.write_text(text)
    assert str(_error(path)).endswith(
        f"\n  {path}:21: nodes.TG.interfaces.port1.pci_address: '0000:00:00.0'"
    )


def test_an_unrendered_csit_template(tmp_path: Path) -> None:
    path = tmp_path / "2n_c5n.yaml"
    path.write_text((CSIT / "2n_c5n.template").read_text())
    error = _error(path)
    assert [p.value for p in error.placeholders][:2] == ["{{ tg_public_ip }}", "{{ tg_if1_mac }}"]
    assert all(p.value.startswith("{{ ") for p in error.placeholders)
