"""The local testbed's error type."""

from __future__ import annotations

from ndrpdr.errors import NdrPdrError


class LocalTestbedError(NdrPdrError):
    """The local testbed could not be planned, set up, read or torn down.

    Messages name the run, the node or namespace and the step that failed.
    """
