"""Logging in over SSH: keys, passwords, host keys, and the messages when it fails.

The first tests log in to a real sshd; the last ones call sshlogin's
functions directly, for the cases no local server can produce.
"""

from __future__ import annotations

import logging
import socket
import subprocess
from pathlib import Path

import paramiko
import pytest
from conftest import MakeSsh
from sshd_server import TEST_UID, TEST_USER, SshServer

from ndrpdr.access import sshlogin
from ndrpdr.access.base import NodeAccessError
from ndrpdr.topology.model import SshAccess

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py


def test_inline_priv_key_of_another_type(sshd: SshServer, make_ssh: MakeSsh) -> None:
    transport = make_ssh(key_file=None, priv_key=sshd.user_key_ecdsa.read_text())
    assert transport.run(["id", "-u"]).stdout.strip() == "0"


def test_inline_priv_key_garbage(make_ssh: MakeSsh) -> None:
    transport = make_ssh(key_file=None, priv_key="not a key")
    with pytest.raises(NodeAccessError, match="DUT1: priv_key is not a private key"):
        transport.run(["true"])


def test_unknown_host_key_is_rejected_with_instructions(
    sshd: SshServer, make_ssh: MakeSsh, tmp_path: Path
) -> None:
    empty = tmp_path / "known_hosts"
    empty.write_text("")
    transport = make_ssh(known_hosts=str(empty))
    with pytest.raises(NodeAccessError) as caught:
        transport.run(["true"])
    message = str(caught.value)
    assert message.startswith(f"DUT1: cannot connect to root@127.0.0.1:{sshd.port} over SSH")
    assert "ssh-ed25519 SHA256:" in message
    assert f"not in known_hosts {empty}" in message
    assert f"ssh-keyscan -p {sshd.port} 127.0.0.1 >> {empty}" in message
    assert "check_host_key: false" in message
    missing = make_ssh(known_hosts=str(tmp_path / "absent"))
    with pytest.raises(NodeAccessError, match=r"absent \(missing\)"):
        missing.run(["true"])


def test_changed_host_key_is_rejected(sshd: SshServer, make_ssh: MakeSsh, tmp_path: Path) -> None:
    wrong = tmp_path / "known_hosts"
    wrong_key = sshd.wrong_key.with_suffix(".pub").read_text().split()
    wrong.write_text(f"[127.0.0.1]:{sshd.port} {wrong_key[0]} {wrong_key[1]}\n")
    transport = make_ssh(known_hosts=str(wrong))
    with pytest.raises(NodeAccessError) as caught:
        transport.run(["true"])
    message = str(caught.value)
    assert "does not match known_hosts" in message
    assert f"ssh-keygen -R '[127.0.0.1]:{sshd.port}' -f {wrong}" in message


def test_host_key_check_opt_out(
    sshd: SshServer, make_ssh: MakeSsh, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    wrong = tmp_path / "known_hosts"
    wrong_key = sshd.wrong_key.with_suffix(".pub").read_text().split()
    wrong.write_text(f"[127.0.0.1]:{sshd.port} {wrong_key[0]} {wrong_key[1]}\n")
    before = wrong.read_text()
    transport = make_ssh(known_hosts=str(wrong), check_host_key=False)
    with caplog.at_level(logging.WARNING, logger="ndrpdr.access.ssh"):
        assert transport.run(["echo", "ok"]).stdout == "ok\n"
    assert "host key of 127.0.0.1:" in caplog.text and "not checked" in caplog.text
    assert wrong.read_text() == before  # nothing written


def test_wrong_key_says_authentication_failed(sshd: SshServer, make_ssh: MakeSsh) -> None:
    transport = make_ssh(key_file=str(sshd.wrong_key))
    with pytest.raises(NodeAccessError) as caught:
        transport.run(["true"])
    message = str(caught.value)
    assert "authentication failed" in message
    assert f"key_file {sshd.wrong_key}" in message


def test_missing_key_file(make_ssh: MakeSsh, tmp_path: Path) -> None:
    transport = make_ssh(key_file=str(tmp_path / "nope"))
    with pytest.raises(NodeAccessError, match=r"DUT1: cannot read key_file .*nope"):
        transport.run(["true"])


def test_encrypted_key_file_without_agent(make_ssh: MakeSsh, tmp_path: Path) -> None:
    key = tmp_path / "encrypted"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-a", "1", "-N", "secret", "-f", str(key)],
        check=True,
        stdin=subprocess.DEVNULL,
    )
    transport = make_ssh(key_file=str(key), use_agent=False)
    with pytest.raises(NodeAccessError, match=r"key_file .*encrypted is encrypted; load it into"):
        transport.run(["true"])


def test_no_authentication_method(make_ssh: MakeSsh) -> None:
    transport = make_ssh(key_file=None)
    with pytest.raises(NodeAccessError, match="no method to try"):
        transport.run(["true"])


