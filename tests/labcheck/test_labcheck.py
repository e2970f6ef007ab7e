"""``ndrpdr check``'s steps on a scripted lab: the line of every PASS and of each FAIL path.

The nodes answer from a script (``labcheck_helpers.ScriptedAccess``) and
the trial is a stand-in, so every failure a lab can show is tested
without one: a node that cannot be reached, sudo that asks for a
password, a VPP or TRex of another release or none, a port the node
lacks, a MAC that differs, a trial that loses frames or fails. (VPP
cannot run on the machines the tests run on; its version probe is
tested here only.)
"""

from __future__ import annotations

from pathlib import Path

import pytest
from labcheck_helpers import (
    LAB_YAML,
    VPP_LINE,
    FakeTestbed,
    ScriptedAccess,
    check_lines,
    good_trial,
    healthy_lab,
    trex_help,
    write_lab,
)

from ndrpdr.activebed.testbed import TestbedError
from ndrpdr.dut.vpp.cli import vpp_installed_version
from ndrpdr.errors import NdrPdrError
from ndrpdr.labcheck import CheckSettings, run_check
from ndrpdr.labcheck.versions import is_supported
from ndrpdr.search.trial import TrialResult
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.trex.description import trex_installed_version

ROOT = Path(__file__).resolve().parents[2]
TREX_HELP_ARGV = ("env", "-C", "/opt/trex/v3.08", "./_t-rex-64", "--help")
TREX_HELP_O_ARGV = ("env", "-C", "/opt/trex/v3.08", "./_t-rex-64-o", "--help")
VPP_ARGV = ("/usr/bin/vpp", "--version")
SSH_FIX = (
    "check that 10.0.0.2 is up and answers SSH on port 22, that the key "
    "(nodes.DUT1.access.key_file, or the SSH agent) is in testuser's ~/.ssh/authorized_keys "
    "there, and that its host key is in known_hosts "
    "(ssh-keyscan -p 22 10.0.0.2 >> ~/.ssh/known_hosts)"
)
TRIAL_FIX = (
    "check that the file's links are the cables (ndrpdr validate --plan {file} prints the "
    "path) and that the DUTs forward (ndrpdr -v trial --topology {file} with the same options)"
)


def _line(lines: list[str], start: str) -> str:
    """The one line that starts with ``start``."""
    found = [line for line in lines if line.startswith(start)]
    assert len(found) == 1, f"{start!r} in {lines}"
    return found[0]


def test_a_healthy_lab_passes_every_step_in_order(tmp_path: Path) -> None:
    lab = write_lab(tmp_path)
    accesses = healthy_lab()
    assert check_lines(lab, accesses) == [
        f"PASS topology: {lab}: TG (trex), DUT1 (vpp); 2-node path",
        "PASS reach TG: ssh testuser@10.0.0.1:22, sudo without a password",
        "PASS reach DUT1: ssh testuser@10.0.0.2:22, sudo without a password",
        "PASS version TG: TRex v3.08 at /opt/trex/v3.08",
        "PASS version DUT1: VPP v26.06-release at /usr/bin/vpp",
        "PASS ports TG: port1 0000:17:00.0 (bound to vfio-pci), "
        "port2 0000:17:00.1 (bound to vfio-pci)",
        "PASS ports DUT1: port1 0000:18:00.0 (ens4), port2 ens5",
        "PASS macs TG: port1, port2 not read (bound to vfio-pci: no kernel interface shows "
        "the MAC)",
        "PASS macs DUT1: port1, port2 as in the file",
        "PASS trial: 10 kpps for 1 s (ethip4-ip4base, 64 B): 10000 frames sent, "
        "10000 received, no loss",
    ]
    # as root through sudo -n, never a password; every connection closed
    assert (("true",), True) in accesses["DUT1"].calls
    assert all(access.closed for access in accesses.values())
    # port3 is on no link: no run uses it, so it is not looked for
    assert not any("0000:99:00.0" in " ".join(argv) for argv, _ in accesses["DUT1"].calls)


