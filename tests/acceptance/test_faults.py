"""Fault injection on the real local testbed (issue 13): each fault, then what the run did and left.

Real parts only: ``python -m ndrpdr search`` runs as a child process on
local-testpmd.yaml / local-linux.yaml (network namespaces, veths,
tcpreplay, dpdk-testpmd or the kernel), on labbox-2n.yaml (hosts in
namespaces reached over SSH from a real sshd, TRex software mode) and on
sim.yaml; the faults are real signals to real processes and a real full
tmpfs. Each case asserts the exit status, the message, the result record
(schema-valid, trials kept) and that nothing of the run is left: its
namespaces, the processes seen in them (and the runner's children), its
root-namespace veths, its state file and recorded paths, mounts. Only the
test's own run is looked at (namespaces ``ndrpdr-<runner pid>-*``, a state
directory private to the test); a failed case removes what its run left.

The behaviour checked is issue 13's contracts (leftovers and the reaper,
the record written as the search goes, DUT health, irregular results, bad
input). ``python tests/acceptance/fault_table.py`` runs these cases and
prints the fault table. Needs root, tcpreplay, nft and dpdk-testpmd (the
SSH case: sshd and TRex); skipped otherwise.
"""

from __future__ import annotations

import errno
import os
import re
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from fault_helpers import (
    CHEAP,
    LABBOX_2N,
    LEFTOVERS_HEADER,
    LINUX,
    SHORT,
    SIM,
    TESTPMD,
    UNENDING,
    Proc,
    SearchRun,
    check_trials_kept,
    kill_proc,
    load_record,
    mentions_run,
    missing_labbox,
    missing_local,
    mounts_matching,
    note_row,
    seconds_since,
)

pytestmark = pytest.mark.real  # a real system part: tests/testkinds.py

NO_TESTPMD = missing_local("dpdk-testpmd")
NO_LOCAL = missing_local()
NO_LABBOX = missing_labbox()
if NO_LABBOX is not None and os.environ.get("NDRPDR_REQUIRE_TREX") == "1":  # as .ci/run sets
    raise RuntimeError(f"NDRPDR_REQUIRE_TREX=1, but {NO_LABBOX}")
needs_testpmd = pytest.mark.skipif(NO_TESTPMD is not None, reason=NO_TESTPMD or "")
needs_local = pytest.mark.skipif(NO_LOCAL is not None, reason=NO_LOCAL or "")
needs_labbox = pytest.mark.skipif(NO_LABBOX is not None, reason=NO_LABBOX or "")

#: What a run may take to remove everything once it exits on its own [s] (a supervisor's poll).
EXIT_GRACE_S = 3.0
#: Contract 1: a SIGKILLed runner's things are gone within this [s].
REAPER_S = 5.0
#: Contract 3: a dead DUT ends the search within this of the kill [s].
DUT_DEATH_S = 10.0
#: A labbox search whose DUT1 SSH connection was dropped (and re-made) ends within this [s].
SSH_SEARCH_S = 120.0
#: Contract 5: bad input is rejected within this [s] (nothing is set up).
BAD_INPUT_S = 10.0

Start = Callable[..., SearchRun]


@pytest.fixture
def runs(tmp_path: Path) -> Iterator[Start]:
    """Start ``ndrpdr search`` runs; afterwards remove whatever they left (and say so)."""
    made: list[SearchRun] = []

    def start(*args: str | Path, name: str = "run", poll_s: float = 0.1) -> SearchRun:
        run = SearchRun(tmp_path, *map(str, args), name=name, poll_s=poll_s).start()
        made.append(run)
        return run

    yield start
    for run in made:
        removed = run.force_clean()
        if removed:
            print(f"{run.name} (pid {run.pid}): the test removed what was left: {removed}")


def is_testpmd(proc: Proc) -> bool:
    """The DPDK testpmd process (its comm is at most 15 characters)."""
    return proc.comm == "dpdk-testpmd"


def is_tcpreplay(proc: Proc) -> bool:
    """A tcpreplay sender."""
    return proc.comm == "tcpreplay"


