"""``ndrpdr frames``: the first N frames a field engine sends for a family, to a pcap file.

Frame *k* is flow *k* of the family's whole profile in one direction, in
the order TRex's field engine sends them (``ndrpdr.profiles.stream_frames``),
so a user can look at the traffic in Wireshark or compare it with CSIT's
TRex profiles. A bad option (unknown family, a direction the family does
not send, a stateful family, a count out of range, a bad MAC) exits 2 with
``ndrpdr frames: error: --OPTION VALUE: ...`` before anything is built; a
pcap file that cannot be written exits 1 naming the file.
"""

from __future__ import annotations

import argparse
from typing import Final

from ndrpdr.cli.profileargs import frame_size_option, profile_option
from ndrpdr.cli.searchargs import usage_error
from ndrpdr.dut.ports import MAC
from ndrpdr.profiles import (
    FrameSize,
    Profile,
    ProfileError,
    average_frame_size,
    frame_size_label,
    stream_frames,
    write_pcap,
)
from ndrpdr.searchlimits import BadSettingError

#: The most frames one pcap holds (a million 64 B frames: about 12 s and 0.5 GB of memory).
MAX_COUNT: Final = 1_000_000
#: The most bytes of frames one pcap holds (the frames are built in memory).
MAX_BYTES: Final = 256 * 2**20

#: sim.yaml's MACs (locally administered): TG port d + 1 sends direction d ...
TG_MACS: Final = ("02:00:00:00:01:01", "02:00:00:00:02:01")
#: ... to the DUT port facing it (an L3 family's frames are addressed to it).
DUT_MACS: Final = ("02:00:00:00:01:02", "02:00:00:00:02:02")


def mac_address(text: str) -> str:
    """``text`` if it is a MAC address (six hex bytes with colons), for argparse's ``type``."""
    if MAC.fullmatch(text) is None:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a MAC address: give six hex bytes like 02:00:00:00:01:01"
        )
    return text.lower()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Declare the arguments and ``run`` (the help line is in ``commands.COMMANDS``)."""
    parser.add_argument(
        "--profile",
        required=True,
        metavar="FAMILY",
        help="test family by CSIT id, e.g. ethip4-ip4base (ndrpdr families lists them)",
    )
    parser.add_argument(
        "--frame-size", default="64", metavar="B", help="64..9018 or IMIX (default 64)"
    )
    parser.add_argument(
        "--direction",
        type=int,
        choices=(0, 1),
        default=0,
        help="0: TG port 1 -> port 2 (default); 1: the reverse (not for a -udir family)",
    )
    parser.add_argument(
        "--count",
        type=int,
        required=True,
        metavar="N",
        help=f"frames written: flows 0..N-1 in the order they are sent (1..{MAX_COUNT}, "
        f"at most {MAX_BYTES // 2**20} MiB of frames)",
    )
    parser.add_argument("--pcap", required=True, metavar="FILE", help="the pcap file written")
    parser.add_argument(
        "--flows", type=int, default=None, help="flows per direction (multi-flow families only)"
    )
    parser.add_argument(
        "--src-mac",
        type=mac_address,
        metavar="MAC",
        help=f"the sending TG port's MAC (default sim.yaml's: {TG_MACS[0]} for direction 0, "
        f"{TG_MACS[1]} for 1); a family's own source MACs override it",
    )
    parser.add_argument(
        "--dst-mac",
        type=mac_address,
        metavar="MAC",
        help=f"the MAC the frames are addressed to (default sim.yaml's DUT port: {DUT_MACS[0]} "
        f"for direction 0, {DUT_MACS[1]} for 1; for an L2 family the far TG port's, "
        f"{TG_MACS[1]} / {TG_MACS[0]}); a family's own destination MACs override it",
    )
    parser.add_argument(
        "--show",
        type=int,
        default=0,
        metavar="K",
        help="also print the headers of the first K frames, one line each (default 0)",
    )
    parser.set_defaults(run=run)


def default_macs(profile: Profile, direction: int) -> tuple[str, str]:
    """(source, destination) MAC of ``direction`` when no option gives them (sim.yaml's ports)."""
    if profile.layer == "L2":  # the DUT switches: frames go to the far TG port
        return TG_MACS[direction], TG_MACS[1 - direction]
    return TG_MACS[direction], DUT_MACS[direction]


def _profile(args: argparse.Namespace) -> Profile:
    """The family's profile (BadSettingError naming --profile or --flows)."""
    profile = profile_option(args)
    if profile.transactions is not None:
        raise BadSettingError(
            f"--profile {args.profile}: a stateful family (TRex ASTF, "
            f"{profile.transactions.transaction_type}) sends connections, not a stream of "
            "frames: give a stateless family"
        )
    return profile


def _check_direction(args: argparse.Namespace, profile: Profile) -> int:
    if args.direction == 1 and profile.unidirectional:
        raise BadSettingError(
            f"--direction 1: family {profile.name} is unidirectional: it sends direction 0 only"
        )
    return int(args.direction)


def _check_count(args: argparse.Namespace, frame_size: FrameSize) -> int:
    if not 1 <= args.count <= MAX_COUNT:
        raise BadSettingError(f"--count {args.count}: give 1..{MAX_COUNT} frames")
    size = average_frame_size(frame_size)
    if args.count * size > MAX_BYTES:
        raise BadSettingError(
            f"--count {args.count}: {args.count} frames of {size:g} B are more than "
            f"{MAX_BYTES // 2**20} MiB; give at most {int(MAX_BYTES // size)}"
        )
    return int(args.count)


def _frames(args: argparse.Namespace) -> tuple[Profile, FrameSize, int, list[bytes]]:
    """The checked profile, frame size and direction, and the frames (BadSettingError)."""
    profile = _profile(args)
    frame_size = frame_size_option(args)
    try:
        profile.check_frame_size(frame_size)
    except ProfileError as exc:
        raise BadSettingError(f"--frame-size {args.frame_size}: {exc}") from None
    direction = _check_direction(args, profile)
    count = _check_count(args, frame_size)
    if args.show < 0:
        raise BadSettingError(f"--show {args.show}: give 0 or more frames")
    src_mac, dst_mac = default_macs(profile, direction)
    src_mac, dst_mac = args.src_mac or src_mac, args.dst_mac or dst_mac
    try:
        frames = stream_frames(profile, frame_size, direction, src_mac, dst_mac, count)
    except ProfileError as exc:
        raise BadSettingError(f"--profile {profile.name}: {exc}") from None
    return profile, frame_size, direction, frames


def run(args: argparse.Namespace) -> int:
    """Write the frames and say what was written; 2 for a bad option (names it), 1 when the
    pcap file cannot be written (``PcapError``, reported by ``main``)."""
    try:
        profile, frame_size, direction, frames = _frames(args)
    except BadSettingError as exc:
        return usage_error("frames", exc)
    write_pcap(args.pcap, frames)
    print(
        f"wrote {len(frames)} frame(s) of {profile.name}, {frame_size_label(frame_size)}, "
        f"direction {direction} to {args.pcap}"
    )
    if args.show:
        from ndrpdr.profiles.headerline import header_line  # noqa: PLC0415 - imports scapy

        for index, frame in enumerate(frames[: args.show]):
            print(f"{index:>6}  {len(frame) + 4:>5} B  {header_line(frame)}")
    return 0
