"""``ndrpdr soak`` on the simulator, in process: the critical load printed, the record written
(``--json``, also when the TG fails), bad options named."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_helpers import SIM

from ndrpdr.cli.main import main
from ndrpdr.families import profile_of
from ndrpdr.results.schema import validate_record
from ndrpdr.search.trial import TrialResult
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.base import TrafficGeneratorError
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator

FAMILY = "ethip4-ip4scale2m-rnd"


def test_soak_prints_the_critical_load_of_the_simulated_dut(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["soak", "--topology", str(SIM), "--profile", FAMILY, "--soak-time", "2min"]
    assert main(args) == 0
    out, err = capsys.readouterr()
    assert err == ""
    found = re.search(r"SOAK critical load: ([0-9.]+) Mpps .*stdev ([0-9.e+-]+) pps", out)
    assert found, out
    model = SimTrafficGenerator(load_topology(SIM), 64, profile=profile_of(FAMILY)).model
    truth = model.true_throughput(120.0, 1e-7)
    assert float(found[1]) * 1e6 == pytest.approx(truth, rel=1e-4)
    assert "SOAK lower bound: " in out and "120 s of 120 s" in out


@pytest.mark.parametrize(
    ("option", "named"),
    [
        (["--soak-time", "soon"], "--soak-time soon"),
        (["--loss-ratio", "1.5"], "--loss-ratio 1.5"),
        (["--max-rate", "1Tpps"], "--max-rate 1Tpps"),
    ],
)
def test_bad_options_are_named(
    capsys: pytest.CaptureFixture[str], option: list[str], named: str
) -> None:
    assert main(["soak", "--topology", str(SIM), *option]) == 2
    assert named in capsys.readouterr().err


def test_soak_writes_its_record_with_json(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    target = tmp_path / "records" / "soak.json"
    args = ["soak", "--topology", str(SIM), "--profile", FAMILY, "--soak-time", "1min"]
    assert main([*args, "--json", str(target)]) == 0
    out = capsys.readouterr().out
    record = json.loads(target.read_text(encoding="utf-8"))
    validate_record(record)
    assert record["kind"] == "soak" and record["status"] == "passed"
    assert record["profile"]["name"] == FAMILY and record["testbed"]["topology"] == str(SIM)
    soak = record["soak"]
    assert soak["time_budget_s"] == 60.0 and soak["search_time_s"] == pytest.approx(60.0)
    assert f"SOAK critical load: {soak['critical_load_pps']['mean'] / 1e6:.4f} Mpps" in out
    assert soak["trial_count"] == len(soak["trials"]) > 1


def test_a_failing_tg_leaves_the_record_of_the_trials_so_far(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    original = SimTrafficGenerator.measure
    calls = [0]

    def measure(self: SimTrafficGenerator, duration: float, load: float) -> TrialResult:
        calls[0] += 1
        if calls[0] == 3:
            raise TrafficGeneratorError("TG: gone")
        return original(self, duration, load)

    monkeypatch.setattr(SimTrafficGenerator, "measure", measure)
    target = tmp_path / "soak.json"
    args = ["soak", "--topology", str(SIM), "--soak-time", "1min", "--json", str(target)]
    assert main(args) == 1
    assert "TG: gone" in capsys.readouterr().err
    record = json.loads(target.read_text(encoding="utf-8"))
    validate_record(record)
    assert record["status"] == "failed" and record["error"] == "TG: gone"
    assert record["soak"]["trial_count"] == len(record["soak"]["trials"]) == 2


def test_an_unwritable_record_fails_the_command(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("")
    args = ["soak", "--topology", str(SIM), "--soak-time", "5s", "--json", str(blocker / "x.json")]
    assert main(args) == 1
    captured = capsys.readouterr()
    assert "ndrpdr soak: cannot write the result record" in captured.err
    assert "SOAK critical load: " in captured.out  # the answer all the same
