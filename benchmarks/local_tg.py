"""Local TG benchmark: which sender gets the most 64 B frames out, honestly, on this machine.

Run as root (iproute2, nftables, tcpreplay, TRex at /opt/trex/v3.08, Debian's dpdk):

    PYTHONPATH=libraries:. python3 -m benchmarks.local_tg [--trial 1] [--skip testpmd]

The layout is the local testbed's (``topologies/local-linux*.yaml``): a TG
namespace and a DUT namespace joined by two veth pairs, the TG on CPU 0.
The DUT is never configured: its two ports get the nft netdev ingress drop
the DPDK DUTs use as a kernel sink, so every frame is counted on arrival
and dropped, and the figures say what the TG sends, not what a DUT forwards
(its receive work runs on CPU 1 through the testbed's RPS masks).

Rate-controlled TGs (they send N frames at R pps), through their drivers:

* ``tcpreplay``: the ``local`` TG driver (``local-linux.yaml``);
* ``trex``: the ``trex`` TG driver, TRex v3.08 in software mode in the TG
  namespace (``local-linux-trex.yaml``).

For each, unidirectional and bidirectional, a ladder of loads (``--loads``),
``--repeats`` trials each, the TGs taking turns trial by trial (so both see
the same background load: other work on the machine comes and goes). A
trial is *accurate* when the TG sent at least 99 % of the intended frames
and its rate (frames sent / the longer of the duration and the time the
traffic really took, as ``results.tglimit.offered_rate_pps``) is at least
98 % of the load (``TG_LIMIT_TOLERANCE``: below it the search calls a
result TG_LIMITED); a TG's highest accurate rate is the highest load with
at least ``--need`` accurate trials. Every trial is printed (sent/intended,
rate/load, seconds): that is the rate accuracy at each load.

Raw send capacity, not rate-controlled (testpmd ``txonly`` has no software
pacing: it sends as fast as it can, so it is no honest TG for a search):
``dpdk-testpmd --forward-mode=txonly`` on AF_PACKET and AF_XDP vdevs of the
TG ports, the frames/s the veth counters saw over ``--window`` seconds
after a warm-up.

Figures measured here (2026-11-25, a 2-core VM, Debian 12 kernel veths;
other helpers' test suites were running, ``uptime`` load average given per
run), 1 s trials, 64 B:

quiet (load average 1.3-1.5; an earlier bisecting version of this script,
99 % rate line; TRex's times then still included the whole start request):

    tcpreplay uni   accurate up to 283-295 kpps (300 kpps: 1.16 s trials)
    tcpreplay bidi  accurate up to 391 kpps (2 of 3), 400 kpps: 1.06 s
    TRex uni        400 kpps at 0.991, 500 kpps at 0.976 of the load
    TRex bidi       300 kpps at 0.985, 400 kpps at 0.970, 500 kpps at 0.836
    testpmd txonly  AF_PACKET 543 kpps uni, 677 kpps bidi (sum);
                    AF_XDP 1184 kpps uni, 71 kpps bidi (two AF_XDP ports on one lcore)

busy (this script, ladder 250-500 kpps, 3 trials per load, ratios to tcpreplay):

    load 3.4-3.9:  tcpreplay uni none >= 250 kpps (2 of 3), bidi 350 kpps (3 of 3);
                   TRex uni 400 kpps (2 of 3), bidi none >= 250 kpps (300 kpps 1 of 3)
    load 4.4-4.8:  tcpreplay uni 100 kpps, bidi 250 kpps; TRex uni < 100 kpps,
                   bidi 100 kpps (0.40x)
    testpmd txonly (load ~4): AF_PACKET 275 / 254 kpps, AF_XDP 692 / 77 kpps

this script as committed (load average 2.0-2.8; TRex timed from the middle of
its start request), 100-600 kpps, 3 trials per load, 2 of 3 needed:

    tcpreplay uni  350 kpps (3 of 3; 400 kpps: 1.08-1.21 s trials)
    tcpreplay bidi 350 kpps (3 of 3; 400 kpps: 1 of 3)
    TRex uni       350 kpps (2 of 3; 100-200 kpps at 0.986-0.996 of the load)
    TRex bidi      350 kpps (3 of 3, 1.009-1.011 s; 400 kpps: 1.03-1.10 s)
    ratios to tcpreplay: TRex 1.00x / 1.00x; testpmd txonly AF_PACKET 446 / 489 kpps
    (1.27x / 1.40x), AF_XDP 740 / 222 kpps (2.11x / 0.63x)

TRex software mode is faster one way on a quiet machine, not both ways, and
loses more than tcpreplay to other work on the CPU, so tcpreplay stays the
local default (``local-*.yaml``); TRex is selectable
(``local-linux-trex.yaml``). Neither is out of the way of a kernel DUT: the
veth transmit path costs the sender's CPU about the same per frame whoever
sends. testpmd txonly shows what the machine could send, not a TG.
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import subprocess
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path

from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.dut.dpdk.eal import AF_PACKET_FRAMECNT
from ndrpdr.dut.handsoff import sink_ruleset
from ndrpdr.families import profile_of as get_profile
from ndrpdr.localbed import read_counters
from ndrpdr.results.record import trial_entry
from ndrpdr.results.tglimit import TG_LIMIT_TOLERANCE, offered_rate_pps
from ndrpdr.search.trial import TrialResult
from ndrpdr.topology.loader import load_topology
from ndrpdr.trafficgen.base import TrafficGenerator

ROOT = Path(__file__).resolve().parent.parent
#: The rate-controlled TGs: name -> topology (the TG node is what differs).
TOPOLOGIES = {
    "tcpreplay": ROOT / "topologies/local-linux.yaml",
    "trex": ROOT / "topologies/local-linux-trex.yaml",
}
#: The DUT ports that sink the TG's frames.
DUT_PORTS = ("dut-if1", "dut-if2")
#: A trial is accurate when sent/intended reaches this ...
ACCURACY = 0.99
#: ... and rate/load this: the search's own TG-limit line (a trial below it is TG_LIMITED).
RATE_ACCURACY = TG_LIMIT_TOLERANCE
#: The ladder of loads [aggregate pps].
LOADS = (100_000.0, 200_000.0, 300_000.0, 350_000.0, 400_000.0, 450_000.0, 500_000.0, 600_000.0)
#: testpmd's frame: 60 B on the veth, 64 B with the FCS the wire would add.
TXONLY_FRAME_B = 60


@dataclasses.dataclass(frozen=True)
class Trial:
    """One trial's figures: load [pps], duration [s], what the TG sent and how fast."""

    load_pps: float
    duration_s: float
    intended: int
    offered: int
    seconds: float
    rate_pps: float

    @property
    def sent_ratio(self) -> float:
        """Frames sent / frames intended."""
        return self.offered / self.intended if self.intended else 0.0

    @property
    def rate_ratio(self) -> float:
        """Rate the TG sent at / the load."""
        return self.rate_pps / self.load_pps if self.load_pps else 0.0

    @property
    def accurate(self) -> bool:
        """Sent (nearly) all frames at (nearly) the load."""
        return self.sent_ratio >= ACCURACY and self.rate_ratio >= RATE_ACCURACY


