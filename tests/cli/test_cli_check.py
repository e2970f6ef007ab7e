"""``ndrpdr check`` on the simulator, in process: each step's line, the exit status, bad options."""

from __future__ import annotations

from pathlib import Path

from cli_helpers import CliCall

SIM_LINES = [
    "PASS topology: topologies/sim.yaml: TG (sim), DUT1 (sim); 2-node path",
    "PASS reach TG: this machine",
    "PASS reach DUT1: this machine",
    "PASS version TG: nothing to check: the sim driver needs no given version",
    "PASS version DUT1: nothing to check: the sim driver needs no given version",
    "PASS ports TG: nothing to check: no port on the path names an interface or PCI address",
    "PASS ports DUT1: nothing to check: no port on the path names an interface or PCI address",
    "PASS macs TG: nothing to check: no port with a MAC in the file to read",
    "PASS macs DUT1: nothing to check: no port with a MAC in the file to read",
]


def test_check_on_the_simulator_passes_every_step(cli: CliCall) -> None:
    run = cli("check", "--topology", "topologies/sim.yaml")
    assert (run.returncode, run.stderr) == (0, "")
    assert run.stdout.splitlines() == [
        *SIM_LINES,
        "PASS trial: 10 kpps for 1 s (ethip4-ip4base, 64 B): 10000 frames sent, "
        "10000 received, no loss",
    ]


def test_check_sends_the_trial_ndrpdr_trial_would(cli: CliCall) -> None:
    run = cli(
        "check", "--topology", "topologies/sim.yaml", "--rate", "2Mpps", "--duration", "2s",
        "--profile", "ethip6-ip6base", "--frame-size", "78",
    )  # fmt: skip
    assert run.returncode == 0
    assert run.stdout.splitlines()[-1] == (
        "PASS trial: 2 Mpps for 2 s (ethip6-ip6base, 78 B): 4000000 frames sent, "
        "4000000 received, no loss"
    )


def test_a_trial_that_loses_frames_exits_1(cli: CliCall) -> None:
    run = cli("check", "--topology", "topologies/sim.yaml", "--rate", "25Mpps")  # above the DUT
    assert run.returncode == 1
    last = run.stdout.splitlines()[-1]
    assert last.startswith("FAIL trial: 25 Mpps for 1 s (ethip4-ip4base, 64 B): 25000000 frames")
    assert last.endswith(
        " — fix: check that the file's links are the cables (ndrpdr validate --plan "
        "topologies/sim.yaml prints the path) and that the DUTs forward "
        "(ndrpdr -v trial --topology topologies/sim.yaml with the same options)"
    )


def test_no_trial_checks_the_nodes_only(cli: CliCall) -> None:
    run = cli("check", "--topology", "topologies/sim.yaml", "--no-trial")
    assert run.returncode == 0
    assert run.stdout.splitlines() == [*SIM_LINES, "SKIP trial: --no-trial"]


def test_a_topology_that_does_not_load_exits_1_and_skips_the_rest(
    cli: CliCall, tmp_path: Path
) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("nodes:\n  TG: {type: TG, driver: nonesuch}\n")
    run = cli("check", "--topology", str(bad))
    assert run.returncode == 1
    lines = run.stdout.splitlines()
    assert lines[0].startswith(f"FAIL topology: {bad}")
    assert lines[1:] == [
        f"SKIP {step}: the topology did not load"
        for step in ("reach", "version", "ports", "macs", "trial")
    ]


def test_bad_options_exit_2_naming_the_option(cli: CliCall) -> None:
    run = cli("check", "--topology", "topologies/sim.yaml", "--loss-ratio", "1.5")
    assert run.returncode == 2
    assert "--loss-ratio 1.5: give 0 <= R < 1" in run.stderr
    run = cli("check", "--topology", "topologies/sim.yaml", "--duration", "0s")
    assert run.returncode == 2
    assert "--duration" in run.stderr
    run = cli("check")
    assert run.returncode == 2
    assert "the following arguments are required: --topology" in run.stderr
