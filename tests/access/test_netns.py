"""NetnsTransport: commands inside a network namespace (needs root and ``ip netns``)."""

from __future__ import annotations

import os
import shutil
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest
from access_helpers import wait_for

from ndrpdr.access.base import CommandError, CommandTimeoutError
from ndrpdr.access.netns import NetnsTransport

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

DUMMY = "ndt0"
PEER = "ndt1"


@pytest.fixture
def namespace() -> Iterator[str]:
    """A fresh namespace with a veth pair in it (no dummy module needed), deleted afterwards."""
    if os.geteuid() != 0 or shutil.which("ip") is None:
        pytest.skip("needs root and iproute2")
    name = f"ndrpdr-test-{uuid.uuid4().hex[:8]}"
    added = subprocess.run(
        ["ip", "netns", "add", name], check=False, capture_output=True, text=True
    )
    if added.returncode != 0:
        pytest.skip(f"cannot create a network namespace: {added.stderr.strip()}")
    try:
        subprocess.run(
            ["ip", "-n", name, "link", "add", DUMMY, "type", "veth", "peer", "name", PEER],
            check=True,
            capture_output=True,
        )
        yield name
    finally:
        subprocess.run(["ip", "netns", "del", name], check=False, capture_output=True)


@pytest.fixture
def netns(namespace: str) -> Iterator[NetnsTransport]:
    transport = NetnsTransport("DUT1", namespace)
    yield transport
    transport.close()


def test_sees_its_own_sys_class_net(netns: NetnsTransport) -> None:
    assert set(netns.run(["ls", "/sys/class/net"]).stdout.split()) == {"lo", DUMMY, PEER}
    assert netns.get_file(f"/sys/class/net/{DUMMY}/mtu") == b"1500\n"


def test_put_file_writes_sysfs_in_the_namespace(netns: NetnsTransport, namespace: str) -> None:
    netns.put_file(b"1400", f"/sys/class/net/{DUMMY}/mtu")
    shown = subprocess.run(
        ["ip", "-n", namespace, "link", "show", DUMMY], capture_output=True, text=True, check=True
    )
    assert "mtu 1400" in shown.stdout


def test_regular_files_through_the_prefix(netns: NetnsTransport, tmp_path: Path) -> None:
    path = tmp_path / "f.txt"
    data = "text, even UTF-8: \u00e9\n".encode() * 100
    netns.put_file(data, str(path), mode=0o640)
    assert path.read_bytes() == data
    assert path.stat().st_mode & 0o777 == 0o640
    assert netns.get_file(str(path)) == data


def test_binary_get_file_through_the_prefix(netns: NetnsTransport, tmp_path: Path) -> None:
    path = tmp_path / "f.bin"
    data = bytes(range(256))
    netns.put_file(data, str(path))
    assert path.read_bytes() == data
    assert netns.get_file(str(path)) == data


def test_command_error_shows_the_prefix(netns: NetnsTransport, namespace: str) -> None:
    with pytest.raises(CommandError) as caught:
        netns.run(["sh", "-c", "exit 3"])
    assert f"ip netns exec {namespace} sh -c 'exit 3'" in str(caught.value)
    with pytest.raises(CommandTimeoutError):
        netns.run(["sleep", "5"], timeout_s=0.3)


def test_started_process_is_the_real_one_in_the_namespace(netns: NetnsTransport) -> None:
    process = netns.start(["sleep", "60"])
    cmdline = Path(f"/proc/{process.pid}/cmdline")
    # ip netns exec execs the command in place once the namespace is set up.
    assert wait_for(lambda: cmdline.read_bytes() == b"sleep\x0060\x00"), cmdline.read_bytes()
    assert os.readlink(f"/proc/{process.pid}/ns/net") != os.readlink("/proc/self/ns/net")
    assert process.stop() == -2
    assert netns.namespace.startswith("ndrpdr-test-")
