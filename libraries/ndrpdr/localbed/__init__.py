"""The local testbed: network namespaces and veth pairs on this machine, one set per run.

``LocalTestbed`` builds what a topology's netns nodes describe (namespaces,
veth pairs with the topology's MACs, RPS masks on DUT ports, an nft sink on
TG ports) and removes it again, and starts a reaper process that removes
the run if the runner dies without a teardown (``reaper``);
``cleanup_leftovers`` removes what dead runs left, and
``beforerun.remove_leftovers_before_run`` is how every entry point calls it
and reports it; ``read_counters`` reads a namespace's interface counters.
"""

from ndrpdr.localbed.counters import NetdevCounters, read_counters
from ndrpdr.localbed.errors import LocalTestbedError
from ndrpdr.localbed.leftovers import cleanup_leftovers
from ndrpdr.localbed.testbed import LocalTestbed

__all__ = [
    "LocalTestbed",
    "LocalTestbedError",
    "NetdevCounters",
    "cleanup_leftovers",
    "read_counters",
]