def failed_record_problems(record: dict[str, object]) -> list[str]:
    """Problems with a record that should say the search failed."""
    problems = []
    if record["status"] != "failed":
        problems.append(f"record status {record['status']!r}, expected 'failed'")
    if not record.get("error"):
        problems.append("the failed record has no error")
    return problems


# -- 1. SIGKILL of the runner, then the next run -----------------------------------------
@needs_testpmd
def test_sigkill_of_the_runner_leaves_nothing_after_the_next_run(
    runs: Start, tmp_path: Path
) -> None:
    """Contract 1 (reaper, leftovers at the next start) and 2 (record as the search goes)."""
    record_path = tmp_path / "killed.json"
    killed = runs("--topology", TESTPMD, *UNENDING, "--json", record_path, name="killed")
    printed = killed.wait_trials(4)
    killed.signal(signal.SIGKILL)
    code = killed.finish(10.0)
    since_kill = seconds_since(killed.signalled_at, time.monotonic()) or 0.0
    left_after_reaper = killed.wait_clean(max(REAPER_S - since_kill, 0.0))
    gone_s = seconds_since(killed.signalled_at, time.monotonic())

    nxt = runs("--topology", LINUX, *CHEAP, "--json", tmp_path / "next.json", name="next")
    next_code = nxt.finish(60.0)
    left = killed.leftovers()
    next_left = nxt.left_after_exit(EXIT_GRACE_S)
    about_killed = [line for line in nxt.stderr_lines() if mentions_run(line, killed.pid)]
    note_row(
        "SIGKILL of the runner mid-search, then the next run",
        killed,
        code,
        left_after_reaper,
        f"killed after {len(printed)} trial lines; "
        f"{'still there' if left_after_reaper else 'all gone'} {gone_s:.1f} s after the kill; "
        f"next run: exit {next_code}, {len(about_killed)} lines about the killed run, "
        f"{len(left)} of its things left after it",
    )

    problems = []
    assert code == -signal.SIGKILL
    if left_after_reaper:
        problems.append(f"{REAPER_S:g} s after SIGKILL of the runner, left: {left_after_reaper}")
    if not left_after_reaper and about_killed:
        problems.append(f"the next run reported the killed run, already cleaned: {about_killed}")
    if left_after_reaper and (LEFTOVERS_HEADER not in nxt.stderr or not about_killed):
        problems.append(
            f"the next run did not report removing the killed run's leftovers:\n{nxt.output()}"
        )
    if next_code != 0:
        problems.append(f"the next run exited {next_code}:\n{nxt.output()}")
    if left:
        problems.append(f"after the next run, the killed run left: {left}")
    if next_left:
        problems.append(f"the next run left: {next_left}")
    try:
        record = load_record(record_path)
    except AssertionError as exc:
        problems.append(f"killed run's record: {exc}")
    else:
        problems += failed_record_problems(record)
        if record.get("incomplete") is not True:
            problems.append(f"record incomplete={record.get('incomplete')!r}, expected true")
        problems += check_trials_kept(record, printed, at_least=3)
    assert not problems, "\n".join(problems)


