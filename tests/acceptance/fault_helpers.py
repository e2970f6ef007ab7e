"""Fault injection on real runs: start ``ndrpdr search``, watch what it makes, check what is left.

A ``SearchRun`` is one ``python -m ndrpdr search`` child process, or another
runner of testbeds such as ``python -m robot`` (project root as cwd,
``child_env``, unbuffered output, its own session so a failed test can stop
it as a group). While it runs a watcher thread notes, every
``poll_s`` seconds, everything of *this* run only:

* its network namespaces (``ndrpdr-<runner pid>-<hex>-*``, see
  ``ndrpdr.localbed.naming``) and the processes inside them (PID + start
  time, so a reused PID is never taken for one of them);
* the runner's direct children (e.g. a supervisor it starts);
* its state files (``<state dir>/<runner pid>-<hex>.json``): the paths,
  processes and root-namespace interfaces the run recorded;
* veths in the root namespace whose peer is in one of its namespaces (found
  by the kernel's netns ids, independently of the state file).

``leftovers()`` lists what of all that still exists. The state directory is
private to each test (``NDRPDR_STATE_DIR``), so another helper's runs and
their clean-ups neither see nor are seen by these tests.
"""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from acceptance_helpers import TOPOLOGIES

from ndrpdr.localbed.procs import NETNS_RUN_DIR, is_alive, namespace_pids, start_time, terminate
from ndrpdr.results.schema import validate_record
from robot_runner import ROOT, child_env

TESTPMD = TOPOLOGIES / "local-testpmd.yaml"
LINUX = TOPOLOGIES / "local-linux.yaml"
LABBOX_2N = TOPOLOGIES / "labbox-2n.yaml"
SIM = TOPOLOGIES / "sim.yaml"
TREX = Path("/opt/trex/v3.08")
SSHD = Path("/usr/sbin/sshd")

#: Short trials: a search on local-testpmd.yaml prints a trial line every ~0.6 s.
SHORT = (
    "--initial-trial-duration", "0.5s", "--final-trial-duration", "1s",
    "--duration-sum", "2s", "--no-latency",
)  # fmt: skip

#: SHORT trials in a search that cannot end within ~15 trials, whatever rate the TG manages:
#: a test that acts after the Nth trial line needs the search still running then. With SHORT
#: alone, a loaded machine's tcpreplay (capped near 110 kpps, the DUT keeping up) ended the
#: search after 3 trials, before the test's SIGKILL.
UNENDING = (*SHORT, "--width", "0.001", "--duration-sum", "10s")

#: A search that ends after one or two 0.5 s trials (20 kpps passes on every local DUT).
#: ``--allow-irregular``: on a loaded machine tcpreplay once sent 10 kpps 2.2 % slow in
#: 0.5 s, a TG-limited (irregular) result, exit 1; the cases using CHEAP are about cleanup,
#: signals and disk space, not the bounds, so a TG-limited bound only warns.
CHEAP = (
    "--initial-trial-duration", "0.5s", "--final-trial-duration", "0.5s",
    "--duration-sum", "0.5s", "--min-rate", "10kpps", "--max-rate", "20kpps",
    "--width", "0.5", "--no-calibrate", "--no-latency", "--allow-irregular",
)  # fmt: skip

#: A console trial line: ``# 12   247.232 kpps x 1 s  loss 25.7074 %  (...)``.
TRIAL_LINE = re.compile(
    r"^#\s*(?P<index>[0-9]+)\s+(?P<load>[0-9.]+)\s+(?P<unit>[kMG]?pps)\s+x\s+"
    r"(?P<duration>[0-9.]+)\s+s\s+loss\s+(?P<loss>[0-9.]+)\s+%"
)
_UNIT = {"pps": 1.0, "kpps": 1e3, "Mpps": 1e6, "Gpps": 1e9}

#: The CLI's header line before what it removed of dead runs (contract 1).
LEFTOVERS_HEADER = "ndrpdr: removed leftovers of dead runs:"

#: Where fault_table.py asks the tests to append their rows (JSON lines).
TABLE_ENV = "NDRPDR_FAULT_TABLE"


