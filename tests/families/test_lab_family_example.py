"""examples/families/lab_ip4.py, the manual's example of a lab's own family, works as the
manual says (docs/running.rst, "Adding a family"): listed, its suites written, its test run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from xml.etree import ElementTree

import pytest

from ndrpdr.families import FAMILIES_ENV, get_family

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "families"
FAMILY = "ethip4-ip4lab16"


def _run(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    paths = [str(ROOT / "libraries"), str(ROOT), os.environ.get("PYTHONPATH", "")]
    env = {**os.environ, FAMILIES_ENV: str(EXAMPLES), "PYTHONPATH": os.pathsep.join(paths)}
    return subprocess.run(
        [sys.executable, *args], capture_output=True, text=True, check=False, cwd=cwd,
        env=env, timeout=120,
    )  # fmt: skip


def test_the_example_family_sends_ip4base_traffic_from_16_hosts(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv(FAMILIES_ENV, str(EXAMPLES))
    mine, base = get_family(FAMILY), get_family("ethip4-ip4base")
    for ours, theirs in zip(mine.profile.directions, base.profile.directions, strict=True):
        assert (ours.src, ours.dst, ours.l4) == (theirs.src, theirs.dst, theirs.l4)
        assert [v.count for v in ours.vary] == [16]
    assert mine.setup.modes == base.setup.modes


def test_the_example_family_is_listed_its_suites_written_and_its_test_passes(
    tmp_path: Path,
) -> None:
    listed = _run(["-m", "ndrpdr", "families", FAMILY], ROOT)
    assert listed.returncode == 0, listed.stderr
    assert FAMILY in listed.stdout
    written = _run(["-m", "ndrpdr", "suites", "--write", "--lab", "--dir", str(tmp_path)], ROOT)
    assert written.returncode == 0, written.stderr
    suite = next(tmp_path.rglob(f"{FAMILY}-ndrpdr.robot"))
    args = ["--outputdir", str(tmp_path / "out"), "--console", "none", "--include", "64B AND 1C"]
    ran = _run(["-m", "robot", *args, str(suite)], tmp_path)
    assert ran.returncode == 0, ran.stdout + ran.stderr
    test = ElementTree.parse(tmp_path / "out" / "output.xml").getroot().find(".//test")
    assert test is not None and test.get("name") == f"64B-1c-{FAMILY}-ndrpdr"
    status = test.find("status")
    assert status is not None and status.get("status") == "PASS"
    assert "NDR: lower" in (status.text or "")
