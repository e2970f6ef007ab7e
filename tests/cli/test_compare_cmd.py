"""``ndrpdr compare A B`` on the results of real Robot runs of the project's suites on sim.

Run A and A2 are the same sim DUT (sim.yaml, seed 1); run B is a sim.yaml
copy whose DUT has seed 1132: the same family (ethip4-ip4base), the
lowest per-seed capacity factor (0.970 against seed 1's 1.005), 3.5 % slower.
B ran only the 64 B test, so A's 1518 B test is in A only.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import ROOT, CliCall

from robot_runner import robot_output

SIM = ROOT / "topologies" / "sim.yaml"
SUITE = ROOT / "suites" / "ip4" / "ethip4-ip4base-ndrpdr.robot"
TEST = "64B-1c-ethip4-ip4base-ndrpdr"


def _slow_sim(directory: Path) -> Path:
    """sim.yaml with the DUT's seed 1132 (capacity factor 0.970 instead of 1.005)."""
    text = SIM.read_text()
    anchor = "      seed: 1 "
    assert anchor in text
    path = directory / "sim-slow.yaml"
    path.write_text(text.replace(anchor, "      seed: 1132 "))
    return path


def _run(directory: Path, *args: str) -> Path:
    process, _ = robot_output(
        directory, ["--variable", "DURATION_SUM:2s", "--name", "Throughput", *args, str(SUITE)]
    )
    assert process.returncode == 0, process.stdout + process.stderr
    return directory


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    a = _run(tmp_path_factory.mktemp("a"), "--include", "64B AND 1C", "--include", "1518B AND 1C")
    a2 = _run(tmp_path_factory.mktemp("a2"), "--include", "64B AND 1C", "--include", "1518B AND 1C")
    slow = _slow_sim(tmp_path_factory.mktemp("topology"))
    b = _run(
        tmp_path_factory.mktemp("b"), "--include", "64B AND 1C", "--variable", f"TOPOLOGY:{slow}"
    )
    return {"a": a, "a2": a2, "b": b}


def _row(stdout: str, metric: str) -> str:
    """The table line of ``TEST``'s ``metric`` (columns are padded to the longest name)."""
    (line,) = [line for line in stdout.splitlines() if line.split()[:3] == [TEST, *metric.split()]]
    return line


def test_the_same_dut_twice_passes_the_gate(runs: dict[str, Path], cli: CliCall) -> None:
    process = cli("compare", str(runs["a"]), str(runs["a2"]), "--fail-on-regression", "3")
    assert process.returncode == 0, process.stdout + process.stderr
    assert "within noise" in _row(process.stdout, "NDR lower")
    assert "worse" not in process.stdout and "REGRESSION" not in process.stdout
    assert "2 tests in both runs" in process.stdout
    assert "0 tests regressed beyond noise by more than 3 %" in process.stdout


def test_a_slower_dut_fails_the_gate(runs: dict[str, Path], cli: CliCall) -> None:
    """B given as its output.xml: the records are found through the links in it."""
    process = cli(
        "compare", str(runs["a"]), str(runs["b"] / "output.xml"), "--fail-on-regression", "2"
    )
    assert process.returncode == 1, process.stdout + process.stderr
    for metric in ("NDR lower", "PDR lower"):
        row = _row(process.stdout, metric)
        assert "worse REGRESSION" in row
        change = float(row.split(" %")[0].split()[-1])
        assert -4.0 < change < -3.0
    assert "worse" in _row(process.stdout, "NDR cond")
    assert "REGRESSION" not in _row(process.stdout, "NDR cond")  # shown, not gated
    assert "only in A: 1518B-1c-ethip4-ip4base-ndrpdr [1518, ethip4-ip4base]" in process.stdout
    assert "1 tests regressed beyond noise by more than 2 %" in process.stdout


