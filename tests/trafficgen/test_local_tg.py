"""The local TG driver against a real local testbed whose DUT is an nft cross-connect.

The DUT forwards everything entering dut-if1 out of dut-if2 and back
(nft netdev ``fwd``), set up here through the DUT's transport: the real
DUT drivers are tested elsewhere. Needs root, iproute2, nftables, tcpreplay.
"""

from __future__ import annotations

import dataclasses
import math
import os
import shutil
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

import ndrpdr.trafficgen.counting as counting_module
import ndrpdr.trafficgen.local.driver as driver_module
import ndrpdr.trafficgen.local.senders as senders_module
from busy_kernel import assert_forwarded, assert_offered, tg_port_counts
from ndrpdr.families import profile_of as get_profile
from ndrpdr.localbed import LocalTestbed, read_counters
from ndrpdr.localbed.counters import NetdevCounters
from ndrpdr.profiles import read_pcap
from ndrpdr.results.oneway import is_one_way
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.base import TrafficGeneratorError, UnsupportedTrafficError
from ndrpdr.trafficgen.local import LocalTrafficGenerator
from ndrpdr.trafficgen.local.portcounts import Counters, TgPorts
from ndrpdr.trafficgen.local.senders import Sent
from ndrpdr.trafficgen.local.tcpreplay import TcpreplayReport, parse_report

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

_TOPOLOGY = Path(__file__).resolve().parents[2] / "topologies" / "local-linux.yaml"
_TOOLS = ("ip", "nft", "taskset", "tcpreplay")

_CROSS_CONNECT = """
table netdev xconnect {
  chain c1 { type filter hook ingress device "dut-if1" priority 0; fwd to "dut-if2"; }
  chain c2 { type filter hook ingress device "dut-if2" priority 0; fwd to "dut-if1"; }
}
"""

TestbedFactory = Callable[..., LocalTestbed]


def topology(**tg_options: Any) -> Topology:
    """local-linux.yaml, with extra TG options."""
    base = load_topology(_TOPOLOGY)
    tg = dataclasses.replace(base.tg, options={**base.tg.options, **tg_options})
    return dataclasses.replace(base, nodes={**base.nodes, tg.key: tg})


def tcpreplay_children() -> list[int]:
    out = subprocess.run(
        ["pgrep", "-P", str(os.getpid()), "-x", "tcpreplay"],
        capture_output=True,
        text=True,
        check=False,
    ).stdout
    return [int(p) for p in out.split()]


def run_namespaces(run_id: str) -> list[str]:
    return [n for n in os.listdir("/run/netns") if n.startswith(f"ndrpdr-{run_id}-")]


@pytest.fixture
def testbeds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestbedFactory]:
    """Set-up testbeds with a cross-connect DUT; afterwards nothing of them may be left."""
    if os.geteuid() != 0 or any(shutil.which(t) is None for t in _TOOLS):
        pytest.skip(f"the local TG needs root and {', '.join(_TOOLS)}")
    monkeypatch.setenv("NDRPDR_STATE_DIR", str(tmp_path / "state"))
    made: list[LocalTestbed] = []

    def make(topo: Topology | None = None) -> LocalTestbed:
        testbed = LocalTestbed(topo or topology())
        made.append(testbed)
        testbed.setup()
        testbed.access("DUT1").run(["nft", "-f", "-"], stdin=_CROSS_CONNECT)
        return testbed

    yield make
    senders = tcpreplay_children()
    for testbed in made:
        testbed.teardown()
    assert not senders, f"tcpreplay processes left: {senders}"
    for testbed in made:
        assert not run_namespaces(testbed.run_id)
        assert not testbed.state_file.exists()


def generator(
    testbed: LocalTestbed, family: str = "ethip4-ip4base", frame_size: int = 64, **kwargs: Any
) -> LocalTrafficGenerator:
    return LocalTrafficGenerator(
        testbed,
        testbed.topology,
        get_profile(family),
        frame_size,
        **{"settle_s": 0.2, **kwargs},
    )


