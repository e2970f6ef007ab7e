"""The lab in a box: suites/ip4/ethip4-ip4base-ndrpdr.robot on labbox-2n.yaml and labbox-3n.yaml.

Real parts only: the hosts are network namespaces with their own sshd,
reached over SSH; the TG host runs the real TRex v3.08 (software mode,
``/opt/trex/v3.08``, installed by ``.ci/run``) started over SSH; the DUTs
forward with the Linux kernel, configured over SSH; labbox-2n-vpp.yaml and
labbox-3n-vpp.yaml run the real VPP on them (``/opt/vpp/v26.06``) instead.
Needs root, sshd and TRex (skipped otherwise, failed when
``NDRPDR_REQUIRE_TREX=1``; the VPP cases likewise with ``NDRPDR_REQUIRE_VPP``).

The goals are short (2 s per load, width 0.1) so that CI stays fast; the
defaults (CSIT's 21 s) run the same code for minutes. Checked: the tests
pass with 0 < NDR <= PDR <= the TG's maximum, carry CSIT's tags, TRex
starts once for the suite's two tests, and nothing of the run is left
(namespaces, sshd and TRex processes, DPDK runtime directories), also
after Ctrl-C.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from acceptance_helpers import (
    ALLOW_TG_LIMITED,
    ROOT,
    SUITES,
    TOPOLOGIES,
    assert_host_limited_only,
    child_env,
    index_tests,
    logged_messages,
    netns_list,
    plain_float,
    read_output,
    robot_args,
)
from robot.result import Result

from vpp_build import vpp_problem

TREX = Path("/opt/trex/v3.08")
VPP = Path("/opt/vpp/v26.06/bin/vpp")
SSHD = Path("/usr/sbin/sshd")
SUITE = SUITES / "ip4" / "ethip4-ip4base-ndrpdr.robot"
L2XC_SUITE = SUITES / "l2" / "eth-l2xcbase-ndrpdr.robot"
#: The labbox topologies' TG maximum (options.max_rate_pps) [frames/s].
MAX_PPS = 400_000.0
#: A robot run must end well within this [s].
TIMEOUT_S = 240.0
DPDK_RUN = Path("/var/run/dpdk")
SHORT_GOALS = (
    ("DURATION_SUM", "2s"),
    ("GOAL_WIDTH", "0.1"),
    ("MAX_SEARCH_TIME", "120s"),
    ("LATENCY_TRIAL_DURATION", "1s"),
    ALLOW_TG_LIMITED,  # TRex in software mode on a busy host may fall short: warned, tagged
)


def _missing() -> str | None:
    if sys.platform != "linux" or os.geteuid() != 0:
        return "the lab in a box needs Linux and root"
    if not SSHD.exists() or shutil.which("ip") is None:
        return "the lab in a box needs openssh-server and iproute2"
    if not (TREX / "t-rex-64").exists():
        return f"TRex is not installed in {TREX} (../shared/trex/install)"
    return None


if _missing() is not None and os.environ.get("NDRPDR_REQUIRE_TREX") == "1":
    raise RuntimeError(f"NDRPDR_REQUIRE_TREX=1, but {_missing()}")
pytestmark = [pytest.mark.real, pytest.mark.skipif(_missing() is not None, reason=_missing() or "")]


def _dpdk_entries() -> set[str]:
    return {p.name for p in DPDK_RUN.iterdir()} if DPDK_RUN.is_dir() else set()


def _processes_of(pid: int) -> list[str]:
    """Command lines of processes that belong to a run of ``pid`` (its labbox run directory)."""
    marker = f"labbox-{pid}-".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if marker in cmdline:
            text = cmdline.replace(b"\0", b" ").decode(errors="replace")
            found.append(f"{entry.name}: {text}")
    return found


def _alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


class Run:
    """One child run (robot or ndrpdr) and what it left."""

    def __init__(self, process: subprocess.Popen[str], stdout: str, stderr: str) -> None:
        self.pid = process.pid
        self.returncode = process.returncode
        self.stdout = stdout
        self.stderr = stderr

    def leftovers(self, dpdk_before: set[str]) -> list[str]:
        """What the run left: its namespaces, processes, new DPDK runtime directories."""
        left = [n for n in netns_list() if n.startswith(f"ndrpdr-{self.pid}-")]
        left += _processes_of(self.pid)
        # New DPDK runtime dirs, but not another ndrpdr run's that shares the machine (its local
        # testpmd's ``ndrpdr-dut1-<random>``, its TRex's ``ndrpdr-<its pid>-...``): this run's
        # labbox DUT runs the kernel data plane, and a TRex prefix of its own names this pid.
        mine = f"ndrpdr-{self.pid}-"
        left += [
            f"/var/run/dpdk/{name}"
            for name in sorted(_dpdk_entries() - dpdk_before)
            if name.startswith(mine) or not name.startswith("ndrpdr-")
        ]
        return left

    def clean(self) -> None:
        """Remove what a failed run left (so one failure does not spoil the machine)."""
        for name in netns_list():
            if name.startswith(f"ndrpdr-{self.pid}-"):
                subprocess.run(["ip", "netns", "delete", name], check=False)


def _run(command: list[str], outputdir: Path, *, interrupt_after: str | None = None) -> Run:
    """Run ``command`` from the project root with a private state directory."""
    env = child_env(NDRPDR_STATE_DIR=str(outputdir / "state"))
    process = subprocess.Popen(
        command,
        cwd=ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    try:
        if interrupt_after is not None:
            assert process.stdout is not None
            seen = []
            deadline = time.monotonic() + TIMEOUT_S
            for line in process.stdout:
                seen.append(line)
                if line.startswith(interrupt_after) or time.monotonic() > deadline:
                    break
            process.send_signal(signal.SIGINT)
            rest, stderr = process.communicate(timeout=TIMEOUT_S)
            return Run(process, "".join(seen) + rest, stderr)
        stdout, stderr = process.communicate(timeout=TIMEOUT_S)
        return Run(process, stdout, stderr)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        raise AssertionError(f"{command} took over {TIMEOUT_S} s:\n{stdout}\n{stderr}") from None


def _robot(
    outputdir: Path, topology: str, *includes: str, suites: tuple[Path, ...] = (SUITE,)
) -> Run:
    command = [
        sys.executable, "-m", "robot", "--outputdir", str(outputdir), "--console", "dotted",
        *robot_args(("TOPOLOGY", str(TOPOLOGIES / topology)), *SHORT_GOALS),
        *[arg for tag in includes for arg in ("--include", f"{tag} AND 1C")],  # the 1-core rows
        *map(str, suites),
    ]  # fmt: skip
    return _run(command, outputdir)


@pytest.fixture(scope="module")
def two_node(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Run, Result, list[str]]]:
    """labbox-2n.yaml, the 64B and 1518B tests: (run, output.xml, what was left)."""
    outputdir = tmp_path_factory.mktemp("labbox-2n")
    dpdk_before = _dpdk_entries()
    run = _robot(outputdir, "labbox-2n.yaml", "64B", "1518B")
    try:
        assert (outputdir / "output.xml").exists(), run.stdout + run.stderr
        yield run, read_output(outputdir), run.leftovers(dpdk_before)
    finally:
        run.clean()


@pytest.fixture(scope="module")
def three_node(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Run, Result, list[str]]]:
    """labbox-3n.yaml, the 64B test."""
    outputdir = tmp_path_factory.mktemp("labbox-3n")
    dpdk_before = _dpdk_entries()
    run = _robot(outputdir, "labbox-3n.yaml", "64B")
    try:
        assert (outputdir / "output.xml").exists(), run.stdout + run.stderr
        yield run, read_output(outputdir), run.leftovers(dpdk_before)
    finally:
        run.clean()


def _check_bounds(result: Result, name: str, tags: set[str]) -> None:
    test = index_tests(result)[name]
    assert test.status == "PASS", test.message
    assert tags <= set(test.tags), sorted(test.tags)
    outputdir = Path(str(result.source)).parent  # the record is next to output.xml
    record = json.loads((outputdir / f"{name}.json").read_text())
    assert_host_limited_only(record, test.tags)
    ndr = plain_float(test.metadata["NDR_LOWER"])
    pdr = plain_float(test.metadata["PDR_LOWER"])
    assert 0 < ndr <= pdr <= MAX_PPS
    assert test.message.startswith("NDR: lower ")
    # TRex's latency streams after the search: four load points, real values
    assert test.metadata["LATENCY"] == "measured", test.message
    for point in (0, 10, 50, 90):
        assert f"Latency at {point} % PDR" in test.message
        for key in ("FWD", "REV"):
            low = plain_float(test.metadata[f"LAT_{point}PDR_{key}_MIN_US"])
            avg = plain_float(test.metadata[f"LAT_{point}PDR_{key}_AVG_US"])
            high = plain_float(test.metadata[f"LAT_{point}PDR_{key}_MAX_US"])
            assert 0 < low <= avg <= high, (point, key, low, avg, high)


def test_two_node_tests_pass_with_csit_tags(two_node: tuple[Run, Result, list[str]]) -> None:
    run, result, _ = two_node
    assert run.returncode == 0, run.stdout + run.stderr
    tags = {"TG_TREX", "DUT_LINUX", "2_NODE_SINGLE_LINK_TOPO", "NIC_veth", "DRV_KERNEL"}
    for frame in ("64B", "1518B"):
        _check_bounds(result, f"{frame}-1c-ethip4-ip4base-ndrpdr", tags | {frame})
    assert "3_NODE_SINGLE_LINK_TOPO" not in index_tests(result)["64B-1c-ethip4-ip4base-ndrpdr"].tags


def test_trex_starts_once_for_the_suite(two_node: tuple[Run, Result, list[str]]) -> None:
    _, result, _ = two_node
    texts = [m.message for m in logged_messages(result.suite.setup)]
    for test in index_tests(result).values():
        texts += [m.message for m in logged_messages(test)]
    starts = [t for t in texts if re.search(r"TRex server started \(pid \d+\), v3\.08", t)]
    assert len(starts) == 1, starts
    assert [t for t in texts if "restarted" in t] == []
    assert "Path" in result.suite.metadata
    assert "tg-p1" in result.suite.metadata["Path"]


def test_two_node_leaves_nothing(two_node: tuple[Run, Result, list[str]]) -> None:
    _, _, left = two_node
    assert left == []


def test_three_node_test_passes(three_node: tuple[Run, Result, list[str]]) -> None:
    run, result, left = three_node
    assert run.returncode == 0, run.stdout + run.stderr
    tags = {"TG_TREX", "DUT_LINUX", "3_NODE_SINGLE_LINK_TOPO", "NIC_veth", "64B"}
    _check_bounds(result, "64B-1c-ethip4-ip4base-ndrpdr", tags)
    assert "link12" in result.suite.metadata["Path"]
    assert left == []


def test_ctrl_c_stops_the_search_and_removes_everything(tmp_path: Path) -> None:
    dpdk_before = _dpdk_entries()
    command = [
        sys.executable, "-m", "ndrpdr", "search", "--topology",
        str(TOPOLOGIES / "labbox-2n.yaml"), "--json", str(tmp_path / "r.json"),
    ]  # fmt: skip
    run = _run(command, tmp_path, interrupt_after="#  2 ")
    try:
        assert run.returncode == 130, run.stdout + run.stderr
        assert "interrupted; the testbed was torn down" in run.stderr
        assert "#  2 " in run.stdout  # it was measuring when interrupted
        assert run.leftovers(dpdk_before) == []
        assert (tmp_path / "r.json").exists()  # the trials measured so far are kept
    finally:
        run.clean()


def test_three_node_with_testpmd_then_linux_over_ssh(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """labbox-3n with DUT1 running DPDK testpmd (af_packet), configured over SSH by the lab driver.

    testpmd rewrites each frame's destination to its next hop (DUT2's port
    towards it, or the TG's), so the kernel of DUT2 routes what testpmd
    forwards: a low-rate trial through both loses nothing.
    """
    from ndrpdr.activebed.testbed import ActiveTestbed
    from ndrpdr.families import profile_of as get_profile
    from ndrpdr.topology.loader import load_topology

    linux = "    driver: linux\n    access: {kind: labbox}\n    options:\n      cpu: 1\n"
    testpmd = "    driver: testpmd\n    access: {kind: labbox}\n    options:\n      cpu: 1\n"
    text = (TOPOLOGIES / "labbox-3n.yaml").read_text()
    dut1 = text.index("  DUT1:")
    assert text.index(linux, dut1) < text.index("  DUT2:")
    text = text[:dut1] + text[dut1:].replace(linux, testpmd, 1)
    path = tmp_path / "labbox-3n-testpmd.yaml"
    path.write_text(text)
    monkeypatch.setenv("NDRPDR_STATE_DIR", str(tmp_path / "state"))
    topology = load_topology(path)
    with ActiveTestbed(topology) as testbed:
        run_id = testbed.run_id
        testbed.configure_duts("ip4base")
        tg = testbed.traffic_generator(get_profile("ethip4-ip4base"), 64)
        trial = tg.measure(1.0, 10_000)
        telemetry = testbed.collect_telemetry()
        assert getattr(testbed.session, "starts", None) == 1
    assert abs(trial.offered_count - 10_000) <= 4  # TRex rounds each direction's count
    assert trial.intended_count == trial.offered_count
    assert trial.forwarded_count >= 0.99 * trial.offered_count
    assert "testpmd" in telemetry["DUT1"]["state"]
    assert "198.18.0.0/24 via 192.168.101.1 dev dut2-p1" in telemetry["DUT2"]["ip_route"]
    assert [n for n in netns_list() if n.startswith(f"ndrpdr-{run_id}-")] == []


# -- VPP on the DUT hosts (labbox-2n-vpp.yaml, labbox-3n-vpp.yaml) --------------------------
def _vpp_missing() -> str | None:
    return _missing() or vpp_problem()


if _vpp_missing() is not None and os.environ.get("NDRPDR_REQUIRE_VPP") == "1":
    raise RuntimeError(f"NDRPDR_REQUIRE_VPP=1, but {_vpp_missing()}")
needs_vpp = pytest.mark.skipif(_vpp_missing() is not None, reason=_vpp_missing() or "")
#: The VPP process a record names in its DUT telemetry: pid and the run's startup.conf.
VPP_STATE = re.compile(r"\((?P<argv>\S+ -c (?P<conf>\S+))\): running pid=(?P<pid>\d+)")


def _vpp_left(records: list[dict[str, object]]) -> list[str]:
    """The VPPs the records name that still run (same pid, same startup.conf on its command)."""
    left = []
    for record in records:
        telemetry = record["telemetry"]
        assert isinstance(telemetry, dict)
        for node, entries in telemetry.items():
            match = VPP_STATE.search(str(entries.get("state", "")))
            assert match is not None, f"{node}: no VPP pid in {entries.get('state')!r}"
            try:
                cmdline = Path(f"/proc/{match['pid']}/cmdline").read_bytes()
            except OSError:
                continue
            if match["conf"].encode() in cmdline:
                left.append(f"{node}: VPP pid {match['pid']} ({match['argv']})")
    return left


@pytest.fixture(scope="module")
def two_node_vpp(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Run, Result, list[str]]]:
    """labbox-2n-vpp.yaml, the 64B ip4base and l2xc tests: (run, output.xml, what was left)."""
    outputdir = tmp_path_factory.mktemp("labbox-2n-vpp")
    dpdk_before = _dpdk_entries()
    run = _robot(outputdir, "labbox-2n-vpp.yaml", "64B", suites=(SUITE, L2XC_SUITE))
    try:
        assert (outputdir / "output.xml").exists(), run.stdout + run.stderr
        records = [json.loads(p.read_text()) for p in sorted(outputdir.glob("64B-*.json"))]
        yield run, read_output(outputdir), run.leftovers(dpdk_before) + _vpp_left(records)
    finally:
        run.clean()


@needs_vpp
@pytest.mark.parametrize("name", ["64B-1c-ethip4-ip4base-ndrpdr", "64B-1c-eth-l2xcbase-ndrpdr"])
def test_two_node_vpp_tests_pass_with_vpp_telemetry(
    two_node_vpp: tuple[Run, Result, list[str]], name: str
) -> None:
    """The real VPP on a DUT host over SSH: NDR <= PDR, its tags, its own show runtime."""
    run, result, _ = two_node_vpp
    assert run.returncode == 0, run.stdout + run.stderr
    _check_bounds(result, name, {"TG_TREX", "DUT_VPP", "DRV_AF_PACKET", "NIC_veth", "64B"})
    outputdir = Path(str(result.source)).parent
    telemetry = json.loads((outputdir / f"{name}.json").read_text())["telemetry"]["DUT1"]
    runtime = telemetry["show_runtime"]
    assert "af-packet-input" in runtime and "host-dut1-p2-tx" in runtime, runtime
    assert ("ip4-rewrite" in runtime) == ("ip4base" in name), runtime
    assert "l2-output" in runtime or "ip4base" in name, runtime


@needs_vpp
def test_two_node_vpp_starts_one_vpp_per_suite_and_leaves_nothing(
    two_node_vpp: tuple[Run, Result, list[str]],
) -> None:
    """VPP starts once per suite (two suites here, two VPPs); afterwards nothing is left."""
    _, result, left = two_node_vpp
    outputdir = Path(str(result.source)).parent
    states = {
        json.loads(p.read_text())["telemetry"]["DUT1"]["state"]
        for p in outputdir.glob("64B-*.json")
    }
    pids = {m["pid"] for m in map(VPP_STATE.search, states) if m is not None}
    assert len(pids) == 2, states  # one VPP per suite (ip4base, l2xc)
    assert left == []


@needs_vpp
def test_three_node_vpp_search_finds_ndr_at_most_pdr(tmp_path: Path) -> None:
    """labbox-3n-vpp.yaml: two VPPs in a chain (DUT1 routes to DUT2 over link12), one search."""
    dpdk_before = _dpdk_entries()
    record_path = tmp_path / "r.json"
    command = [
        sys.executable, "-m", "ndrpdr", "search", "--topology",
        str(TOPOLOGIES / "labbox-3n-vpp.yaml"), "--json", str(record_path),
        "--duration-sum", "2s", "--width", "0.1", "--no-latency", "--allow-irregular",
    ]  # fmt: skip
    run = _run(command, tmp_path)
    try:
        assert run.returncode == 0, run.stdout + run.stderr
        record = json.loads(record_path.read_text())
        irregular = {str(item["tag"]) for item in record["irregular"]}
        assert irregular <= {"TG_LIMITED"}, record["irregular"]  # only the TG may limit it
        ndr_goal, pdr_goal = sorted(record["goals"], key=lambda goal: goal["loss_ratio"])
        ndr, pdr = ndr_goal["lower_bound"], pdr_goal["lower_bound"]
        assert 0 < ndr <= pdr <= MAX_PPS, (ndr, pdr)
        for node in ("DUT1", "DUT2"):
            runtime = record["telemetry"][node]["show_runtime"]
            assert "ip4-rewrite" in runtime and "af-packet-input" in runtime, (node, runtime)
        assert run.leftovers(dpdk_before) + _vpp_left([record]) == []
    finally:
        run.clean()


@needs_vpp
def test_two_node_vpp_dpdk_forwards_trex_frames_through_dpdk_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """labbox-2n-vpp-dpdk.yaml: VPP's DPDK plugin on net_af_xdp vdevs of the DUT host, set up
    over SSH; one TRex trial through it loses nothing, and show hardware shows DPDK ports."""
    from ndrpdr.activebed.testbed import ActiveTestbed
    from ndrpdr.families import profile_of as get_profile
    from ndrpdr.topology.loader import load_topology

    monkeypatch.setenv("NDRPDR_STATE_DIR", str(tmp_path / "state"))
    dpdk_before = _dpdk_entries()
    topology = load_topology(TOPOLOGIES / "labbox-2n-vpp-dpdk.yaml")
    with ActiveTestbed(topology) as testbed:
        run_id = testbed.run_id
        testbed.configure_duts("ip4base")
        tg = testbed.traffic_generator(get_profile("ethip4-ip4base"), 64)
        trial = tg.measure(1.0, 10_000)
        telemetry = testbed.collect_telemetry()["DUT1"]
    assert trial.forwarded_count >= 0.99 * trial.offered_count > 0, trial
    assert "Devargs: iface=dut1-p1" in telemetry["show_hardware"]
    assert "--vdev net_af_xdp1,iface=dut1-p2" in telemetry["show_dpdk_version"]
    runtime = telemetry["show_runtime"]
    assert "dpdk-input" in runtime and "ip4-rewrite" in runtime, runtime
    assert [n for n in netns_list() if n.startswith(f"ndrpdr-{run_id}-")] == []
    assert _vpp_left([{"telemetry": {"DUT1": telemetry}}]) == []
    prefix = re.search(r"--file-prefix (\S+)", telemetry["show_dpdk_version"])
    assert prefix is not None and not (DPDK_RUN / prefix[1]).exists()  # VPP's, removed
    mine = f"ndrpdr-{os.getpid()}-"  # TRex's, named after this process (another run's are not)
    assert [n for n in _dpdk_entries() - dpdk_before if n.startswith(mine)] == []