def missing_local(*tools: str) -> str | None:
    """Why the local testbed cannot run here (not root, a tool missing), else None."""
    if sys.platform != "linux" or os.geteuid() != 0:
        return "the local testbed needs Linux and root"
    for tool in ("ip", "tcpreplay", "nft", *tools):
        if shutil.which(tool) is None:
            return f"the local testbed needs {tool}, which is not installed"
    return None


def missing_labbox() -> str | None:
    """Why the lab in a box cannot run here (not root, no sshd, no TRex), else None."""
    if sys.platform != "linux" or os.geteuid() != 0:
        return "the lab in a box needs Linux and root"
    if not SSHD.exists() or shutil.which("ip") is None or shutil.which("unshare") is None:
        return "the lab in a box needs openssh-server, iproute2 and unshare"
    if not (TREX / "t-rex-64").exists():
        return f"the lab in a box needs TRex in {TREX}, which is not installed"
    return None


@dataclasses.dataclass(frozen=True)
class Proc:
    """One process as seen once: identity (PID + start time), parent, name, where it ran."""

    pid: int
    start: int
    ppid: int
    comm: str
    cmdline: str
    where: str

    def alive(self) -> bool:
        """True while this very process (same start time) runs."""
        return is_alive(self.pid, self.start)

    def describe(self) -> str:
        """``4711 (dpdk-testpmd) in ndrpdr-...-dut``."""
        return f"{self.pid} ({self.comm}) in {self.where}"


def read_proc(pid: int, where: str) -> Proc | None:
    """``pid`` as a Proc, or None if it is gone (or a zombie)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return None
    fields = stat[stat.rfind(")") + 2 :].split()
    if not fields or fields[0] in ("Z", "X"):
        return None
    comm = stat[stat.find("(") + 1 : stat.rfind(")")]
    text = cmdline.replace(b"\0", b" ").decode(errors="replace").strip()
    return Proc(pid, int(fields[19]), int(fields[1]), comm, text, where)


def children_of(parent: int) -> list[Proc]:
    """The live processes whose parent is ``parent``."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry.name}/stat").read_text()
        except OSError:
            continue
        if int(stat[stat.rfind(")") + 2 :].split()[1]) == parent:
            proc = read_proc(int(entry.name), f"the root namespace (child of {parent})")
            if proc is not None:
                found.append(proc)
    return found


def mentions_run(text: str, pid: int) -> bool:
    """True if ``text`` names something of the run of runner ``pid`` (``<pid>-<4 hex>``)."""
    return re.search(rf"(?<![0-9]){pid}-[0-9a-f]{{4}}(?![0-9a-f])", text) is not None


