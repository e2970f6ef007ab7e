"""LibraryContext: finding the topology file, reading it late, SSH passwords, testbed lifecycle."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from library_helpers import CSIT, ROOT, SIM

from ndrpdr.activebed.testbed import ActiveTestbed, TestbedError
from ndrpdr.dut.sim import SimDutDriver
from ndrpdr.topology.errors import TopologyError
from ndrpdr.topology.model import SshAccess
from NdrPdrLibrary.context import DEFAULT_TOPOLOGY, LibraryContext, resolve_topology_path

#: CSIT's DUT1 login lines, replaced by an access block with a password environment variable.
_CSIT_DUT1_LOGIN = """    host: "10.0.0.2"
    port: 22
    arch: x86_64
    username: "testuser"
    password: "example-password"
"""
_DUT1_ACCESS = """    arch: x86_64
    access: {kind: ssh, host: 10.0.0.2, username: testuser, password_env: DUT1_PASSWORD}
"""


def _ssh_access(ctx: LibraryContext, node: str) -> SshAccess:
    access = ctx.topology.nodes[node].access
    assert isinstance(access, SshAccess)
    return access


@pytest.fixture
def env_topology(tmp_path: Path) -> Path:
    """csit-2n-example.yaml (filled in) whose DUT1 reads its password from $DUT1_PASSWORD."""
    text = CSIT.read_text()
    start = text.index("  DUT1:")
    assert _CSIT_DUT1_LOGIN in text[start:], "csit-2n-example.yaml changed: update this test"
    path = tmp_path / "csit-env.yaml"
    path.write_text(text[:start] + text[start:].replace(_CSIT_DUT1_LOGIN, _DUT1_ACCESS))
    return path


# -- resolve_topology_path ------------------------------------------------------------------


def test_absolute_path_is_taken_as_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve_topology_path(SIM) == SIM
    missing = tmp_path / "missing.yaml"
    assert resolve_topology_path(missing) == missing  # even when it does not exist
    assert resolve_topology_path(str(SIM)) == SIM


def test_relative_path_in_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "topologies").mkdir()
    shutil.copy(SIM, tmp_path / "topologies" / "sim.yaml")
    shutil.copy(SIM, tmp_path / "mine.yaml")
    monkeypatch.chdir(tmp_path)
    assert resolve_topology_path("mine.yaml") == Path("mine.yaml")
    # a file in the working directory wins over the checkout's file of the same name
    assert resolve_topology_path(DEFAULT_TOPOLOGY) == Path(DEFAULT_TOPOLOGY)
    assert LibraryContext().topology.source == Path(DEFAULT_TOPOLOGY)


def test_default_falls_back_to_the_checkout(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    resolved = resolve_topology_path(DEFAULT_TOPOLOGY)
    assert resolved == ROOT / "topologies" / "sim.yaml"
    assert resolved.is_absolute()
    # and the other files of the checkout too
    assert resolve_topology_path("topologies/sim-3n.yaml") == ROOT / "topologies" / "sim-3n.yaml"
    assert LibraryContext().topology.tg.driver == "sim"


def test_missing_file_is_reported_by_the_given_name(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert resolve_topology_path("topologies/nope.yaml") == Path("topologies/nope.yaml")
    ctx = LibraryContext("topologies/nope.yaml")
    with pytest.raises(TopologyError) as raised:
        _ = ctx.topology
    message = str(raised.value)
    assert message.startswith("topologies/nope.yaml")
    assert str(ROOT) not in message  # not the checkout path the user never gave


# -- lazy loading ---------------------------------------------------------------------------


def test_nothing_is_read_before_the_topology_is_needed(tmp_path: Path) -> None:
    missing = tmp_path / "absent.yaml"
    ctx = LibraryContext(missing)  # no error yet
    assert ctx.topology_path == str(missing)
    assert ctx.is_set_up is False
    assert ctx.last_record is None
    assert ctx.records_written == 0
    with pytest.raises(TopologyError, match=r"absent\.yaml"):
        _ = ctx.topology
    with pytest.raises(TopologyError, match=r"absent\.yaml"):
        ctx.setup_testbed()
    assert ctx.is_set_up is False
    assert ctx.teardown_testbed() == {}  # nothing to tear down


def test_topology_is_read_once(tmp_path: Path) -> None:
    path = tmp_path / "sim.yaml"
    shutil.copy(SIM, path)
    ctx = LibraryContext(path)
    first = ctx.topology
    path.unlink()
    assert ctx.topology is first  # kept, not read again


def test_a_bad_file_fails_on_first_use(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("nodes: [this is not a topology\n")
    ctx = LibraryContext(path)
    with pytest.raises(TopologyError, match=r"bad\.yaml"):
        _ = ctx.topology


# -- set_password ---------------------------------------------------------------------------


def test_password_lands_in_the_nodes_ssh_access() -> None:
    ctx = LibraryContext(CSIT)
    assert _ssh_access(ctx, "DUT1").password == "example-password"
    ctx.set_password("DUT1", "s3cret")
    access = _ssh_access(ctx, "DUT1")
    assert access.password == "s3cret"
    assert access.password_env is None
    assert access.host == "10.0.0.2"  # the rest of the access is kept
    assert access.username == "testuser"
    assert _ssh_access(ctx, "TG").password == "example-password"  # other nodes untouched
    assert "s3cret" not in repr(ctx.topology.nodes["DUT1"])
    ctx.set_password("TG", "other")
    assert _ssh_access(ctx, "TG").password == "other"
    assert _ssh_access(ctx, "DUT1").password == "s3cret"  # both kept


def test_password_before_the_file_is_read() -> None:
    """set_password reads the topology itself; the password survives later reads."""
    ctx = LibraryContext(CSIT)
    ctx.set_password("DUT1", "early")
    assert _ssh_access(ctx, "DUT1").password == "early"
    assert _ssh_access(ctx, "DUT1").password == "early"


def test_password_replaces_password_env(env_topology: Path) -> None:
    ctx = LibraryContext(env_topology)
    assert _ssh_access(ctx, "DUT1").password_env == "DUT1_PASSWORD"
    assert _ssh_access(ctx, "DUT1").password is None
    ctx.set_password("DUT1", "from-robot")
    access = _ssh_access(ctx, "DUT1")
    assert access.password == "from-robot"
    assert access.password_env is None
    assert access.username == "testuser"


def test_password_for_an_unknown_node() -> None:
    ctx = LibraryContext(CSIT)
    with pytest.raises(TestbedError) as raised:
        ctx.set_password("DUT9", "x")
    message = str(raised.value)
    assert "'DUT9'" in message
    assert "TG" in message and "DUT1" in message  # the nodes there are
    assert _ssh_access(ctx, "DUT1").password == "example-password"


def test_password_for_a_node_not_reached_over_ssh() -> None:
    ctx = LibraryContext(SIM)
    with pytest.raises(TestbedError) as raised:
        ctx.set_password("DUT1", "x")
    assert "nodes.DUT1 is not reached over SSH" in str(raised.value)


def test_password_after_setup() -> None:
    ctx = LibraryContext(SIM)
    ctx.setup_testbed()
    try:
        with pytest.raises(TestbedError) as raised:
            ctx.set_password("DUT1", "x")
        assert "'DUT1'" in str(raised.value)
        assert "before the testbed is set up" in str(raised.value)
    finally:
        ctx.teardown_testbed()


# -- setup / teardown -----------------------------------------------------------------------


def test_setup_and_teardown_are_idempotent() -> None:
    ctx = LibraryContext(SIM)
    assert ctx.is_set_up is False
    testbed = ctx.setup_testbed()
    assert isinstance(testbed, ActiveTestbed)
    assert ctx.is_set_up is True
    assert ctx.setup_testbed() is testbed
    assert ctx.testbed is testbed
    testbed.configure_duts("ip4base")
    dut = testbed.duts["DUT1"]
    assert isinstance(dut, SimDutDriver)
    assert dut.running is True
    telemetry = ctx.teardown_testbed()
    assert ctx.is_set_up is False
    assert dut.running is False
    assert "running" in telemetry["DUT1"]["state"]  # kept before the stop
    assert ctx.teardown_testbed() == {}  # again: nothing left
    assert ctx.is_set_up is False


def test_testbed_property_sets_up_on_first_use() -> None:
    ctx = LibraryContext(SIM)
    testbed = ctx.testbed
    try:
        assert ctx.is_set_up is True
        assert set(testbed.duts) == {"DUT1"}
    finally:
        ctx.teardown_testbed()
    again = ctx.testbed  # a new testbed after teardown
    try:
        assert again is not testbed
        assert ctx.is_set_up is True
    finally:
        assert ctx.teardown_testbed() == {}  # no DUT was started, no telemetry
