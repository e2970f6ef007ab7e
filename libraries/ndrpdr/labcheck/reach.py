"""The ``reach`` step: a node answers a command through its access, and sudo needs no password."""

from __future__ import annotations

from ndrpdr.access.base import NodeAccess
from ndrpdr.errors import NdrPdrError
from ndrpdr.labcheck.outcome import Outcome, error_text, failed, passed
from ndrpdr.topology.model import LocalAccess, NetnsAccess, Node, SshAccess

#: How long a node may take to answer ``true`` [s] (an SSH login included).
REACH_TIMEOUT_S = 30.0


def access_text(node: Node) -> str:
    """How the node is reached, in words ("ssh testuser@10.0.0.2:22")."""
    access = node.access
    if isinstance(access, SshAccess):
        return f"ssh {access.username}@{access.host}:{access.port}"
    if isinstance(access, NetnsAccess):
        return f"namespace {access.namespace} of this machine"
    return "this machine" + (" (through sudo)" if getattr(access, "sudo", False) else "")


def _checks_sudo(node: Node) -> bool:
    """True when the drivers' commands as root go through ``sudo -n`` on the node."""
    access = node.access
    if isinstance(access, SshAccess):
        return access.username != "root"
    return isinstance(access, LocalAccess) and access.sudo


def _reach_fix(node: Node) -> str:
    access = node.access
    if isinstance(access, SshAccess):
        return (
            f"check that {access.host} is up and answers SSH on port {access.port}, that the "
            f"key (nodes.{node.key}.access.key_file, or the SSH agent) is in "
            f"{access.username}'s ~/.ssh/authorized_keys there, and that its host key is in "
            f"known_hosts (ssh-keyscan -p {access.port} {access.host} >> ~/.ssh/known_hosts)"
        )
    return "run ndrpdr as a user that may run commands there (root for network namespaces)"


def check_reach(node: Node, access: NodeAccess) -> Outcome:
    """``reach <node>``: ``true`` runs on the node (and ``sudo -n true`` where root goes
    through sudo)."""
    step, where = f"reach {node.key}", access_text(node)
    try:
        access.run(["true"], timeout_s=REACH_TIMEOUT_S)
    except (NdrPdrError, OSError) as exc:
        first, rest = error_text(exc)
        return failed(step, f"{where}: {first}", _reach_fix(node), rest)
    if not _checks_sudo(node):
        return passed(step, where)
    try:
        result = access.run(["true"], sudo=True, check=False, timeout_s=REACH_TIMEOUT_S)
    except (NdrPdrError, OSError) as exc:
        first, rest = error_text(exc)
        return failed(step, f"{where}: sudo -n true: {first}", _reach_fix(node), rest)
    if result.exit_code != 0:
        user = node.access.username if isinstance(node.access, SshAccess) else "this user"
        said = result.stderr.strip().splitlines()
        return failed(
            step,
            f"{where}: sudo -n true exited {result.exit_code}" + (f" ({said[-1]})" if said else ""),
            f"let {user} run sudo without a password there (a file in /etc/sudoers.d/ with "
            f"'{user} ALL=(ALL) NOPASSWD: ALL')",
        )
    return passed(step, f"{where}, sudo without a password")
