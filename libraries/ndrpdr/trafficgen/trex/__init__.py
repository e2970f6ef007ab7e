"""The ``trex`` TG driver: TRex (STL mode) on a lab TG, driven over SSH and TRex's own client.

Modules, one concept each: ``options`` (the TG node's options),
``config`` (trex_cfg.yaml), ``server`` (start / wait / stop t-rex-64),
``client`` (the STL client calls, and the adapter over TRex's client),
``streams`` (stream specs from a profile), ``counts`` (counters ->
TrialResult) and ``driver`` (TrexTrafficGenerator). Importing this
package imports neither TRex nor scapy.
"""

from ndrpdr.trafficgen.trex.client import ClientSettings, StlClient, TrexClient, make_stl_client
from ndrpdr.trafficgen.trex.counts import Latency, TrexTrial
from ndrpdr.trafficgen.trex.driver import TrexTrafficGenerator
from ndrpdr.trafficgen.trex.options import OPTION_KEYS, TrexOptions, parse_options

__all__ = [
    "OPTION_KEYS",
    "ClientSettings",
    "Latency",
    "StlClient",
    "TrexClient",
    "TrexOptions",
    "TrexTrafficGenerator",
    "TrexTrial",
    "make_stl_client",
    "parse_options",
]