def test_a_node_that_cannot_be_reached_fails_reach_and_skips_its_steps_and_the_trial(
    tmp_path: Path,
) -> None:
    lab = write_lab(tmp_path)
    accesses = healthy_lab()
    accesses["DUT1"].down = "DUT1: cannot connect to 10.0.0.2:22: timed out"
    lines = check_lines(lab, accesses)
    assert _line(lines, "FAIL reach DUT1") == (
        "FAIL reach DUT1: ssh testuser@10.0.0.2:22: DUT1: cannot connect to 10.0.0.2:22: "
        f"timed out — fix: {SSH_FIX}"
    )
    assert [line for line in lines[1:] if "DUT1" in line][1:] == [
        "SKIP version DUT1: reach DUT1 failed",
        "SKIP ports DUT1: reach DUT1 failed",
        "SKIP macs DUT1: reach DUT1 failed",
    ]
    assert _line(lines, "PASS version TG")  # the other node is still checked
    assert lines[-1] == "SKIP trial: an earlier step failed"


def test_sudo_that_asks_for_a_password_fails_reach(tmp_path: Path) -> None:
    accesses = healthy_lab()
    accesses["TG"].sudo_reply = (1, "", "sudo: a password is required\n")
    lines = check_lines(write_lab(tmp_path), accesses)
    assert _line(lines, "FAIL reach TG") == (
        "FAIL reach TG: ssh testuser@10.0.0.1:22: sudo -n true exited 1 (sudo: a password "
        "is required) — fix: let testuser run sudo without a password there (a file in "
        "/etc/sudoers.d/ with 'testuser ALL=(ALL) NOPASSWD: ALL')"
    )


def test_a_trex_of_another_release_fails_version(tmp_path: Path) -> None:
    accesses = healthy_lab()
    accesses["TG"].script[TREX_HELP_ARGV] = (0, trex_help("v3.06"), "")
    lines = check_lines(write_lab(tmp_path), accesses)
    assert _line(lines, "FAIL version TG") == (
        "FAIL version TG: TRex v3.06 at /opt/trex/v3.08; the trex driver supports v3.08 — fix: "
        "install TRex v3.08 on the node (see Preparing a lab host) and set "
        "nodes.TG.options.install_dir to where it is"
    )
    assert lines[-1] == "SKIP trial: an earlier step failed"


def test_a_vpp_of_another_release_fails_version(tmp_path: Path) -> None:
    accesses = healthy_lab()
    accesses["DUT1"].script[VPP_ARGV] = (0, VPP_LINE.format(version="v25.10-release"), "")
    lines = check_lines(write_lab(tmp_path), accesses)
    assert _line(lines, "FAIL version DUT1") == (
        "FAIL version DUT1: VPP v25.10-release at /usr/bin/vpp; the vpp driver supports "
        "v26.06 — fix: install VPP v26.06 on the node (see Preparing a lab host) and set "
        "nodes.DUT1.options.binary to where it is"
    )


def test_no_vpp_on_the_node_fails_version(tmp_path: Path) -> None:
    accesses = healthy_lab()
    accesses["DUT1"].script[VPP_ARGV] = (127, "", "sh: 1: /usr/bin/vpp: not found\n")
    lines = check_lines(write_lab(tmp_path), accesses)
    assert _line(lines, "FAIL version DUT1") == (
        "FAIL version DUT1: cannot read the VPP version: /usr/bin/vpp --version: exit status "
        "127: sh: 1: /usr/bin/vpp: not found — fix: install VPP v26.06 on the node (see "
        "Preparing a lab host) and set nodes.DUT1.options.binary to where it is"
    )


def test_a_vpp_that_dies_on_this_cpu_fails_version_naming_the_signal(tmp_path: Path) -> None:
    accesses = healthy_lab()
    accesses["DUT1"].script[VPP_ARGV] = (132, "", "Illegal instruction (core dumped)\n")
    lines = check_lines(write_lab(tmp_path), accesses)
    assert _line(lines, "FAIL version DUT1").startswith(
        "FAIL version DUT1: cannot read the VPP version: /usr/bin/vpp --version: killed by "
        "SIGILL (exit status 132): Illegal instruction (core dumped) — fix: "
    )