def trial_figures(result: TrialResult) -> Trial:
    """A TrialResult's figures (rate as ``offered_rate_pps`` of the record entry)."""
    entry = trial_entry(0, result)
    return Trial(
        load_pps=result.load,
        duration_s=result.duration,
        intended=int(result.intended_count or 0),
        offered=int(result.offered_count),
        seconds=max(result.duration, result.effective_duration or 0.0),
        rate_pps=offered_rate_pps(entry),
    )


@contextlib.contextmanager
def sink_testbed(topology_path: Path) -> Iterator[ActiveTestbed]:
    """The testbed of ``topology_path`` set up, its DUT ports sinking frames (never configured)."""
    with ActiveTestbed(load_topology(topology_path)) as testbed:
        testbed.access("DUT1").run(["nft", "-f", "-"], stdin=sink_ruleset(DUT_PORTS))
        yield testbed


def ladder(
    tgs: Mapping[str, TrafficGenerator], trial_s: float, loads: Sequence[float], repeats: int
) -> dict[str, dict[float, list[Trial]]]:
    """Trials at each load, ``repeats`` rounds, the TGs taking turns trial by trial.

    Taking turns puts every TG under the same background load (other work
    on the machine comes and goes), so their figures compare.
    """
    out: dict[str, dict[float, list[Trial]]] = {name: {} for name in tgs}
    for load in loads:
        for _ in range(repeats):
            for name, tg in tgs.items():
                if load > tg.max_load_pps:
                    continue
                trial = trial_figures(tg.measure(trial_s, load))
                out[name].setdefault(load, []).append(trial)
    return out


def highest_accurate(by_load: Mapping[float, Sequence[Trial]], need: int) -> float:
    """The highest load at which at least ``need`` trials were accurate (0.0: none)."""
    held = [load for load, trials in by_load.items() if sum(t.accurate for t in trials) >= need]
    return max(held, default=0.0)


def rate_controlled(args: argparse.Namespace) -> tuple[list[str], dict[tuple[str, str], float]]:
    """The ladder for every rate-controlled TG, both ways; summary rows and the best rates."""
    rows: list[str] = []
    best: dict[tuple[str, str], float] = {}
    names = [n for n in TOPOLOGIES if n not in args.skip]
    profile = get_profile("ethip4-ip4base")
    with contextlib.ExitStack() as stack:
        beds = {}
        for name in names:
            started = time.monotonic()
            beds[name] = stack.enter_context(sink_testbed(TOPOLOGIES[name]))
            print(f"{name}: testbed and TG up in {time.monotonic() - started:.1f} s")
        for bidirectional in (False, True):
            way = "bidi" if bidirectional else "uni"
            tgs = {
                name: bed.traffic_generator(profile, 64, bidirectional=bidirectional)
                for name, bed in beds.items()
            }
            results = ladder(tgs, args.trial, args.loads, args.repeats)
            for name, by_load in results.items():
                print(f"\n-- {name} {way} ({args.trial:g} s trials, {args.repeats} per load)")
                for trials in by_load.values():
                    print_trials(trials)
                top = highest_accurate(by_load, args.need)
                best[(name, way)] = top
                rows.append(
                    f"{name:<26} {way:<5} {top:>12,.0f} pps  "
                    f"(>= {args.need} of {args.repeats} trials accurate)"
                )
    return rows, best


