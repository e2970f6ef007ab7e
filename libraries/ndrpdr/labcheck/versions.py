"""The ``version`` step: the VPP / TRex installed on a node is a release its driver supports."""

from __future__ import annotations

import re
from collections.abc import Sequence

from ndrpdr.access.base import NodeAccess
from ndrpdr.drivers import find
from ndrpdr.errors import NdrPdrError
from ndrpdr.labcheck.outcome import Outcome, error_text, failed, passed
from ndrpdr.topology.model import Node

#: A release in a version text: "v26.06-release" -> (26, 6), "v3.08" -> (3, 8).
_RELEASE = re.compile(r"v?([0-9]+)\.([0-9]+)")


def release(version: str) -> tuple[int, int] | None:
    """The (major, minor) release of a version text, None when it has none."""
    found = _RELEASE.search(version)
    return None if found is None else (int(found.group(1)), int(found.group(2)))


def is_supported(version: str, supported: Sequence[str]) -> bool:
    """True when ``version`` is a build of one of the ``supported`` releases ("v26.06" takes
    "v26.06-release" and "v26.06.1", not "v26.02" or "v26.10")."""
    found = release(version)
    return found is not None and any(found == release(s) for s in supported)


def check_version(node: Node, access: NodeAccess) -> Outcome:
    """``version <node>``: what the node's driver runs, compared with what it supports."""
    step = f"version {node.key}"
    description = find(node.type, node.driver)
    software = None if description is None else description.software
    if software is None:
        return passed(step, f"nothing to check: the {node.driver} driver needs no given version")
    supported = ", ".join(software.supported)
    fix = (
        f"install {software.name} {supported} on the node (see Preparing a lab host) and set "
        f"nodes.{node.key}.options.{software.option} to where it is"
    )
    try:
        version, where = software.installed(node, access)
    except (NdrPdrError, OSError) as exc:
        first, rest = error_text(exc)
        return failed(step, f"cannot read the {software.name} version: {first}", fix, rest)
    if not is_supported(version, software.supported):
        return failed(
            step,
            f"{software.name} {version} at {where}; the {node.driver} driver supports {supported}",
            fix,
        )
    return passed(step, f"{software.name} {version} at {where}")
