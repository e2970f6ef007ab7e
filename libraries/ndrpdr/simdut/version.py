"""The simulator's version for the records: both sim drivers (TG and DUT) are ndrpdr itself."""

from __future__ import annotations

import ndrpdr
from ndrpdr.access.base import NodeAccess
from ndrpdr.topology.model import Node


def simulator_version(node: Node, access: NodeAccess) -> str:
    """``ndrpdr <version> (simulator)``, whatever the node (the version probe of both)."""
    return f"ndrpdr {ndrpdr.__version__} (simulator)"
