"""The local TG's counts: frames per direction from two reads of its veths' counters.

Direction *d* leaves the TG port *d* of the traffic path and comes back on
the other one, 1 - *d* (TRex numbers its ports so: ``counting``). Between
two reads of the TG namespace's counters (``ndrpdr.localbed.read_counters``):

* sent = delta(tx_packets + tx_dropped) of the sending port, less the sends
  tcpreplay made again after the kernel refused them (ENOBUFS: counted in
  tx_dropped, and the same frame again in tx_packets when it goes out;
  counted twice, they made a busy machine's trials look up to 30 % lossy
  where 2 % was lost);
* received = delta(rx_packets) of the receiving port (the TG sink drops
  the frames after they are counted).

The second read waits for the frames in flight (``settled``).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable, Mapping

from ndrpdr.localbed import LocalTestbedError, NetdevCounters, read_counters
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.counting import DirectionCount

Counters = Mapping[str, NetdevCounters]

#: How often the counters are read while the frames in flight come back [s].
SETTLE_POLL_S = 0.02
#: The receive count still this long [s]: nothing is left in flight.
SETTLE_QUIET_S = 0.1


@dataclasses.dataclass(frozen=True)
class TgPorts:
    """The TG's veths in ``namespace``: ``names`` by port (the path's TG ports), the
    ``directions`` a trial sends; ``node`` names the TG in messages."""

    node: str
    namespace: str
    names: tuple[str, str]
    directions: tuple[int, ...]

    def read(self) -> Counters:
        """The namespace's counters now (TrafficGeneratorError naming the node)."""
        try:
            return read_counters(self.namespace)
        except LocalTestbedError as exc:
            raise TrafficGeneratorError(f"{self.node}: cannot read counters: {exc}") from exc

    def _delta(self, name: str, before: Counters, after: Counters) -> tuple[int, int]:
        """(frames sent, frames received) by interface ``name`` between the reads."""
        if name not in before or name not in after:
            raise TrafficGeneratorError(f"{self.node}: interface {name} has no counters")
        b, a = before[name], after[name]
        sent = (a.tx_packets + a.tx_dropped) - (b.tx_packets + b.tx_dropped)
        return sent, a.rx_packets - b.rx_packets

    def counts(
        self, before: Counters, after: Counters, resent: Mapping[int, int] | None = None
    ) -> list[DirectionCount]:
        """Each direction's frames between the reads; ``resent``: the sends tcpreplay made
        again, by direction, taken off what its port sent."""
        out = []
        for d in self.directions:
            sent = self._delta(self.names[d], before, after)[0] - (resent or {}).get(d, 0)
            received = self._delta(self.names[1 - d], before, after)[1]
            out.append(DirectionCount(d, 1 - d, max(0, sent), received))
        return out

    def settled(
        self,
        before: Counters,
        settle_s: float,
        *,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> Counters:
        """The counters once the frames in flight have come back (at most ``settle_s`` [s]).

        Read every SETTLE_POLL_S: done as soon as every frame sent was
        received (nothing more can come), or when the receive count has not
        moved for SETTLE_QUIET_S (the DUT has nothing left in its queues), or
        after ``settle_s``. A fixed 0.5 s wait cost a third of every 1 s
        trial's wall time; frames come back from a veth DUT within
        milliseconds of the last one sent.
        """
        deadline = clock() + settle_s
        after = self.read()
        last_received, quiet_since = -1, clock()
        while True:
            counts = self.counts(before, after)
            sent, received = sum(c.sent for c in counts), sum(c.received for c in counts)
            now = clock()
            if received >= sent or now >= deadline:
                return after
            if received != last_received:
                last_received, quiet_since = received, now
            elif now - quiet_since >= SETTLE_QUIET_S:
                return after
            sleep(min(SETTLE_POLL_S, max(deadline - now, 0.0)))
            after = self.read()
