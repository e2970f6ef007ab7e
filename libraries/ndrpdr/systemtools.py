"""The system tools the testbeds run, and a clear error when one is missing.

Without nftables a local search used to fail with "sh: 6: nft: not found"
half way through setting up. ``require(tool)`` is called where a tool is
first needed, before anything is created where possible, and fails with
``needs nft: apt-get install nftables``. ``INSTALL`` is the one table of
tool -> how to install it. ``first_line`` asks a tool on a node for a line
of text (its version, for the drivers' version probes), failing quietly.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Callable, Sequence

from ndrpdr.access.base import NodeAccess
from ndrpdr.errors import NdrPdrError

#: Each tool -> how to install it (a Debian / Ubuntu package, or where the topologies look for it).
INSTALL: dict[str, str] = {
    "ip": "apt-get install iproute2",
    "nft": "apt-get install nftables",
    "tcpreplay": "apt-get install tcpreplay",
    "dpdk-testpmd": "apt-get install dpdk-dev",  # Debian 12: the dpdk package has only scripts
    "ovs-vswitchd": "apt-get install openvswitch-switch",
    "sshd": "apt-get install openssh-server",
    "t-rex-64": "TRex v3.08's release unpacked in /opt/trex/v3.08 (docs/lab.rst)",
    "vpp": "VPP v26.06 built from source, installed in /opt/vpp/v26.06 (docs/drivers.rst)",
}

#: How long a check on a node may take [s].
CHECK_TIMEOUT_S = 15.0
#: How long ``first_line``'s command may take [s].
FIRST_LINE_TIMEOUT_S = 10.0


class MissingToolError(NdrPdrError):
    """A system tool is not installed; the message says what installs it."""


def missing(tool: str, *, where: str = "", binary: str | None = None) -> MissingToolError:
    """The error for ``tool`` (run as ``binary``) missing on node ``where`` (or this machine)."""
    shown = tool if binary in (None, tool) else f"{tool} ({binary})"
    prefix = f"{where} " if where else ""
    return MissingToolError(f"{prefix}needs {shown}: {INSTALL[tool]}")


def require(
    tool: str,
    node: NodeAccess | None = None,
    *,
    binary: str | None = None,
    extra_dirs: Sequence[str] = (),
    fail: Callable[[str], Exception] | None = None,
) -> str:
    """Where ``tool`` is (its path; ``binary`` if given, a name or path); MissingToolError if not.

    Without ``node``: on this machine, along ``$PATH`` and then ``extra_dirs``.
    With ``node``: ``command -v`` there, as root (as the drivers run their
    tools); a node that cannot be reached raises its own error. ``fail``
    makes the caller's error from the message (``needs X: apt-get install
    Y``) when the caller's errors name the node and step themselves.
    """
    command = binary or tool
    if node is None:
        path = os.pathsep.join([os.environ.get("PATH", os.defpath), *extra_dirs])
        found = shutil.which(command, path=path)
        if found is not None:
            return found
    else:
        result = node.run(
            ["sh", "-c", f"command -v {shlex.quote(command)}"],
            timeout_s=CHECK_TIMEOUT_S,
            sudo=True,
            check=False,
        )
        if result.exit_code == 0:  # command -v prints the path, or exits 1 (127 for a path)
            return result.stdout.strip() or command
    if fail is not None:
        raise fail(str(missing(tool, binary=binary)))
    raise missing(tool, where="" if node is None else node.node, binary=binary)


def first_line(node: NodeAccess, argv: Sequence[str]) -> str | None:
    """The first non-empty line ``argv`` prints on ``node`` (stdout, then stderr), stripped;
    None when it exits with an error. A node that cannot be reached raises its own error."""
    result = node.run(argv, timeout_s=FIRST_LINE_TIMEOUT_S, check=False)
    if result.exit_code != 0:
        return None
    for line in (result.stdout + "\n" + result.stderr).splitlines():
        if line.strip():
            return line.strip()
    return None
