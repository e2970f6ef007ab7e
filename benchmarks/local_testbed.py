"""Local testbed benchmark: TG rate accuracy, setup+teardown time, search run time and spread.

Run as root on a machine with iproute2, nftables and tcpreplay (and DPDK for
the search part):

    python3 -m benchmarks.local_testbed [--trial 2] [--searches 2]

Part 1 (accuracy): kernel forwarding DUT (topologies/local-linux.yaml),
bidirectional 64 B trials from 10 kpps to 0.8 Mpps; prints offered/intended
and the target (>= 0.99) per rate.
Part 2 (setup + teardown): wall time of LocalTestbed setup+teardown, 5 times
(target < 3 s).
Part 3 (search): ``ndrpdr search`` on topologies/local-testpmd.yaml with 10 s
final trials, twice; prints each run's time (target < 180 s) and the PDR
spread between runs (target <= 10 %).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.families import profile_of as get_profile
from ndrpdr.localbed import LocalTestbed
from ndrpdr.topology.loader import load_topology

RATES_PPS = (10_000, 50_000, 100_000, 200_000, 400_000, 600_000, 800_000)
ACCURACY_TARGET = 0.99
SETUP_TARGET_S = 3.0
SEARCH_TARGET_S = 180.0
PDR_SPREAD_TARGET = 0.10
ROOT = Path(__file__).resolve().parent.parent


def verdict(ok: bool) -> str:
    """PASS or FAIL."""
    return "PASS" if ok else "FAIL"


def accuracy(trial_s: float, bidirectional: bool) -> int:
    """Offered/intended per rate through kernel forwarding; the number of FAILs."""
    topology = load_topology(ROOT / "topologies/local-linux.yaml")
    profile = get_profile("ethip4-ip4base")
    fails = 0
    way = "bidirectional (2 senders, one CPU)" if bidirectional else "unidirectional"
    print(f"TG accuracy, local-linux, 64 B {way}, {trial_s:g} s trials")
    print(f"{'rate':>10} {'offered/intended':>17} {'received/offered':>17}  target >= 0.99")
    with ActiveTestbed(topology) as testbed:
        testbed.configure_duts("ip4base")
        tg = testbed.traffic_generator(profile, 64, bidirectional=bidirectional)
        for rate in RATES_PPS:
            if rate > tg.max_load_pps:
                continue
            trial = tg.measure(trial_s, float(rate))
            ratio = trial.offered_count / (trial.intended_count or 1)
            delivered = (trial.forwarded_count or 0) / (trial.offered_count or 1)
            ok = ratio >= ACCURACY_TARGET
            fails += not ok
            print(f"{rate:>10} {ratio:>17.4f} {delivered:>17.4f}  {verdict(ok)}")
    return fails


def setup_time(repeats: int = 5) -> int:
    """Setup+teardown wall time of the local testbed; 1 if the worst is over target."""
    topology = load_topology(ROOT / "topologies/local-linux.yaml")
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        with LocalTestbed(topology):
            pass
        times.append(time.perf_counter() - started)
    worst = max(times)
    ok = worst < SETUP_TARGET_S
    shown = ", ".join(f"{t:.2f}" for t in times)
    print(f"setup+teardown [s]: {shown}; worst {worst:.2f} < {SETUP_TARGET_S:g}: {verdict(ok)}")
    return int(not ok)


def searches(count: int, final_s: float) -> int:
    """``ndrpdr search`` on local-testpmd ``count`` times; FAIL count for time and PDR spread."""
    fails = 0
    pdrs = []
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(count):
            out = Path(tmp) / f"run{run}.json"
            argv = [
                sys.executable, "-m", "ndrpdr", "search",
                "--topology", str(ROOT / "topologies/local-testpmd.yaml"),
                "--final-trial-duration", f"{final_s:g}", "--json", str(out),
            ]  # fmt: skip
            started = time.perf_counter()
            done = subprocess.run(argv, check=False, capture_output=True, text=True)
            elapsed = time.perf_counter() - started
            ok = done.returncode == 0 and elapsed < SEARCH_TARGET_S
            fails += not ok
            record = json.loads(out.read_text()) if out.exists() else {}
            pdr = (record.get("pdr") or {}).get("lower_bound")
            ndr = (record.get("ndr") or {}).get("lower_bound")
            trials = len(record.get("trials", []))
            print(
                f"search {run + 1}: exit {done.returncode}, {elapsed:.1f} s "
                f"(< {SEARCH_TARGET_S:g}: {verdict(ok)}), {trials} trials, "
                f"NDR {ndr}, PDR {pdr}"
            )
            if done.returncode != 0:
                print(done.stderr[-2000:])
            if pdr:
                pdrs.append(float(pdr))
    if len(pdrs) >= 2:
        spread = (max(pdrs) - min(pdrs)) / max(pdrs)
        ok = spread <= PDR_SPREAD_TARGET
        fails += not ok
        print(f"PDR spread (max-min)/max: {spread:.3f} <= {PDR_SPREAD_TARGET:g}: {verdict(ok)}")
    return fails


def main(argv: Sequence[str] | None = None) -> int:
    """Run the parts; exit status 0 when every target passes."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--trial", type=float, default=2.0, help="accuracy trial duration [s]")
    parser.add_argument("--searches", type=int, default=2, help="local-testpmd searches (0: skip)")
    parser.add_argument("--final", type=float, default=10.0, help="final trial duration [s]")
    args = parser.parse_args(argv)
    fails = accuracy(args.trial, bidirectional=False)
    fails += accuracy(args.trial, bidirectional=True)
    fails += setup_time()
    if args.searches:
        fails += searches(args.searches, args.final)
    print(f"targets: {verdict(fails == 0)} ({fails} failed)")
    return int(fails > 0)


if __name__ == "__main__":
    raise SystemExit(main())