def processes_naming(pid: int) -> list[Proc]:
    """Live processes whose command line names a run of runner ``pid`` (``<pid>-<4 hex>``)."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == pid:
            continue
        try:
            cmdline = Path(f"/proc/{entry.name}/cmdline").read_bytes()
        except OSError:
            continue
        if str(pid).encode() in cmdline and mentions_run(cmdline.decode(errors="replace"), pid):
            proc = read_proc(int(entry.name), "the root namespace (names the run)")
            if proc is not None:
                found.append(proc)
    return found


def kill_proc(proc: Proc, signum: int = signal.SIGKILL) -> bool:
    """Signal ``proc`` if it is still that process (start time checked); True if signalled."""
    if not proc.alive():
        return False
    try:
        os.kill(proc.pid, signum)
    except ProcessLookupError:
        return False
    return True


def _ip_json(*args: str) -> Any:
    out = subprocess.run(["ip", "-j", *args], capture_output=True, text=True, check=False)
    try:
        return json.loads(out.stdout or "[]")
    except ValueError:
        return []


def root_veths_into(namespaces: Iterable[str]) -> set[str]:
    """Root-namespace veths whose peer lives in one of ``namespaces`` (by the kernel's netns id)."""
    wanted = set(namespaces)
    if not wanted:
        return set()
    ids = {
        entry.get("id")
        for entry in _ip_json("netns", "list")
        if entry.get("name") in wanted and entry.get("id") is not None
    }
    if not ids:
        return set()
    return {
        link["ifname"]
        for link in _ip_json("link", "show", "type", "veth")
        if link.get("link_netnsid") in ids and "ifname" in link
    }


def mounts_matching(markers: Iterable[str]) -> list[str]:
    """Mount points (this mount namespace) whose path contains one of ``markers``."""
    marks = [m for m in markers if m]
    found = []
    with contextlib.suppress(OSError):
        for line in Path("/proc/self/mounts").read_text().splitlines():
            parts = line.split()
            if len(parts) > 1 and any(m in parts[1] for m in marks):
                found.append(parts[1])
    return found


def tree_entries(top: Path) -> list[Path]:
    """Every file and directory below ``top``, sorted; one removed meanwhile is not an error.

    (``Path.rglob`` raises when a directory goes while it walks: a reaper
    removing the CPU-claim directory as the test looks.)
    """
    found: list[Path] = []
    for parent, dirs, files in os.walk(top):  # os.walk skips what vanished
        found += [Path(parent, name) for name in (*dirs, *files)]
    return sorted(found)


@dataclasses.dataclass(frozen=True)
class TrialLine:
    """A console trial line: its number (1 = the first trial) and load [frames/s]."""

    index: int
    load_pps: float
    duration_s: float
    loss_percent: float


def parse_trial_lines(lines: Iterable[str]) -> list[TrialLine]:
    """The trial lines among console ``lines``, in order."""
    trials = []
    for line in lines:
        match = TRIAL_LINE.match(line)
        if match is not None:
            trials.append(
                TrialLine(
                    int(match["index"]),
                    float(match["load"]) * _UNIT[match["unit"]],
                    float(match["duration"]),
                    float(match["loss"]),
                )
            )
    return trials


class SearchRun:
    """One ``ndrpdr search`` child process and everything it made (see the module docstring)."""

    def __init__(
        self,
        workdir: Path,
        *args: str,
        poll_s: float = 0.1,
        name: str = "run",
        runner: Sequence[str] = ("ndrpdr", "search"),
    ) -> None:
        """Plan ``python -m <runner> <args>``; ``workdir`` holds the private state directory.

        Nothing starts yet.
        """
        self.name = name
        self.args = [str(a) for a in args]
        self.runner = list(runner)
        self.state_dir = workdir / "state"
        self.poll_s = poll_s
        self.process: subprocess.Popen[str] | None = None
        self.timed_out = False
        self.signalled_at: float | None = None
        self.exited_at: float | None = None
        self._stdout: list[tuple[float, str]] = []
        self._stderr: list[tuple[float, str]] = []
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        # Everything seen of the run, kept after it is gone.
        self.namespaces_seen: set[str] = set()
        self.processes_seen: dict[tuple[int, int], Proc] = {}
        self.state_files_seen: set[Path] = set()
        self.paths_seen: set[str] = set()
        self.interfaces_seen: set[str] = set()

    # -- running ---------------------------------------------------------------------
    @property
    def pid(self) -> int:
        """The runner's PID."""
        assert self.process is not None, "the run has not started"
        return self.process.pid

    @property
    def prefix(self) -> str:
        """The prefix of every namespace of this run."""
        return f"ndrpdr-{self.pid}-"

    def start(self) -> SearchRun:
        """Start the child and its reader, waiter and watcher threads."""
        self.state_dir.mkdir(parents=True, exist_ok=True)
        self.process = subprocess.Popen(
            [sys.executable, "-m", *self.runner, *self.args],
            cwd=ROOT,
            env=child_env(NDRPDR_STATE_DIR=str(self.state_dir), PYTHONUNBUFFERED="1"),
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        process = self.process
        for target, args, name in (
            (self._read, (process.stdout, self._stdout), "stdout"),
            (self._read, (process.stderr, self._stderr), "stderr"),
            (self._wait, (), "waiter"),
            (self._watch, (), "watcher"),
        ):
            thread = threading.Thread(
                target=target, args=args, name=f"{self.name}-{name}", daemon=True
            )
            thread.start()
            self._threads.append(thread)
        return self

    def _read(self, stream: Any, into: list[tuple[float, str]]) -> None:
        for line in stream:
            with self._lock:
                into.append((time.monotonic(), line.rstrip("\n")))

    def _wait(self) -> None:
        assert self.process is not None
        self.process.wait()
        self.exited_at = time.monotonic()

    def _watch(self) -> None:
        rounds = 0
        while not self._stop.is_set():
            with contextlib.suppress(Exception):  # a file vanishing mid-read is normal here
                self._look(with_veths=rounds % 5 == 0)
            rounds += 1
            self._stop.wait(self.poll_s)

    def _look(self, *, with_veths: bool) -> None:
        namespaces = self.namespaces_now()
        self.namespaces_seen.update(namespaces)
        for namespace in namespaces:
            for pid in namespace_pids(namespace):
                proc = read_proc(pid, namespace)
                if proc is not None:
                    self.processes_seen.setdefault((proc.pid, proc.start), proc)
        if self.exited_at is None:
            for proc in children_of(self.pid):
                self.processes_seen.setdefault((proc.pid, proc.start), proc)
        if with_veths:  # as seldom: a supervisor that left the runner's process tree
            for proc in processes_naming(self.pid):
                self.processes_seen.setdefault((proc.pid, proc.start), proc)
        for path in self.state_dir.glob(f"{self.pid}-*.json"):
            self.state_files_seen.add(path)
            with contextlib.suppress(OSError, ValueError):
                state = json.loads(path.read_text())
                self.paths_seen.update(str(p) for p in state.get("paths", []))
                self.paths_seen.update(str(p) for p in state.get("logs", []))
                self.interfaces_seen.update(str(i) for i in state.get("interfaces", []))
                for item in state.get("processes", []):
                    key = (int(item["pid"]), int(item["start_time"]))
                    proc = read_proc(key[0], f"state file {path.name}")
                    if proc is not None and proc.start == key[1]:
                        self.processes_seen.setdefault(key, proc)
        if with_veths and namespaces:  # every 5th round: two ip commands
            self.interfaces_seen.update(root_veths_into(namespaces))

    # -- what it printed -------------------------------------------------------------
    @property
    def stdout(self) -> str:
        """Everything printed on stdout so far."""
        with self._lock:
            return "\n".join(line for _, line in self._stdout)

    @property
    def stderr(self) -> str:
        """Everything printed on stderr so far."""
        with self._lock:
            return "\n".join(line for _, line in self._stderr)

    def stderr_lines(self) -> list[str]:
        """stderr so far, line by line."""
        with self._lock:
            return [line for _, line in self._stderr]

    def trials(self) -> list[TrialLine]:
        """The trial lines printed so far."""
        with self._lock:
            return parse_trial_lines(line for _, line in self._stdout)

    def output(self) -> str:
        """stdout and stderr, for assertion messages."""
        return f"--- stdout:\n{self.stdout}\n--- stderr:\n{self.stderr}"

    def message(self) -> str:
        """The first line on stderr that is not a warning (the run's message), or ''."""
        lines = [ln for ln in self.stderr_lines() if ln.strip()]
        plain = [ln for ln in lines if not ln.startswith(("WARNING", "ndrpdr: removed"))]
        return (plain or lines or [""])[0]

    # -- waiting ---------------------------------------------------------------------
    @property
    def running(self) -> bool:
        """True until the child has exited."""
        return self.exited_at is None

    def wait_until(self, what: str, condition: Callable[[], Any], timeout_s: float) -> Any:
        """Poll ``condition`` until it is truthy; AssertionError if the run ends or time is up."""
        deadline = time.monotonic() + timeout_s
        while True:
            value = condition()
            if value:
                return value
            if not self.running:
                raise AssertionError(f"{self.name} ended before {what}:\n{self.output()}")
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{self.name}: no {what} within {timeout_s:g} s\n{self.output()}"
                )
            time.sleep(0.01)

    def wait_trials(self, count: int, timeout_s: float = 90.0) -> list[TrialLine]:
        """Wait until ``count`` trial lines are printed; return them all."""
        self.wait_until(f"{count} trial lines", lambda: len(self.trials()) >= count, timeout_s)
        return self.trials()

    def namespace(self, logical: str, timeout_s: float = 60.0) -> str:
        """The real name of the run's namespace ``logical`` (waits for it to exist)."""
        names: list[str] = self.wait_until(
            f"namespace *-{logical}",
            lambda: [n for n in self.namespaces_now() if n.endswith(f"-{logical}")],
            timeout_s,
        )
        return names[0]

    def processes_in(self, logical: str) -> list[Proc]:
        """The processes now in the run's namespace ``logical``."""
        found = []
        for namespace in [n for n in self.namespaces_now() if n.endswith(f"-{logical}")]:
            for pid in namespace_pids(namespace):
                proc = read_proc(pid, namespace)
                if proc is not None:
                    found.append(proc)
        return found

    def wait_process(
        self, logical: str, match: Callable[[Proc], bool], what: str, timeout_s: float = 60.0
    ) -> Proc:
        """The first process in namespace ``logical`` that ``match``es (waits for one)."""
        found: list[Proc] = self.wait_until(
            f"{what} in namespace *-{logical}",
            lambda: [p for p in self.processes_in(logical) if match(p)],
            timeout_s,
        )
        return found[0]

    def signal(self, signum: int, *, group: bool = False) -> None:
        """Send ``signum`` to the runner alone, or its process group (as a terminal's Ctrl-C)."""
        self.signalled_at = time.monotonic()
        if group:
            os.killpg(self.pid, signum)  # the runner leads its own session and group
        else:
            os.kill(self.pid, signum)

    def finish(self, timeout_s: float) -> int:
        """Wait for the exit status; past ``timeout_s`` kill the run's group and note it."""
        assert self.process is not None
        try:
            code = self.process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self.timed_out = True
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, signal.SIGKILL)
            code = self.process.wait()
        for thread in self._threads:
            if thread.name.endswith(("stdout", "stderr", "waiter")):
                thread.join(5.0)
        with contextlib.suppress(Exception):
            self._look(with_veths=False)
        return code

    # -- what is left ----------------------------------------------------------------
    def namespaces_now(self) -> list[str]:
        """The run's namespaces that exist now."""
        try:
            return sorted(n for n in os.listdir(NETNS_RUN_DIR) if n.startswith(self.prefix))
        except FileNotFoundError:
            return []

    def leftovers(self) -> list[str]:
        """What of the run exists now: namespaces, processes, state files, paths, veths, mounts."""
        left = [f"namespace {n}" for n in self.namespaces_now()]
        left += [f"process {p.describe()}" for p in self.processes_seen.values() if p.alive()]
        own = sorted(self.state_dir.glob(f"{self.pid}-*.json"))
        left += [f"state file {p}" for p in own]
        # The state directory is the test's: anything else there (a CPU claim, a temporary
        # file) was left by its runs too.
        left += [
            f"state directory entry {p}"
            for p in tree_entries(self.state_dir)
            if p not in own and not p.name.endswith(".json")
        ]
        left += [f"path {p}" for p in sorted(self.paths_seen) if os.path.lexists(p)]
        left += [
            f"interface {i} (root namespace)"
            for i in sorted(self.interfaces_seen)
            if Path(f"/sys/class/net/{i}").exists()
        ]
        namespace_files = {str(NETNS_RUN_DIR / n) for n in self.namespaces_now()}  # listed above
        left += [
            f"mount {m}"
            for m in mounts_matching([self.prefix, f"labbox-{self.pid}-"])
            if m not in namespace_files
        ]
        return left

    def wait_clean(self, timeout_s: float) -> list[str]:
        """Poll ``leftovers()`` until it is empty or ``timeout_s`` passed; return the last one."""
        deadline = time.monotonic() + timeout_s
        while True:
            left = self.leftovers()
            if not left or time.monotonic() > deadline:
                return left
            time.sleep(0.05)

    def left_after_exit(self, grace_s: float) -> list[str]:
        """What the run left, allowing ``grace_s`` [s] after an exit of its own.

        No grace when the test stopped the run: what the test's kill leaves
        says nothing of the run.
        """
        return self.wait_clean(0.0 if self.timed_out else grace_s)

    def stop_watching(self) -> None:
        """Stop the watcher thread."""
        self._stop.set()
        for thread in self._threads:
            if thread.name.endswith("watcher"):
                thread.join(5.0)

    def force_clean(self) -> list[str]:
        """Remove whatever the run left (a failed test must not spoil the machine); say what."""
        removed: list[str] = []
        if self.process is None:
            return removed
        if self.process.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.pid, signal.SIGKILL)
            self.process.wait()
            removed.append(f"runner {self.pid}")
        self.stop_watching()
        alive = {(p.pid, p.start): p for p in self.processes_seen.values() if p.alive()}
        for namespace in self.namespaces_now():
            for pid in namespace_pids(namespace):
                proc = read_proc(pid, namespace)
                if proc is not None:
                    alive.setdefault((proc.pid, proc.start), proc)
        if alive:
            terminate(sorted(p.pid for p in alive.values() if start_time(p.pid) == p.start))
            removed += [f"process {p.describe()}" for p in alive.values()]
        for name in sorted(self.interfaces_seen):
            if Path(f"/sys/class/net/{name}").exists():
                subprocess.run(["ip", "link", "delete", name], check=False, capture_output=True)
                removed.append(f"interface {name}")
        for namespace in self.namespaces_now():
            subprocess.run(["ip", "netns", "delete", namespace], check=False, capture_output=True)
            removed.append(f"namespace {namespace}")
        for path in sorted(self.paths_seen):
            if os.path.isdir(path) and not os.path.islink(path):
                shutil.rmtree(path, ignore_errors=True)
                removed.append(f"path {path}")
            elif os.path.lexists(path):
                with contextlib.suppress(OSError):
                    os.unlink(path)
                removed.append(f"path {path}")
        for state in self.state_dir.glob(f"{self.pid}-*.json"):
            state.unlink(missing_ok=True)
            removed.append(f"state file {state}")
        return removed


