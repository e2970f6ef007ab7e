"""VPP's receive and transmit queues of one interface, and which worker reads each RX queue.

Pure functions, no I/O. Each worker gets a transmit queue of its own, so
no two workers share one behind a lock (an af_packet TX ring is some 66
MiB of memory: the main thread shares one rather than get its own). Each
port gets one receive queue per worker (or ``rx_queues``), and
``rx_placement_commands`` pins RX queue *q* of every port to worker *q
mod n* (VPP's worker index, 0 = its first worker), so each worker reads
its share of every port. With no workers the main thread reads every
queue and nothing is pinned.

The argument words per port kind (VPP v26.06's CLI):

* af_packet: ``create host-interface name <if> num-rx-queues N
  num-tx-queues M`` (N sockets joined in a PACKET_FANOUT group, the
  kernel spreading the flows over them by hash: the veth needs no queues);
* af_xdp: ``create interface af_xdp host-if <if> num-rx-queues N`` (one
  AF_XDP socket per kernel RX queue: the interface must have N queues);
* memif: ``create interface memif ... rx-queues N tx-queues M``
  (``memif_queue_words``, for the families that make memif interfaces).
"""

from __future__ import annotations

from ndrpdr.dut.cores import queue_placement


def tx_queues(workers: int) -> int:
    """Transmit queues per interface: one per worker (at least one); the main thread, which
    sends only the odd control frame, shares one (VPP then locks that queue)."""
    return max(1, workers)


def af_packet_queue_words(rx: int, workers: int) -> str:
    """The queue words of ``create host-interface``."""
    return f"num-rx-queues {rx} num-tx-queues {tx_queues(workers)}"


def af_xdp_queue_words(rx: int) -> str:
    """The queue words of ``create interface af_xdp``."""
    return f"num-rx-queues {rx}"


def memif_queue_words(rx: int, workers: int) -> str:
    """The queue words of ``create interface memif``: ``rx`` RX queues, a TX queue per thread."""
    return f"rx-queues {rx} tx-queues {tx_queues(workers)}"


def rx_placement_commands(interface: str, rx: int, workers: int) -> list[str]:
    """``set interface rx-placement`` lines pinning each of ``rx`` queues to a worker.

    None with no workers (the main thread reads them all).
    """
    if workers <= 0:
        return []
    return [
        f"set interface rx-placement {interface} queue {queue} worker {worker}"
        for queue, worker in enumerate(queue_placement(rx, workers))
    ]
