"""TrexSession over a stand-in TRex client and a recording node access.

Stand-ins (``trex_standin.py``), because what these tests pin down cannot
be shown by the real TRex on this machine: a server refusing the
client's API version (no such client is installed here), a server that
never answers or exits while starting, a CSIT-like TG with DPDK ports by
PCI address, and the exact order of the calls. The real server's start,
restart after a kill and clean close run in ``test_trex_real.py``.
"""

from __future__ import annotations

import dataclasses
import logging

import pytest
from trex_standin import CSIT, REFUSAL, ROOT, RecordingAccess, rig, topology_with

from ndrpdr.access.netns import NetnsTransport
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.trex.client import ClientSettings
from ndrpdr.trafficgen.trex.session import TrexSession


@pytest.fixture(scope="module")
def csit() -> Topology:
    return load_topology(CSIT)


# -- construction and open -----------------------------------------------------------


def test_constructor_checks_and_does_no_io(csit: Topology) -> None:
    with pytest.raises(TrafficGeneratorError, match=r"nodes\.TG\.options\.cores: 0 is not"):
        TrexSession(topology_with(csit, cores=0), access=RecordingAccess())
    with pytest.raises(
        TrafficGeneratorError, match=r"node access is needed .*\.options\.start_server to false"
    ):
        TrexSession(topology_with(csit), access=None)
    TrexSession(topology_with(csit, start_server=False), access=None)  # no access needed
    sim = load_topology(ROOT / "topologies" / "sim.yaml")
    with pytest.raises(TrafficGeneratorError, match=r"nodes\.TG\.driver: 'sim' is not trex"):
        TrexSession(sim, access=RecordingAccess())
    r = rig(topology_with(csit))
    assert not r.session.is_open and r.session.starts == 0 and r.settings == []
    assert r.access.started == [] and r.access.files == {}
    with pytest.raises(TrafficGeneratorError, match="TG: the TRex session is not open"):
        _ = r.session.client


def test_open_starts_connects_acquires_once_and_logs_the_start(
    csit: Topology, caplog: pytest.LogCaptureFixture
) -> None:
    r = rig(topology_with(csit), namespace="ndrpdr-1-2-tg")
    with caplog.at_level(logging.INFO, logger="ndrpdr.trafficgen.trex.session"):
        r.session.open()
        r.session.open()  # idempotent
    assert r.session.is_open and r.session.starts == 1 and len(r.access.started) == 1
    assert r.client.names() == ["connect", "acquire"]
    assert r.client.calls[1] == ("acquire", [0, 1], True)
    assert r.session.server_version == "v3.08" and r.session.server_pid == 4242
    assert r.session.cores_per_port_pair == 2
    assert r.settings == [ClientSettings("TG", "10.0.0.1", 4501, 4500, None, "ndrpdr-1-2-tg")]
    assert "TG: TRex server started (pid 4242), v3.08" in caplog.text


def test_the_client_runs_in_the_namespace_of_a_netns_access(csit: Topology) -> None:
    netns = NetnsTransport("TG", "ndrpdr-9-1-tg")
    assert TrexSession(csit, access=netns).settings.namespace == "ndrpdr-9-1-tg"
    given = TrexSession(csit, access=netns, namespace="other")
    assert given.settings.namespace == "other"
    assert TrexSession(csit, access=RecordingAccess()).settings.namespace is None


def test_cores_per_port_pair_without_the_servers_figure(csit: Topology) -> None:
    """An older server's system info lacks the figure: the options' (software mode: 1)."""
    r = rig(topology_with(csit, cores=3), cores_per_port_pair=None)
    r.session.open()
    assert r.session.cores_per_port_pair == 3
    assert r.session.core_mask([0, 1]) == "pin" and r.session.core_mask([0]) == "split"
    software = rig(topology_with(csit, cores=3, start_server=False), cores_per_port_pair=None)
    options = dataclasses.replace(software.session.options, software_mode=True)
    assert TrexSession.default_cores_per_port_pair(options) == 1
    assert software.session.cores_per_port_pair == 3


