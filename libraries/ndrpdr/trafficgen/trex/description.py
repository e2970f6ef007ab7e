"""The ``trex`` TG driver's description (see ``ndrpdr.drivers``)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from ndrpdr.access.base import NodeAccess
from ndrpdr.drivers import DriverDescription
from ndrpdr.topology.model import Node
from ndrpdr.trafficgen.base import TrafficContext, TrafficGeneratorError
from ndrpdr.trafficgen.trex.astf.driver import TrexAstfTrafficGenerator, check_astf_server
from ndrpdr.trafficgen.trex.driver import TrexTrafficGenerator
from ndrpdr.trafficgen.trex.options import DEFAULT_INSTALL_DIR, TrexOptions
from ndrpdr.trafficgen.trex.session import TrexSession


def make_trex_tg(context: TrafficContext) -> TrexTrafficGenerator:
    """One test's TRex traffic over the testbed's session (the TG factory of the description):
    ASTF trials for a stateful family (skipped when TRex lacks ASTF's schema file), stateless
    streams for the others."""
    if not isinstance(context.session, TrexSession):
        raise TrafficGeneratorError(
            f"{context.topology.tg.key}: the trex TG needs the testbed's TRex session"
        )
    if context.profile.transactions is not None:
        check_astf_server(context.session)
        return TrexAstfTrafficGenerator(
            context.topology, context.profile, context.frame_size, session=context.session
        )
    return TrexTrafficGenerator(
        context.topology,
        context.profile,
        context.frame_size,
        bidirectional=context.bidirectional,
        session=context.session,
    )


#: A TRex install directory named for its version ("v3.08").
_VERSION_DIR = re.compile(r"v[0-9]+\.[0-9]+(?:\.[0-9]+)?")


def trex_version(node: Node, access: NodeAccess) -> str | None:
    """``TRex v3.08`` from the name of its install directory (the version probe); None when
    the directory is not named for a version."""
    directory = PurePosixPath(str(node.options.get("install_dir") or DEFAULT_INSTALL_DIR))
    match = _VERSION_DIR.fullmatch(directory.name)
    return None if match is None else f"TRex {match.group(0)}"


DESCRIPTION = DriverDescription(
    name="trex",
    role="TG",
    summary="TRex on the TG host (stateless; ASTF for stateful families), with TRex's own client",
    options=TrexOptions,
    factory=make_trex_tg,
    access=("ssh", "labbox", "netns", "local"),
    session=TrexSession,
    version=trex_version,
)
