"""The ``trex`` TG driver: TRex (STL mode) on a TG, over its node access and TRex's own client.

Modules, one concept each: ``options`` (the TG node's options),
``config`` (trex_cfg.yaml), ``server`` (start / wait / stop t-rex-64),
``client`` (the STL client calls as a protocol, the core-mask rule),
``child`` (the program that runs TRex's client in a process of its own,
and its line protocol), ``childclient`` (the client over that child,
optionally inside the TG's network namespace), ``streams`` (stream
specs from a profile), ``counts`` (counters -> TrialResult),
``session`` (TrexSession: one testbed's server and connection) and
``driver`` (TrexTrafficGenerator: one test's trials over a session).
Importing this package imports neither TRex nor scapy; TRex is only
ever imported in the child process.
"""

from ndrpdr.trafficgen.trex.childclient import ChildClient, make_stl_client
from ndrpdr.trafficgen.trex.client import ClientSettings, TrexClient, TrexClientError
from ndrpdr.trafficgen.trex.counts import Latency, TrexTrial
from ndrpdr.trafficgen.trex.driver import TrexTrafficGenerator
from ndrpdr.trafficgen.trex.options import OPTION_KEYS, TrexOptions, parse_options
from ndrpdr.trafficgen.trex.session import TrexSession

__all__ = [
    "OPTION_KEYS",
    "ChildClient",
    "ClientSettings",
    "Latency",
    "TrexClient",
    "TrexClientError",
    "TrexOptions",
    "TrexSession",
    "TrexTrafficGenerator",
    "TrexTrial",
    "make_stl_client",
    "parse_options",
]
