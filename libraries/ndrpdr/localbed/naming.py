"""Per-run names: run ids and the network namespaces they own.

A generated run id is ``"<pid>-<4 hex digits>"``: the creator's PID (so
a leftover namespace tells whose it was even without a state file) and a
random suffix (so two runs of one process never collide). A run's
namespaces are ``ndrpdr-<run id>-<logical name>``.
"""

from __future__ import annotations

import dataclasses
import os
import re
import secrets

from ndrpdr.localbed.errors import LocalTestbedError

#: Every namespace of every run starts with this.
NAMESPACE_PREFIX = "ndrpdr-"

#: Run ids and logical namespace names: short and safe as file and shell words.
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")

#: Interface names the kernel accepts and nft/ip batch lines keep as one word.
_IFNAME = re.compile(r"[A-Za-z0-9_.-]{1,15}")

#: A namespace named after a generated run id: the PID is recoverable.
_GENERATED = re.compile(rf"{re.escape(NAMESPACE_PREFIX)}(?P<pid>[0-9]+)-(?P<suffix>[0-9a-f]{{4}})-")


def new_run_id(pid: int | None = None) -> str:
    """A fresh run id: ``"<pid>-<4 random hex digits>"`` (pid defaults to this process)."""
    return f"{os.getpid() if pid is None else pid}-{secrets.token_hex(2)}"


def check_run_id(run_id: str) -> str:
    """``run_id`` unchanged, or LocalTestbedError if it is not a short safe word."""
    if not isinstance(run_id, str) or not _WORD.fullmatch(run_id):
        raise LocalTestbedError(
            f"run id {run_id!r} is not valid: use 1-32 letters, digits, '_', '.', '-' "
            "(starting with a letter or digit)"
        )
    return run_id


def check_logical_name(node: str, name: str) -> str:
    """A topology's logical namespace name, or LocalTestbedError naming the node."""
    if not isinstance(name, str) or not _WORD.fullmatch(name):
        raise LocalTestbedError(
            f"node {node}: namespace {name!r} is not valid: use 1-32 letters, digits, "
            "'_', '.', '-' (starting with a letter or digit)"
        )
    return name


def check_ifname(node: str, key: str, name: str | None) -> str:
    """An interface name usable for a veth, or LocalTestbedError naming the node and port."""
    if name is None:
        raise LocalTestbedError(f"node {node}: interface {key} has no name (needed for a veth)")
    if not _IFNAME.fullmatch(name):
        raise LocalTestbedError(
            f"node {node}: interface {key} name {name!r} is not valid: use 1-15 letters, "
            "digits, '_', '.', '-'"
        )
    return name


def check_root_ifname(run_id: str, name: str) -> str:
    """A root-namespace interface name of run ``run_id``, or LocalTestbedError."""
    if not isinstance(name, str) or not _IFNAME.fullmatch(name) or name in (".", ".."):
        raise LocalTestbedError(
            f"run {run_id}: interface name {name!r} is not valid: use 1-15 letters, "
            "digits, '_', '.', '-'"
        )
    return name


def namespace_name(run_id: str, logical: str) -> str:
    """The real namespace name of ``logical`` in run ``run_id``."""
    return f"{NAMESPACE_PREFIX}{run_id}-{logical}"


@dataclasses.dataclass(frozen=True)
class ParsedNamespace:
    """What a generated namespace name tells: the creator's PID and the run id."""

    pid: int
    run_id: str


def parse_namespace(name: str) -> ParsedNamespace | None:
    """The creator PID and run id of a namespace named after a generated run id, else None."""
    match = _GENERATED.match(name)
    if match is None:
        return None
    return ParsedNamespace(int(match["pid"]), f"{match['pid']}-{match['suffix']}")
