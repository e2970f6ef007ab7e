"""A data-plane process on a DUT node: the CPU it is pinned to, and its stop by PID.

A DPDK application and OVS's daemons each run pinned to one CPU of the
node: ``options.cpu`` modulo the node's CPU count (``effective_cpu``, as
the local testbed maps ``options.cpu`` for RPS), through ``taskset``
(``pinned``). At the stop each is ended by PID (``stop_noting``); a
failure is noted with the stop's other failures instead of raised, so the
rest of the clean-up still runs.
"""

from __future__ import annotations

from collections.abc import Sequence

from ndrpdr.access.base import BackgroundProcess
from ndrpdr.dut.cores import corelist
from ndrpdr.dut.nodesteps import NodeSteps
from ndrpdr.errors import NdrPdrError


def effective_cpu(steps: NodeSteps, cpu: int) -> int:
    """``cpu`` modulo the node's CPU count (as the local testbed maps ``options.cpu`` for RPS)."""
    text = steps.output("count CPUs", ["nproc", "--all"]).strip()
    count = int(text) if text.isdigit() and int(text) > 0 else 1
    return cpu % count


def pinned(cpu: int | Sequence[int]) -> list[str]:
    """The command prefix that runs a program (and all its threads) on ``cpu`` (or those CPUs)."""
    return ["taskset", "-c", str(cpu) if isinstance(cpu, int) else corelist(cpu)]


def stop_noting(
    process: BackgroundProcess, timeout_s: float, label: str, errors: list[str]
) -> None:
    """Stop ``process`` (SIGINT, escalating after ``timeout_s``); a failure goes to ``errors``.

    ``label`` names the process in the message ("stop LABEL: why").
    """
    try:
        process.stop(timeout_s)
    except (NdrPdrError, OSError) as exc:
        errors.append(f"stop {label}: {exc}")
