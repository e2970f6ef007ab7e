"""A direction that received nothing while another forwarded: a trial's warning, and its test.

Every trial at exactly 50 % loss on a bidirectional test looks like a DUT
that is too slow, and the advice for a lossy min load is to lower it; when
one direction receives nothing at all while the other forwards, the fault
is in that direction (a wrong destination MAC, a link down, a wedged port),
and no rate will fix it. The TG drivers that count per port say so in the
trial's warnings (``one_way_warning``); the irregular judgement reads them
(``is_one_way``) to give the right advice.
"""

from __future__ import annotations

from collections.abc import Mapping

#: The words that mark the warning (``is_one_way``).
_MARK = "received nothing"


def one_way_warning(tx_port: int, rx_port: int, sent: int) -> str:
    """The warning for direction ``tx_port`` -> ``rx_port``, which received none of ``sent``."""
    return (
        f"direction {tx_port}->{rx_port}: port {rx_port} {_MARK} of the {sent} frames port "
        f"{tx_port} sent while the other direction forwarded: check that direction's "
        "destination MAC and the DUT port it enters (a wrong MAC, a link down)"
    )


def one_way_warnings(counts: Mapping[tuple[int, int], tuple[int, int]]) -> list[str]:
    """The warnings of a trial whose directions (tx port, rx port) sent and received these counts.

    A direction is named when its port sent frames and received none while
    another direction received some (all dead is a dead DUT, not one way).
    """
    return [
        one_way_warning(tx, rx, sent)
        for (tx, rx), (sent, received) in counts.items()
        if received == 0
        and sent > 0
        and any(got > 0 for key, (_, got) in counts.items() if key != (tx, rx))
    ]


def is_one_way(warning: str) -> bool:
    """True for a warning made by ``one_way_warning``."""
    return warning.startswith("direction ") and f" {_MARK} of the " in warning
