"""Library overhead benchmark: wall time per trial the Robot keyword layer adds to a search.

On the simulator (topologies/sim.yaml) a trial costs almost no wall time, so
what a search costs through ``Find NDR And PDR`` beyond plain ``run_search``
is the library's own work: argument conversion, the console line per trial,
the JSON record, the SVG plot and trial table in the log (and Robot writing
them to output.xml, log.html and report.html), the test message and metadata.

Each round runs, side by side in this one process, the 12 NDRPDR cases
(3 profiles x 64, 1518, 9000 B and IMIX) three ways:

- direct: ``run_search`` over ``ActiveTestbed.traffic_generator`` with the
  keyword's default goals (1 s trials, 21 s duration sum, 1200 s cap);
- robot: a generated suite, one test per case calling ``Find NDR And PDR``,
  run with ``robot.run`` (output.xml, log.html and report.html in a
  temporary directory, console output discarded);
- baseline: the same suite with ``No Operation`` in place of the search
  (same library, suite setup and teardown, number of tests and keyword calls).

Per round: robot ms/trial = (robot - baseline) / trials, direct ms/trial =
direct / trials, overhead = their difference; the table gives every round
and the medians. The reporting parts of the keyword (record write, SVG,
table, message and metadata) are also timed alone on the direct records.
The console lines go to /dev/null here, so a terminal adds a little more.
The target (overhead <= 5 ms per trial) is reported, not asserted: the exit
code is 0 unless something raised.

Run: PYTHONPATH=libraries:. python3 -m benchmarks.library_overhead [--rounds N]
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import gc
import io
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from robot.run import run as robot_run  # type: ignore[import-untyped]  # only robot.api is typed

from benchmarks.report import Verdicts
from benchmarks.scoring import median
from benchmarks.targets import LIBRARY_OVERHEAD_PER_TRIAL_S
from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.families import profile_of as get_profile
from ndrpdr.goals import ndr_pdr_goals
from ndrpdr.profiles import FrameSize
from ndrpdr.report.summary import search_message, search_metadata
from ndrpdr.report.traceplot import trace_svg
from ndrpdr.report.trialtable import trials_html
from ndrpdr.results.record import RecordTraffic, write_record
from ndrpdr.searchrun import SearchHooks, SearchRequest, run_search
from ndrpdr.topology.loader import load_topology
from NdrPdrLibrary.publish import MAX_LOGGED_TRIALS

ROOT = Path(__file__).resolve().parents[1]
SIM_TOPOLOGY = ROOT / "topologies" / "sim.yaml"
PROFILES = ("ethip4-ip4base", "eth-l2xcbase", "ethip4udp-ip4base")
FRAME_SIZES: tuple[FrameSize, ...] = (64, 1518, 9000, "IMIX")
CASES: tuple[tuple[str, FrameSize], ...] = tuple(
    (profile, size) for profile in PROFILES for size in FRAME_SIZES
)
#: The keyword's defaults (Find NDR And PDR): 1 s trials, 21 s sum, 1200 s cap.
FINAL_TRIAL_DURATION_S = 1.0
INITIAL_TRIAL_DURATION_S = 1.0
DURATION_SUM_S = 21.0
MAX_SEARCH_TIME_S = 1200.0
DEFAULT_ROUNDS = 5


def _label(size: FrameSize) -> str:
    return size if isinstance(size, str) else f"{size}B"


def case_test_name(profile: str, size: FrameSize) -> str:
    """The generated test of one case (also its record's file name)."""
    return f"{_label(size)}-{profile}-ndrpdr"


def suite_text(topology: Path, body: Callable[[str, FrameSize], str]) -> str:
    """A suite over ``topology`` with one test per case; ``body`` is the test's keyword call."""
    lines = [
        "*** Settings ***",
        f"Library           NdrPdrLibrary    {topology.as_posix()}",
        "Suite Setup       Set Up Testbed",
        "Suite Teardown    Tear Down Testbed",
        "",
        "*** Test Cases ***",
    ]
    for profile, size in CASES:
        lines.extend([case_test_name(profile, size), f"    {body(profile, size)}", ""])
    return "\n".join(lines)


def search_call(profile: str, size: FrameSize) -> str:
    """The keyword call of the measured suite (all other arguments at their defaults)."""
    return f"Find NDR And PDR    {profile}    {size}"


def no_operation(_profile: str, _size: FrameSize) -> str:
    """The keyword call of the baseline suite."""
    return "No Operation"


@dataclasses.dataclass(frozen=True)
class Direct:
    """One direct run of every case: wall time of the searches, trials, the records."""

    wall_s: float
    trials: int
    records: tuple[dict[str, Any], ...]


@dataclasses.dataclass(frozen=True)
class Round:
    """Wall times [s] of one round and the trials of each search run."""

    direct_s: float
    robot_s: float
    baseline_s: float
    trials: int
    parts_s: Mapping[str, float]

    @property
    def direct_ms(self) -> float:
        """Direct wall time per trial [ms]."""
        return self.direct_s / self.trials * 1e3

    @property
    def robot_ms(self) -> float:
        """Robot wall time per trial beyond the baseline suite [ms]."""
        return (self.robot_s - self.baseline_s) / self.trials * 1e3

    @property
    def overhead_ms(self) -> float:
        """What the keyword layer adds per trial [ms]."""
        return self.robot_ms - self.direct_ms

    @property
    def ratio(self) -> float:
        """(robot - baseline) / direct."""
        return self.robot_ms / self.direct_ms


def run_direct() -> Direct:
    """Every case through plain run_search; the testbed's setup and teardown are not timed."""
    topology = load_topology(SIM_TOPOLOGY)
    goals = ndr_pdr_goals(
        final_trial_duration_s=FINAL_TRIAL_DURATION_S,
        initial_trial_duration_s=INITIAL_TRIAL_DURATION_S,
        duration_sum_s=DURATION_SUM_S,
    )
    records: list[dict[str, Any]] = []
    with ActiveTestbed(topology) as testbed:
        gc.collect()
        started = time.perf_counter()
        for profile_name, size in CASES:
            profile = get_profile(profile_name)
            tg = testbed.traffic_generator(profile, size)
            request = SearchRequest(
                traffic=RecordTraffic(topology, profile, size, 2),
                goals=goals,
                max_search_time_s=MAX_SEARCH_TIME_S,
            )
            outcome = run_search(tg, request, SearchHooks(telemetry=testbed.collect_telemetry))
            if outcome.error is not None:
                raise RuntimeError(f"direct search {profile_name} {size} failed: {outcome.error}")
            records.append(outcome.record.to_json())
        wall_s = time.perf_counter() - started
    trials = sum(int(record["search"]["trial_count"]) for record in records)
    return Direct(wall_s, trials, tuple(records))


@contextlib.contextmanager
def discarded_stdout() -> Iterator[None]:
    """File descriptor 1 to /dev/null: the keyword's console lines bypass robot.run's stdout."""
    sys.stdout.flush()
    saved = os.dup(1)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 1)
        yield
    finally:
        sys.stdout.flush()
        os.dup2(saved, 1)
        os.close(saved)
        os.close(null)


