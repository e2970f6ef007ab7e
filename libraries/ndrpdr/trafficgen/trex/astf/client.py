"""The ASTF client in its child process (``child.py``), and the factory of either client.

``AstfChildClient`` is a ChildClient running the ASTF child program: the
calls both clients share keep their meaning (``start``'s ``mult`` is
ASTF's multiplier as text: transactions started per second), and
``load_profile`` loads a family's profile from ``profile.astf_spec``.
``make_trex_client`` is the session's default ClientFactory: the ASTF
client when the settings' mode is ``astf``, else the STL one.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from ndrpdr.trafficgen.trex.astf import child as astfchild
from ndrpdr.trafficgen.trex.childclient import ChildClient, make_stl_client
from ndrpdr.trafficgen.trex.client import ClientSettings, TrexClient

#: The ASTF child program, run by path.
ASTF_CHILD_PATH = str(Path(astfchild.__file__).resolve())


@runtime_checkable
class AstfClient(TrexClient, Protocol):
    """A TrexClient over TRex's ASTFClient: the shared calls and ``load_profile``."""

    def load_profile(self, spec: Mapping[str, Any]) -> None:
        """Load the profile of ``spec`` (``astf_spec``) and clear the counters."""
        ...


class AstfChildClient(ChildClient):
    """A ChildClient whose child serves TRex's ASTFClient."""

    def __init__(self, settings: ClientSettings) -> None:
        """Start the ASTF child and make TRex's ASTFClient there (see ChildClient)."""
        super().__init__(settings, program=ASTF_CHILD_PATH)

    def load_profile(self, spec: Mapping[str, Any]) -> None:
        """ASTFClient.load_profile(the profile the child builds from ``spec``), clear_stats()."""
        self._request("load_profile", {"spec": dict(spec)})


def make_trex_client(settings: ClientSettings) -> TrexClient:
    """The default ClientFactory: TRex's real client of the settings' mode, in a child."""
    if settings.mode == "astf":
        return AstfChildClient(settings)
    return make_stl_client(settings)
