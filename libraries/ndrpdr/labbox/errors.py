"""The lab in a box's error type."""

from __future__ import annotations

from ndrpdr.localbed.errors import LocalTestbedError


class LabboxError(LocalTestbedError):
    """A lab-in-a-box host could not be planned, started or stopped.

    A LocalTestbedError, as the hosts are part of a local testbed run.
    Messages name the node and the step that failed.
    """