@pytest.mark.parametrize(
    ("family", "frame_size", "ethertype"),
    [
        ("ethip6-ip6base", 78, 0x86DD),
        ("dot1q-l2bdbasemaclrn", 64, 0x8100),
        ("dot1q-l2bdbasemaclrn", 1518, 0x8100),  # the tag fits the veths' MTU 1500
    ],
)
def test_non_udp_frames_are_sent_and_counted(
    testbeds: TestbedFactory, family: str, frame_size: int, ethertype: int
) -> None:
    """IPv6 (no next header) and 802.1Q-tagged frames go out as built and are counted back."""
    testbed = testbeds()
    tg = generator(testbed, family, frame_size)
    try:
        with tg_port_counts(testbed.namespace("TG"), "tg-if1", "tg-if2") as ports:
            result = tg.measure(0.5, 4_000)
        workdir = tg._workdir
        assert workdir is not None
        frames = read_pcap(workdir / "dir1.pcap")
    finally:
        tg.close()
    assert_offered(result.offered_count, ports, 2_000)
    assert_forwarded(result.forwarded_count, 2_000)
    assert len(frames) == get_profile(family).directions[1].flows
    assert {int.from_bytes(f[12:14], "big") for f in frames} == {ethertype}
    assert {len(f) for f in frames} == {frame_size - 4}


def test_zero_loss_at_20kpps_bidirectional(testbeds: TestbedFactory) -> None:
    """All frames come back, but for what a busy kernel drops (busy_kernel)."""
    testbed = testbeds()
    tg = generator(testbed)
    try:
        with tg_port_counts(testbed.namespace("TG"), "tg-if1", "tg-if2") as ports:
            result = tg.measure(1.0, 20_000)
    finally:
        tg.close()
    assert result.load == 20_000
    assert result.intended_count == 20_000
    assert_offered(result.offered_count, ports, 20_000)
    assert_forwarded(result.forwarded_count, 20_000)
    # Only a CPU shared with other work can slow tcpreplay down (a rate warning, not a failure).
    assert all("achieved" in w for w in result.warnings), result.warnings
    if not result.warnings:
        assert 0.95 <= result.effective_seconds <= 1.1


def test_unidirectional_sends_direction_0_only(testbeds: TestbedFactory) -> None:
    testbed = testbeds()
    tg = generator(testbed, bidirectional=False)
    dut = testbed.namespace("DUT1")
    before = read_counters(dut)
    try:
        with tg_port_counts(testbed.namespace("TG"), "tg-if1", "tg-if2") as ports:
            result = tg.measure(0.5, 10_000)
    finally:
        tg.close()
    after = read_counters(dut)
    assert_offered(result.offered_count, ports, 5_000)
    assert ports["tg-if2"].sent == 0
    assert_forwarded(result.forwarded_count, 5_000)
    # a veth's rx_packets is its peer's tx_packets: exact, busy or not
    assert after["dut-if1"].rx_packets - before["dut-if1"].rx_packets == 5_000
    assert after["dut-if2"].rx_packets - before["dut-if2"].rx_packets == 0


def test_everything_is_lost_when_a_dut_port_is_down(testbeds: TestbedFactory) -> None:
    testbed = testbeds()
    testbed.access("DUT1").run(["ip", "link", "set", "dut-if2", "down"])
    tg = generator(testbed)
    try:
        with tg_port_counts(testbed.namespace("TG"), "tg-if1", "tg-if2") as ports:
            result = tg.measure(0.5, 20_000)
    finally:
        tg.close()
    # direction 0 dies in the DUT; direction 1 is dropped by tg-if2 (peer down): tx_dropped
    sent, dropped = ports["tg-if1"].sent, ports["tg-if2"].dropped
    assert (sent, ports["tg-if2"].sent, dropped) == (5_000, 0, 5_000)
    # sends refused by a busy kernel at tg-if1 (and repeated) are counted too: see busy_kernel
    assert 10_000 <= result.offered_count <= 10_000 + ports["tg-if1"].dropped
    assert result.forwarded_count == 0
    assert result.loss_count == result.offered_count
    assert result.loss_ratio == 1.0
    assert not any(is_one_way(w) for w in result.warnings)  # all dead: not one way


