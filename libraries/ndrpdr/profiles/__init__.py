"""Traffic profiles: frame sizes, line rates, addressing, the profile catalog, frames, pcap.

Importing this package does no I/O and does not import scapy (frames are
built with it on first use).
"""

from ndrpdr.profiles.addressing import (
    BENCHMARK_RANGE,
    DIRECTION_PREFIXES,
    MAX_FLOWS,
    Flow,
    flow,
    flows,
)
from ndrpdr.profiles.catalog import DEFAULT_FLOWS, PROFILE_NAMES, Layer, Profile, get_profile
from ndrpdr.profiles.errors import ProfileError
from ndrpdr.profiles.frames import build_frames, frame_count, parse_signature
from ndrpdr.profiles.framesize import (
    FCS_SIZE,
    IMIX,
    IMIX_MIX,
    IMIX_SEQUENCE,
    MAX_FRAME_SIZE,
    MIN_FRAME_SIZE,
    FrameSize,
    average_frame_size,
    frame_size_label,
    frame_sizes,
    parse_frame_size,
)
from ndrpdr.profiles.maxload import L1_OVERHEAD, bandwidth_bps, max_load_pps
from ndrpdr.profiles.pcap import PcapError, read_pcap, write_pcap

__all__ = [
    "BENCHMARK_RANGE",
    "DEFAULT_FLOWS",
    "DIRECTION_PREFIXES",
    "FCS_SIZE",
    "IMIX",
    "IMIX_MIX",
    "IMIX_SEQUENCE",
    "L1_OVERHEAD",
    "MAX_FLOWS",
    "MAX_FRAME_SIZE",
    "MIN_FRAME_SIZE",
    "PROFILE_NAMES",
    "Flow",
    "FrameSize",
    "Layer",
    "PcapError",
    "Profile",
    "ProfileError",
    "average_frame_size",
    "bandwidth_bps",
    "build_frames",
    "flow",
    "flows",
    "frame_count",
    "frame_size_label",
    "frame_sizes",
    "get_profile",
    "max_load_pps",
    "parse_frame_size",
    "parse_signature",
    "read_pcap",
    "write_pcap",
]
