"""How many RX queues the kernel gives a node's interface (``/sys/class/net/<if>/queues``).

An AF_XDP socket reads one kernel RX queue: a DUT reading a veth through
AF_XDP (VPP's af_xdp plugin, DPDK's af_xdp vdev) must open a socket on
each of its queues, or the frames the peer hashes onto the others reach
the kernel instead. The local testbed gives a DUT's veths a queue per
worker CPU (``ndrpdr.localbed.plan.link_queues``); the drivers read the
count here, through the node access, so it holds on any node.
"""

from __future__ import annotations

from ndrpdr.dut.nodesteps import NodeSteps


def rx_queue_count(steps: NodeSteps, step: str, interface: str) -> int:
    """The number of ``rx-<n>`` queues of ``interface`` on the node (DutError if unreadable)."""
    listing = steps.output(step, ["ls", "--", f"/sys/class/net/{interface}/queues"])
    count = sum(1 for name in listing.split() if name.startswith("rx-"))
    if count < 1:
        raise steps.error(step, f"{interface} lists no RX queue in /sys/class/net: {listing!r}")
    return count