def test_no_trex_in_the_install_dir_fails_version(tmp_path: Path) -> None:
    accesses = healthy_lab()
    missing = (127, "", "env: './_t-rex-64': No such file or directory\n")
    accesses["TG"].script[TREX_HELP_ARGV] = missing
    accesses["TG"].script[TREX_HELP_O_ARGV] = (127, "", "env: './_t-rex-64-o': No such file\n")
    lines = check_lines(write_lab(tmp_path), accesses)
    assert _line(lines, "FAIL version TG") == (
        "FAIL version TG: cannot read the TRex version: /opt/trex/v3.08/_t-rex-64 --help: "
        "exit status 127: env: './_t-rex-64': No such file or directory; "
        "/opt/trex/v3.08/_t-rex-64-o --help: exit status 127: env: './_t-rex-64-o': "
        "No such file — fix: install TRex v3.08 on the node (see Preparing a lab host) and "
        "set nodes.TG.options.install_dir to where it is"
    )


def test_a_missing_port_fails_ports_and_skips_macs(tmp_path: Path) -> None:
    accesses = healthy_lab()
    device = "/sys/bus/pci/devices/0000:18:00.0"
    accesses["DUT1"].script[("readlink", "-e", device)] = (1, "", "")
    accesses["DUT1"].script[("ip", "-o", "link", "show", "dev", "ens5")] = (
        1,
        "",
        'Device "ens5" does not exist.\n',
    )
    lines = check_lines(write_lab(tmp_path), accesses)
    assert _line(lines, "FAIL ports DUT1") == (
        "FAIL ports DUT1: port1 (0000:18:00.0): no such PCI device; port2 (ens5): no such "
        "interface — fix: set nodes.DUT1.interfaces.port1.pci_address to a port the node has "
        "(lspci -D and ip -br link list them)"
    )
    assert _line(lines, "SKIP macs DUT1") == "SKIP macs DUT1: ports DUT1 failed"
    assert lines[-1] == "SKIP trial: an earlier step failed"


def test_a_mac_that_differs_from_the_file_fails_macs(tmp_path: Path) -> None:
    accesses = healthy_lab()
    netdev_mac = ("cat", "/sys/class/net/ens4/address")
    accesses["DUT1"].script[netdev_mac] = (0, "B4:96:91:00:00:99\n", "")
    lines = check_lines(write_lab(tmp_path), accesses)
    assert _line(lines, "FAIL macs DUT1") == (
        "FAIL macs DUT1: port1 (0000:18:00.0) has b4:96:91:00:00:99, the file says "
        "b4:96:91:00:00:50 — fix: set nodes.DUT1.interfaces.port1.mac_address to "
        "b4:96:91:00:00:99 (or correct the port's pci_address / name if it is the wrong port)"
    )


def test_a_trial_that_loses_frames_fails(tmp_path: Path) -> None:
    lab = write_lab(tmp_path)

    def lossy(testbed: FakeTestbed) -> tuple[str, TrialResult]:
        assert testbed.entered == 1  # measured on a set-up testbed
        return "10 kpps for 1 s (ethip4-ip4base, 64 B)", TrialResult(1.0, 10_000, 10_000, 0)

    lines = check_lines(lab, healthy_lab(), trial=lossy)
    assert lines[-1] == (
        "FAIL trial: 10 kpps for 1 s (ethip4-ip4base, 64 B): 10000 frames sent, 0 received "
        f"(100 % lost) — fix: {TRIAL_FIX.format(file=lab)}"
    )


def test_a_trial_that_raises_fails_with_the_first_line_of_the_error(tmp_path: Path) -> None:
    lab = write_lab(tmp_path)

    def broken(testbed: FakeTestbed) -> tuple[str, TrialResult]:
        raise NdrPdrError("TG: TRex server did not start\nits log tail:\n  EAL: no hugepages")

    lines = check_lines(lab, healthy_lab(), trial=broken)
    assert lines[-1] == (
        "FAIL trial: TG: TRex server did not start — fix: see the set-up step by step with: "
        f"ndrpdr -v trial --topology {lab} with the same options"
    )


