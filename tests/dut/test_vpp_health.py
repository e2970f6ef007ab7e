"""VPP's port health (ndrpdr.dut.vpp.health) on texts the real VPP v26.06 and ip printed.

The texts were read on the lab in a box (labbox-2n-vpp.yaml) during a
search: a healthy VPP at its overload point (loss 1-4 %), the same VPP
after its host link dut1-p2 flapped (the af_packet TX ring wedged: every
trial lost direction 0->1, 50 %), a host link down, a VPP interface set
admin down. The real wedge, end to end, is in the acceptance fault tests
(test_faults_labbox.py).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence

import pytest

from ndrpdr.access.base import CommandResult, CommandTimeoutError
from ndrpdr.dut.base import DutError, DutPort
from ndrpdr.dut.hostlink import HostLink, parse_host_link
from ndrpdr.dut.nodesteps import NodeSteps
from ndrpdr.dut.vpp.health import (
    CHECK_TIMEOUT_S,
    WEDGE_MIN_FRAMES,
    Port,
    PortHealth,
    Snapshot,
    diagnose,
    parse_not_ready,
    parse_states,
)

SHOW_INTERFACE = """\
              Name               Idx    State  MTU (L3/IP4/IP6/MPLS)     Counter          Count     
host-dut1-p1                      1     {p1}         9000/0/0/0     rx packets               1114640
                                                                    rx bytes                66878400
                                                                    tx packets               1110405
host-dut1-p2                      2      up          9000/0/0/0     rx packets               1110405
                                                                    tx packets               1114640
local0                            0     down          0/0/0/0       
"""  # noqa: W291
SHOW_HARDWARE = """\
              Name                Idx   Link  Hardware
host-dut1-p1                       1     up   host-dut1-p1
  Link speed: unknown
  RX Queues:
    queue thread         mode      
    0     vpp_wk_0 (1)   interrupt 
host-dut1-p2                       2     {p2}   host-dut1-p2
  Link speed: unknown
local0                             0    down  local0
  Link speed: unknown
"""  # noqa: W291
SHOW_ERRORS = """\
   Count                  Node                              Reason               Severity 
     39571          af-packet-input                    timed out block             error  
     39571          af-packet-input                  total received block          error  
     {not_ready}          host-dut1-p2-tx                   tx frame not ready           error  
        10          host-dut1-p2-tx                tx sendto fatal failure         error  
