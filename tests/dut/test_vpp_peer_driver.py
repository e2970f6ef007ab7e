"""The vpp driver with a memif family: the second VPP's CPUs, startup.conf and memif queues.

Against the recording NodeAccess of ``test_vpp_driver`` (no VPP: its build
cannot run here): a lab DUT of csit-2n-example.yaml whose CPUs are a fake
``lscpu`` list. The driver plans the second VPP at ``configure`` (a node
without the CPUs skips there, before any command), writes CSIT's container
startup.conf on CPUs of its own and gives the memifs of both VPPs one
queue per DUT worker.
"""

from __future__ import annotations

import dataclasses
import json

import pytest
from test_vpp_driver import VERSION, Clock, RecordingAccess, make, vppctl

from example_topologies import filled
from ndrpdr.dut.cores import UnsupportedCoresError
from ndrpdr.dut.plan import plan_dut
from ndrpdr.dut.smt import NodeCpus, parse_lscpu
from ndrpdr.dut.vpp import peer as vpp_peer
from ndrpdr.families import get_family
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology

FAMILY = "ethip4-ip4base-eth-2memif-1dcr"
TOKEN = "feed0001"
RUN_DIR = f"/tmp/ndrpdr-vpp-peer-{TOKEN}"
SHOW_MEMIF = "sockets\n  id  listener    filename\n  1   yes (2)     /run/vpp/ndrpdr-memif.sock\n"


@pytest.fixture(scope="module")
def csit() -> Topology:
    return load_topology(filled("csit-2n-example.yaml"))


def lscpu(cores: int) -> NodeCpus:
    """One NUMA node of ``cores`` physical cores with 2 threads each (siblings N apart)."""
    rows = [f"{c + t * cores},{c},0,0" for t in range(2) for c in range(cores)]
    return NodeCpus(parse_lscpu("\n".join(rows), "fake lscpu"), 0)


def test_the_second_vpp_runs_on_cpus_of_its_own_with_the_duts_queues(
    csit: Topology, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(vpp_peer.secrets, "token_hex", lambda _: TOKEN)
    access, clock = RecordingAccess(), Clock()
    access.script(vppctl("show version"), (0, VERSION, ""))
    access.script(vppctl("show memif"), (0, SHOW_MEMIF, ""))
    access.script(
        vppctl("show plugins"), (0, " 1. memif_plugin.so  v26.06  Packet Memory Interface\n", "")
    )
    peer_cli = ("vppctl", "-s", f"{RUN_DIR}/cli.sock")
    access.script((*peer_cli, "show", "version"), (0, VERSION, ""))
    driver = make(csit, access, clock)
    config = dataclasses.replace(
        plan_dut(csit, "ip4base", cores=2), family=get_family(FAMILY).setup, cpus=lscpu(12)
    )
    driver.configure(config)
    driver.start()
    driver.health_check()
    dut_text = driver.startup_conf_text
    assert "main-core 1" in dut_text and "corelist-workers 2-3,14-15" in dut_text
    peer_text = access.files[f"{RUN_DIR}/startup.conf"].decode()
    assert "main-core 4" in peer_text and "corelist-workers 5-6,17-18" in peer_text
    assert "poll-sleep-usec" not in peer_text
    # 4 DUT workers: 4 queues each way on the DUT's memifs and on the second VPP's
    created = [" ".join(c) for c in access.calls if "memif" in c and "create" in c]
    interfaces = [line for line in created if "interface" in line]
    assert len(interfaces) == 4, created
    assert all(" rx-queues 4 tx-queues 4 " in line for line in interfaces)
    assert sum(line.startswith(" ".join(peer_cli)) for line in interfaces) == 2
    started = [c for c in access.calls if c[:4] == ("<start>", "unshare", "--net", "--")]
    assert len(started) == 1 and started[0][-2:] == ("-c", f"{RUN_DIR}/startup.conf")
    telemetry = driver.telemetry()
    assert telemetry["peer_cpu_layout"].startswith("second VPP 4T2C: main cpu 4")
    plan = json.loads(telemetry["cpu_peer_threads"])
    assert [w["cpu"] for w in plan["workers"]] == [5, 6, 17, 18]


def test_a_node_too_small_for_both_vpps_skips_before_any_command(csit: Topology) -> None:
    access, clock = RecordingAccess(), Clock()
    driver = make(csit, access, clock)
    config = dataclasses.replace(
        plan_dut(csit, "ip4base", cores=1), family=get_family(FAMILY).setup, cpus=lscpu(4)
    )
    with pytest.raises(UnsupportedCoresError) as caught:
        driver.configure(config)
    assert "the second VPP of a memif family" in str(caught.value)
    assert "2 physical core(s) of its own" in str(caught.value)
    assert [c for c in access.calls if c[0] != "<get_file>"] == []