# -- 2. the DUT killed mid-search --------------------------------------------------------
@needs_testpmd
def test_dut_killed_mid_search_fails_the_search_naming_the_dut(runs: Start, tmp_path: Path) -> None:
    """Contract 3: a dead dpdk-testpmd ends the search within 10 s, named with its log tail."""
    record_path = tmp_path / "record.json"
    run = runs("--topology", TESTPMD, *UNENDING, "--json", record_path)
    dut = run.wait_process("dut", is_testpmd, "dpdk-testpmd")
    printed = run.wait_trials(2)
    assert kill_proc(dut), f"dpdk-testpmd {dut.pid} ended before the test killed it"
    killed_at = time.monotonic()
    code = run.finish(DUT_DEATH_S)
    exit_s = seconds_since(killed_at, run.exited_at)
    left = run.left_after_exit(EXIT_GRACE_S)
    note_row(
        "DUT (dpdk-testpmd) killed mid-search",
        run,
        None if run.timed_out else code,
        left,
        "" if run.timed_out else f"exit {exit_s:.1f} s after the kill",
    )

    assert not run.timed_out, (
        f"the search ran on > {DUT_DEATH_S:g} s after its DUT died\n{run.output()}"
    )
    assert code == 1, run.output()
    for text in ("search failed", "DUT1", "dpdk-testpmd", "log tail"):
        assert text in run.stderr, f"{text!r} not in stderr\n{run.output()}"
    assert re.search(r"SIGKILL|signal 9|-9\b|killed", run.stderr), run.output()
    record = load_record(record_path)
    problems = failed_record_problems(record) + check_trials_kept(record, printed, at_least=2)
    assert not problems, "\n".join(problems)
    assert not left, f"left: {left}"


# -- 3. the TG sender killed -------------------------------------------------------------
@needs_testpmd
def test_tcpreplay_killed_mid_trial_fails_naming_tcpreplay(runs: Start, tmp_path: Path) -> None:
    """A killed tcpreplay fails the search with a message naming it; the trials are kept."""
    record_path = tmp_path / "record.json"
    run = runs("--topology", TESTPMD, *UNENDING, "--json", record_path)
    printed = run.wait_trials(2)
    deadline = time.monotonic() + 30.0
    while True:  # a sender may end between being found and being killed: take the next
        sender = run.wait_process("tg", is_tcpreplay, "tcpreplay", timeout_s=30.0)
        if kill_proc(sender):
            break
        assert time.monotonic() < deadline, "no tcpreplay lived long enough to be killed"
    code = run.finish(30.0)
    left = run.left_after_exit(EXIT_GRACE_S)
    note_row("TG sender (tcpreplay) killed mid-trial", run, None if run.timed_out else code, left)

    assert not run.timed_out, f"the search ran on > 30 s after tcpreplay was killed\n{run.output()}"
    assert code == 1, run.output()
    assert "tcpreplay" in run.message() and "TG" in run.message(), run.output()
    record = load_record(record_path)
    problems = failed_record_problems(record) + check_trials_kept(record, printed, at_least=2)
    assert not problems, "\n".join(problems)
    assert not left, f"left: {left}"


# -- 4. the SSH connection dropped -------------------------------------------------------
def ssh_sessions(run: SearchRun, logical: str) -> list[Proc]:
    """The per-connection sshd processes of the host ``logical``: children of its listener."""
    procs = run.processes_in(logical)
    sshds = {p.pid: p for p in procs if p.comm == "sshd"}
    listeners = {pid for pid, p in sshds.items() if p.ppid not in sshds}
    return [p for p in sshds.values() if p.ppid in listeners]


@needs_labbox
def test_ssh_connection_dropped_mid_trial_is_said_and_the_search_goes_on(
    runs: Start, tmp_path: Path
) -> None:
    """The lab in a box: the sshd serving the runner's DUT1 connection is killed mid-search.

    The DUT (kernel forwarding on its host) still forwards, so the result
    stays right: the transport reconnects, says on stderr that DUT1's
    connection was lost and re-established, the health checks go on over
    the new connection, and the search ends normally (``--allow-irregular``:
    software-mode TRex may be the limit here, which is not this case's
    subject). Everything (sshds, TRex, namespaces, veths, keys) must go.
    """
    record_path = tmp_path / "record.json"
    wide = ("--width", "0.1", "--allow-irregular")
    run = runs("--topology", LABBOX_2N, *SHORT, *wide, "--json", record_path)
    printed = run.wait_trials(2, timeout_s=120.0)
    sessions: list[Proc] = run.wait_until(
        "an sshd serving the runner on DUT1", lambda: ssh_sessions(run, "dut1"), 10.0
    )
    killed = [p.describe() for p in sessions if kill_proc(p)]
    assert killed, "the DUT1 sshd sessions ended before the test killed them"
    killed_at = time.monotonic()
    code = run.finish(SSH_SEARCH_S)
    exit_s = seconds_since(killed_at, run.exited_at)
    left = run.left_after_exit(EXIT_GRACE_S)
    note_row(
        "SSH connection to DUT1 dropped mid-trial (labbox-2n)",
        run,
        None if run.timed_out else code,
        left,
        "" if run.timed_out else f"reconnected; search ended {exit_s:.1f} s after the kill",
    )

    assert not run.timed_out, f"the search did not end within {SSH_SEARCH_S:g} s\n{run.output()}"
    assert code == 0, f"killed {killed}; exit {code}\n{run.output()}"
    assert re.search(r"DUT1: the SSH connection to \S+ was lost; reconnected", run.stderr), (
        run.output()
    )
    record = load_record(record_path)
    assert record["status"] == "passed" and not record["incomplete"], record["error"]
    assert len(record["trials"]) > len(printed), "no trial after the drop"
    assert not left, f"left: {left}"


