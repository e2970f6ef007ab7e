"""``--profile``, ``--flows`` and ``--frame-size`` read into objects, errors naming the option.

Light on purpose (no testbed code): ``frames`` uses them without a testbed,
``options.check_traffic_options`` for the commands that drive traffic.
"""

from __future__ import annotations

import argparse

from ndrpdr.families import FamilyError, profile_of
from ndrpdr.profiles import FrameSize, Profile, parse_frame_size
from ndrpdr.profiles.errors import ProfileError
from ndrpdr.searchlimits import BadSettingError


def profile_option(args: argparse.Namespace) -> Profile:
    """The profile ``--profile`` and ``--flows`` name; BadSettingError naming the option."""
    try:
        profile = profile_of(args.profile)
    except FamilyError as exc:
        raise BadSettingError(f"--profile {args.profile}: {exc}") from None
    try:
        return profile if args.flows is None else profile.with_flows(args.flows)
    except ProfileError as exc:
        raise BadSettingError(f"--flows {args.flows}: {exc}") from None


def frame_size_option(args: argparse.Namespace) -> FrameSize:
    """The frame size ``--frame-size`` names; BadSettingError naming the option."""
    try:
        return parse_frame_size(args.frame_size)
    except ProfileError as exc:
        raise BadSettingError(f"--frame-size {args.frame_size}: {exc}") from None
