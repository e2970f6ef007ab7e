"""HostLink: one judgement of a Linux link for the linux driver's ports and VPP's host links."""

from __future__ import annotations

from ndrpdr.dut.hostlink import HostLink


def test_an_entry_without_statistics_is_judged_by_its_flags() -> None:
    # ``ip -j link show`` (the linux driver, no -s): no stats, tx counts 0
    up = {"ifname": "dut-if1", "flags": ["BROADCAST", "UP", "LOWER_UP"], "operstate": "UP"}
    assert HostLink.from_entry(up) == HostLink(("BROADCAST", "UP", "LOWER_UP"), "UP", 0)
    assert HostLink.from_entry(up).fault() is None
    down = {"ifname": "dut-if1", "flags": ["BROADCAST"], "operstate": "DOWN"}
    assert HostLink.from_entry(down).fault() == "is down (operstate DOWN, flags BROADCAST)"
    lost = {"flags": ["UP", "NO-CARRIER"], "operstate": "DOWN"}
    assert HostLink.from_entry(lost).fault() == (
        "has no carrier (operstate DOWN, flags UP,NO-CARRIER): the other end of its link is down"
    )


def test_statistics_give_the_transmitted_frames() -> None:
    entry = {"flags": ["UP", "LOWER_UP"], "operstate": "UP", "stats64": {"tx": {"packets": 42}}}
    assert HostLink.from_entry(entry).tx_packets == 42
    assert HostLink.from_entry({"stats": {"tx": {"packets": 7}}}).tx_packets == 7