# -- 5. Ctrl-C during set-up, a trial, teardown ------------------------------------------
@needs_testpmd
@pytest.mark.parametrize("phase", ["setup", "trial", "trial-group", "teardown"])
def test_ctrl_c_exits_130_and_leaves_nothing(runs: Start, tmp_path: Path, phase: str) -> None:
    """SIGINT to the runner: exit 130, ``interrupted``, nothing left; in a trial the trials kept.

    ``trial-group``: SIGINT to the runner's whole process group during a
    trial, as a terminal's Ctrl-C sends it (children in that group get it too).
    """
    group = phase == "trial-group"
    phase = phase.removesuffix("-group")
    record_path = tmp_path / "record.json"
    goals = CHEAP if phase == "teardown" else SHORT
    if phase == "trial":  # a search that cannot end before the signal
        goals = UNENDING
    run = runs("--topology", TESTPMD, *goals, "--json", record_path, poll_s=0.05)
    dut = run.wait_process("dut", is_testpmd, "dpdk-testpmd")
    if phase == "trial":
        run.wait_trials(2)
        run.wait_process("tg", is_tcpreplay, "a trial (tcpreplay)", timeout_s=30.0)
    elif phase == "teardown":
        run.wait_trials(1)
        run.wait_until(
            "teardown (dpdk-testpmd stopped, or the bounds printed)",
            lambda: not dut.alive() or "NDR: lower" in run.stdout,
            60.0,
        )
    printed = run.trials()
    present = run.namespaces_now()  # the testbed still (or already) exists
    searching = "NDR: lower" not in run.stdout  # the bounds are printed after the search
    run.signal(signal.SIGINT, group=group)
    code = run.finish(30.0)
    left = run.left_after_exit(EXIT_GRACE_S)
    to = "the process group" if group else "the runner"
    note_row(f"Ctrl-C (SIGINT to {to}) during {phase}", run, None if run.timed_out else code, left)

    assert present, f"the test sent SIGINT too late: the testbed was gone ({phase})"
    if phase == "trial":
        assert searching, f"the search ended before SIGINT\n{run.output()}"
    if phase == "setup":
        assert not printed, f"a trial ran before the interrupt: {printed}"
    assert not run.timed_out, f"no exit within 30 s of SIGINT\n{run.output()}"
    assert code == 130, run.output()
    assert "interrupted" in run.stderr, run.output()
    assert "Traceback" not in run.stderr, run.output()
    if phase == "trial":
        record = load_record(record_path)
        problems = failed_record_problems(record) + check_trials_kept(record, printed, at_least=2)
        assert not problems, "\n".join(problems)
    elif record_path.exists():  # whatever was written must be a whole, valid record
        load_record(record_path)
    assert not left, f"left: {left}"


# -- 6. disk full while writing the record -----------------------------------------------
def fill(path: Path) -> int:
    """Write zeros to ``path`` until its file system is full; return the bytes written."""
    written = 0
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    try:
        while True:
            written += os.write(fd, b"\0" * 4096)
    except OSError as exc:
        if exc.errno != errno.ENOSPC:
            raise
    finally:
        os.close(fd)
    return written


