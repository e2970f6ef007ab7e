"""``ndrpdr check`` on the lab in a box (topologies/labbox-2n.yaml): every step passes for real.

The hosts are network namespaces with their own sshd, reached over real
SSH; the TG host's TRex v3.08 (``/opt/trex/v3.08``) says its version and
sends the trial in software mode; the DUT forwards with the Linux kernel.
Needs root, sshd and TRex (skipped otherwise, failed when
``NDRPDR_REQUIRE_TREX=1``). Nothing of the check is left afterwards.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ndrpdr.cli.main import main
from ndrpdr.localbed.procs import NETNS_RUN_DIR

pytestmark = pytest.mark.real  # namespaces, sshd, TRex: tests/testkinds.py

ROOT = Path(__file__).resolve().parents[2]
TREX = Path("/opt/trex/v3.08")


def own_namespaces() -> set[str]:
    """The network namespaces of this process's runs now (``ndrpdr-<pid>-...``: other runs
    on the machine come and go)."""
    if not NETNS_RUN_DIR.is_dir():
        return set()
    return {p.name for p in NETNS_RUN_DIR.iterdir() if p.name.startswith(f"ndrpdr-{os.getpid()}-")}


def _require_trex() -> None:
    if not (TREX / "t-rex-64").is_file():
        text = f"TRex is not installed at {TREX}"
        if os.environ.get("NDRPDR_REQUIRE_TREX") == "1":
            pytest.fail(f"NDRPDR_REQUIRE_TREX=1 but {text}")
        pytest.skip(text)


def test_check_passes_every_step_on_the_lab_in_a_box(
    state_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _require_trex()
    monkeypatch.chdir(ROOT)
    status = main(["check", "--topology", "topologies/labbox-2n.yaml"])
    out, err = capsys.readouterr()
    lines = out.splitlines()
    assert status == 0, out + err
    assert [line.split(":")[0] for line in lines] == [
        "PASS topology",
        "PASS build",
        "PASS reach TG",
        "PASS reach DUT1",
        "PASS version TG",
        "PASS version DUT1",
        "PASS ports TG",
        "PASS ports DUT1",
        "PASS macs TG",
        "PASS macs DUT1",
        "PASS trial",
    ]
    assert lines[2].startswith("PASS reach TG: ssh root@169.254.")  # over SSH, as a lab host
    assert lines[4] == "PASS version TG: TRex v3.08 at /opt/trex/v3.08"
    assert lines[6] == "PASS ports TG: port1 tg-p1, port2 tg-p2"
    assert lines[8] == "PASS macs TG: port1, port2 as in the file"
    assert lines[10].startswith("PASS trial: 10 kpps for 1 s (ethip4-ip4base, 64 B): ")
    assert lines[10].endswith(", no loss")
    assert own_namespaces() == set()  # the hosts made for the check are gone
