"""The ``trex`` TG driver's description (see ``ndrpdr.drivers``)."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from ndrpdr.access.base import NodeAccess
from ndrpdr.access.procstate import describe_exit
from ndrpdr.drivers import DriverDescription, Software
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


#: The TRex releases the driver is written and checked against (server and its own client).
SUPPORTED_TREX = ("v3.08",)
#: The server binaries of an install directory: the one for CPUs with AVX, then the other.
_SERVERS = ("_t-rex-64", "_t-rex-64-o")
#: The version line of ``_t-rex-64 --help`` ("Version : v3.08").
_HELP_VERSION = re.compile(r"^\s*Version\s*:\s*(v[0-9]+\.[0-9]+\S*)", re.MULTILINE)


def trex_installed_version(node: Node, access: NodeAccess) -> tuple[str, str]:
    """``("v3.08", install_dir)`` from what the server binary of ``install_dir`` prints with
    ``--help`` (what ``ndrpdr check`` compares; nothing is started, no root needed);
    TrafficGeneratorError when neither binary says."""
    directory = str(node.options.get("install_dir") or DEFAULT_INSTALL_DIR)
    said = []
    for name in _SERVERS:
        binary = f"{directory}/{name}"
        # run from the install directory: the binaries find their libraries (so/<arch>) from it
        result = access.run(["env", "-C", directory, f"./{name}", "--help"], check=False)
        found = _HELP_VERSION.search(result.stdout)
        if found is not None:
            return found.group(1), directory
        output = f"{result.stdout}{result.stderr}".strip().splitlines()
        status = describe_exit(result.exit_code, shell=True)
        said.append(f"{binary} --help: {status}: {output[-1] if output else 'no output'}")
    raise TrafficGeneratorError("; ".join(said))


DESCRIPTION = DriverDescription(
    name="trex",
    role="TG",
    summary="TRex on the TG host (stateless; ASTF for stateful families), with TRex's own client",
    options=TrexOptions,
    factory=make_trex_tg,
    access=("ssh", "labbox", "netns", "local"),
    session=TrexSession,
    version=trex_version,
    software=Software(
        name="TRex",
        supported=SUPPORTED_TREX,
        installed=trex_installed_version,
        option="install_dir",
    ),
)
