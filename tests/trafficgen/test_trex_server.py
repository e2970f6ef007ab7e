"""server.py: stopping a TRex server also removes the DPDK runtime directory of its --prefix.

A recording node access stands in for the TG (nothing runs): what is
checked is the command sequence. The real server's start and stop, with
no /var/run/dpdk/<prefix> left, run in ``test_trex_real.py``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest

from ndrpdr.access.base import CommandResult
from ndrpdr.trafficgen.trex.options import DEFAULT_INSTALL_DIR, TrexOptions
from ndrpdr.trafficgen.trex.server import TrexServer, dpdk_prefix

#: What systemtools.require checks before the server starts.
TREX_64 = f"{DEFAULT_INSTALL_DIR}/t-rex-64"


class Process:
    pid = 4242

    def __init__(self) -> None:
        self.stopped = False

    def is_running(self) -> bool:
        return not self.stopped

    def stop(self, timeout_s: float = 10.0) -> int | None:
        self.stopped = True
        return 0

    def output(self) -> str:
        return "TRex is shutting down\n"


class Access:
    """Records files, started and run commands."""

    node = "TG"

    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    def run(self, argv: Sequence[str], *, sudo: bool = False, **kwargs: Any) -> CommandResult:
        self.events.append(("run", list(argv), sudo))
        return CommandResult("TG", tuple(argv), 0, "", "", 0.0)

    def start(
        self, argv: Sequence[str], *, sudo: bool = False, env: Mapping[str, str] | None = None
    ) -> Process:
        self.events.append(("start", sudo))
        return Process()

    def put_file(self, data: bytes, path: str, *, mode: int = 0o644, sudo: bool = False) -> None:
        self.events.append(("put_file", path))

    def get_file(self, path: str, *, sudo: bool = False) -> bytes:
        raise AssertionError("not used")

    def close(self) -> None:
        pass


@pytest.mark.parametrize(
    ("args", "prefix"),
    [
        (["--prefix", "trex-7"], "trex-7"),
        (["--hdrh", "--prefix=ndrpdr_1.a"], "ndrpdr_1.a"),
        (["--prefix", "a", "--prefix", "b"], "b"),
        (["--prefix"], None),
        (["--prefix", "../etc"], None),
        (["--prefix", "a/b"], None),
        (["--prefix", ""], None),
        ([], None),
    ],
)
def test_dpdk_prefix(args: list[str], prefix: str | None) -> None:
    assert dpdk_prefix(args) == prefix


def test_stop_removes_the_dpdk_directory_of_its_prefix() -> None:
    access = Access()
    server = TrexServer(access, TrexOptions(extra_args=("--hdrh", "--prefix", "trex-7")), "cfg")
    server.stop()  # not started: nothing to do
    server.start()
    assert server.is_running()
    server.stop()
    assert access.events == [
        ("run", ["sh", "-c", f"command -v {TREX_64}"], True),  # systemtools.require
        ("put_file", "/etc/trex_cfg.yaml"),
        ("start", True),
        ("run", ["rm", "-rf", "--", "/var/run/dpdk/trex-7"], True),
    ]
    assert not server.is_running()
    assert server.log_tail() == "TRex is shutting down"  # the stopped server's log
    server.stop()  # idempotent
    assert len(access.events) == 4


def test_without_a_prefix_nothing_is_removed() -> None:
    access = Access()
    server = TrexServer(access, TrexOptions(extra_args=("--hdrh",)), "cfg")
    server.start()
    server.stop()
    assert [e[0] for e in access.events] == ["run", "put_file", "start"]  # run: the t-rex-64 check


def test_memif_sockets_are_removed_before_each_start_and_after_the_stop() -> None:
    """DPDK does not start a memif server over a stale socket file ("Address already in use")."""
    access = Access()
    sockets = ("/run/x/memif-link1.sock", "/run/x/memif-link2.sock")
    options = TrexOptions(extra_args=("--prefix", "trex-7"))
    server = TrexServer(access, options, "cfg", stale_files=sockets)
    server.start()
    server.stop()
    assert access.events[1:] == [
        ("put_file", "/etc/trex_cfg.yaml"),
        ("run", ["rm", "-f", "--", *sockets], True),
        ("start", True),
        ("run", ["rm", "-rf", "--", "/var/run/dpdk/trex-7", *sockets], True),
    ]