def load_record(path: Path) -> dict[str, Any]:
    """A result record, parsed and checked against the schema (AssertionError otherwise)."""
    assert path.exists(), f"no result record at {path}"
    text = path.read_text()
    try:
        record: dict[str, Any] = json.loads(text)
    except ValueError as exc:
        raise AssertionError(f"{path} is not JSON ({exc}): {text[:200]!r}") from None
    validate_record(record)
    return record


def check_trials_kept(record: dict[str, Any], printed: list[TrialLine], at_least: int) -> list[str]:
    """Problems with the record's trials against the console lines printed before the fault.

    The record must hold at least ``at_least`` trials, and all printed
    before the fault but the last (whose line may come before its write),
    with the loads printed (6 significant digits).
    """
    problems = []
    trials = record["trials"]
    need = max(at_least, len(printed) - 1)
    if len(trials) < need:
        problems.append(f"the record holds {len(trials)} trials, expected >= {need}")
    for line, trial in zip(printed, trials, strict=False):
        load = float(trial["load_pps"])
        if abs(load - line.load_pps) > 1e-5 * max(load, line.load_pps) + 1e-9:
            problems.append(
                f"trial #{line.index}: console {line.load_pps:g} pps, record {load:g} pps"
            )
    return problems


def note_row(
    case: str, run: SearchRun | None, code: int | None, left: list[str], note: str = ""
) -> None:
    """Append one fault-table row, if fault_table.py asked for rows (``$NDRPDR_FAULT_TABLE``)."""
    target = os.environ.get(TABLE_ENV)
    if not target:
        return
    current = os.environ.get("PYTEST_CURRENT_TEST", "")  # "path::name[params] (call)"
    row = {
        "test": current.split("::")[-1].rsplit(" (", 1)[0],
        "case": case,
        "exit": code,
        "message": "" if run is None else run.message(),
        "left": left,
        "note": (
            f"stopped by the test after its time limit; {note}"
            if run is not None and run.timed_out
            else note
        ),
    }
    with open(target, "a", encoding="utf-8") as out:
        out.write(json.dumps(row) + "\n")


def seconds_since(start: float | None, end: float | None) -> float | None:
    """``end - start`` [s], or None when either is unknown."""
    return None if start is None or end is None else end - start
