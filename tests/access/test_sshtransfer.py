"""Files over SSH: SFTP put and get, /proc files, sudo, error messages (real sshd)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import MakeSsh
from sshd_server import TEST_USER, SshServer

from ndrpdr.access.base import CommandError, NodeAccessError
from ndrpdr.access.ssh import SshTransport

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py


def test_put_and_get_file(ssh: SshTransport, tmp_path: Path) -> None:
    data = bytes(range(256)) * 12_000  # 3 MB, every byte value
    path = tmp_path / "blob.bin"
    ssh.put_file(data, str(path), mode=0o600)
    assert path.read_bytes() == data
    assert path.stat().st_mode & 0o777 == 0o600
    assert ssh.get_file(str(path)) == data
    ssh.put_file(b"short", str(path))  # overwrite truncates
    assert ssh.get_file(str(path), sudo=True) == b"short"
    assert path.stat().st_mode & 0o777 == 0o644


def test_get_file_reads_proc_files(ssh: SshTransport) -> None:
    assert b"Name:" in ssh.get_file("/proc/self/status")


def test_file_errors_name_node_and_path(ssh: SshTransport, tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such"
    with pytest.raises(NodeAccessError, match=rf"DUT1: cannot read {missing}: .*No such file"):
        ssh.get_file(str(missing))
    with pytest.raises(NodeAccessError, match=rf"DUT1: cannot write {missing}"):
        ssh.put_file(b"x", str(missing))


def test_put_file_with_sudo_as_non_root_cleans_up(sshd: SshServer, make_ssh: MakeSsh) -> None:
    if not sshd.has_test_user:
        pytest.skip("no test user: sshd could not run in a private mount namespace")
    transport = make_ssh(username=TEST_USER)
    before = set(Path("/tmp").glob("ndrpdr-put-*"))
    with pytest.raises(CommandError, match="sudo -n -- install -m 644"):
        transport.put_file(b"data", "/etc/ndrpdr-never-written", sudo=True)
    assert set(Path("/tmp").glob("ndrpdr-put-*")) == before
    assert not Path("/etc/ndrpdr-never-written").exists()
