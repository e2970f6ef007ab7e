"""The real VPP v26.06 takes FD.io CSIT's startup.conf sections, as they are and scaled down.

Real parts only: VPP from /opt/vpp/v26.06 on af_packet ports of the local
testbed (topologies/local-vpp.yaml), as in ``test_vpp_real.py``. The
driver reads this machine's /proc/meminfo; with its own memory VPP gets
CSIT's 3 GiB heaps on 4 KiB pages, and with ``memory_mb: 1024`` every
size is scaled down (ip6 hash buckets with their heap). Either way VPP
must start, show the sizes it was given, and forward; the record lines
name each value that differs from CSIT's. Skipped without VPP, root or
the local testbed's tools, unless NDRPDR_REQUIRE_VPP=1 (then they fail).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from dutbed import Bed, check_forwarding, local_bed
from test_vpp_real import close_clean, require_vpp

from ndrpdr.dut.vpp.driver import VppDriver

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py


@pytest.fixture(scope="module")
def bed() -> Iterator[Bed]:
    require_vpp()
    with local_bed("vpp") as made:
        yield made


def _rss_mib(pid: int) -> int:
    """The process's resident memory [MiB] (``VmRSS``)."""
    with open(f"/proc/{pid}/status") as status:
        found = re.search(r"^VmRSS:\s+(\d+) kB", status.read(), re.M)
    assert found is not None
    return int(found.group(1)) // 1024


@pytest.mark.parametrize("memory_mb", [None, 1024])
def test_vpp_starts_and_forwards_with_csits_sections(bed: Bed, memory_mb: int | None) -> None:
    options = {} if memory_mb is None else {"memory_mb": memory_mb}
    driver = bed.driver(**options)
    assert isinstance(driver, VppDriver)
    try:
        driver.configure(bed.config("ip4base"))
        driver.start()
        driver.health_check()
        text = driver.startup_conf_text
        for section in ("memory {", "statseg {", "ip6 {", "buffers {", "socksvr {"):
            assert section in text, section
        assert "per-node-counters on" in text and "hash-buckets" in text
        scaled = driver.telemetry()["startup_scaled"].splitlines()
        assert scaled[0].startswith("page size 2M -> 4k")  # ports on Linux interfaces
        heap = re.search(r"^\s*main-heap-size (\S+)", text, re.M)  # not the "#" lines on scaling
        assert heap is not None
        if memory_mb is not None:  # every size scaled: they share 1 GiB
            assert any(line.startswith("ip6 hash-buckets 2000000 -> ") for line in scaled)
            assert heap.group(1) != "3G"
        # VPP runs with what it was given: its main heap's size and the ip6 FIB it holds
        assert "heap" in driver.run_cli("show memory main-heap").lower()
        assert "ipv6-vrf:0" in driver.run_cli("show ip6 fib summary").lower()
        check_forwarding(bed, "ip4base")
        pid = driver.pid
        assert pid is not None
        print(f"memory_mb={memory_mb}: VPP's RSS {_rss_mib(pid)} MiB, main heap {heap.group(1)}")
    finally:
        close_clean(bed, driver)