def test_one_lost_direction_halves_what_is_forwarded(testbeds: TestbedFactory) -> None:
    testbed = testbeds()
    testbed.access("DUT1").run(["nft", "delete", "chain", "netdev", "xconnect", "c1"])
    tg = generator(testbed)
    try:
        with tg_port_counts(testbed.namespace("TG"), "tg-if1", "tg-if2") as ports:
            result = tg.measure(0.5, 20_000)
    finally:
        tg.close()
    assert_offered(result.offered_count, ports, 10_000)
    assert_forwarded(result.forwarded_count, 5_000)  # direction 1 only
    assert result.loss_count == result.offered_count - result.forwarded_count
    # the black-holed direction is named (as TRex names it), the forwarding one is not
    one_way = [w for w in result.warnings if is_one_way(w)]
    assert len(one_way) == 1, result.warnings
    assert one_way[0].startswith("direction 0->1: port 1 received nothing of the ")
    assert "destination MAC" in one_way[0]


def test_zero_load_sends_nothing(testbeds: TestbedFactory) -> None:
    testbed = testbeds()
    tg = generator(testbed)
    result = tg.measure(1.0, 0)
    assert (result.offered_count, result.forwarded_count, result.intended_count) == (0, 0, 0)
    assert not tcpreplay_children()
    tg.close()


def test_bad_arguments_are_rejected(testbeds: TestbedFactory) -> None:
    testbed = testbeds(topology(max_rate_pps=50_000))
    tg = generator(testbed)
    assert tg.max_load_pps == 50_000
    assert generator(testbed, max_rate_pps=1000).max_load_pps == 1000
    for duration in (-1.0, 0.0, math.nan, math.inf):
        with pytest.raises(TrafficGeneratorError, match="duration"):
            tg.measure(duration, 1000)
    with pytest.raises(TrafficGeneratorError, match="must be a finite number"):
        tg.measure("1", 1000)  # type: ignore[arg-type]
    for load in (-1.0, math.nan):
        with pytest.raises(TrafficGeneratorError, match="load"):
            tg.measure(1.0, load)
    with pytest.raises(TrafficGeneratorError, match=r"60000 pps .*50000 pps"):
        tg.measure(1.0, 60_000)
    for bad in ({"cpu": -1}, {"min_rate_ratio": 0}, {"settle_s": -1}, {"max_rate_pps": 0}):
        with pytest.raises(TrafficGeneratorError):
            generator(testbed, **bad)
    assert not tcpreplay_children()
    tg.close()


def test_a_tcpreplay_failure_is_reported_and_traffic_stopped(testbeds: TestbedFactory) -> None:
    testbed = testbeds()
    tg = generator(testbed)
    tg.measure(0.2, 1_000)
    assert tg._workdir is not None
    (tg._workdir / "dir1.pcap").write_bytes(b"not a pcap")
    with pytest.raises(TrafficGeneratorError) as caught:
        tg.measure(0.5, 2_000)
    message = str(caught.value)
    assert "tcpreplay failed with exit code" in message
    assert "--pps=1000.000000" in message
    assert "dir1.pcap" in message
    tg.stop_traffic()
    tg.stop_traffic()
    assert not tcpreplay_children()
    tg.close()


