"""``ndrpdr soak`` on the simulator, in process: the critical load printed, bad options named."""

from __future__ import annotations

import re

import pytest
from cli_helpers import SIM

from ndrpdr.cli.main import main
from ndrpdr.families import profile_of
from ndrpdr.testbed.loader import load_topology
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
