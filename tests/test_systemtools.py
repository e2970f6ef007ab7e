"""systemtools: a missing system tool fails with what installs it, before anything is made.

The missing tool is made missing for real: ``PATH`` points at a directory
of symlinks to every program on this machine's PATH except that tool.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ndrpdr.access.local import LocalTransport
from ndrpdr.localbed.testbed import LocalTestbed
from ndrpdr.systemtools import INSTALL, MissingToolError, require
from ndrpdr.topology.loader import load_topology
from robot_runner import ROOT, child_env

#: The tools issue 15 names, each with its install hint.
TOOLS = ("nft", "tcpreplay", "ip", "dpdk-testpmd", "ovs-vswitchd", "sshd", "t-rex-64", "vpp")


def path_without(directory: Path, *tools: str) -> str:
    """A PATH of one directory: symlinks to the programs on this PATH, except ``tools``."""
    directory.mkdir(exist_ok=True)
    for entry in os.environ.get("PATH", os.defpath).split(os.pathsep):
        folder = Path(entry)
        if not folder.is_dir():
            continue
        for program in folder.iterdir():
            link = directory / program.name
            if program.name in tools or link.exists() or not os.access(program, os.X_OK):
                continue
            link.symlink_to(program)
    return str(directory)


@pytest.fixture
def without_nft(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    if shutil.which("sh") is None:
        pytest.skip("needs sh")
    path = path_without(tmp_path / "bin", "nft", "sshd")
    monkeypatch.setenv("PATH", path)
    return path


def test_every_tool_has_an_install_hint() -> None:
    assert set(INSTALL) == set(TOOLS)
    for tool in ("nft", "tcpreplay", "ip", "dpdk-testpmd", "ovs-vswitchd", "sshd"):
        assert INSTALL[tool].startswith("apt-get install "), tool
    assert "/opt/trex/v3.08" in INSTALL["t-rex-64"]  # where the topologies look for it
    assert "/opt/vpp/v26.06" in INSTALL["vpp"]


@pytest.mark.parametrize("tool", ["nft", "tcpreplay", "ip", "dpdk-testpmd", "ovs-vswitchd"])
def test_the_package_named_installs_the_tool(tool: str) -> None:
    """Where the tool is installed, dpkg says the package of the hint owns it."""
    found = shutil.which(tool, path=os.pathsep.join([os.environ["PATH"], "/usr/sbin", "/sbin"]))
    if found is None or shutil.which("dpkg") is None:
        pytest.skip(f"{tool} or dpkg not installed here")
    owners = set()
    for path in {found, os.path.realpath(found), f"/bin/{tool}", f"/sbin/{tool}"}:
        done = subprocess.run(["dpkg", "-S", path], capture_output=True, text=True, check=False)
        if done.returncode == 0:
            owners.add(done.stdout.split(":")[0])
    if not owners:
        pytest.skip(f"{found} is not from a Debian package")
    assert owners == {INSTALL[tool].removeprefix("apt-get install ")}


def test_require_finds_a_tool_on_path(without_nft: str) -> None:
    assert require("ip") == str(Path(without_nft) / "ip")


def test_require_names_the_tool_and_what_installs_it(without_nft: str) -> None:
    with pytest.raises(MissingToolError) as raised:
        require("nft")
    assert str(raised.value) == "needs nft: apt-get install nftables"


def test_require_looks_in_extra_dirs(tmp_path: Path, without_nft: str) -> None:
    extra = tmp_path / "sbin"
    extra.mkdir()
    (extra / "sshd").write_text("#!/bin/sh\n")
    (extra / "sshd").chmod(0o755)
    assert require("sshd", extra_dirs=[str(extra)]) == str(extra / "sshd")
    with pytest.raises(MissingToolError, match=r"^needs sshd: apt-get install openssh-server$"):
        require("sshd", extra_dirs=[str(tmp_path / "nothing")])


def test_require_on_a_node_runs_command_v_there(without_nft: str) -> None:
    node = LocalTransport("DUT1")
    assert require("ip", node) == str(Path(without_nft) / "ip")
    with pytest.raises(MissingToolError) as raised:
        require("nft", node)
    assert str(raised.value) == "DUT1 needs nft: apt-get install nftables"
    with pytest.raises(MissingToolError) as raised:
        require("t-rex-64", node, binary="/nonexistent/trex/t-rex-64")
    assert str(raised.value) == (
        "DUT1 needs t-rex-64 (/nonexistent/trex/t-rex-64): TRex v3.08's release unpacked "
        "in /opt/trex/v3.08 (docs/lab.rst)"
    )


def test_require_makes_the_callers_error(without_nft: str) -> None:
    with pytest.raises(KeyError) as raised:
        require("nft", LocalTransport("DUT1"), fail=lambda why: KeyError(f"DUT1 (ovs): {why}"))
    assert raised.value.args == ("DUT1 (ovs): needs nft: apt-get install nftables",)


def test_local_testbed_setup_fails_before_making_anything(without_nft: str) -> None:
    testbed = LocalTestbed(load_topology(ROOT / "topologies" / "local-linux.yaml"))
    with pytest.raises(MissingToolError, match=r"^needs nft: apt-get install nftables$"):
        testbed.setup()
    assert not testbed.is_set_up
    assert not testbed.state_file.exists()  # the first thing setup writes
    assert testbed.reaper_pid is None


@pytest.mark.real  # the search's own child starts the local testbed: tests/testkinds.py
@pytest.mark.skipif(os.geteuid() != 0, reason="a local search needs root")
def test_a_local_search_without_nft_says_what_to_install(tmp_path: Path) -> None:
    """The case of issue 15: it used to end with "sh: 6: nft: not found"."""
    env = {**child_env(), "PATH": path_without(tmp_path / "bin", "nft")}
    done = subprocess.run(
        [sys.executable, "-m", "ndrpdr", "search", "--topology", "topologies/local-linux.yaml",
         "--final-trial-duration", "0.1s", "--no-latency", "--console", "none"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    output = done.stdout + done.stderr
    assert done.returncode != 0, output
    assert "needs nft: apt-get install nftables" in output
    assert "not found" not in output