# -- server start, API readiness, refusals -------------------------------------------


def test_version_refusal_says_which_client_to_use(csit: Topology) -> None:
    r = rig(topology_with(csit), refuse=REFUSAL)
    with pytest.raises(TrafficGeneratorError) as info:
        r.tg.measure(1.0, 1e6)
    message = str(info.value)
    assert message.startswith("TG: the TRex server at 10.0.0.1:4501 refused PyPI trex_stl_lib")
    assert REFUSAL in message
    assert "/opt/trex-core/scripts/automation/trex_control_plane/interactive" in message
    assert "nodes.TG.options.client_path" in message
    assert r.client.names() == ["connect", "disconnect", "close"]  # not retried; cleaned up
    assert r.access.processes[0].stopped  # the server started for nothing is stopped
    assert not r.session.is_open


def test_api_not_answering_gives_up_after_the_retries_with_the_log(csit: Topology) -> None:
    log = "\n".join(f"log line {i}" for i in range(500)) + "\nEAL: Error - cannot init ports"
    access = RecordingAccess(log=log)
    topology = topology_with(csit, api_retries=4, api_retry_interval_s=2.5)
    r = rig(topology, access=access, connect_failures=100)
    with pytest.raises(TrafficGeneratorError) as info:
        r.session.open()
    message = str(info.value)
    assert message.startswith("TG: the TRex API did not answer after 4 tries, 2.5 s apart")
    assert "Failed to get server response" in message
    assert message.endswith("EAL: Error - cannot init ports")  # the tail of the server log
    assert "log line 0\n" not in message  # only the tail
    assert r.client.names().count("connect") == 4
    assert r.clock.sleeps == [2.5, 2.5, 2.5]
    assert access.processes[0].stopped


def test_api_answering_after_a_few_tries(csit: Topology) -> None:
    r = rig(topology_with(csit, api_retry_interval_s=0.5), connect_failures=3)
    r.tg.measure(1.0, 1e6)
    assert r.client.names().count("connect") == 4
    assert r.clock.sleeps[:3] == [0.5, 0.5, 0.5]


def test_server_exiting_while_starting_stops_the_wait(csit: Topology) -> None:
    access = RecordingAccess(log="ERROR: port 0000:17:00.0 is not bound to vfio-pci", exits_after=1)
    r = rig(topology_with(csit), access=access, connect_failures=100)
    with pytest.raises(
        TrafficGeneratorError, match=r"exited while starting \(try 2 of 20\)"
    ) as info:
        r.session.open()
    assert str(info.value).endswith(
        "ERROR: port 0000:17:00.0 is not bound to vfio-pci\n(the TRex server was started 3 times)"
    )
    assert r.session.starts == 3  # as CSIT: a server that dies while starting gets 3 starts
    assert r.client.names().count("connect") == 1  # the rig's last client: one try per start


def test_running_server_is_used_as_is(csit: Topology) -> None:
    r = rig(
        topology_with(csit, start_server=False, server="trex.lab", sync_port=5501, async_port=5500)
    )
    r.tg.measure(1.0, 1e6)
    assert r.access.files == {} and r.access.started == [] and r.session.starts == 0
    assert r.settings == [ClientSettings("TG", "trex.lab", 5501, 5500, None)]
    r.session.close()
    assert r.client.names()[-4:] == ["stop", "release", "disconnect", "close"]


def test_software_mode_server(csit: Topology) -> None:
    topology = topology_with(csit, software_mode=True, client_path="/opt/trex/interactive")
    tg = topology.tg
    named = {k: dataclasses.replace(i, name=f"tg-if{k[-1]}") for k, i in tg.interfaces.items()}
    topology = dataclasses.replace(
        topology, nodes={**topology.nodes, "TG": dataclasses.replace(tg, interfaces=named)}
    )
    r = rig(topology, cores_per_port_pair=1)
    r.tg.measure(1.0, 1e6)
    ((argv, _),) = r.access.started
    assert argv[-4:] == ["-i", "--cfg", "/etc/trex_cfg.yaml", "--software"]
    assert b'interfaces: ["tg-if1", "tg-if2"]' in r.access.files["/etc/trex_cfg.yaml"][0]
    assert r.settings[0].client_path == "/opt/trex/interactive"
    assert [c[-1] for c in r.client.calls if c[0] == "start"] == ["split"]


