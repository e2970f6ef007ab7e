"""What software runs on a testbed's nodes, and which version: best effort, for the records.

``node_versions(testbed)`` asks each node on the traffic path, through
the node's own access (local, namespace, SSH), for the version of the
software its driver runs, and returns ``node key -> version text``. A
node whose version cannot be learnt (a command missing, failing, timing
out, or a driver with no ``version`` probe) is left out: this never fails
a test.

How to ask is the driver's: its description's ``version`` probe
(``ndrpdr.drivers.DriverDescription``), e.g. ``uname -r`` for linux,
``vppctl show version`` for vpp, the install directory's name for trex.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from ndrpdr.access.base import NodeAccess
from ndrpdr.drivers import find
from ndrpdr.errors import NdrPdrError
from ndrpdr.topology.model import Node

if TYPE_CHECKING:
    from ndrpdr.activebed.testbed import ActiveTestbed

_log = logging.getLogger(__name__)

Probe = Callable[[Node, NodeAccess], "str | None"]


def probe_of(node: Node) -> Probe | None:
    """How to learn the version of what ``node``'s driver runs (None: no way, or no driver)."""
    description = find(node.type, node.driver)
    return None if description is None else description.version


def node_version(node: Node, access: NodeAccess) -> str | None:
    """The version of what ``node``'s driver runs, None when it cannot be learnt."""
    probe = probe_of(node)
    if probe is None:
        return None
    try:
        return probe(node, access)
    except (NdrPdrError, OSError, ValueError) as exc:
        _log.debug("%s: no version of %s: %s", node.key, node.driver, exc)
        return None


def node_versions(testbed: ActiveTestbed) -> dict[str, str]:
    """``node key -> version`` of the TG and the DUTs on the path (unknown ones left out)."""
    topology = testbed.topology
    versions: dict[str, str] = {}
    for key in (topology.tg.key, *testbed.path.duts):
        node = topology.nodes[key]
        if probe_of(node) is None:
            continue
        try:
            access = testbed.access(key)
        except (NdrPdrError, OSError) as exc:
            _log.debug("%s: no access for its version: %s", key, exc)
            continue
        version = node_version(node, access)
        if version:
            versions[key] = version
    return versions
