"""``ndrpdr search`` on the simulator, in process: the record, the console, the options."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from cli_helpers import ROOT, SIM, trial_lines, write_trex_topology

from ndrpdr.cli.main import main
from ndrpdr.families import profile_of
from ndrpdr.results.schema import validate_record
from ndrpdr.search.trial import TrialResult
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator

#: Quick search settings: 1 s trials, 2 s per load, 2 % goal width.
QUICK = ["--duration-sum", "2s", "--width", "0.02"]


def _search(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], *args: str, status: int = 0
) -> tuple[dict[str, Any], str, str]:
    """Run ``search`` on sim.yaml with --json; (record, stdout, stderr)."""
    out_file = tmp_path / "out" / "record.json"  # the directory is created
    code = main(["search", "--topology", str(SIM), "--json", str(out_file), *args])
    out, err = capsys.readouterr()
    assert code == status, err
    record: dict[str, Any] = json.loads(out_file.read_text())
    return record, out, err


def _truth(duration_s: float = 1.0) -> tuple[float, float]:
    """(true NDR, true PDR) [pps] of sim.yaml's DUT model for trials of ``duration_s``.

    The DUT models ``ethip4-ip4base`` (search's default profile) at 64 B on 1 core.
    """
    profile = profile_of("ethip4-ip4base")
    model = SimTrafficGenerator(load_topology(SIM), 64, profile=profile).model
    return model.true_ndr(duration_s), model.true_pdr(duration_s)


def _check_bounds(record: dict[str, Any], width: float) -> None:
    """NDR <= PDR, lower <= upper within the width, and the model's truth in between."""
    ndr, pdr = record["ndr"], record["pdr"]
    true_ndr, true_pdr = _truth(record["goals"][0]["final_trial_duration_s"])
    for bounds, truth in ((ndr, true_ndr), (pdr, true_pdr)):
        lower, upper = bounds["lower_bound"], bounds["upper_bound"]
        assert lower is not None and upper is not None
        assert lower <= truth <= upper
        assert lower >= upper * (1 - width) * (1 - 1e-9)
        assert bounds["conditional_throughput"] <= upper
    assert ndr["lower_bound"] <= pdr["lower_bound"]
    assert ndr["upper_bound"] <= pdr["upper_bound"]
    assert all(goal["regular"] for goal in record["goals"])


def test_search_default_settings_record(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record, out, err = _search(tmp_path, capsys)
    validate_record(record)
    assert record["status"] == "passed"
    assert record["error"] is None
    assert err == ""
    _check_bounds(record, width=0.005)
    # One console line per trial, numbered from 1, and nothing else starts with '#'.
    lines = trial_lines(out)
    assert len(lines) == len(record["trials"]) == record["search"]["trial_count"] > 2
    assert [int(line[1:].split()[0]) for line in lines] == list(range(1, len(lines) + 1))
    assert f"result record: {tmp_path / 'out' / 'record.json'}" in out
    assert out.splitlines()[0].startswith(f"{SIM}: ethip4-ip4base 64 B, mlr search up to")
    ndr_line = next(line for line in out.splitlines() if line.startswith("NDR: lower "))
    assert "Gbps" in ndr_line
    assert any(line.startswith("PDR: lower ") for line in out.splitlines())
    assert record["telemetry"]["DUT1"]["state"].startswith("simulated DUT")
    assert record["testbed"]["topology"] == str(SIM)
    assert record["testbed"]["tg"] == {"node": "TG", "driver": "sim"}
    cap = record["search"]["max_load_cap"]  # the sim TG sends all it intends: no cap
    assert cap["capped_pps"] is None
    assert cap["requested_pps"] == record["search"]["max_load_pps"]
    assert cap["trial"]["load_pps"] == cap["requested_pps"]
    assert record["tg_limit"]["limited"] is False
    assert "limited by the traffic generator" not in out


@pytest.mark.parametrize("algorithm", ["mlr", "binary", "bswlv"])
def test_search_algorithms(
    algorithm: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record, out, _ = _search(tmp_path, capsys, "--algorithm", algorithm, *QUICK)
    validate_record(record)
    assert record["search"]["algorithm"] == algorithm
    assert f", {algorithm} search up to" in out
    _check_bounds(record, width=0.02)
    assert len(trial_lines(out)) == len(record["trials"])


def test_intermediate_trials_option(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    strict = ["--final-trial-duration", "10s", "--duration-sum", "10s", "--exceed-ratio", "0"]
    plain, _, _ = _search(tmp_path, capsys, *strict, "--no-latency")
    record, out, _ = _search(tmp_path, capsys, *strict, "--no-latency", "--intermediate-trials")
    validate_record(record)
    assert (record["search"]["intermediate_trials"], plain["search"]["intermediate_trials"]) == (
        True,
        False,
    )
    middle = 10.0**0.5  # sqrt(1 s initial x 10 s sum)
    phases = [(t["reason"]["phase"], t["duration_s"]) for t in record["trials"]]
    assert ("intermediate", pytest.approx(middle)) in phases
    assert not any(t["reason"]["phase"] == "intermediate" for t in plain["trials"])
    # Every full-length trial's load had an intermediate one first.
    for index, trial in enumerate(record["trials"]):
        if trial["duration_s"] >= 10.0:
            before = record["trials"][:index]
            assert any(
                t["load_pps"] == trial["load_pps"] and t["reason"]["phase"] == "intermediate"
                for t in before
            )
    assert "intermediate/" in out  # the trial lines name the phase
    _check_bounds(record, width=0.005)


def test_intermediate_trials_option_is_documented(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["search", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--intermediate-trials" in text
    assert "sqrt(initial duration x duration sum)" in text


def test_bswlv_repeats_failing_loads(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    binary, _, _ = _search(tmp_path, capsys, "--algorithm", "binary", *QUICK)
    bswlv, _, _ = _search(tmp_path, capsys, "--algorithm", "bswlv", *QUICK)
    assert len(bswlv["trials"]) > len(binary["trials"])


def test_unidirectional_halves_max_load(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    both, _, _ = _search(tmp_path, capsys, *QUICK)
    one, out, _ = _search(tmp_path, capsys, "--unidirectional", *QUICK)
    validate_record(one)
    assert one["profile"]["directions"] == 1
    assert both["profile"]["directions"] == 2
    assert one["search"]["max_load_pps"] == pytest.approx(both["search"]["max_load_pps"] / 2)
    assert max(t["load_pps"] for t in one["trials"]) <= one["search"]["max_load_pps"]
    assert "up to 1.4881e+07 pps" in out


def test_max_and_min_rate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record, _, _ = _search(tmp_path, capsys, "--max-rate", "25Mpps", "--min-rate", "1Mpps", *QUICK)
    assert record["search"]["max_load_pps"] == 25e6
    assert record["search"]["min_load_pps"] == 1e6
    assert all(1e6 <= t["load_pps"] <= 25e6 for t in record["trials"])
    _check_bounds(record, width=0.02)


def test_max_rate_above_tg_maximum(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out_file = tmp_path / "r.json"
    code = main(["search", "--topology", str(SIM), "--max-rate", "50Mpps", "--json", str(out_file)])
    out, err = capsys.readouterr()
    assert code == 2  # bad input, named as typed, with the accepted range
    assert "ndrpdr search: error: --max-rate 50Mpps: 50 Mpps is above the traffic" in err
    assert "accepted: a rate up to 29.762 Mpps" in err
    assert trial_lines(out) == []  # rejected before any trial
    assert not out_file.exists()


def test_default_topology_is_sim(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(ROOT)
    assert main(["search", *QUICK]) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("topologies/sim.yaml: ethip4-ip4base 64 B, mlr search")
    assert "result record" not in out  # no --json, no file


def test_imix_l2_profile(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    record, out, _ = _search(
        tmp_path, capsys, "--profile", "eth-l2xcbase", "--frame-size", "imix", *QUICK
    )
    validate_record(record)
    assert record["profile"]["frame_size"] == "IMIX"
    assert record["profile"]["layer"] == "L2"
    assert "mode=l2xc" in record["telemetry"]["DUT1"]["state"]
    assert "eth-l2xcbase IMIX B" in out


class _Failing:
    """Patches SimTrafficGenerator.measure to raise ``error`` on trial ``at`` (1-based)."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, at: int, error: BaseException) -> None:
        self.calls = 0
        original = SimTrafficGenerator.measure

        def measure(tg: SimTrafficGenerator, duration: float, load: float) -> TrialResult:
            self.calls += 1
            if self.calls == at:
                raise error
            return original(tg, duration, load)

        monkeypatch.setattr(SimTrafficGenerator, "measure", measure)


def test_tg_failure_keeps_trials(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # call 1 is the max-load calibration trial (the sim TG keeps up: no more), calls 2 and 3
    # are search trials
    _Failing(monkeypatch, 4, TrafficGeneratorError("TG: the link went down"))
    record, out, err = _search(tmp_path, capsys, status=1)
    validate_record(record)
    assert record["status"] == "failed"
    assert record["error"] == "TG: the link went down"
    assert len(record["trials"]) == 2 == len(trial_lines(out))
    assert "search failed: TG: the link went down" in err
    assert "Traceback" not in err


def test_ctrl_c_writes_record_and_exits_130(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _Failing(monkeypatch, 5, KeyboardInterrupt())  # after the calibration and 3 trials
    record, out, err = _search(tmp_path, capsys, status=130)
    validate_record(record)
    assert record["status"] == "failed"
    assert "interrupted" in (record["error"] or "")
    assert len(record["trials"]) == 3 == len(trial_lines(out))
    assert "ndrpdr search: interrupted" in err
    assert record["incomplete"] is True
    assert "bounds incomplete" in out


def test_unwritable_record_is_an_error_not_a_traceback(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    code = main(["search", "--topology", str(SIM), "--json", str(blocker / "r.json"), *QUICK])
    out, err = capsys.readouterr()
    assert code == 1
    assert "cannot write the result record" in err
    assert str(blocker) in err
    assert any(line.startswith("NDR: lower") for line in out.splitlines())  # still shown


@pytest.mark.parametrize(
    ("option", "value", "status", "message"),
    [
        ("--profile", "nope", 2, "--profile nope: test family 'nope' is not known: give one of"),
        ("--algorithm", "linear", 2, "argument --algorithm: invalid choice: 'linear'"),
        ("--width", "x", 2, "--width x: not a number; accepted: a number above 0 and below 1"),
        ("--frame-size", "10", 2, "--frame-size 10: frame size '10' is out of range"),
        ("--frame-size", "jumbo", 2, "--frame-size jumbo: frame size 'jumbo' is not valid"),
        ("--max-rate", "fast", 2, "ndrpdr search: error: --max-rate fast: not a rate; accepted: "),
        ("--min-rate", "0", 2, "--min-rate 0: must be more than 0; accepted: a rate > 0"),
        ("--width", "0", 2, "--width 0: out of range; accepted: a number above 0 and below 1"),
        ("--final-trial-duration", "soon", 2, "--final-trial-duration soon: not a duration"),
        (
            "--flows",
            "5",
            2,
            "--flows 5: traffic profile ethip4-ip4base has 253 flow(s) per direction",
        ),
    ],
)
def test_bad_options(
    option: str, value: str, status: int, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["search", "--topology", str(SIM), option, value]
    try:  # argparse's own errors exit; a value out of range returns 2 before any testbed
        code = main(argv)
    except SystemExit as exited:
        code = exited.code
    out, err = capsys.readouterr()
    assert code == status
    assert message in err
    assert "Traceback" not in err
    assert trial_lines(out) == []


def test_trex_tg_without_pci_addresses_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    topology = write_trex_topology(tmp_path)
    assert main(["validate", str(topology)]) == 0  # the file itself is fine
    capsys.readouterr()
    code = main(["search", "--topology", str(topology), "--json", str(tmp_path / "r.json")])
    out, err = capsys.readouterr()
    assert code == 1
    assert err.startswith("ndrpdr search: ")
    assert "nodes.TG.interfaces.port1.pci_address: None is not a PCI address" in err
    assert "Traceback" not in err
    assert trial_lines(out) == []
    assert not (tmp_path / "r.json").exists()


def test_trial_line_shows_the_first_warning_and_counts_the_rest() -> None:
    from ndrpdr.console.lines import trial_line
    from ndrpdr.search import TrialResult

    trial = TrialResult(
        duration=1.0,
        load=1000.0,
        offered_count=900.0,
        forwarded_count=900.0,
        intended_count=1000.0,
        warnings=("TG sent 900 of 1000", "direction 0 slow", "direction 1 slow"),
    )
    line = trial_line(3, trial)
    assert line.endswith("WARNING: TG sent 900 of 1000 (+2 more)")
    assert "direction 0" not in line
    one = TrialResult(
        duration=1.0, load=1000.0, offered_count=1000.0, loss_count=0.0, warnings=("x",)
    )
    assert trial_line(1, one).endswith("WARNING: x")


def test_search_measures_latency_unless_told_not_to(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record, out, _ = _search(tmp_path, capsys, *QUICK, "--latency-duration", "2s")
    latency = record["latency"]
    assert latency["status"] == "measured" and latency["duration_s"] == 2.0
    assert [p["duration_s"] for p in latency["points"]] == [2.0] * 4
    printed = [line for line in out.splitlines() if line.startswith("Latency at ")]
    assert [line.split(" (")[0] for line in printed] == [
        f"Latency at {p} % PDR" for p in (0, 10, 50, 90)
    ]
    record, out, _ = _search(tmp_path, capsys, *QUICK, "--no-latency")
    assert record["latency"]["status"] == "not measured"
    assert record["latency"]["reason"] == "turned off"
    assert "Latency" not in out