# -- health check and restart --------------------------------------------------------


def test_health_check_of_a_healthy_server(csit: Topology) -> None:
    r = rig(topology_with(csit))
    assert r.session.health_check() is None  # opens a closed session
    assert r.session.is_open and r.session.starts == 1
    assert r.session.health_check() is None
    assert r.client.names()[-1] == "ping" and r.session.starts == 1


def test_a_dead_server_is_restarted_once_and_said_so(csit: Topology) -> None:
    r = rig(topology_with(csit))
    r.tg.measure(1.0, 1e6)
    r.access.processes[0].die(139, "EAL: probe\nSegmentation fault (core dumped)\n")
    note = r.session.health_check()
    assert note is not None
    assert note.startswith(
        "TG: the TRex server (pid 4242) died (killed by SIGSEGV (exit status 139)); "
    )
    assert "restarted it once (pid 4243)" in note
    assert note.endswith("Segmentation fault (core dumped)")  # the dead server's log (tail)
    assert r.session.starts == 2 and len(r.access.started) == 2
    dead, fresh = r.clients
    assert dead.names()[-1] == "close" and "disconnect" not in dead.names()  # no RPC to the dead
    assert fresh.names() == ["connect", "acquire"]
    assert r.tg.measure(1.0, 1e6).forwarded_count == 1_000_000  # the TG uses the new client
    assert "start" in fresh.names()
    assert r.session.health_check() is None


def test_a_server_that_stops_answering_is_restarted(csit: Topology) -> None:
    r = rig(topology_with(csit))
    r.session.open()
    r.client.dead = True  # its process runs, its API is gone
    note = r.session.health_check()
    assert note is not None and "(pid 4242) did not answer (TG: TRex ping:" in note
    assert r.access.processes[0].stopped and r.session.starts == 2


def test_a_failed_restart_is_an_error_with_both_logs(csit: Topology) -> None:
    r = rig(topology_with(csit))
    r.session.open()
    r.access.processes[0].die(1, "first server's last words\n")
    r.access.log, r.access.exits_after = "second server: no port\n", 0
    with pytest.raises(TrafficGeneratorError) as info:
        r.session.health_check()
    message = str(info.value)
    assert message.startswith("TG: the TRex server (pid 4242) died (exit status 1), and ")
    assert "restarting it failed: TG: the TRex server exited while starting" in message
    assert "second server: no port" in message
    assert message.endswith("first server's last words")
    assert not r.session.is_open and r.session.starts == 2


def test_a_server_not_started_here_is_not_restarted(csit: Topology) -> None:
    r = rig(topology_with(csit, start_server=False))
    r.session.open()
    r.client.dead = True
    with pytest.raises(TrafficGeneratorError, match=r"start_server is false\): restart it by hand"):
        r.session.health_check()
    assert r.session.starts == 0 and len(r.settings) == 1


# -- close ---------------------------------------------------------------------------


def test_close_reports_errors_but_does_everything(csit: Topology) -> None:
    r = rig(topology_with(csit))
    r.tg.measure(1.0, 1e6)
    r.client.fail_on = "release"
    with pytest.raises(
        TrafficGeneratorError, match=r"closing TRex: TG: TRex release: release: port 1"
    ):
        r.session.close()
    assert r.client.names()[-2:] == ["disconnect", "close"]
    assert r.access.processes[0].stopped and not r.session.is_open
    count = len(r.client.calls)
    r.session.close()  # idempotent
    assert len(r.client.calls) == count


def test_close_of_a_dead_server_makes_no_rpc(csit: Topology) -> None:
    r = rig(topology_with(csit))
    r.session.open()
    r.access.processes[0].die(137, "killed\n")
    r.session.close()
    assert r.client.names() == ["connect", "acquire", "close"]
    assert r.access.processes[0].stopped