def run_robot(suite: Path, output_dir: Path) -> float:
    """Wall time of robot.run on ``suite`` in this process; fails unless every test passed."""
    output_dir.mkdir(parents=True)
    console = io.StringIO()
    gc.collect()
    with discarded_stdout():
        started = time.perf_counter()
        rc = robot_run(
            str(suite),
            outputdir=str(output_dir),
            pythonpath=[str(ROOT / "libraries")],
            # verbose: the keyword prints its per-trial lines (with bounds and
            # estimates) only on a verbose console, and they are part of its cost.
            console="verbose",
            stdout=console,
            stderr=console,
        )
        wall_s = time.perf_counter() - started
    if rc != 0:
        raise RuntimeError(f"robot run of {suite.name} returned {rc}:\n{console.getvalue()}")
    return float(wall_s)


def robot_trials(output_dir: Path) -> int:
    """Trials in the records the robot run wrote (one per test)."""
    total = 0
    for profile, size in CASES:
        path = output_dir / f"{case_test_name(profile, size)}.json"
        record = json.loads(path.read_text(encoding="utf-8"))
        total += int(record["search"]["trial_count"])
    return total


def _write(record: Mapping[str, Any], path: Path) -> None:
    write_record(record, path)


def _svg(record: Mapping[str, Any], _path: Path) -> object:
    return trace_svg(record)


