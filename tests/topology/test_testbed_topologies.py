"""The shipped topologies load, and the CSIT example gives the expected objects."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema  # type: ignore[import-untyped, unused-ignore]
import pytest

from example_topologies import RUNNABLE, filled
from ndrpdr.topology.loader import load_topology, validate_file
from ndrpdr.topology.model import LocalAccess, NetnsAccess, SshAccess
from ndrpdr.topology.path import compute_path
from ndrpdr.topology.schema import topology_schema
from ndrpdr.trafficgen.sim import MODEL_NAMES

REPO = Path(__file__).resolve().parents[2]
TOPOLOGIES = REPO / "topologies"
SHIPPED = [*RUNNABLE, filled("csit-2n-example.yaml")]
LOCAL = sorted(p for p in TOPOLOGIES.glob("local-*.yaml") if not p.name.endswith("-3n.yaml"))
THREE_NODE = sorted({*TOPOLOGIES.glob("*-3n.yaml"), *TOPOLOGIES.glob("*-3n-*.yaml")})
LOCAL_PORTS = {
    ("TG", "port1"): ("tg-if1", "02:00:00:00:01:01", "link1"),
    ("TG", "port2"): ("tg-if2", "02:00:00:00:02:01", "link2"),
    ("DUT1", "port1"): ("dut-if1", "02:00:00:00:01:02", "link1"),
    ("DUT1", "port2"): ("dut-if2", "02:00:00:00:02:02", "link2"),
}


def test_all_expected_topologies_exist() -> None:
    names = {p.name for p in SHIPPED}
    assert {
        "sim.yaml",
        "local-linux.yaml",
        "local-testpmd.yaml",
        "local-testpmd-afxdp.yaml",
        "local-ovs.yaml",
        "local-l3fwd.yaml",
        "csit-2n-example.yaml",
    } <= names


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_shipped_topology_loads(path: Path) -> None:
    topology = load_topology(path)
    validate_file(str(path))
    assert topology.source == path
    assert topology.tg.key == "TG"
    path_ = compute_path(topology)
    assert path_.tg_ports == ("port1", "port2")
    if path in THREE_NODE:
        assert [d.key for d in topology.duts] == ["DUT1", "DUT2"]
        assert set(topology.links) == {"link1", "link12", "link2"}
        assert [link.name for link in path_.links] == ["link1", "link12", "link2"]
    else:
        assert [d.key for d in topology.duts] == ["DUT1"]
        assert set(topology.links) == {"link1", "link2"}
        assert [link.name for link in path_.links] == ["link1", "link2"]


@pytest.mark.parametrize("path", THREE_NODE, ids=[p.name for p in THREE_NODE])
def test_three_node_topologies_chain_two_duts(path: Path) -> None:
    topology = load_topology(path)
    path_ = compute_path(topology)
    assert path_.duts == ("DUT1", "DUT2") and path_.node_count == 3
    assert path_.dut_ports("DUT1") == ("port1", "port2")
    assert path_.dut_ports("DUT2") == ("port1", "port2")
    macs = {i.mac_address for n in topology.nodes.values() for i in n.interfaces.values()}
    assert None not in macs  # every next hop's MAC is known (DUT - DUT links too)


@pytest.mark.parametrize("path", SHIPPED, ids=[p.name for p in SHIPPED])
def test_shipped_topology_names_the_schema(path: Path) -> None:
    first = path.read_text(encoding="utf-8").splitlines()[0]
    assert first == "# yaml-language-server: $schema=topology.schema.json"


def test_schema_is_reachable_from_topologies() -> None:
    link = TOPOLOGIES / "topology.schema.json"
    assert link.is_symlink()
    assert json.loads(link.read_text(encoding="utf-8")) == topology_schema()


def test_schema_is_valid_draft_2020_12() -> None:
    jsonschema.Draft202012Validator.check_schema(topology_schema())


def test_schema_sim_models_match_the_simulator() -> None:
    options = topology_schema()["$defs"]["options_dut_sim"]["properties"]
    assert tuple(options["model"]["enum"]) == MODEL_NAMES


def test_sim_topology() -> None:
    topology = load_topology(TOPOLOGIES / "sim.yaml")
    tg, dut = topology.tg, topology.duts[0]
    assert (tg.driver, dut.driver) == ("sim", "sim")
    assert tg.access == LocalAccess() and dut.access == LocalAccess()
    assert tg.options == {"overhead_s": 0.5, "max_rate_pps": 29761904}
    assert dut.options == {"model": "sharp", "seed": 1}
    assert all(i.speed_bps == 10e9 for n in topology.nodes.values() for i in n.interfaces.values())
    assert topology.peer("TG", "port1") is not None
    assert topology.peer("TG", "port1") == topology.links["link1"].ends[1]
    assert topology.peer("DUT1", "port2") == topology.links["link2"].other_end("DUT1", "port2")


@pytest.mark.parametrize("path", LOCAL, ids=[p.name for p in LOCAL])
def test_local_topology(path: Path) -> None:
    topology = load_topology(path)
    tg, dut = topology.tg, topology.duts[0]
    assert tg.access == NetnsAccess("tg") and dut.access == NetnsAccess("dut")
    if path.name.endswith("-trex.yaml"):  # TRex in the TG namespace, on the TG's CPU
        assert tg.driver == "trex"
        assert tg.options["software_mode"] is True and tg.options["low_end_core"] == 0
        assert "config_path" not in tg.options  # made per run (trex/perrun.py)
        assert tg.options["max_rate_pps"] == 800000
    else:
        assert tg.driver == "local"
        assert tg.options == {"max_rate_pps": 800000}  # the CPU: placed per run
        assert "cpu" not in dut.options
    if path.name.endswith("-trex.yaml"):  # TRex's CPU is not placed: the DUT stays off it
        assert dut.options["cpu"] == 1
    for (node, port), (name, mac, link) in LOCAL_PORTS.items():
        iface = topology.nodes[node].interface(port)
        assert (iface.name, iface.mac_address, iface.link) == (name, mac, link)


@pytest.mark.parametrize(
    ("name", "driver", "options"),
    [
        ("local-linux.yaml", "linux", {}),
        ("local-testpmd.yaml", "testpmd", {"pmd": "af_packet", "forward_mode": "io"}),
        ("local-testpmd-afxdp.yaml", "testpmd", {"pmd": "af_xdp", "forward_mode": "io"}),
        ("local-ovs.yaml", "ovs", {}),
        ("local-l3fwd.yaml", "l3fwd", {"pmd": "af_packet"}),
    ],
)
def test_local_dut_driver(name: str, driver: str, options: dict[str, object]) -> None:
    dut = load_topology(TOPOLOGIES / name).duts[0]
    assert (dut.driver, dict(dut.options)) == (driver, options)


def test_csit_example_objects() -> None:
    topology = load_topology(filled("csit-2n-example.yaml"))
    tg, dut = topology.tg, topology.nodes["DUT1"]
    assert topology.metadata["version"] == 0.1
    assert tg.driver == "trex" and dut.driver == "vpp"
    assert tg.access == SshAccess(
        host="10.0.0.1", port=22, username="testuser", password="example-password"
    )
    assert isinstance(dut.access, SshAccess) and dut.access.host == "10.0.0.2"
    assert tg.extra == {"subtype": "TREX", "model": "Intel-Icelake", "arch": "x86_64"}
    assert dut.extra["uio_driver"] == "vfio-pci"
    assert dut.extra["cryptodev"]["device1"]["numvfs"] == 4
    assert tg.options == {} and dut.options == {}
    port1 = dut.interface("port1")
    assert port1.mac_address == "b4:96:91:00:00:50"
    assert port1.pci_address == "0000:17:00.0"
    assert (port1.driver, port1.model, port1.link) == ("ice", "Intel-E810CQ", "link1")
    assert port1.ip4_address == "192.168.10.2"
    assert port1.speed_bps is None and port1.name is None
    port3 = dut.interface("port3")
    assert (port3.link, port3.vlan) == (None, 100)
    assert topology.peer("DUT1", "port3") is None
    assert topology.peer("TG", "port2") == topology.links["link2"].ends[1]
    assert topology.links["link2"].ends[1].node == "DUT1"


def test_password_is_not_in_repr() -> None:
    topology = load_topology(filled("csit-2n-example.yaml"))
    assert "example-password" not in repr(topology)


def test_the_simulators_topologies_are_found_from_any_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An installed ndrpdr run outside a checkout: the defaults' paths load the package's copy,
    the same file the checkout's topologies/ links to; any other missing path is an error
    naming the path as given."""
    monkeypatch.chdir(tmp_path)
    for name in ("sim.yaml", "sim-3n.yaml"):
        assert (TOPOLOGIES / name).resolve().parent.name == "builtin"
        found, shipped = load_topology(f"topologies/{name}"), load_topology(TOPOLOGIES / name)
        assert found.nodes == shipped.nodes and found.links == shipped.links
        assert found.source == Path(f"topologies/{name}")  # messages name the path as given
    with pytest.raises(Exception, match=r"topologies/local-linux\.yaml"):
        load_topology("topologies/local-linux.yaml")
