"""read_counters: per-namespace counters without forking, equal to `ip -s -j link`."""

from __future__ import annotations

import json
import os
import subprocess
import textwrap
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest
from localbed_helpers import topology_2n1l

from ndrpdr.localbed import LocalTestbed, LocalTestbedError, NetdevCounters, read_counters
from ndrpdr.localbed.counters import parse_net_dev

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

MakeTestbed = Callable[..., LocalTestbed]

_SEND = textwrap.dedent(
    """
    import socket, sys
    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    s.bind((sys.argv[1], 0))
    frame = bytes.fromhex("020000000102020000000101") + b"\\x88\\xb5" + bytes(46)
    for _ in range(int(sys.argv[2])):
        s.send(frame)
    """
)


def ip_stats(namespace: str) -> dict[str, NetdevCounters]:
    out = subprocess.run(
        ["ip", "-n", namespace, "-s", "-j", "link", "show"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    stats = {}
    for link in json.loads(out):
        rx, tx = link["stats64"]["rx"], link["stats64"]["tx"]
        stats[link["ifname"]] = NetdevCounters(
            rx_packets=rx["packets"],
            rx_dropped=rx["dropped"] + rx.get("missed", 0),
            tx_packets=tx["packets"],
            tx_dropped=tx["dropped"],
            rx_bytes=rx["bytes"],
            tx_bytes=tx["bytes"],
        )
    return stats


def test_counters_match_ip_statistics(make_testbed: MakeTestbed) -> None:
    with make_testbed(topology_2n1l()) as testbed:
        tg, dut = testbed.namespace("TG"), testbed.namespace("DUT1")
        testbed.access("TG").run(["python3", "-c", _SEND, "tg-if1", "25"])
        counters = read_counters(tg)
        assert counters == ip_stats(tg)
        assert read_counters(dut) == ip_stats(dut)
        assert counters["tg-if1"].tx_packets == 25
        assert counters["tg-if1"].tx_bytes == 25 * 60
        assert read_counters(dut)["dut-if1"].rx_packets == 25
        assert counters["tg-if2"].rx_packets == 0


def test_counters_from_threads_restore_each_thread_namespace(make_testbed: MakeTestbed) -> None:
    with make_testbed(topology_2n1l()) as testbed:
        namespaces = [testbed.namespace("TG"), testbed.namespace("DUT1")] * 20

        def read(namespace: str) -> tuple[str, str, set[str]]:
            before = os.readlink("/proc/thread-self/ns/net")
            names = set(read_counters(namespace))
            return before, os.readlink("/proc/thread-self/ns/net"), names

        with ThreadPoolExecutor(4) as pool:
            results = list(pool.map(read, namespaces))
        for namespace, (before, after, names) in zip(namespaces, results, strict=True):
            assert before == after
            expected = {"tg-if1", "tg-if2"} if namespace.endswith("-tg") else {"dut-if1", "dut-if2"}
            assert names == {"lo", *expected}
        assert threading.current_thread() is threading.main_thread()
        assert "tg-if1" not in read_counters_of_own_namespace()


def read_counters_of_own_namespace() -> set[str]:
    with open("/proc/thread-self/net/dev") as dev:
        return set(parse_net_dev(dev.read()))


def test_missing_namespace_is_an_error(state_dir: object) -> None:
    with pytest.raises(LocalTestbedError, match="ndrpdr-no-such-ns"):
        read_counters("ndrpdr-no-such-ns")
    with pytest.raises(LocalTestbedError, match="not valid"):
        read_counters("../etc")


def test_parse_net_dev() -> None:
    text = (
        "Inter-|   Receive                                                |  Transmit\n"
        " face |bytes    packets errs drop fifo frame compressed multicast|bytes    packets "
        "errs drop fifo colls carrier compressed\n"
        "    lo:       0       0    0    0    0     0          0         0        0       0 "
        "   0    0    0     0       0          0\n"
        "tg-if1:    1200      20    0    3    0     0          0         0     6000     100 "
        "   0    7    0     0       0          0\n"
    )
    counters = parse_net_dev(text)
    assert counters["tg-if1"] == NetdevCounters(
        rx_packets=20, rx_dropped=3, tx_packets=100, tx_dropped=7, rx_bytes=1200, tx_bytes=6000
    )
    assert set(counters) == {"lo", "tg-if1"}
