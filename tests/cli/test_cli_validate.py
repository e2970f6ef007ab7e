"""``ndrpdr validate FILE...``: exit 0 for the shipped topologies, 1 with file:line for bad ones."""

from __future__ import annotations

from pathlib import Path

import pytest
from cli_helpers import INVALID, TOPOLOGIES, error_line

from example_topologies import RUNNABLE
from ndrpdr.cli.main import main

SHIPPED = RUNNABLE


def test_shipped_topologies_exist() -> None:
    names = {p.name for p in SHIPPED}
    assert {"sim.yaml", "local-linux.yaml", "labbox-2n.yaml"} <= names


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_topology_is_valid(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert out.startswith(f"{path}: valid: TG (")
    assert "DUT1 (" in out
    three = "-3n" in path.name  # labbox-3n.yaml, labbox-3n-vpp.yaml
    assert f"; {3 if three else 2} links" in out
    assert ("DUT2 (" in out) == three


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_every_shipped_topology_has_a_plan(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--plan", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    nodes = 3 if "-3n" in path.name else 2
    assert f"  {nodes}-node path ({nodes}_NODE_SINGLE_LINK_TOPO), NIC " in out
    hops = [line for line in out.splitlines() if line.startswith("    TG ") or "--> TG " in line]
    assert len(hops) == 2  # out of the TG, and back to it
    assert "192.168.10.1/24 -> 198.18.0.0/24 via 192.168.10.2" in out


def test_all_shipped_at_once(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", *map(str, SHIPPED)]) == 0
    out, _ = capsys.readouterr()
    assert len(out.splitlines()) == len(SHIPPED)


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("node-field-typo.yaml", "nodes.DUT1.drivr: unknown field 'drivr'"),
        ("iface-bad-mac.yaml", "'b4:96:91:bb:00:1z' is not a MAC address"),
        ("options-dut-sim-model.yaml", "nodes.DUT1.options.model: 'sharpp' is not one of"),
    ],
)
def test_invalid_file_exit_1_with_file_and_line(
    name: str, problem: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = INVALID / name
    line = error_line(path)
    assert line is not None and line > 3  # the line of the field, not of the header comment
    assert main(["validate", str(path)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(f"{path}:{line}: ")
    assert problem in err
    assert "Traceback" not in err
    assert len(err.splitlines()) == 1


def test_every_invalid_example_fails_with_its_name(capsys: pytest.CaptureFixture[str]) -> None:
    files = sorted(INVALID.glob("*.yaml"))
    assert len(files) > 50
    assert main(["validate", *map(str, files)]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == len(files)  # one message per file, no traceback
    for path, message in zip(files, lines, strict=True):
        line = error_line(path)
        where = f"{path}:" if line is None else f"{path}:{line}: "
        assert message.startswith(where), message


def test_mixed_files_report_each(capsys: pytest.CaptureFixture[str]) -> None:
    good = TOPOLOGIES / "sim.yaml"
    bad = INVALID / "node-no-dut.yaml"
    assert main(["validate", str(bad), str(good)]) == 1
    out, err = capsys.readouterr()
    assert out.startswith(f"{good}: valid")  # the good file after the bad one is still checked
    assert err.startswith(f"{bad}:")


def test_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    missing = tmp_path / "nope.yaml"
    assert main(["validate", str(missing)]) == 1
    _, err = capsys.readouterr()
    assert str(missing) in err
    assert "no such file" in err


def test_no_file_is_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["validate"])
    assert exited.value.code == 2
    assert "FILE" in capsys.readouterr().err
