"""``ndrpdr trial`` on the simulator, in process: counts that add up, rates, bad options."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import SIM, counts, write_trex_topology

from ndrpdr.cli.main import main
from ndrpdr.families import profile_of
from ndrpdr.search.trial import TrialResult
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator


def _trial(capsys: pytest.CaptureFixture[str], *args: str) -> str:
    assert main(["trial", "--topology", str(SIM), *args]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    return out


def _capacity_pps() -> float:
    """What sim.yaml's DUT forwards of trial's default traffic (ethip4-ip4base, 64 B, 1 core)."""
    profile = profile_of("ethip4-ip4base")
    return SimTrafficGenerator(load_topology(SIM), 64, profile=profile).model.true_ndr(1.0)


def test_trial_below_capacity_has_no_loss(capsys: pytest.CaptureFixture[str]) -> None:
    out = _trial(capsys, "--rate", "100kpps", "--duration", "2s")
    assert out.splitlines()[0] == "rate:      100 kpps for 2 s (ethip4-ip4base, 64 B)"
    found = counts(out)
    assert found == {
        "intended": 200_000,
        "offered": 200_000,
        "received": 200_000,
        "loss": 0,
        "loss_percent": 0.0,
    }


def test_trial_above_capacity_numbers_add_up(capsys: pytest.CaptureFixture[str]) -> None:
    capacity = _capacity_pps()
    assert capacity < 25e6  # below the trial's rate, which is below the TG's 29.76 Mpps
    out = _trial(capsys, "--rate", "25Mpps", "--duration", "1s")
    found = counts(out)
    assert found["intended"] == 25_000_000
    assert found["offered"] == found["intended"]  # the sim TG sends what it is asked
    assert found["received"] == pytest.approx(capacity, abs=1)  # sharp DUT: its capacity
    assert found["received"] + found["loss"] == found["intended"]
    assert found["loss_percent"] == pytest.approx(100 * found["loss"] / found["intended"], abs=1e-4)


def test_unsent_frames_count_as_lost(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A tester that falls short: 1000 intended, 900 sent, 850 received.
    def short(tg: SimTrafficGenerator, duration: float, load: float) -> TrialResult:
        return TrialResult(
            duration,
            load,
            offered_count=900,
            forwarded_count=850,
            intended_count=1000,
            warnings=("sent 10 % less than intended",),
        )

    monkeypatch.setattr(SimTrafficGenerator, "measure", short)
    out = _trial(capsys, "--rate", "1kpps")
    found = counts(out)
    assert found == {
        "intended": 1000,
        "offered": 900,
        "received": 850,
        "loss": 150,
        "loss_percent": 15.0,
    }
    assert "WARNING:   sent 10 % less than intended" in out


@pytest.mark.parametrize(
    ("args", "shown"),
    [
        (["--rate", "50%"], "14.881 Mpps"),
        (["--rate", "100%", "--unidirectional"], "14.881 Mpps"),
        (["--rate", "100%"], "29.762 Mpps"),
        (["--rate", "1Gbps", "--frame-size", "IMIX"], "334.374 kpps"),
        (["--rate", "250000"], "250 kpps"),
    ],
)
def test_rate_forms(args: list[str], shown: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = _trial(capsys, *args, "--duration", "100ms")
    assert out.startswith(f"rate:      {shown} for 0.1 s")
    found = counts(out)
    assert found["received"] + found["loss"] == found["intended"]


def test_rate_above_tg_maximum(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["trial", "--topology", str(SIM), "--rate", "40Mpps"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert "--rate 40Mpps: 40 Mpps is above the traffic generator's maximum" in err


def test_unidirectional_max_is_half(capsys: pytest.CaptureFixture[str]) -> None:
    args = ["trial", "--topology", str(SIM), "--rate", "20Mpps", "--duration", "0.1"]
    assert main(args) == 0  # within both directions' maximum
    capsys.readouterr()
    assert main([*args, "--unidirectional"]) == 2  # above one direction's
    assert "accepted: a rate up to 14.881 Mpps" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("args", "status", "message"),
    [
        (["--rate", "abc"], 2, "--rate abc: not a rate; accepted: a rate > 0"),
        (["--rate", "0"], 2, "--rate 0: must be more than 0"),
        (["--rate", "150%"], 2, "--rate 150%: a share must be more than 0 % and at most 100 %"),
        (["--rate", "1Mpps", "--frame-size", "10"], 2, "--frame-size 10: frame size '10' is out"),
        (["--rate", "1Mpps", "--frame-size", "abc"], 2, "--frame-size abc: frame size 'abc' is"),
        (["--rate", "1Mpps", "--duration=-1s"], 2, "--duration -1s: not a duration"),
        (["--rate", "1Mpps", "--flows", "0"], 2, "--flows 0: flow count 0 is not valid"),
        (
            ["--rate", "1Mpps", "--profile", "nope"],
            2,
            "--profile nope: test family 'nope' is not known",
        ),
        ([], 2, "the following arguments are required: --rate"),
    ],
)
def test_bad_options(
    args: list[str], status: int, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["trial", "--topology", str(SIM), *args]
    if status == 2 and not message.startswith("--"):  # argparse's own checks exit
        with pytest.raises(SystemExit) as exited:
            main(argv)
        code = exited.value.code
    else:
        code = main(argv)
    out, err = capsys.readouterr()
    assert code == status
    assert message in err
    assert "Traceback" not in err
    assert "intended:" not in out


def test_trex_tg(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    topology = write_trex_topology(tmp_path)
    assert main(["trial", "--topology", str(topology), "--rate", "1Mpps"]) == 1
    err = capsys.readouterr().err
    assert "nodes.TG.interfaces.port1.pci_address: None is not a PCI address" in err