def test_a_hung_sender_is_stopped(
    testbeds: TestbedFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(senders_module, "WAIT_FACTOR", 0.0)
    monkeypatch.setattr(senders_module, "WAIT_MARGIN_S", 0.3)
    testbed = testbeds()
    tg = generator(testbed)
    with pytest.raises(TrafficGeneratorError, match="did not finish"):
        tg.measure(5.0, 1_000)
    assert not tcpreplay_children()
    tg.close()


def test_pcaps_use_macs_read_from_the_namespaces(testbeds: TestbedFactory) -> None:
    base = topology()
    dut = base.nodes["DUT1"]
    no_macs = {k: dataclasses.replace(i, mac_address=None) for k, i in dut.interfaces.items()}
    testbed = testbeds(
        dataclasses.replace(
            base, nodes={**base.nodes, "DUT1": dataclasses.replace(dut, interfaces=no_macs)}
        )
    )
    tg = generator(testbed)
    with tg_port_counts(testbed.namespace("TG"), "tg-if1", "tg-if2") as ports:
        result = tg.measure(0.2, 2_000)
    assert_offered(result.offered_count, ports, 400)
    assert_forwarded(result.forwarded_count, 400)
    workdir = tg._workdir
    assert workdir is not None
    assert str(workdir) in testbed.state_file.read_text()
    # the TG read the MAC with `ip -j link`; compare with what sysfs says
    out = testbed.access("DUT1").run(["cat", "/sys/class/net/dut-if1/address"]).stdout
    frame = read_pcap(workdir / "dir0.pcap")[0]
    assert frame[:6] == bytes.fromhex(out.strip().replace(":", ""))
    tg.close()
    assert not workdir.exists()
    assert str(workdir) not in testbed.state_file.read_text()


def test_short_rates_and_stray_frames_give_warnings(testbeds: TestbedFactory) -> None:
    tg = generator(testbeds())
    zero = NetdevCounters(0, 0, 0, 0, 0, 0)
    before = {"tg-if1": zero, "tg-if2": zero}
    after = {
        "tg-if1": NetdevCounters(10_010, 0, 9_000, 0, 0, 0),
        "tg-if2": NetdevCounters(9_000, 0, 9_000, 0, 0, 0),
    }
    reports = {
        0: TcpreplayReport(9_000, 540_000, 1.2, 7_500.0, 0),
        1: TcpreplayReport(9_000, 540_000, 1.0, 9_990.0, 3),
    }
    sent = Sent(reports, {})
    result = tg._result(1.0, 20_000, 10_000, sent, tg._tg_ports().counts(before, after))
    assert result.offered_count == 18_000
    assert result.forwarded_count == 18_000  # 19 010 received: no loss, the rest surplus
    assert result.surplus_count == 1_010
    text = "\n".join(result.warnings)
    assert "received 1010 frames more than were sent (18000)" in text
    assert (
        "TG sent 18000 of 20000 intended frames (2000 unsent, counted as lost): achieved "
        "18000 pps of 20000 pps" in text
    )
    assert "direction 0: tcpreplay achieved 7500 pps < 98% of intended 10000 pps" in text
    assert "direction 1: tcpreplay achieved" not in text
    assert "direction 1: tcpreplay failed 3 packets" in text
    assert result.effective_seconds == 1.2
    tg.close()


def test_a_refused_send_made_again_is_offered_once(testbeds: TestbedFactory) -> None:
    """ENOBUFS: tx_dropped counts the refused send, tx_packets the same frame sent again."""
    tg = generator(testbeds())
    zero = NetdevCounters(0, 0, 0, 0, 0, 0)
    before = {"tg-if1": zero, "tg-if2": zero}
    after = {  # each port: 10 000 frames out, 300 sends refused first, 9 800 came back
        "tg-if1": NetdevCounters(9_800, 0, 10_000, 300, 0, 0),
        "tg-if2": NetdevCounters(9_800, 0, 10_000, 300, 0, 0),
    }
    reports = {d: TcpreplayReport(10_000, 600_000, 1.0, 10_000.0, 0, 300) for d in (0, 1)}
    sent = Sent(reports, {})
    result = tg._result(
        1.0, 20_000, 10_000, sent, tg._tg_ports().counts(before, after, sent.resent)
    )
    assert result.offered_count == 20_000  # not 20 600
    assert result.forwarded_count == 19_600
    assert abs(result.loss_ratio - 0.02) < 1e-12  # 2 %, not 4.9 %
    tg.close()


def test_parse_report() -> None:
    output = (
        "Actual: 20000 packets (1200000 bytes) sent in 0.999950 seconds\n"
        "Rated: 1200059.9 Bps, 9.60 Mbps, 20001.00 pps\n"
        "Statistics for network device: tg-if1\n"
        "\tSuccessful packets:        20000\n"
        "\tFailed packets:            2\n"
        "\tRetried packets (ENOBUFS): 7\n"
        "\tRetried packets (EAGAIN):  5\n"
    )
    assert parse_report(output) == TcpreplayReport(20_000, 1_200_000, 0.99995, 20_001.0, 2, 7)
    assert parse_report("Fatal Error in tcpreplay.c") is None


def test_a_sender_behind_schedule_is_cut_at_the_duration(
    testbeds: TestbedFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A trial lasts its duration: what the sender did not send by then is lost, not late."""
    monkeypatch.setattr(counting_module, "STRETCH_TOLERANCE", -0.8)  # cut 0.2 s into 1 s
    monkeypatch.setattr(counting_module, "STRETCH_GRACE_S", 0.0)
    tg = generator(testbeds())
    result = tg.measure(1.0, 20_000)
    assert result.intended_count == 20_000
    assert result.offered_count < 10_000
    assert result.loss_ratio > 0.5
    assert any("stopped, frames not sent count as lost" in w for w in result.warnings)
    assert not tcpreplay_children()
    tg.close()


# -- frame sizes the veths carry (no I/O: the testbed is never set up) -----------------------


@pytest.mark.parametrize("frame_size", [9000, 1519, 9018])
def test_jumbo_frames_are_unsupported(frame_size: int) -> None:
    topo = topology()
    testbed = LocalTestbed(topo)  # planned, not set up
    with pytest.raises(UnsupportedTrafficError) as raised:
        LocalTrafficGenerator(testbed, topo, get_profile("ethip4-ip4base"), frame_size)
    message = str(raised.value)
    assert message.startswith(f"{topo.tg.key}: ")
    assert f"{frame_size} B frames" in message
    assert "MTU 1500" in message
    assert f"{driver_module.MAX_LOCAL_FRAME_SIZE} B" in message
    assert isinstance(raised.value, TrafficGeneratorError)  # callers that skip need not know it
    assert not testbed.state_file.exists()


@pytest.mark.parametrize("frame_size", [64, 1518, "IMIX"])
def test_frames_up_to_1518_are_fine(frame_size: int | str) -> None:
    topo = topology()
    testbed = LocalTestbed(topo)
    tg = LocalTrafficGenerator(
        testbed,
        topo,
        get_profile("eth-l2xcbase"),
        frame_size,  # type: ignore[arg-type]
    )
    assert tg.frame_size == frame_size
    assert tg.max_load_pps > 0
    assert driver_module.MAX_LOCAL_FRAME_SIZE == 1518
    tg.close()  # nothing was started
    assert not testbed.state_file.exists()


def test_counting_ends_once_every_frame_is_back(testbeds: TestbedFactory) -> None:
    """A lossless trial through the real kernel DUT is counted whole long before a
    5 s ``settle_s``: the counters are read again as soon as every frame is back."""
    tg = generator(testbeds(), settle_s=5.0)
    try:
        started = time.monotonic()
        result = tg.measure(0.2, 10_000)
        elapsed = time.monotonic() - started
    finally:
        tg.close()
    assert (result.offered_count, result.forwarded_count) == (2_000, 2_000)
    assert elapsed < 5.0  # the whole settle_s would have been waited before


class _Script:
    """Counter reads as a scripted sequence of received totals, on a fake clock.

    A stand-in for the veth counters: no real DUT holds frames back on demand, so
    this checks only when the polling stops (quiet receive count, deadline)."""

    def __init__(self, received: list[int], offered: int) -> None:
        self.received, self.offered, self.now, self.reads = received, offered, 0.0, 0

    def read(self) -> Counters:
        rx = self.received[min(self.reads, len(self.received) - 1)]
        self.reads += 1
        return {
            "tg-if1": NetdevCounters(0, 0, self.offered, 0, 0, 0),  # sends direction 0
            "tg-if2": NetdevCounters(rx, 0, 0, 0, 0, 0),  # receives it
        }

    def clock(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.now += seconds

    def ports(self) -> TgPorts:
        """Direction 0's TG ports, read from this script."""
        script = self

        class Scripted(TgPorts):
            def read(self) -> Counters:
                return script.read()

        return Scripted("TG", "tg", ("tg-if1", "tg-if2"), (0,))


@pytest.mark.parametrize(
    ("received", "settle_s", "reads"),
    [
        ([100, 900, 1_000], 0.5, 3),  # all back on the third read: stop there
        ([100, 400, 400, 400, 400, 400, 400, 400, 400], 0.5, 7),  # 400 for 0.1 s: quiet
        ([100, 200, 300, 400, 500, 600, 700, 800], 0.05, 4),  # still coming: the deadline
    ],
)
def test_counting_waits_while_frames_come_back(
    received: list[int], settle_s: float, reads: int
) -> None:
    script = _Script(received, offered=1_000)
    zero = NetdevCounters(0, 0, 0, 0, 0, 0)
    before = {"tg-if1": zero, "tg-if2": zero}
    after = script.ports().settled(before, settle_s, clock=script.clock, sleep=script.sleep)
    assert script.reads == reads
    assert after["tg-if2"].rx_packets == received[reads - 1]
