"""``ndrpdr search`` refuses bad settings before anything starts, and fails irregular results.

Run through ``main(argv)`` in this process (the ``cli`` fixture;
test_cli_subprocess runs real child processes). Bad input must exit 2
with an argparse-style line naming the option as typed, its value and the
accepted range, and write no record. The settings that need no TG are
checked on a lab topology whose set-up would fail at once (TRex and VPP
over SSH to 127.0.0.1:1): the bad-input message instead of a connection
error shows that nothing was set up. Rates relative to the TG are checked
on sim.yaml once its maximum is known, before the first trial.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_helpers import SIM, CliCall, trial_lines, write_trex_topology

from ndrpdr.results.schema import validate_record

_ERROR = "ndrpdr search: error: "


def _error_line(stderr: str) -> str:
    """The first line from the command's own error (as root, an entry point may first say
    what dead runs of another process left and it removed)."""
    for line in stderr.splitlines():
        if line.startswith("ndrpdr "):
            return line
    return stderr


def _search(cli: CliCall, *args: str) -> tuple[int, str, str]:
    return cli("search", "--no-latency", *args)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--min-rate", "0"], "--min-rate 0: must be more than 0; accepted: a rate > 0"),
        (["--max-rate", "0"], "--max-rate 0: must be more than 0; accepted: a rate > 0"),
        (
            ["--min-rate", "10Mpps", "--max-rate", "5Mpps"],
            "--min-rate 10Mpps: not below --max-rate 5Mpps; accepted: a rate below --max-rate",
        ),
        (
            ["--final-trial-duration", "1e9"],
            "--final-trial-duration 1e9: 1e+09 s is above the limit; accepted: more than 0 s, "
            "at most 600 s",
        ),
        (
            ["--duration-sum", "1e12"],
            "--duration-sum 1e12: 1e+12 s is out of range; accepted: at least the final trial "
            "duration (1 s), at most 1000 s",
        ),
        (
            ["--initial-trial-duration", "2s"],
            "--initial-trial-duration 2s: 2 s is above the final trial duration 1 s",
        ),
        (["--max-search-time", "1e6"], "--max-search-time 1e6: 1e+06 s is above the limit"),
        (["--width", "1.5"], "--width 1.5: out of range; accepted: a number above 0 and below 1"),
        (["--exceed-ratio", "-0.1"], "--exceed-ratio -0.1: out of range"),
        (["--latency-duration", "1h"], "--latency-duration 1h: 3600 s is above the limit"),
        (
            ["--min-rate", "10Gbps", "--max-rate", "5Gbps"],
            "--min-rate 10Gbps: not below --max-rate 5Gbps",
        ),
    ],
)
def test_bad_input_exits_2_before_the_testbed(
    tmp_path: Path, args: list[str], message: str, cli: CliCall
) -> None:
    lab = write_trex_topology(tmp_path)
    record = tmp_path / "record.json"
    status, out, err = _search(cli, "--topology", str(lab), "--json", str(record), *args)
    assert status == 2, err
    assert err.startswith(_ERROR + message), err
    assert "ssh" not in err.lower() and "trex" not in err.lower()  # nothing was set up
    assert trial_lines(out) == [] and not record.exists()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--max-rate", "50Mpps"], "--max-rate 50Mpps: 50 Mpps is above the traffic generator"),
        (["--min-rate", "40Mpps"], "--min-rate 40Mpps: 40 Mpps is not below the max load"),
        (
            ["--min-rate", "10Mpps", "--max-rate", "10%"],
            "--min-rate 10Mpps: 10 Mpps is not below --max-rate 2.976 Mpps",
        ),
    ],
)
def test_rates_against_the_tg_exit_2_before_any_trial(
    tmp_path: Path, args: list[str], message: str, cli: CliCall
) -> None:
    record = tmp_path / "record.json"
    status, out, err = _search(cli, "--topology", str(SIM), "--json", str(record), *args)
    assert status == 2, err
    assert err.startswith(_ERROR + message), err
    assert trial_lines(out) == [] and not record.exists()


def test_help_states_the_limits(cli: CliCall) -> None:
    process = cli("search", "--help")
    text = " ".join(process.stdout.split())
    assert process.returncode == 0
    assert "at most 600s" in text  # final trial duration
    assert "at most 3600s" in text  # duration sum
    assert "(1200s, as the Robot suites;" in text  # the default time cap
    assert "--allow-irregular" in text


@pytest.mark.parametrize("algorithm", ["mlr", "binary", "bswlv"])
def test_lossy_min_load_exits_1(tmp_path: Path, algorithm: str, cli: CliCall) -> None:
    """The issue's case: a min load above what the sim DUT forwards.

    sim.yaml's DUT models ethip4-ip4base on 1 core (about 18 Mpps at 64 B):
    25 Mpps already loses.
    """
    record_path = tmp_path / "record.json"
    status, out, err = _search(
        cli, "--min-rate", "25Mpps", "--max-rate", "29Mpps", "--algorithm", algorithm,
        "--json", str(record_path),
    )  # fmt: skip
    assert status == 1, out + err
    assert err.startswith("search irregular: NDR and PDR: the min load 25 Mpps already loses")
    assert "give a lower --min-rate" in err
    record = json.loads(record_path.read_text())
    validate_record(record)
    assert record["status"] == "failed"
    assert record["error"].startswith("irregular result: NDR and PDR: the min load")
    assert [item["tag"] for item in record["irregular"]] == ["MIN_LOAD_LOSSY"]


def test_allow_irregular_passes_with_a_warning(tmp_path: Path, cli: CliCall) -> None:
    record_path = tmp_path / "record.json"
    status, _, err = _search(
        cli, "--min-rate", "25Mpps", "--allow-irregular", "--json", str(record_path)
    )
    assert status == 0, err
    assert "WARNING: search irregular (--allow-irregular): NDR and PDR: the min load" in err
    record = json.loads(record_path.read_text())
    assert record["status"] == "passed" and record["error"] is None
    assert [item["tag"] for item in record["irregular"]] == ["MIN_LOAD_LOSSY"]


def test_time_cap_without_bounds_exits_1(tmp_path: Path, cli: CliCall) -> None:
    """The default search needs about 34 s of trials; a 5 s cap stops it before its bounds."""
    record_path = tmp_path / "record.json"
    status, _, err = _search(cli, "--max-search-time", "5s", "--json", str(record_path))
    assert status == 1, err
    assert err.startswith("search irregular: the search hit its time cap of 5 s of trials")
    assert "give a longer --max-search-time" in err
    record = json.loads(record_path.read_text())
    assert record["search"]["time_capped"] is True and record["incomplete"] is True
    assert record["search"]["search_time_s"] <= 5.0


def test_binary_conditional_throughput_is_not_computed(cli: CliCall) -> None:
    status, out, err = _search(cli, "--algorithm", "binary", "--console", "quiet")
    assert status == 0, err
    lines = [line for line in out.splitlines() if line.startswith(("NDR:", "PDR:"))]
    assert len(lines) == 2
    assert all(line.endswith("conditional throughput not computed") for line in lines)
    assert "0 pps" not in out


def test_bswlv_ndr_above_pdr_exits_1_where_mlr_is_in_order(tmp_path: Path, cli: CliCall) -> None:
    """sim.yaml with the ``noisyknee`` DUT (seed 3: random loss in a band below its capacity):
    bswlv's per-goal "passes if any repeat passes" gives an NDR above the PDR, as the
    issue saw on a Linux DUT; mlr, whose goals share every trial, keeps them in order."""
    text = SIM.read_text()
    assert "model: sharp " in text and "seed: 1 " in text
    noisy = tmp_path / "noisy.yaml"
    noisy.write_text(
        text.replace("model: sharp ", "model: noisyknee ").replace("seed: 1 ", "seed: 3 ")
    )
    record_path = tmp_path / "record.json"
    status, _, err = _search(
        cli, "--topology", str(noisy), "--algorithm", "bswlv", "--json", str(record_path)
    )
    assert status == 1, err
    found = re.match(
        r"search irregular: bounds out of order: NDR lower bound ([0-9.]+) Mpps "
        r"is above PDR's ([0-9.]+) Mpps",
        err,
    )
    assert found is not None, err
    assert "--algorithm mlr" in err
    record = json.loads(record_path.read_text())
    assert record["ndr"]["lower_bound"] > record["pdr"]["lower_bound"]
    assert float(found[1]) == pytest.approx(record["ndr"]["lower_bound"] / 1e6, abs=5e-4)
    assert float(found[2]) == pytest.approx(record["pdr"]["lower_bound"] / 1e6, abs=5e-4)
    assert [item["tag"] for item in record["irregular"]] == ["BOUNDS_OUT_OF_ORDER"]
    status, _, err = _search(cli, "--topology", str(noisy), "--json", str(record_path))
    assert status == 0, err
    record = json.loads(record_path.read_text())
    assert record["ndr"]["lower_bound"] <= record["pdr"]["lower_bound"]
    assert record["irregular"] == []


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--rate", "0"], "--rate 0: must be more than 0; accepted: a rate > 0"),
        (["--rate", "fast"], "--rate fast: not a rate; accepted: a rate > 0"),
        (
            ["--rate", "1Mpps", "--duration", "1e9"],
            "--duration 1e9: 1e+09 s is above the limit; accepted: more than 0 s, at most 600 s",
        ),
        (["--rate", "1Mpps", "--duration", "0"], "--duration 0: "),
    ],
)
def test_trial_refuses_bad_input_before_anything_is_set_up(
    tmp_path: Path, args: list[str], message: str, cli: CliCall
) -> None:
    lab = write_trex_topology(tmp_path)  # its set-up would fail at once: it never starts
    process = cli("trial", "--topology", str(lab), *args)
    assert process.returncode == 2, process.stderr
    assert _error_line(process.stderr).startswith("ndrpdr trial: error: " + message), process.stderr
    assert "ssh" not in process.stderr.lower() and "trex" not in process.stderr.lower()


def test_trial_refuses_a_rate_above_the_tgs_maximum_before_the_trial(cli: CliCall) -> None:
    process = cli("trial", "--topology", str(SIM), "--rate", "50Mpps")
    assert process.returncode == 2, process.stderr
    assert _error_line(process.stderr).startswith(
        "ndrpdr trial: error: --rate 50Mpps: 50 Mpps is above the traffic generator's maximum"
    ), process.stderr
    assert "intended:" not in process.stdout  # no trial ran