def print_trials(trials: Sequence[Trial]) -> None:
    """One line per trial."""
    for t in trials:
        mark = "ok" if t.accurate else "--"
        print(
            f"   {t.load_pps:>11,.0f} pps  sent/intended {t.sent_ratio:6.4f}  "
            f"rate/load {t.rate_ratio:6.4f}  {t.seconds:6.3f} s  {mark}"
        )


def txonly_capacity(pmd: str, bidirectional: bool, args: argparse.Namespace) -> float:
    """Frames/s testpmd txonly gets out of the TG ports (sum), on CPU 0; 0.0 if it failed."""
    ports = ("tg-if1", "tg-if2") if bidirectional else ("tg-if1",)
    with sink_testbed(TOPOLOGIES["tcpreplay"]) as testbed:
        run_id = testbed.run_id
        namespace = f"ndrpdr-{run_id}-tg"
        vdevs: list[str] = []
        for index, port in enumerate(ports):
            spec = (
                f"net_af_packet{index},iface={port},framecnt={AF_PACKET_FRAMECNT}"
                if pmd == "af_packet"
                else f"net_af_xdp{index},iface={port}"
            )
            vdevs += ["--vdev", spec]
        argv = [
            "dpdk-testpmd", "--lcores", "0@0,1@0", "--no-pci", "--no-huge", "-m", "512",
            "--file-prefix", f"ndrpdr-{run_id}-txonly", *vdevs, "--",
            "--forward-mode=txonly", f"--txpkts={TXONLY_FRAME_B}", "--nb-cores=1",
            "--txd=1024", "--rxd=1024", "--total-num-mbufs=8192", "--stats-period=1",
        ]  # fmt: skip
        process = testbed.access("TG").start(argv)
        try:
            time.sleep(args.warmup)
            if not process.is_running():
                print(f"   testpmd {pmd} exited:\n{process.output()[-800:]}")
                return 0.0
            before, t0 = read_counters(namespace), time.monotonic()
            time.sleep(args.window)
            after, t1 = read_counters(namespace), time.monotonic()
        finally:
            process.stop(timeout_s=10.0)
        sent = sum(
            (after[p].tx_packets + after[p].tx_dropped)
            - (before[p].tx_packets + before[p].tx_dropped)
            for p in ports
        )
        subprocess.run(["rm", "-rf", f"/var/run/dpdk/ndrpdr-{run_id}-txonly"], check=False)
        return sent / (t1 - t0)


def uptime() -> str:
    """The ``uptime`` line (machine load)."""
    return subprocess.run(["uptime"], capture_output=True, text=True, check=False).stdout.strip()


def main(argv: Sequence[str] | None = None) -> int:
    """Measure every sender; print the tables and the ratios."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trial", type=float, default=1.0, help="trial duration [s]")
    parser.add_argument("--repeats", type=int, default=3, help="trials per load and TG")
    parser.add_argument("--need", type=int, default=3, help="accurate trials a load needs")
    parser.add_argument(
        "--loads", type=float, nargs="*", default=list(LOADS), help="the ladder [pps]"
    )
    parser.add_argument("--warmup", type=float, default=2.0, help="testpmd warm-up [s]")
    parser.add_argument("--window", type=float, default=3.0, help="testpmd count window [s]")
    parser.add_argument(
        "--skip", nargs="*", default=[], choices=["tcpreplay", "trex", "testpmd"],
        help="senders to leave out",
    )  # fmt: skip
    args = parser.parse_args(argv)
    print(f"start: {uptime()}")
    summary, best = rate_controlled(args)
    if "testpmd" not in args.skip:
        print("\n== testpmd txonly (no rate control: raw send capacity)")
        for pmd in ("af_packet", "af_xdp"):
            for bidirectional in (False, True):
                way = "bidi" if bidirectional else "uni"
                pps = txonly_capacity(pmd, bidirectional, args)
                summary.append(f"{'testpmd txonly ' + pmd:<26} {way:<5} {pps:>12,.0f} pps  raw")
                best[(f"txonly-{pmd}", way)] = pps
    print(f"\nend: {uptime()}\n\nsummary (64 B, TG on CPU 0, sink on CPU 1)")
    for row in summary:
        print(row)
    for way in ("uni", "bidi"):
        base = best.get(("tcpreplay", way))
        if not base:
            continue
        ratios = ", ".join(
            f"{name} {pps / base:.2f}x" for (name, w), pps in best.items() if w == way
        )
        print(f"ratios to tcpreplay ({way}): {ratios}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