@needs_local
def test_disk_full_while_writing_the_record(runs: Start, tmp_path: Path) -> None:
    """The record goes to a full 16 KiB tmpfs: exit 1, the reason, bounds printed, nothing left."""
    full = tmp_path / "full"
    full.mkdir()
    subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=16k,mode=0755", "ndrpdr-fault-full", str(full)],
        check=True,
        capture_output=True,
    )
    try:
        fill(full / "filler")
        run = runs("--topology", LINUX, *CHEAP, "--json", full / "record.json")
        code = run.finish(60.0)
        left = run.left_after_exit(EXIT_GRACE_S)
        strays = sorted(p.name for p in full.iterdir() if p.name not in ("filler", "record.json"))
        note_row("disk full while writing the record", run, code, left + strays)
        kept = tmp_path / "kept.json"  # what the run left as its record, checked below
        if (full / "record.json").exists():
            kept.write_bytes((full / "record.json").read_bytes())
    finally:
        umount = subprocess.run(["umount", str(full)], check=False, capture_output=True)
        if umount.returncode != 0:
            subprocess.run(["umount", "-l", str(full)], check=False, capture_output=True)
    assert not mounts_matching([str(full)]), f"{full} is still mounted"

    assert code == 1, run.output()
    assert "cannot write the result record" in run.stderr, run.output()
    assert "No space left" in run.stderr, run.output()
    assert "Traceback" not in run.stderr, run.output()
    bounds = [ln for ln in run.stdout.splitlines() if ln.startswith(("NDR: lower", "PDR: lower"))]
    assert len(bounds) == 2, f"the bounds were not printed\n{run.output()}"
    assert not strays, f"files left in the full file system: {strays}"
    assert not left, f"left: {left}"
    if kept.exists():  # a record left there must be whole and valid, never a truncated file
        load_record(kept)


# -- 7. a min load that already loses ----------------------------------------------------
ALGORITHMS = ("mlr", "binary", "bswlv")
#: The same on a real DUT: mlr in CI, the other two (the same contract, slower) in tox -e slow.
REAL_ALGORITHMS = ("mlr", *(pytest.param(a, marks=pytest.mark.slow) for a in ALGORITHMS[1:]))
#: Goals of the lossy-min-load searches on testpmd (see the test).
LOSSY_GOALS = (
    "--initial-trial-duration", "0.5s", "--final-trial-duration", "0.5s",
    "--duration-sum", "1s", "--width", "0.2", "--no-latency",
)  # fmt: skip
#: The nft ruleset that makes a linux DUT drop one forwarded frame in 20, at any load.
LOSSY_DUT_RULES = """table inet ndrpdr_fault {
  chain forward {
    type filter hook forward priority 0; policy accept;
    numgen random mod 20 == 0 counter drop
  }
}
"""


def min_load_is_an_upper_bound(record: dict[str, Any]) -> bool:
    """True if some goal's upper bound is the search's min load (it lost there)."""
    low = float(record["search"]["min_load_pps"])
    return any(
        goal["upper_bound"] is not None and abs(goal["upper_bound"] - low) <= 1e-6 * low
        for goal in record["goals"]
    )


def check_lossy_min_load(run: SearchRun, code: int, record_path: Path) -> None:
    """Contract 4: exit 1, ``search irregular: ... min load ...``, a failed record saying so.

    ``min load`` may come after another irregularity on the line (e.g. TG-limited bounds).
    """
    assert not run.timed_out, run.output()
    assert code == 1, run.output()
    assert run.message().startswith("search irregular"), run.output()
    assert "min load" in run.message(), run.output()
    record = load_record(record_path)
    assert record["status"] == "failed", record["status"]
    assert "min load" in str(record["error"]), record["error"]


