"""open_access: the transport that matches a node's access."""

from __future__ import annotations

import pytest

from ndrpdr.access.factory import open_access
from ndrpdr.access.local import LocalTransport
from ndrpdr.access.netns import NetnsTransport
from ndrpdr.access.ssh import SshTransport
from ndrpdr.topology.model import Access, LocalAccess, NetnsAccess, Node, SshAccess


def _node(access: Access, key: str = "DUT1") -> Node:
    return Node(key=key, type="DUT", driver="linux", access=access, interfaces={})


def test_local() -> None:
    transport = open_access(_node(LocalAccess(sudo=True), key="TG"))
    assert type(transport) is LocalTransport
    assert transport.node == "TG"


def test_netns_uses_the_given_namespace() -> None:
    logical = open_access(_node(NetnsAccess("dut1")))
    assert isinstance(logical, NetnsTransport) and logical.namespace == "dut1"
    per_run = open_access(_node(NetnsAccess("dut1")), namespace="ndrpdr-1234-dut1")
    assert isinstance(per_run, NetnsTransport) and per_run.namespace == "ndrpdr-1234-dut1"


def test_ssh_does_not_connect_yet() -> None:
    access = SshAccess(host="192.0.2.1", port=2222)  # TEST-NET-1: never reachable
    transport = open_access(_node(access))
    assert isinstance(transport, SshTransport)
    assert transport.access is access
    assert transport.paramiko_transport is None
    transport.close()


@pytest.mark.parametrize("access", [LocalAccess(), SshAccess(host="192.0.2.1")])
def test_namespace_only_for_netns(access: Access) -> None:
    with pytest.raises(ValueError, match="DUT1: namespace 'x' given"):
        open_access(_node(access), namespace="x")