def test_nodes_the_run_makes_that_cannot_be_built_fail_build_and_skip_the_rest() -> None:
    topology = ROOT / "topologies" / "local-linux.yaml"

    class Unbuildable(FakeTestbed):
        def setup(self) -> None:
            raise TestbedError("local testbed: ip netns add: Operation not permitted\nip: ...")

        def teardown(self) -> None:
            raise AssertionError("nothing was built, nothing to tear down")

    settings = CheckSettings(topology, trial=good_trial, make_testbed=lambda t, n: Unbuildable())
    lines = [outcome.line for outcome in run_check(settings)]
    assert lines[1:] == [
        "FAIL build: local testbed: ip netns add: Operation not permitted — fix: run ndrpdr as "
        f"root (it makes network namespaces); ndrpdr -v trial --topology {topology} shows the "
        "set-up step by step",
        "SKIP reach: the nodes made for the run could not be built",
        "SKIP version: the nodes made for the run could not be built",
        "SKIP ports: the nodes made for the run could not be built",
        "SKIP macs: the nodes made for the run could not be built",
        "SKIP trial: the nodes made for the run could not be built",
    ]


def test_no_trial_says_so_and_sends_nothing(tmp_path: Path) -> None:
    lines = check_lines(write_lab(tmp_path), healthy_lab(), trial=None)
    assert lines[-1] == "SKIP trial: --no-trial"
    assert not any(line.startswith("FAIL") for line in lines)


def test_a_bad_topology_fails_and_skips_every_other_step(tmp_path: Path) -> None:
    lab = write_lab(tmp_path, "nodes: {}\n")
    lines = check_lines(lab, {})
    assert lines[0].startswith(f"FAIL topology: {lab}")
    assert lines[0].endswith(
        f" — fix: correct the file as the message says (ndrpdr validate --plan {lab})"
    )
    assert lines[1:] == [
        "SKIP reach: the topology did not load",
        "SKIP version: the topology did not load",
        "SKIP ports: the topology did not load",
        "SKIP macs: the topology did not load",
        "SKIP trial: the topology did not load",
    ]


@pytest.mark.parametrize(
    ("version", "supported"),
    [
        ("v26.06-release", True),
        ("v26.06.1-release", True),
        ("v26.06-rc2~5-g1234abcd", True),
        ("v26.02-release", False),
        ("v26.10-release", False),
        ("v3.08", False),
        ("unknown", False),
    ],
)
def test_a_build_of_a_supported_release_is_supported(version: str, supported: bool) -> None:
    assert is_supported(version, ("v26.06",)) is supported


def test_the_vpp_probe_reads_the_binary_the_options_name(tmp_path: Path) -> None:
    dut_access = (
        "    access: {kind: ssh, host: 10.0.0.2, username: testuser, key_file: /keys/ndrpdr}\n"
    )
    text = LAB_YAML.replace(
        dut_access, dut_access + "    options: {binary: /opt/vpp/v26.06/bin/vpp}\n"
    )
    node = load_topology(write_lab(tmp_path, text)).nodes["DUT1"]
    access = ScriptedAccess("DUT1")
    access.script[("/opt/vpp/v26.06/bin/vpp", "--version")] = (
        0,
        VPP_LINE.format(version="v26.06-release"),
        "",
    )
    assert vpp_installed_version(node, access) == ("v26.06-release", "/opt/vpp/v26.06/bin/vpp")


def test_the_trex_probe_falls_back_to_the_binary_for_older_cpus(tmp_path: Path) -> None:
    node = load_topology(write_lab(tmp_path)).nodes["TG"]
    access = ScriptedAccess("TG")
    access.script[TREX_HELP_ARGV] = (132, "", "Illegal instruction\n")
    access.script[TREX_HELP_O_ARGV] = (0, trex_help(), "")
    assert trex_installed_version(node, access) == ("v3.08", "/opt/trex/v3.08")
