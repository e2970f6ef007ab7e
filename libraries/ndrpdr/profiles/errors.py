"""The error raised for bad profile names, frame sizes, flow counts and frame parameters."""

from __future__ import annotations

from ndrpdr.errors import NdrPdrError


class ProfileError(NdrPdrError, ValueError):
    """A traffic profile parameter is invalid; the message names the value and what is accepted."""
