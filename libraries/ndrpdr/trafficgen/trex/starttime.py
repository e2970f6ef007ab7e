"""When a TRex trial's traffic started, as seen from the client (pure).

The driver times a trial's traffic to tell how long it really took (its
effective duration: a TG that falls behind stretches its trials, and the
search calls a bound sent at less than 98 % of its load TG-limited). The
server starts the traffic while it handles the ``start`` request, somewhere
between the moment the client sent it and the moment the reply came back.
Timing from the send would add the whole round trip (through the client's
child process and ZeroMQ: 5-30 ms on a busy 2-core machine, 1-3 % of a 1 s
trial) to every trial, so that a TRex that sends exactly on time looks
2 % slow; timing from the reply would take the whole round trip off. The
middle of the two is the estimate with the smallest worst-case error (half
the round trip), for a client that reports no times of its own. The child
client does better, without the hops through its pipes: it sees the end
when TRex's event says the ports went idle (one server-to-client hop
late) and takes the start at TRex's reply (one such hop late too), so
the lags cancel (``child.Served.start`` / ``wait_on_traffic``).

The server's reply can come back well after the traffic started (the
reply crosses the same busy CPU), so the estimate can start late and a
trial look shorter than its duration; TRex spreads the frames over the
whole duration by its own schedule, so ``traffic_seconds`` counts at
least the duration.
"""

from __future__ import annotations


def traffic_start(asked_s: float, answered_s: float) -> float:
    """The estimated start of the traffic [s, the clock's]: midway through the start request.

    ``asked_s``: when the client sent ``start``; ``answered_s``: when its
    reply arrived (same clock; a reply "before" the request counts as at it).
    """
    return asked_s + max(0.0, answered_s - asked_s) / 2


def traffic_seconds(started_s: float, ended_s: float, duration_s: float) -> float:
    """How long the traffic ran [s]: from ``started_s`` to ``ended_s``, at least ``duration_s``."""
    return max(duration_s, ended_s - started_s)
