"""The record written as the search goes: atomic rewrites, schema-valid at every step,
throttled, and write failures that warn once without stopping the search.

The disk-full cases (also through the CLI) use a real tmpfs of a few
pages, mounted and unmounted by the test (root only; skipped otherwise).
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ndrpdr.cli.main import main
from ndrpdr.families import profile_of as get_profile
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.results import journal
from ndrpdr.results.journal import RecordJournal, unfinished_error, write_json_atomically
from ndrpdr.results.record import write_record
from ndrpdr.results.schema import validate_record
from ndrpdr.search import SearchProgress
from ndrpdr.searchrun import SearchRun
from ndrpdr.topology.loader import load_topology
from ndrpdr.topology.model import Topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator
from search_call import search_call

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

SIM = Path(__file__).resolve().parents[2] / "topologies" / "sim.yaml"
GOALS = ndr_pdr_goals(duration_sum_s=2.0, relative_width=0.02)
#: About 50 trials: a record that outgrows a 16 KiB tmpfs half way.
LONG_GOALS = ndr_pdr_goals(duration_sum_s=21.0, relative_width=0.005)


@pytest.fixture(scope="module")
def topology() -> Topology:
    return load_topology(SIM)


@pytest.fixture
def every_trial(monkeypatch: pytest.MonkeyPatch) -> None:
    """No throttle: sim trials take no wall time, so the default would skip most rewrites."""
    monkeypatch.setattr(journal, "DEFAULT_MAX_PAUSE_S", 0.0)


@pytest.fixture
def small_tmpfs(tmp_path: Path) -> Iterator[Path]:
    """A tmpfs of 16 KiB at ``tmp_path/small``, unmounted after the test (root only)."""
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    mount_point = tmp_path / "small"
    mount_point.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16k,mode=0755", "ndrpdr-test", str(mount_point)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs: {done.stderr.strip()}")
    try:
        yield mount_point
    finally:
        subprocess.run(["umount", str(mount_point)], check=True)


def _search(
    topology: Topology, path: Path, notices: list[str] | None = None, **kwargs: Any
) -> SearchRun:
    kwargs.setdefault("goals", GOALS)
    return search_call(
        SimTrafficGenerator(topology),
        topology=topology,
        profile=get_profile("ethip4-ip4base"),
        frame_size=64,
        record_path=path,
        notice=None if notices is None else notices.append,
        **kwargs,
    )


def test_every_rewrite_is_a_valid_unfinished_record(
    topology: Topology, tmp_path: Path, every_trial: None
) -> None:
    path = tmp_path / "out" / "record.json"  # the directory is made
    seen: list[dict[str, Any]] = []

    def look(snapshot: SearchProgress) -> None:  # called after the journal wrote this trial
        record = json.loads(path.read_text())
        validate_record(record)
        assert len(record["trials"]) == snapshot.trial_number
        seen.append(record)

    outcome = _search(topology, path, progress=look)
    assert len(seen) == len(outcome.record.to_json()["trials"]) > 3
    for number, record in enumerate(seen, start=1):
        assert record["status"] == "failed"
        assert record["incomplete"] is True
        assert record["error"] == unfinished_error(number)
        assert "had not finished" in record["error"]
        assert record["latency"]["status"] == "not measured"
    # the bounds so far grow with the trials: the last rewrite already has the final bounds
    assert seen[-1]["ndr"]["lower_bound"] == outcome.record.to_json()["ndr"]["lower_bound"]
    assert not list(path.parent.glob(".*.tmp"))  # no temporary file left behind
    # the caller's final record replaces it
    write_record(outcome.record.to_json(), path)
    final = json.loads(path.read_text())
    assert final["status"] == "passed" and final["incomplete"] is False


def test_a_record_exists_before_the_first_trial(topology: Topology, tmp_path: Path) -> None:
    path = tmp_path / "record.json"
    first: list[dict[str, Any]] = []

    class Peek(SimTrafficGenerator):
        def measure(self, duration: float, load: float) -> Any:
            if not first:
                first.append(json.loads(path.read_text()))
            return super().measure(duration, load)

    search_call(
        Peek(topology),
        topology=topology,
        profile=get_profile("ethip4-ip4base"),
        frame_size=64,
        goals=GOALS,
        record_path=path,
    )
    validate_record(first[0])
    assert first[0]["trials"] == []
    assert (
        first[0]["error"]
        == unfinished_error(0)
        == ("the run had not finished when this record was written: 0 trials so far")
    )


def test_throttle_waits_ten_times_the_write_cost_at_most_the_interval(tmp_path: Path) -> None:
    now = [0.0]
    cost = [0.01]  # each build takes this long on the fake clock [s]

    def build() -> dict[str, Any]:
        now[0] += cost[0]
        return {"at": round(now[0], 3)}

    path = tmp_path / "j.json"
    journal_ = RecordJournal(path, build, max_pause_s=0.2, clock=lambda: now[0])
    written = []
    for t in (0.0, 0.05, 0.12, 0.2):
        now[0] = t
        journal_.update()
        written.append(journal_.writes)
    assert written == [1, 1, 2, 2]  # 0.05 and 0.2 came within 10 x 0.01 s of a write
    journal_.flush()  # the update at 0.2 was held back
    assert journal_.writes == 3 and json.loads(path.read_text()) == {"at": 0.21}
    journal_.flush()  # nothing pending: no write
    assert journal_.writes == 3
    cost[0] = 0.05  # an expensive write: held back at most max_pause_s, not 0.5 s
    now[0] = 1.0
    journal_.update()
    now[0] = 1.24
    journal_.update()
    assert journal_.writes == 5


def test_atomic_write_keeps_the_old_file_when_the_disk_is_full(small_tmpfs: Path) -> None:
    path = small_tmpfs / "record.json"
    write_json_atomically({"old": True}, path)
    with pytest.raises(OSError, match="No space left on device"):
        write_json_atomically({"new": "x" * 64 * 1024}, path)
    assert json.loads(path.read_text()) == {"old": True}
    assert sorted(p.name for p in small_tmpfs.iterdir()) == ["record.json"]


def test_disk_full_mid_search_warns_once_and_the_search_goes_on(
    topology: Topology, small_tmpfs: Path, every_trial: None
) -> None:
    path = small_tmpfs / "record.json"
    notices: list[str] = []
    outcome = _search(topology, path, notices, goals=LONG_GOALS)
    assert outcome.error is None  # the search finished
    assert len(notices) == 1
    assert notices[0].startswith(f"cannot write the in-progress result record {path}: ")
    assert "No space left on device" in notices[0]
    assert "the search goes on" in notices[0]
    # what is there is the last record that fitted: valid, unfinished, some trials
    kept = json.loads(path.read_text())
    validate_record(kept)
    assert kept["incomplete"] is True
    assert 0 < len(kept["trials"]) < len(outcome.record.to_json()["trials"])
    with pytest.raises(OSError, match="No space left on device"):  # the caller reports it
        write_record(outcome.record.to_json(), path)


def test_an_unwritable_place_warns_through_the_log_without_notice(
    topology: Topology, tmp_path: Path, caplog: pytest.LogCaptureFixture, every_trial: None
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    outcome = _search(topology, blocker / "record.json")
    assert outcome.error is None
    warnings = [r for r in caplog.records if "in-progress result record" in r.getMessage()]
    assert len(warnings) == 1
    assert str(blocker) in warnings[0].getMessage()


def test_cli_with_a_full_disk_warns_once_then_exits_1(
    small_tmpfs: Path, capsys: pytest.CaptureFixture[str], every_trial: None
) -> None:
    path = small_tmpfs / "record.json"
    code = main(["search", "--topology", str(SIM), "--json", str(path), "--duration-sum", "21s"])
    out, err = capsys.readouterr()
    assert code == 1
    warnings = [line for line in out.splitlines() if "in-progress result record" in line]
    assert len(warnings) == 1 and warnings[0].startswith("WARNING: cannot write the in-progress")
    assert "ndrpdr search: cannot write the result record: [Errno 28] No space left" in err
    assert any(line.startswith("NDR: lower") for line in out.splitlines())  # still shown
    kept = json.loads(path.read_text())  # the last in-progress record that fitted
    validate_record(kept)
    assert kept["incomplete"] is True and kept["trials"]