def _table(record: Mapping[str, Any], _path: Path) -> object:
    return trials_html(record, max_rows=MAX_LOGGED_TRIALS)


def _summary(record: Mapping[str, Any], _path: Path) -> object:
    return search_message(record), search_metadata(record)


#: The reporting parts of publish_record, each as f(record, record path).
REPORTING_PARTS: dict[str, Callable[[Mapping[str, Any], Path], object]] = {
    "write_record": _write,
    "trace_svg": _svg,
    "trials_html": _table,
    "message+metadata": _summary,
}


def time_reporting(records: Sequence[Mapping[str, Any]], directory: Path) -> dict[str, float]:
    """Wall time [s] of each reporting part of publish_record, summed over ``records``."""
    parts = dict.fromkeys(REPORTING_PARTS, 0.0)
    directory.mkdir(parents=True)
    for index, record in enumerate(records):
        path = directory / f"{index}.json"
        for name, part in REPORTING_PARTS.items():
            started = time.perf_counter()
            part(record, path)
            parts[name] += time.perf_counter() - started
    return parts


def run_round(index: int, suites: Mapping[str, Path], workdir: Path) -> Round:
    """Direct, robot and baseline, in an order rotated by ``index`` (drift spreads evenly)."""
    results: dict[str, float] = {}
    direct: Direct | None = None
    trials: dict[str, int] = {}
    order = ["direct", "robot", "baseline"]
    order = order[index % 3 :] + order[: index % 3]
    for what in order:
        if what == "direct":
            direct = run_direct()
            results[what] = direct.wall_s
        else:
            output_dir = workdir / f"round-{index}-{what}"
            results[what] = run_robot(suites[what], output_dir)
            if what == "robot":
                trials[what] = robot_trials(output_dir)
    assert direct is not None
    if trials["robot"] != direct.trials:
        raise RuntimeError(
            f"the robot run measured {trials['robot']} trials, the direct one {direct.trials}"
        )
    parts = time_reporting(direct.records, workdir / f"round-{index}-parts")
    return Round(results["direct"], results["robot"], results["baseline"], direct.trials, parts)


