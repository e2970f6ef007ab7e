"""Traffic profiles: frame sizes, line rates, addressing, a family's traffic, frames, pcap.

A family's traffic is its headers per direction, what varies and its
packet cost.

Importing this package does no I/O and does not import scapy (frames are
built with it on first use).
"""

from ndrpdr.profiles.addressing import (
    BENCHMARK_RANGE,
    DIRECTION_PREFIXES,
    DIRECTION_PREFIXES6,
    MAX_FLOWS,
)
from ndrpdr.profiles.cost import PacketCost
from ndrpdr.profiles.errors import ProfileError
from ndrpdr.profiles.frames import (
    MAX_SAMPLE_FRAMES,
    build_frames,
    first_frames,
    frame_count,
    pcap_flows,
    pcap_profile,
    sample_size,
    sampled_frames,
    stream_frames,
)
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
from ndrpdr.profiles.layout import FrameLayout
from ndrpdr.profiles.maxload import L1_OVERHEAD, bandwidth_bps, max_load_pps
from ndrpdr.profiles.pcap import PcapError, read_pcap, write_pcap
from ndrpdr.profiles.profile import Layer, Profile
from ndrpdr.profiles.signature import parse_signature
from ndrpdr.profiles.traffic import ANY_HOST_INTERNAL, FieldName, Headers, Op, Vary
from ndrpdr.profiles.transactions import Transactions

__all__ = [
    "ANY_HOST_INTERNAL",
    "BENCHMARK_RANGE",
    "DIRECTION_PREFIXES",
    "DIRECTION_PREFIXES6",
    "FCS_SIZE",
    "IMIX",
    "IMIX_MIX",
    "IMIX_SEQUENCE",
    "L1_OVERHEAD",
    "MAX_FLOWS",
    "MAX_FRAME_SIZE",
    "MAX_SAMPLE_FRAMES",
    "MIN_FRAME_SIZE",
    "FieldName",
    "FrameLayout",
    "FrameSize",
    "Headers",
    "Layer",
    "Op",
    "PacketCost",
    "PcapError",
    "Profile",
    "ProfileError",
    "Transactions",
    "Vary",
    "average_frame_size",
    "bandwidth_bps",
    "build_frames",
    "first_frames",
    "frame_count",
    "frame_size_label",
    "frame_sizes",
    "max_load_pps",
    "parse_frame_size",
    "parse_signature",
    "pcap_flows",
    "pcap_profile",
    "read_pcap",
    "sample_size",
    "sampled_frames",
    "stream_frames",
    "write_pcap",
]