def test_the_threshold_and_the_direction_matter(runs: dict[str, Path], cli: CliCall) -> None:
    above = cli("compare", str(runs["a"]), str(runs["b"]), "--fail-on-regression", "4")
    assert above.returncode == 0, above.stdout + above.stderr
    faster = cli("compare", str(runs["b"]), str(runs["a"]), "--fail-on-regression", "0")
    assert faster.returncode == 0, faster.stdout + faster.stderr
    assert "better" in _row(faster.stdout, "PDR lower")
    ungated = cli("compare", str(runs["a"]), str(runs["b"]))
    assert ungated.returncode == 0, ungated.stdout + ungated.stderr


def test_json_output(runs: dict[str, Path], cli: CliCall) -> None:
    process = cli("compare", str(runs["a"]), str(runs["b"]), "--json", "--fail-on-regression", "2")
    assert process.returncode == 1, process.stderr
    document = json.loads(process.stdout)
    assert document["only_a"] == ["1518B-1c-ethip4-ip4base-ndrpdr"] and document["only_b"] == []
    assert {(r["test"], r["metric"]) for r in document["regressions"]} == {
        (TEST, "NDR lower"),
        (TEST, "PDR lower"),
    }
    record = json.loads((runs["b"] / f"{TEST}.json").read_text())
    (ndr,) = [r for r in document["rows"] if r["metric"] == "NDR lower"]
    assert ndr["b_pps"] == record["ndr"]["lower_bound"]
    assert ndr["frame_size"] == "64" and ndr["profile"] == "ethip4-ip4base"


def test_bad_usage_exits_2_naming_the_path(
    runs: dict[str, Path], tmp_path: Path, cli: CliCall
) -> None:
    missing = cli("compare", str(tmp_path / "nowhere"), str(runs["a"]))
    assert missing.returncode == 2
    assert f"ndrpdr compare: {tmp_path / 'nowhere'}: no such file or directory" in missing.stderr
    empty = cli("compare", str(runs["a"]), str(tmp_path))
    assert empty.returncode == 2
    assert f"{tmp_path}: not a results directory" in empty.stderr
    bad_pct = cli("compare", str(runs["a"]), str(runs["a2"]), "--fail-on-regression", "x")
    assert bad_pct.returncode == 2 and "--fail-on-regression: not a percentage" in bad_pct.stderr


def test_mrr_records_of_a_slower_dut_fail_the_gate(tmp_path: Path, cli: CliCall) -> None:
    """The MRR suite's records (real Robot runs on sim) are compared by mean receive rate."""
    suite = ROOT / "suites" / "ip4" / "ethip4-ip4base-mrr.robot"
    settings = ["--variable", "MRR_TRIALS:3", "--variable", "MRR_TRIAL_DURATION:0.2s"]
    settings += ["--include", "64B AND 1C", "--name", "Throughput"]
    slow = _slow_sim(tmp_path)
    for name, more in (("a", []), ("a2", []), ("b", ["--variable", f"TOPOLOGY:{slow}"])):
        (tmp_path / name).mkdir()
        process, _ = robot_output(tmp_path / name, [*settings, *more, str(suite)])
        assert process.returncode == 0, process.stdout + process.stderr
    test = "64B-1c-ethip4-ip4base-mrr"
    same = cli("compare", str(tmp_path / "a"), str(tmp_path / "a2"), "--fail-on-regression", "3")
    assert same.returncode == 0, same.stdout + same.stderr
    (row,) = [
        line for line in same.stdout.splitlines() if line.split()[:3] == [test, "MRR", "mean"]
    ]
    assert "within noise" in row
    worse = cli("compare", str(tmp_path / "a"), str(tmp_path / "b"), "--fail-on-regression", "2")
    assert worse.returncode == 1, worse.stdout + worse.stderr
    (row,) = [
        line for line in worse.stdout.splitlines() if line.split()[:3] == [test, "MRR", "mean"]
    ]
    assert "worse REGRESSION" in row
    assert -4.0 < float(row.split(" %")[0].split()[-1]) < -3.0
