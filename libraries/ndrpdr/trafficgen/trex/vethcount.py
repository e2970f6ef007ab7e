"""Counting a local TRex's received frames at the TG's veths, not at TRex's ports.

TRex in software mode receives through AF_PACKET rings on the TG's one CPU.
On a local testbed that CPU also sends, and above some 0.1 Mpps (64 B, a
2-core VM) TRex's receive side falls behind: frames the DUT forwarded and
the TG's veth received go missing from TRex's ``ipackets`` and would count
as the DUT's loss (checked: DUT tx 300 000, TG veths rx 300 000, TRex
ipackets 296 318). So for a TRex whose ports are veths of a local network
namespace, the driver reads the kernel's ``rx_packets`` of the receiving
veths before and after each trial (``ndrpdr.localbed.read_counters``, no
fork) and takes that as the received count; offered stays TRex's own
``opackets`` (what it really sent). The TG veths' nft ingress sink drops
the frames after they are counted.

The counts go per receiving port to ``counts.trex_trial``, which counts them
by the rules every TG shares (``ndrpdr.trafficgen.counting``): frames a
direction received beyond those it sent (none expected: the DUT sends
nothing of its own on these veths) are its surplus, with a warning, as the
local (tcpreplay) TG counts them.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from ndrpdr.localbed import LocalTestbedError, NetdevCounters, read_counters
from ndrpdr.trafficgen.base import TrafficGeneratorError

Counters = Mapping[str, NetdevCounters]


@dataclasses.dataclass(frozen=True)
class VethCounter:
    """The receiving veths of a local TRex: ``namespace`` and the interface names by port."""

    node: str
    namespace: str
    receivers: Mapping[int, str]

    def read(self) -> Counters:
        """The namespace's counters now (TrafficGeneratorError naming the node)."""
        try:
            counters = read_counters(self.namespace)
        except LocalTestbedError as exc:
            raise TrafficGeneratorError(
                f"{self.node}: cannot read the veth counters: {exc}"
            ) from exc
        missing = [name for name in self.receivers.values() if name not in counters]
        if missing:
            raise TrafficGeneratorError(
                f"{self.node}: no counters for {', '.join(missing)} in {self.namespace}"
            )
        return counters

    def received(self, before: Counters, after: Counters) -> dict[int, int]:
        """Frames each receiving veth got between ``before`` and ``after``, by TRex port."""
        return {
            port: after[name].rx_packets - before[name].rx_packets
            for port, name in self.receivers.items()
        }


def veth_counter(
    node: str, namespace: str | None, devices: Sequence[str], receiving: Sequence[int]
) -> VethCounter | None:
    """The counter of a TRex in local ``namespace`` (None: not local, count at TRex's ports).

    ``devices``: the TRex ports' Linux interface names by port index;
    ``receiving``: the ports that receive a trial's traffic.
    """
    if namespace is None:
        return None
    return VethCounter(node, namespace, {port: devices[port] for port in receiving})
