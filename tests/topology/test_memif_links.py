"""memif links: what the loader accepts, where a lab in a box puts their sockets, no veths.

Pure: the topology file is labbox-2n-vpp-memif.yaml, edited per case.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from ndrpdr.labbox.memif import memif_socket_path, with_memif_sockets
from ndrpdr.localbed.plan import make_plan
from ndrpdr.topology.errors import TopologyError
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology

ROOT = Path(__file__).resolve().parents[2]
TEXT = (ROOT / "topologies" / "labbox-2n-vpp-memif.yaml").read_text()
DUT_PORT2 = 'port2: {name: dut1-p2, model: memif, mac_address: "02:00:00:00:02:02", link: link2}'


def load(tmp_path: Path, text: str) -> Topology:
    path = tmp_path / "t.yaml"
    path.write_text(text)
    return load_topology(path)


def with_dut_port2(port2: str) -> str:
    assert DUT_PORT2 in TEXT
    return TEXT.replace(DUT_PORT2, port2)


def test_a_memif_port_facing_a_veth_is_refused(tmp_path: Path) -> None:
    text = with_dut_port2(DUT_PORT2.replace("model: memif", "model: veth"))
    with pytest.raises(TopologyError, match=r"link 'link2' has a memif port at one end only"):
        load(tmp_path, text)


def test_the_ends_of_a_memif_link_share_one_socket(tmp_path: Path) -> None:
    text = with_dut_port2(DUT_PORT2.replace("link: link2", "link: link2, memif_socket: /run/a"))
    topology = load(tmp_path, text)  # one end names it: the other takes it (below)
    assert topology.nodes["DUT1"].interfaces["port2"].memif_socket == "/run/a"
    text = text.replace(
        'mac_address: "02:00:00:00:02:01", link: link2',
        'mac_address: "02:00:00:00:02:01", link: link2, memif_socket: /run/b',
    )
    with pytest.raises(TopologyError, match=r"different memif sockets \(/run/a, /run/b\)"):
        load(tmp_path, text)


def test_a_lab_in_a_box_gives_each_link_a_socket_in_its_run_directory(tmp_path: Path) -> None:
    given = "/run/given.sock"
    text = with_dut_port2(DUT_PORT2.replace("link: link2", f"link: link2, memif_socket: {given}"))
    run_dir = Path("/run/ndrpdr/labbox-1-2")
    topology = with_memif_sockets(load(tmp_path, text), run_dir)
    sockets = {
        (node.key, iface.link): iface.memif_socket
        for node in topology.nodes.values()
        for iface in node.interfaces.values()
    }
    assert sockets[("TG", "link1")] == sockets[("DUT1", "link1")] == f"{run_dir}/memif-link1.sock"
    assert sockets[("DUT1", "link2")] == sockets[("TG", "link2")] == given  # the named one
    assert memif_socket_path(run_dir, "a b/c") == f"{run_dir}/memif-a_b_c.sock"


def test_memif_links_get_no_veth(tmp_path: Path) -> None:
    topology = load(tmp_path, TEXT)
    plan = make_plan(topology, "42-beef", host_namespaces={"TG": "tg", "DUT1": "dut1"})
    assert plan.veths == ()
    assert sorted(plan.node_namespaces) == ["DUT1", "TG"]
