"""Loader behaviour on small in-memory topologies: defaults, access forms, typed objects."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest

from ndrpdr.topology.errors import TopologyError
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Link, LinkEnd, LocalAccess, SshAccess, Topology
from ndrpdr.topology.path import compute_path
from ndrpdr.units import parse_bitrate

TG_SIM = """\
  TG:
    type: TG
    driver: sim
    interfaces:
      port1: {link: link1}
      port2: {link: link2}
"""

# A lab TG for the DUT access tests: a sim TG runs with sim DUTs only.
TG_LAB = """\
  TG:
    type: TG
    driver: trex
    access: {kind: ssh, host: tg.lab}
    interfaces:
      port1: {link: link1}
      port2: {link: link2}
"""


def _load(tmp_path: Path, text: str) -> Topology:
    path = tmp_path / "t.yaml"
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return load_topology(path)


def _dut(body: str, key: str = "DUT1") -> str:
    return f"  {key}:\n" + textwrap.indent(textwrap.dedent(body), "    ")


def test_sim_without_access_is_local(tmp_path: Path) -> None:
    topology = _load(
        tmp_path,
        "nodes:\n"
        + TG_SIM
        + _dut(
            "type: DUT\ndriver: sim\ninterfaces: {port1: {link: link1}, port2: {link: link2}}\n"
        ),
    )
    assert topology.tg.access == LocalAccess()
    assert topology.duts[0].access == LocalAccess()
    assert topology.metadata == {}


def test_csit_flat_fields_make_ssh_access(tmp_path: Path) -> None:
    dut = _dut(
        """\
        type: DUT
        host: dut.lab
        port: 6001
        username: tester
        priv_key: |
          -----BEGIN OPENSSH PRIVATE KEY-----
          AAAA
          -----END OPENSSH PRIVATE KEY-----
        interfaces: {port1: {link: link1}, port2: {link: link2}}
        """
    )
    topology = _load(tmp_path, "nodes:\n" + TG_LAB + dut)
    access = topology.nodes["DUT1"].access
    assert isinstance(access, SshAccess)
    assert (access.host, access.port, access.username) == ("dut.lab", 6001, "tester")
    assert access.priv_key is not None and access.priv_key.startswith("-----BEGIN")
    assert access.password is None
    assert access.use_agent and access.check_host_key
    assert topology.nodes["DUT1"].driver == "vpp"
    assert "AAAA" not in repr(access)


def test_csit_host_only_uses_defaults(tmp_path: Path) -> None:
    dut = _dut(
        "type: DUT\nhost: 10.0.0.2\ninterfaces: {port1: {link: link1}, port2: {link: link2}}\n"
    )
    access = _load(tmp_path, "nodes:\n" + TG_LAB + dut).nodes["DUT1"].access
    assert access == SshAccess(host="10.0.0.2")
    assert (access.port, access.username) == (22, "root")


def test_ssh_access_mapping(tmp_path: Path) -> None:
    dut = _dut(
        """\
        type: DUT
        driver: vpp
        access:
          kind: ssh
          host: 192.0.2.10
          port: 2222
          username: lab
          key_file: ~/.ssh/id_lab
          use_agent: false
          password_env: LAB_PASSWORD
          known_hosts: /etc/ssh/lab_known_hosts
          check_host_key: false
          sudo: true
          connect_timeout_s: 5
          keepalive_s: 0
        options: {plugins: [ping, acl]}
        interfaces: {port1: {link: link1}, port2: {link: link2}}
        """
    )
    node = _load(tmp_path, "nodes:\n" + TG_LAB + dut).nodes["DUT1"]
    assert node.access == SshAccess(
        host="192.0.2.10",
        port=2222,
        username="lab",
        key_file="~/.ssh/id_lab",
        use_agent=False,
        password_env="LAB_PASSWORD",
        known_hosts="/etc/ssh/lab_known_hosts",
        check_host_key=False,
        sudo=True,
        connect_timeout_s=5.0,
        keepalive_s=0.0,
    )
    assert isinstance(node.access, SshAccess)
    assert isinstance(node.access.connect_timeout_s, float)
    assert node.options == {"plugins": ["ping", "acl"]}  # as written; the driver reads it


def test_ssh_without_credentials_is_fine(tmp_path: Path) -> None:
    dut = _dut(
        "type: DUT\naccess: {kind: ssh, host: h}\n"
        "interfaces: {port1: {link: link1}, port2: {link: link2}}\n"
    )
    access = _load(tmp_path, "nodes:\n" + TG_LAB + dut).nodes["DUT1"].access
    assert access == SshAccess(host="h")


def test_local_access_sudo(tmp_path: Path) -> None:
    dut = _dut(
        "type: DUT\ndriver: vpp\naccess: {kind: local, sudo: true}\n"
        "interfaces: {port1: {link: link1}, port2: {link: link2}}\n"
    )
    assert _load(tmp_path, "nodes:\n" + TG_LAB + dut).nodes["DUT1"].access == LocalAccess(sudo=True)


def test_trex_from_csit_subtype_and_extra_kept(tmp_path: Path) -> None:
    text = """\
    nodes:
      TG:
        type: TG
        subtype: TREX
        host: tg
        arch: aarch64
        interfaces: {port1: {link: link1}}
      DUT1:
        type: DUT
        host: dut
        uio_driver: vfio-pci
        interfaces: {port1: {link: link1}}
    """
    topology = _load(tmp_path, text)
    assert topology.tg.driver == "trex"
    assert topology.tg.extra == {"subtype": "TREX", "arch": "aarch64"}
    assert topology.nodes["DUT1"].extra == {"uio_driver": "vfio-pci"}


def test_links_peer_and_natural_port_order(tmp_path: Path) -> None:
    ports = "".join(f"      port{n}: {{link: l{n}}}\n" for n in (10, 2, 1, 3))
    dut_ports = "".join(f"      port{n}: {{link: l{n}}}\n" for n in (1, 2, 3, 10))
    text = (
        "nodes:\n  TG:\n    type: TG\n    driver: sim\n    interfaces:\n"
        + ports
        + "      port99: {}\n"
        + "  DUT1:\n    type: DUT\n    driver: sim\n    interfaces:\n"
        + dut_ports
    )
    topology = _load(tmp_path, text)
    assert compute_path(topology).tg_ports == ("port1", "port2")  # natural order: port1 first
    assert list(topology.tg.interfaces) == ["port10", "port2", "port1", "port3", "port99"]
    assert topology.links["l10"] == Link(
        "l10", (LinkEnd("TG", "port10"), LinkEnd("DUT1", "port10"))
    )
    assert topology.peer("TG", "port2") == LinkEnd("DUT1", "port2")
    assert topology.peer("DUT1", "port3") == LinkEnd("TG", "port3")
    assert topology.peer("TG", "port99") is None


def test_duts_in_natural_order(tmp_path: Path) -> None:
    tg = "  TG:\n    type: TG\n    driver: sim\n    interfaces: {p1: {link: a}, p2: {link: z}}\n"
    chain = [("DUT10", "c", "z"), ("DUT2", "b", "c"), ("DUT1", "a", "b")]
    duts = "".join(
        _dut(
            f"type: DUT\ndriver: sim\ninterfaces: {{port1: {{link: {w}}}, port2: {{link: e}}}}\n", k
        ).replace("link: e", f"link: {e}")
        for k, w, e in chain
    )
    topology = _load(tmp_path, "nodes:\n" + tg + duts)
    assert [d.key for d in topology.duts] == ["DUT1", "DUT2", "DUT10"]
    assert list(topology.nodes) == ["TG", "DUT10", "DUT2", "DUT1"]


def test_interface_fields(tmp_path: Path) -> None:
    text = """\
    nodes:
      TG:
        type: TG
        driver: sim
        interfaces:
          port1:
            mac_address: "AA:BB:cc:dd:ee:ff"
            speed: 100Mbps
            link: link1
          port2: {link: link2, speed: 25G}
      DUT1:
        type: DUT
        driver: sim
        interfaces:
          port1: {link: link1, speed: 40000000000, ip4_address: 10.1.1.1/24, vlan: 7}
          port2: {link: link2, speed: "1.5 Gb/s", model: Intel-X710, driver: i40e}
    """
    topology = _load(tmp_path, text)
    tg, dut = topology.tg, topology.nodes["DUT1"]
    assert tg.interface("port1").speed_bps == 100e6
    assert tg.interface("port1").mac_address == "AA:BB:cc:dd:ee:ff"
    assert tg.interface("port2").speed_bps == 25e9
    port1 = dut.interface("port1")
    assert (port1.speed_bps, port1.ip4_address, port1.vlan) == (40e9, "10.1.1.1/24", 7)
    port2 = dut.interface("port2")
    assert (port2.speed_bps, port2.model, port2.driver) == (1.5e9, "Intel-X710", "i40e")


@pytest.mark.parametrize(
    ("text", "bps"),
    [
        ("10Gbps", 10e9),
        ("100Mbps", 100e6),
        ("25G", 25e9),
        ("1.5 Gb/s", 1.5e9),
        ("400kbit/s", 400e3),
        ("1T", 1e12),
        ("1000", 1000.0),
        (1e9, 1e9),
        (10, 10.0),
    ],
)
def test_parse_speed(text: str | float, bps: float) -> None:
    """Interface speeds are read by the one bit-rate parser, ndrpdr.units.parse_bitrate."""
    assert parse_bitrate(text) == bps


@pytest.mark.parametrize("text", ["fast", "10 Gigs", "G", "", "-1G"])
def test_parse_speed_rejects(text: str) -> None:
    with pytest.raises(ValueError, match=re.escape(f"bit rate {text!r}")):
        parse_bitrate(text)


def test_parse_speed_rejects_bool() -> None:
    with pytest.raises(ValueError, match="bit rate True"):
        parse_bitrate(True)


def test_metadata_kept(tmp_path: Path) -> None:
    text = (
        "metadata: {version: 0.1, schema: [a.yaml], owner: me}\nnodes:\n"
        + TG_SIM
        + _dut("type: DUT\ndriver: sim\ninterfaces: {port1: {link: link1}, port2: {link: link2}}\n")
    )
    assert _load(tmp_path, text).metadata == {"version": 0.1, "schema": ["a.yaml"], "owner": "me"}


def test_error_attributes(tmp_path: Path) -> None:
    path = tmp_path / "t.yaml"
    path.write_text("nodes:\n  TG:\n    type: TX\n    interfaces: {}\n", encoding="utf-8")
    with pytest.raises(TopologyError) as caught:
        load_topology(str(path))
    error = caught.value
    assert (error.path, error.line, error.field) == (str(path), 3, "nodes.TG.type")
    assert str(error) == f"{path}:3: nodes.TG.type: {error.problem}"


def test_path_shown_as_given(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "lab").mkdir()
    (tmp_path / "lab" / "t.yaml").write_text("nodes: []\n", encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(TopologyError) as caught:
        load_topology("lab/t.yaml")
    assert str(caught.value) == "lab/t.yaml:1: nodes: expected a mapping, got a list"


def test_anchors_share_interface_settings(tmp_path: Path) -> None:
    text = """\
    x-common: &nic {model: Intel-E810CQ, driver: ice, speed: 100Gbps}
    nodes:
      TG:
        type: TG
        driver: sim
        interfaces:
          port1: {<<: *nic, link: link1}
      DUT1:
        type: DUT
        driver: sim
        interfaces:
          port1: {<<: *nic, link: link1}
    """
    with pytest.raises(TopologyError, match="unknown top-level field 'x-common'"):
        _load(tmp_path, text)
    text = text.replace("x-common: &nic", "metadata:\n      nic: &nic")
    topology = _load(tmp_path, text)
    assert topology.tg.interface("port1").speed_bps == 100e9
    assert topology.nodes["DUT1"].interface("port1").model == "Intel-E810CQ"


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("name", '"tg-if1\\n"', "is not an interface name"),
        ("namespace", '"tg\\n"', "is not a namespace name"),
    ],
)
def test_names_with_trailing_newline_refused(
    tmp_path: Path, field: str, value: str, message: str
) -> None:
    name = value if field == "name" else "tg-if1"
    namespace = value if field == "namespace" else "tg"
    text = f"""\
    nodes:
      TG:
        type: TG
        driver: local
        access: {{kind: netns, namespace: {namespace}}}
        interfaces: {{port1: {{name: {name}, link: link1}}}}
      DUT1:
        type: DUT
        driver: linux
        access: {{kind: netns, namespace: dut}}
        interfaces: {{port1: {{name: dut-if1, link: link1}}}}
    """
    with pytest.raises(TopologyError, match=message):
        _load(tmp_path, text)


def test_integral_floats_become_integers(tmp_path: Path) -> None:
    dut = _dut(
        "type: DUT\naccess: {kind: ssh, host: h, port: 2222.0}\n"
        "interfaces: {port1: {link: link1, vlan: 10.0}, port2: {link: link2}}\n"
    )
    node = _load(tmp_path, "nodes:\n" + TG_LAB + dut).nodes["DUT1"]
    assert isinstance(node.access, SshAccess)
    assert type(node.access.port) is int and node.access.port == 2222
    assert type(node.interface("port1").vlan) is int