"""  # noqa: W291
PORTS = (Port("host-dut1-p1", "dut1-p1"), Port("host-dut1-p2", "dut1-p2"))


def ip_link(name: str, tx_packets: int, flags: str = "BROADCAST,MULTICAST,UP,LOWER_UP") -> str:
    operstate = "UP" if "LOWER_UP" in flags else "DOWN"
    entry = {
        "ifname": name,
        "flags": flags.split(","),
        "operstate": operstate,
        "stats64": {"rx": {"packets": 5}, "tx": {"packets": tx_packets, "dropped": 0}},
    }
    return json.dumps([entry]) + "\n"


def snapshot(
    tx: tuple[int, int], not_ready: int, *, p1: str = "up", p2: str = "up", flags2: str = ""
) -> Snapshot:
    return Snapshot(
        {
            "dut1-p1": parse_host_link(ip_link("dut1-p1", tx[0])),
            "dut1-p2": parse_host_link(ip_link("dut1-p2", tx[1], *([flags2] if flags2 else []))),
        },
        parse_states(SHOW_INTERFACE.format(p1=p1)),
        parse_states(SHOW_HARDWARE.format(p2=p2)),
        parse_not_ready(SHOW_ERRORS.format(not_ready=not_ready)),
    )


def test_the_texts_are_read() -> None:
    now = snapshot((7, 1312752), 115018, p1="down", p2="down")
    assert now.admin == {"host-dut1-p1": "down", "host-dut1-p2": "up", "local0": "down"}
    assert now.link == {"host-dut1-p1": "up", "host-dut1-p2": "down", "local0": "down"}
    assert now.not_ready == {"host-dut1-p2-tx": 115018}  # not the sendto failures
    assert now.hosts["dut1-p2"] == HostLink(
        ("BROADCAST", "MULTICAST", "UP", "LOWER_UP"), "UP", 1312752
    )
    assert parse_host_link('Device "dut1-p9" does not exist.\n') is None  # ip's stderr
    for text in ("", 'Option "-j" is unknown, try "ip -help".\n', "[]"):  # not judged
        with pytest.raises(ValueError):
            parse_host_link(text)


def test_a_wedged_ring_is_named_with_its_counter_and_what_to_do() -> None:
    """After the flap: `tx frame not ready` grew 8077 while dut1-p2 sent nothing."""
    before, now = snapshot((1_000, 1312752), 245794), snapshot((6_000, 1312752), 253871)
    found = diagnose("DUT1", PORTS, before, now)
    assert found is not None
    assert found.startswith("VPP's af_packet TX ring of host-dut1-p2 (host link dut1-p2) is wedged")
    assert "`tx frame not ready` (host-dut1-p2-tx in show errors) grew by 8077" in found
    assert "dut1-p2 sent 0 frames" in found
    assert "re-create the host interface" in found and "restart VPP" in found


@pytest.mark.parametrize(
    ("sent", "grew", "why"),
    [
        (60_000, 150_000, "overload: the kernel sends a large share of what VPP offers"),
        (2_000, 150_000, "a ring that still sends 1.3 % of it is slow, not wedged"),
        (0, WEDGE_MIN_FRAMES - 1, "too few frames to judge"),
        (-5, 50_000, "the counters were reset (a new VPP): no judgement"),
    ],
)
def test_a_ring_that_sends_or_too_few_frames_is_not_named(sent: int, grew: int, why: str) -> None:
    before = snapshot((1_000, 500_000), 1_000)
    now = snapshot((2_000, 500_000 + sent), 1_000 + grew)
    assert diagnose("DUT1", PORTS, before, now) is None, why


def test_the_first_check_only_reads() -> None:
    assert diagnose("DUT1", PORTS, None, snapshot((0, 0), 1_000_000)) is None


def test_a_host_link_down_or_without_carrier_is_named() -> None:
    down = diagnose("DUT1", PORTS, None, snapshot((1, 1), 0, flags2="BROADCAST,MULTICAST"))
    assert down is not None
    assert down.startswith("host link dut1-p2 under VPP's host-dut1-p2 is down (operstate DOWN")
    assert "VPP itself says link up" in down and "ip link set dut1-p2 up" in down
    peer = diagnose(
        "DUT1", PORTS, None, snapshot((1, 1), 0, flags2="BROADCAST,MULTICAST,UP,NO-CARRIER")
    )
    assert peer is not None
    assert "host link dut1-p2 under VPP's host-dut1-p2 has no carrier" in peer
    assert "the other end of its link is down" in peer


def test_vpp_interfaces_down_are_named() -> None:
    admin = diagnose("DUT1", PORTS, None, snapshot((1, 1), 0, p1="down"))
    assert admin is not None
    assert admin.startswith("VPP interface host-dut1-p1 (on host link dut1-p1) is admin down")
    assert "set interface state host-dut1-p1 up" in admin
    link = diagnose("DUT1", PORTS, None, snapshot((1, 1), 0, p2="down"))
    assert link is not None
    assert link.startswith("VPP interface host-dut1-p2 (on host link dut1-p2) has its link down")


class OneCommand:
    """A node access answering the health check's one shell command with its scripted sections."""

    def __init__(self, outputs: Sequence[str]) -> None:
        self.outputs = list(outputs)
        self.argvs: list[tuple[str, ...]] = []

    def run(self, argv: Sequence[str], **_: object) -> CommandResult:
        self.argvs.append(tuple(argv))
        return CommandResult("DUT1", tuple(argv), 0, self.outputs.pop(0), "", 0.01)