@needs_testpmd
@pytest.mark.parametrize("algorithm", REAL_ALGORITHMS)
def test_lossy_min_load_on_testpmd_fails(runs: Start, tmp_path: Path, algorithm: str) -> None:
    """The issue's rates on testpmd (AF_PACKET, one CPU): a min load that loses must fail.

    Whether 300 kpps loses depends on the machine's load at the time (it
    forwarded 300 kpps without loss on a quiet machine, lost 30-60 % on a
    busy one), so the record decides: a min load that is an upper bound must
    fail as irregular; a TG that cannot even send it fails the calibration,
    naming the min load; a min load that passed leaves nothing to check
    here (skipped; the linux case below makes the loss certain). 0.5 s
    trials and width 0.2 keep bswlv's repeats to ~10 s.
    """
    record_path = tmp_path / "record.json"
    run = runs(
        "--topology", TESTPMD, *LOSSY_GOALS, "--min-rate", "300kpps", "--max-rate", "800kpps",
        "--algorithm", algorithm, "--json", record_path,
    )  # fmt: skip
    code = run.finish(120.0)
    left = run.left_after_exit(EXIT_GRACE_S)
    calibration = run.message().startswith("search failed: max-load calibration")
    lossy = record_path.exists() and min_load_is_an_upper_bound(load_record(record_path))
    note_row(
        f"lossy min load, testpmd, {algorithm}",
        run,
        None if run.timed_out else code,
        left,
        "the TG could not send the min load"
        if calibration
        else ("the min load lost" if lossy else "the min load did not lose: nothing to check"),
    )
    assert not left, f"left: {left}"
    if calibration:
        assert code == 1 and "min load" in run.message(), run.output()
    elif lossy or run.timed_out or not record_path.exists():
        check_lossy_min_load(run, code, record_path)
    else:
        pytest.skip(f"300 kpps did not lose on testpmd now (exit {code}): nothing to check")


@needs_local
@pytest.mark.parametrize("algorithm", REAL_ALGORITHMS)
def test_lossy_dut_min_load_on_linux_fails(runs: Start, tmp_path: Path, algorithm: str) -> None:
    """A linux DUT that drops 1 frame in 20 at any load: the min load loses for certain.

    The test adds an nft rule (random 5 % drop in the forward hook) in the
    run's own DUT namespace as soon as it exists, before the first trial;
    every trial must then show loss, and the search must fail as irregular.
    """
    record_path = tmp_path / "record.json"
    run = runs(
        "--topology", LINUX, "--initial-trial-duration", "0.5s", "--final-trial-duration", "0.5s",
        "--duration-sum", "0.5s", "--min-rate", "10kpps", "--max-rate", "11kpps",
        "--width", "0.2", "--no-calibrate", "--no-latency", "--algorithm", algorithm,
        "--json", record_path, poll_s=0.02,
    )  # fmt: skip
    namespace = run.namespace("dut")
    subprocess.run(
        ["ip", "netns", "exec", namespace, "nft", "-f", "-"],
        input=LOSSY_DUT_RULES,
        text=True,
        check=True,
        capture_output=True,
    )
    code = run.finish(60.0)
    left = run.left_after_exit(EXIT_GRACE_S)
    note_row(
        f"lossy min load, linux DUT dropping 5 %, {algorithm}",
        run,
        None if run.timed_out else code,
        left,
    )
    record = load_record(record_path)
    lossless = [t["index"] for t in record["trials"] if not t["loss_count"]]
    assert record["trials"] and not lossless, f"trials without loss (rule too late?): {lossless}"
    check_lossy_min_load(run, code, record_path)
    assert not left, f"left: {left}"


@pytest.mark.parametrize("algorithm", ALGORITHMS)
def test_lossy_min_load_on_sim_fails(runs: Start, tmp_path: Path, algorithm: str) -> None:
    """25 Mpps already loses on the simulator's default DUT (ethip4-ip4base, 64 B, 1 core:
    about 18 Mpps): the search must not pass."""
    record_path = tmp_path / "record.json"
    run = runs(
        "--topology", SIM, "--min-rate", "25Mpps", "--max-rate", "29Mpps",
        "--algorithm", algorithm, "--no-latency", "--json", record_path,
    )  # fmt: skip
    code = run.finish(60.0)
    note_row(f"lossy min load, sim, {algorithm}", run, None if run.timed_out else code, [])
    check_lossy_min_load(run, code, record_path)