def test_password_env_unset_names_the_variable(
    make_ssh: MakeSsh, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NDRPDR_TEST_SSH_PASSWORD", raising=False)
    transport = make_ssh(key_file=None, password_env="NDRPDR_TEST_SSH_PASSWORD")
    with pytest.raises(NodeAccessError, match="NDRPDR_TEST_SSH_PASSWORD is not set"):
        transport.run(["true"])


def test_password_authentication(
    sshd: SshServer, make_ssh: MakeSsh, monkeypatch: pytest.MonkeyPatch
) -> None:
    if sshd.test_user_password is None:
        pytest.skip("no test user with a password: sshd could not run in a private mount namespace")
    monkeypatch.setenv("NDRPDR_TEST_SSH_PASSWORD", sshd.test_user_password)
    by_env = make_ssh(username=TEST_USER, key_file=None, password_env="NDRPDR_TEST_SSH_PASSWORD")
    assert by_env.run(["id", "-u"]).stdout.strip() == str(TEST_UID)
    inline = make_ssh(username=TEST_USER, key_file=None, password=sshd.test_user_password)
    assert inline.run(["id", "-un"]).stdout.strip() == TEST_USER
    monkeypatch.setenv("NDRPDR_TEST_SSH_PASSWORD", "wrong")
    wrong = make_ssh(username=TEST_USER, key_file=None, password_env="NDRPDR_TEST_SSH_PASSWORD")
    with pytest.raises(NodeAccessError, match=r"authentication failed.*password from \$NDRPDR"):
        wrong.run(["true"])


# -- sshlogin's functions alone ------------------------------------------------


def test_host_port_brackets_an_ipv6_address() -> None:
    assert sshlogin.host_port(SshAccess(host="fe80::1", port=2222)) == "[fe80::1]:2222"
    assert sshlogin.host_port(SshAccess(host="dut1.lab")) == "dut1.lab:22"


def test_encrypted_key_file_is_left_to_the_agent(tmp_path: Path) -> None:
    key = tmp_path / "encrypted"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-a", "1", "-N", "secret", "-f", str(key)],
        check=True,
        stdin=subprocess.DEVNULL,
    )
    assert sshlogin.key_file_usable("DUT1", str(key), use_agent=True) is False
    plain = tmp_path / "plain"
    subprocess.run(
        ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(plain)],
        check=True,
        stdin=subprocess.DEVNULL,
    )
    assert sshlogin.key_file_usable("DUT1", str(plain), use_agent=True) is True


def test_password_env_before_the_inline_password(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NDRPDR_TEST_SSH_PASSWORD", "from-env")
    both = SshAccess(host="h", password_env="NDRPDR_TEST_SSH_PASSWORD", password="inline")
    from_env = ("from-env", "password from $NDRPDR_TEST_SSH_PASSWORD")
    assert sshlogin.password("DUT1", both) == from_env
    inline = SshAccess(host="h", password="inline")
    assert sshlogin.password("DUT1", inline) == ("inline", "inline password")
    assert sshlogin.password("DUT1", SshAccess(host="h")) == (None, None)


@pytest.mark.parametrize(
    ("exc", "transient"),
    [
        (EOFError(), True),
        (paramiko.SSHException("Error reading SSH protocol banner"), False),
        (paramiko.SSHException("No existing session"), False),
        (paramiko.SSHException("No authentication methods available"), False),
        (paramiko.SSHException("Incompatible ssh peer"), True),
        (paramiko.AuthenticationException("Authentication failed."), False),
        (ConnectionRefusedError(111, "Connection refused"), False),
    ],
)
def test_only_a_handshake_hiccup_is_retried(exc: BaseException, transient: bool) -> None:
    assert sshlogin.is_transient(exc) is transient


@pytest.mark.parametrize(
    ("exc", "said"),
    [
        (
            socket.gaierror(-2, "Name or service not known"),
            "cannot resolve host name 'dut1.lab': Name or service not known",
        ),
        (TimeoutError(), "no answer within 3 s (connect_timeout_s)"),
        (EOFError(), "the server closed the connection during the handshake"),
        (paramiko.SSHException("Incompatible ssh peer"), "SSH error: Incompatible ssh peer"),
        (
            paramiko.ssh_exception.NoValidConnectionsError(
                {("10.0.0.1", 22): OSError(113, "No route to host")}
            ),
            "host unreachable (",
        ),
    ],
)
def test_connect_errors_in_words(exc: BaseException, said: str, tmp_path: Path) -> None:
    access = SshAccess(host="dut1.lab", connect_timeout_s=3.0)
    text = sshlogin.describe_connect_error(exc, access, ["key_file k"], tmp_path / "kh")
    assert text.startswith(said), text
