"""The error of the results store."""

from __future__ import annotations

from ndrpdr.errors import NdrPdrError


class StoreError(NdrPdrError):
    """The store could not be opened, read or written (names its URL, password hidden)."""