def sections(tx2: int, not_ready: int) -> str:
    marker = "\n=== ndrpdr section ===\n"
    parts = [
        ip_link("dut1-p1", 5),
        ip_link("dut1-p2", tx2),
        SHOW_INTERFACE.format(p1="up"),
        SHOW_HARDWARE.format(p2="up"),
        SHOW_ERRORS.format(not_ready=not_ready),
    ]
    return "".join(marker + part for part in parts)


def test_port_health_reads_in_one_command_and_fails_naming_the_node() -> None:
    access = OneCommand([sections(10, 0), sections(10, 5_000), ""])
    ports = [
        DutPort(key, name, None, None, "02:00:00:00:00:01", "10.0.0.1/24", "10.0.0.2", "1.0.0.0/8")
        for key, name in (("port1", "dut1-p1"), ("port2", "dut1-p2"))
    ]
    health = PortHealth(
        NodeSteps("DUT1", "vpp", access),  # type: ignore[arg-type]
        lambda command: ["vppctl", "-s", "/tmp/cli.sock", *command.split()],
        ["host-dut1-p1", "host-dut1-p2"],
        ports,
        on_linux=True,
    )
    health.check()  # the first reads
    with pytest.raises(DutError) as raised:
        health.check()
    message = str(raised.value)
    assert message.startswith("DUT1 (vpp): health check: VPP's af_packet TX ring of host-dut1-p2")
    (argv,) = set(access.argvs)
    assert argv[:2] == ("sh", "-c")
    assert "ip -j -s link show dev dut1-p2" in argv[2]
    assert "vppctl -s /tmp/cli.sock show errors" in argv[2]
    health.check()  # an output it cannot read: no judgement, no error


class Hung:
    """A node access whose command runs into its timeout (a VPP hung, not stopped)."""

    def run(self, argv: Sequence[str], *, timeout_s: float = 30.0, **_: object) -> CommandResult:
        result = CommandResult("DUT1", tuple(argv), -9, "", "", timeout_s)
        raise CommandTimeoutError(result, timeout_s)


def test_a_vpp_that_does_not_answer_is_named_in_a_line() -> None:
    port = DutPort("port1", None, None, "0000:18:00.0", "02:00:00:00:00:01", "10.0.0.1/24", "", "")
    health = PortHealth(
        NodeSteps("DUT1", "vpp", Hung()),  # type: ignore[arg-type]
        lambda command: ["vppctl", *command.split()],
        ["TenGigabitEthernet18/0/0"],
        [port],
    )
    with pytest.raises(DutError) as raised:
        health.check()
    assert str(raised.value) == (
        f"DUT1 (vpp): health check: VPP did not answer within {CHECK_TIMEOUT_S:g} s (show "
        "interface, show hardware-interfaces brief, show errors; host links none): it is alive "
        "but hung, or its node is starved"
    )


def test_a_memif_port_has_no_host_link_to_read() -> None:
    # labbox-2n-vpp-memif: VPP's ports are memif clients; reading a Linux link of their name
    # would say "gone" of a port that forwards
    ports = [
        dataclasses.replace(
            DutPort(key, name, None, None, "02:00:00:00:00:01", "10.0.0.1/24", "", ""),
            memif_socket=f"/run/ndrpdr/{name}.sock",
        )
        for key, name in (("port1", "dut1-p1"), ("port2", "dut1-p2"))
    ]
    health = PortHealth(
        NodeSteps("DUT1", "vpp", Hung()),  # type: ignore[arg-type]
        lambda command: ["vppctl", *command.split()],
        ["host-dut1-p1", "host-dut1-p2"],
        ports,
        on_linux=True,
    )
    with pytest.raises(DutError) as raised:
        health.check()
    assert "host links none" in str(raised.value)
