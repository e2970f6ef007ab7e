"""A DUT's cores: which CPUs its workers and its main thread get, and when a test cannot have them.

A test's ``cores`` (``DutTestConfig.cores``) is the number of physical
cores of data-plane workers (VPP worker threads, DPDK forwarding lcores),
each core giving a worker per hardware thread (``ndrpdr.dut.smt``, which
picks the CPUs). A test asking for more than a DUT has is skipped
(``UnsupportedCoresError``), never run on fewer. The main thread (VPP's, DPDK's main lcore) forwards
nothing once there are workers: it runs on a CPU none of them uses
(``main_cpu``), on this machine the TG's.

Pure functions, no I/O.
"""

from __future__ import annotations

from collections.abc import Sequence

from ndrpdr.dut.base import UnsupportedFamilyError


class UnsupportedCoresError(UnsupportedFamilyError):
    """The test asks a DUT for more workers than it has CPUs for: the test is skipped.

    A subclass of UnsupportedFamilyError, so every caller that skips a test
    a path cannot run skips this one too, with its message.
    """


def main_cpu(workers: Sequence[int], preferred: int | None = None) -> int:
    """The main thread's CPU: ``preferred`` unless a worker has it, else the lowest CPU none has."""
    if preferred is not None and preferred not in workers:
        return preferred
    cpu = 0
    while cpu in workers:
        cpu += 1
    return cpu


def corelist(cpus: Sequence[int]) -> str:
    """CPU numbers as a core list: [2, 3, 4, 7] -> "2-4,7" (sorted; VPP's and DPDK's syntax)."""
    ordered = sorted(set(cpus))
    parts: list[str] = []
    start = 0
    for index in range(1, len(ordered) + 1):
        if index == len(ordered) or ordered[index] != ordered[index - 1] + 1:
            first, last = ordered[start], ordered[index - 1]
            parts.append(str(first) if first == last else f"{first}-{last}")
            start = index
    return ",".join(parts)


def queue_placement(queues: int, workers: int) -> list[int]:
    """The worker (index) that reads each of ``queues`` RX queues: round robin, queue q -> q % n."""
    return [queue % max(workers, 1) for queue in range(queues)]