# -- 8. bad input ------------------------------------------------------------------------
BAD_INPUT = [
    pytest.param(("--min-rate", "0"), "--min-rate", id="min-rate-0"),
    pytest.param(("--max-rate", "0"), "--max-rate", id="max-rate-0"),
    # 2 Mpps > 1 Mpps as in the issue, scaled under local-testpmd.yaml's TG maximum (800 kpps)
    pytest.param(
        ("--min-rate", "600kpps", "--max-rate", "500kpps"), "--min-rate", id="min-above-max"
    ),
    pytest.param(("--final-trial-duration", "1e9"), "--final-trial-duration", id="final-1e9"),
    pytest.param(("--duration-sum", "1e12"), "--duration-sum", id="duration-sum-1e12"),
    pytest.param(
        ("--initial-trial-duration", "5s", "--final-trial-duration", "1s"),
        "--initial-trial-duration",
        id="initial-above-final",
    ),
]


@needs_testpmd
@pytest.mark.parametrize(("bad", "option"), BAD_INPUT)
def test_bad_input_is_rejected_before_any_set_up(
    runs: Start, tmp_path: Path, bad: tuple[str, ...], option: str
) -> None:
    """Contract 5: exit 2 within 10 s naming the option; no namespace or state file ever made.

    Only the bad options are given (default durations otherwise), so each is the only fault.
    """
    record_path = tmp_path / "record.json"
    run = runs("--topology", TESTPMD, "--no-latency", *bad, "--json", record_path, poll_s=0.02)
    started = time.monotonic()
    code = run.finish(BAD_INPUT_S)
    took = (run.exited_at or time.monotonic()) - started
    left = run.left_after_exit(EXIT_GRACE_S)
    made = sorted(run.namespaces_seen) + sorted(str(p) for p in run.state_files_seen)
    note_row(
        f"bad input: {' '.join(bad)}",
        run,
        None if run.timed_out else code,
        left,
        f"{took:.1f} s; made: {len(run.namespaces_seen)} namespaces, "
        f"{len(run.state_files_seen)} state files",
    )

    assert not run.timed_out, f"not rejected within {BAD_INPUT_S:g} s\n{run.output()}"
    assert code == 2, run.output()
    assert option in run.stderr, f"{option!r} not named\n{run.output()}"
    assert "Traceback" not in run.stderr, run.output()
    assert not made, f"created before the input was rejected: {made}"
    assert "search up to" not in run.stdout and not run.trials(), run.output()
    if record_path.exists():  # a record of a search that never started must still be valid
        load_record(record_path)
    assert not left, f"left: {left}"


def test_fault_helpers_read_trial_lines_and_run_ids() -> None:
    """The console and run-id parsing the cases rely on (no testbed needed)."""
    from fault_helpers import parse_trial_lines

    lines = [
        "topologies/local-testpmd.yaml: ethip4-ip4base 64 B, mlr search up to 800000 pps",
        "#  1   439.975 kpps x 0.5 s  loss 53.0690 %  (probe/probe, all)  | NDR ?..?  PDR ?..?",
        "      estimate after 10 trials: ...",
        "# 12        20 kpps x 1 s  loss 0.0000 %  (final/continue, goal 0)  | NDR 20 kpps..?",
    ]
    trials = parse_trial_lines(lines)
    assert [(t.index, t.load_pps, t.duration_s) for t in trials] == [
        (1, 439975.0, 0.5),
        (12, 20000.0, 1.0),
    ]
    assert mentions_run("namespace ndrpdr-4711-0a9f-dut (run 4711-0a9f)", 4711)
    assert not mentions_run("namespace ndrpdr-14711-0a9f-dut", 4711)
    assert not mentions_run("pid 4711, run 4711-0a9f1", 4711)