def report(rounds: Sequence[Round]) -> list[str]:
    """The per-round table, the medians, the reporting parts and the verdict."""
    searches = len(CASES)
    trials = rounds[0].trials
    lines = [
        f"library overhead on the simulator ({SIM_TOPOLOGY.relative_to(ROOT).as_posix()}): "
        f"{searches} NDRPDR searches ({len(PROFILES)} profiles x "
        f"{'/'.join(_label(size) for size in FRAME_SIZES)}), {trials} trials per run",
        "robot ms/trial = (robot suite - No Operation suite) / trials; "
        "overhead = robot ms/trial - direct ms/trial; the median row is computed from the "
        "median wall times",
        f"{'round':<7} {'direct[s]':>9} {'robot[s]':>9} {'base[s]':>9} "
        f"{'direct ms/trial':>15} {'robot ms/trial':>14} {'overhead ms/trial':>17} "
        f"{'robot/direct':>12}",
    ]

    def row(name: str, r: Round) -> str:
        return (
            f"{name:<7} {r.direct_s:>9.3f} {r.robot_s:>9.3f} {r.baseline_s:>9.3f} "
            f"{r.direct_ms:>15.3f} {r.robot_ms:>14.3f} {r.overhead_ms:>17.3f} {r.ratio:>12.2f}"
        )

    lines.extend(row(str(number), r) for number, r in enumerate(rounds, start=1))
    mid = Round(
        direct_s=median(r.direct_s for r in rounds),
        robot_s=median(r.robot_s for r in rounds),
        baseline_s=median(r.baseline_s for r in rounds),
        trials=trials,
        parts_s={name: median(r.parts_s[name] for r in rounds) for name in rounds[0].parts_s},
    )
    lines.append(row("median", mid))
    direct_ms, robot_ms, overhead_ms, ratio = (
        mid.direct_ms,
        mid.robot_ms,
        mid.overhead_ms,
        mid.ratio,
    )
    lines.append("")
    lines.append(
        f"per trial (from the median wall times of {len(rounds)} rounds): "
        f"direct {direct_ms:.3f} ms, robot {robot_ms:.3f} ms, overhead {overhead_ms:.3f} ms"
    )
    lines.append(f"ratio robot/direct per trial: {ratio:.2f}")
    lines.append("")
    lines.append("reporting parts of the keyword, timed alone on the direct records (medians):")
    lines.append(f"{'part':<18} {'ms/search':>10} {'ms/trial':>9}")
    total_s = 0.0
    for name, part_s in mid.parts_s.items():
        total_s += part_s
        lines.append(f"{name:<18} {part_s / searches * 1e3:>10.3f} {part_s / trials * 1e3:>9.3f}")
    lines.append(f"{'total':<18} {total_s / searches * 1e3:>10.3f} {total_s / trials * 1e3:>9.3f}")
    verdicts = Verdicts()
    limit_ms = LIBRARY_OVERHEAD_PER_TRIAL_S * 1e3
    lines.append("")
    lines.append(
        verdicts.judge(overhead_ms <= limit_ms, f"target library overhead <= {limit_ms:g} ms/trial")
    )
    return [*lines, "", *verdicts.summary()]


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    """Parse the command line."""
    parser = argparse.ArgumentParser(
        prog="library_overhead.py",
        description=(
            "Wall time per trial the Robot keyword layer (Find NDR And PDR) adds to plain "
            f"run_search, on the simulator: {len(CASES)} NDRPDR searches, run directly, "
            "through Robot and as a No Operation baseline suite, side by side."
        ),
        epilog=(
            f"Target: overhead <= {LIBRARY_OVERHEAD_PER_TRIAL_S * 1e3:g} ms per trial (median "
            "over rounds). Exit code 0 unless an error occurs."
        ),
    )
    parser.add_argument(
        "--rounds",
        type=int,
        default=DEFAULT_ROUNDS,
        help=f"measured rounds, after one warm-up round (default {DEFAULT_ROUNDS})",
    )
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error("--rounds must be >= 1")
    return args


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmark; print the report to stdout and progress to stderr."""
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="ndrpdr-library-overhead-") as tmp:
        workdir = Path(tmp)
        suites = {
            "robot": workdir / "search.robot",
            "baseline": workdir / "baseline.robot",
        }
        suites["robot"].write_text(suite_text(SIM_TOPOLOGY, search_call), encoding="utf-8")
        suites["baseline"].write_text(suite_text(SIM_TOPOLOGY, no_operation), encoding="utf-8")
        run_round(0, suites, workdir / "warm-up")  # imports and caches; not counted
        rounds: list[Round] = []
        started = time.monotonic()
        for index in range(1, args.rounds + 1):
            rounds.append(run_round(index, suites, workdir))
            if rounds[-1].trials != rounds[0].trials:
                raise RuntimeError(
                    f"round {index} measured {rounds[-1].trials} trials, round 1 "
                    f"{rounds[0].trials}: the simulator should repeat itself"
                )
            elapsed = time.monotonic() - started
            print(
                f"[library_overhead] round {index}/{args.rounds}, {elapsed:.0f} s",
                file=sys.stderr,
            )
    print("\n".join(report(rounds)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
