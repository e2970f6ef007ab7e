"""Record-as-it-goes benchmark: wall time per trial the in-progress record rewrite costs.

``run_search`` with ``record_path`` rewrites the record file after the
trials (``ndrpdr.results.journal``): the bounds so far (RFC 9971 over every
trial), the whole record, JSON, a temporary file and a rename. On the
simulator (topologies/sim.yaml) a trial costs almost no wall time, so a
300-trial search (three goals, 120 s duration sum) shows that work alone.
Each round runs side by side in this process:

- none: no record file (the search and the final record in memory);
- every trial: a rewrite after every trial (the throttle off: what a real
  testbed, where a trial lasts a second or more, does);
- throttled: the default throttle (a rewrite waits for 10 times the last
  one's cost, at most 0.2 s; and the last one).

Per mode: the median over the rounds of (wall time - none's) / trials, in
ms per trial, and the ratio to the time of a 1 s trial. Reported, not
asserted: the exit code is 0 unless something raised.

Run: PYTHONPATH=libraries:. python3 -m benchmarks.record_journal [--rounds N]
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.scoring import median
from ndrpdr.families import profile_of as get_profile
from ndrpdr.goals import loss_ratio_goals
from ndrpdr.results import journal
from ndrpdr.results.record import RecordTraffic
from ndrpdr.searchrun import SearchHooks, SearchRequest, run_search
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.sim.driver import SimTrafficGenerator

SIM = Path(__file__).resolve().parents[1] / "topologies" / "sim.yaml"
#: Three goals, 1 s trials, 120 s per load: about 300 trials on the default sim model.
GOALS = loss_ratio_goals(
    (0.0, 0.005, 0.02),
    final_trial_duration_s=1.0,
    initial_trial_duration_s=1.0,
    duration_sum_s=120.0,
    relative_width=0.005,
    exceed_ratio=0.5,
)


def one_search(record: Path | None, max_pause_s: float) -> tuple[float, int]:
    """Wall time [s] and trial count of one sim search (``record``: the journal's file)."""
    topology = load_topology(SIM)
    journal.DEFAULT_MAX_PAUSE_S = max_pause_s
    started = time.perf_counter()
    outcome = run_search(
        SimTrafficGenerator(topology),
        SearchRequest(
            traffic=RecordTraffic(topology, get_profile("ethip4-ip4base"), 64, 2), goals=GOALS
        ),
        SearchHooks(record_path=record),
    )
    return time.perf_counter() - started, len(outcome.record.trials)


def main(argv: list[str] | None = None) -> int:
    """Print the table; always 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    default = journal.DEFAULT_MAX_PAUSE_S
    modes = {"every trial": 0.0, f"throttled (<= {default:g} s)": default}
    extra: dict[str, list[float]] = {name: [] for name in modes}
    trials = 0
    with tempfile.TemporaryDirectory() as directory:
        record = Path(directory) / "record.json"
        for _ in range(args.rounds):
            base, trials = one_search(None, default)
            for name, interval in modes.items():
                wall, count = one_search(record, interval)
                assert count == trials, (count, trials)
                extra[name].append((wall - base) / trials)
    journal.DEFAULT_MAX_PAUSE_S = default
    print(f"sim search, {trials} trials, {args.rounds} rounds (median)")
    print(f"{'mode':<22} {'ms/trial':>9} {'of a 1 s trial':>15}")
    for name, values in extra.items():
        cost = median(values)
        print(f"{name:<22} {cost * 1e3:9.3f} {cost / 1.0:15.3%}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
