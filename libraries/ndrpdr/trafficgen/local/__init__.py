"""The ``local`` TG driver: tcpreplay senders on a local (netns + veth) testbed."""

from ndrpdr.trafficgen.local.driver import DEFAULT_MAX_RATE_PPS, LocalTrafficGenerator

__all__ = ["DEFAULT_MAX_RATE_PPS", "LocalTrafficGenerator"]
