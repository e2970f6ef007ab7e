"""NDR / PDR of three data planes on the same local testbed, side by side in one run.

Run as root with VPP v26.06 in /opt/vpp/v26.06 (``../shared/vpp/install``),
DPDK's testpmd, tcpreplay and nftables installed:

    python3 -m benchmarks.dut_compare [--profile ethip4-ip4base] [--final 1] [--sum 5] [--rounds 1]

For each round, one ``ndrpdr search`` (64 B, both directions, the same TG:
tcpreplay in a namespace, at most 0.8 Mpps) per DUT, in turn, on
``local-linux.yaml`` (the kernel), ``local-testpmd.yaml`` (DPDK testpmd on
AF_PACKET) and ``local-vpp.yaml`` (VPP on af_packet host-interfaces). Each
row: the DUT, NDR and PDR lower bounds [kpps], their ratio to the kernel's,
trials, the search's wall time [s], and the irregularities the searches
were allowed (``--allow-irregular``: TG_LIMITED says the TG, not the DUT,
set the bound). A DUT's figures are the median over rounds. Exit status 1
when a search failed or gave NDR > PDR.

These are functional figures on a small shared machine (the TG and each
DUT on one CPU each, veths): they compare the data planes under the same
limits, not what each does on real NICs.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
#: (label, topology file) in the order they run and print; the first is the reference.
DUTS: tuple[tuple[str, str], ...] = (
    ("kernel", "topologies/local-linux.yaml"),
    ("testpmd", "topologies/local-testpmd.yaml"),
    ("vpp", "topologies/local-vpp.yaml"),
)


@dataclasses.dataclass(frozen=True)
class Outcome:
    """One search: exit status, NDR / PDR lower bounds [pps], trials, wall time [s]."""

    exit_code: int
    ndr_pps: float | None
    pdr_pps: float | None
    trials: int
    wall_s: float
    irregular: tuple[str, ...] = ()
    error: str = ""

    @property
    def ok(self) -> bool:
        """The search passed and NDR <= PDR."""
        return (
            self.exit_code == 0
            and self.ndr_pps is not None
            and self.pdr_pps is not None
            and self.ndr_pps <= self.pdr_pps
        )


def search(topology: str, profile: str, final_s: float, sum_s: float, scratch: Path) -> Outcome:
    """One ``ndrpdr search`` of ``topology`` (64 B, no latency); its outcome.

    ``final_s``: final trial duration [s]; ``sum_s``: full-length seconds per load [s].
    """
    out = scratch / f"{Path(topology).stem}-{time.monotonic_ns()}.json"
    argv = [
        sys.executable, "-m", "ndrpdr", "search", "--topology", str(ROOT / topology),
        "--profile", profile, "--final-trial-duration", f"{final_s:g}",
        "--duration-sum", f"{sum_s:g}", "--no-latency", "--allow-irregular", "--console", "none",
        "--json", str(out),
    ]  # fmt: skip
    started = time.perf_counter()
    done = subprocess.run(argv, check=False, capture_output=True, text=True, cwd=ROOT)
    wall_s = time.perf_counter() - started
    record = json.loads(out.read_text()) if out.exists() else {}
    ndr = (record.get("ndr") or {}).get("lower_bound")
    pdr = (record.get("pdr") or {}).get("lower_bound")
    return Outcome(
        exit_code=done.returncode,
        ndr_pps=float(ndr) if ndr is not None else None,
        pdr_pps=float(pdr) if pdr is not None else None,
        trials=len(record.get("trials", [])),
        wall_s=wall_s,
        irregular=tuple(str(item.get("tag")) for item in record.get("irregular") or []),
        error="" if done.returncode == 0 else done.stderr[-1500:],
    )


def _median(values: Sequence[float | None]) -> float | None:
    known = [v for v in values if v is not None]
    return statistics.median(known) if known else None


def kpps(value: float | None) -> str:
    """A rate [frames/s] in kpps, one decimal; '-' when there is none."""
    return "-" if value is None else f"{value / 1000:.1f}"


def _ratio(value: float | None, reference: float | None) -> str:
    return "-" if value is None or not reference else f"{value / reference:.2f}"


def table(results: dict[str, list[Outcome]]) -> list[str]:
    """The side-by-side lines: medians per DUT, ratios to the first DUT (the kernel here)."""
    first = next(iter(results))
    width = max(10, len(first) + 4)  # "NDR/<first>"
    lines = [
        f"{'DUT':<9} {'NDR kpps':>9} {'PDR kpps':>9} {'NDR/' + first:>{width}} "
        f"{'PDR/' + first:>{width}} "
        f"{'trials':>6} {'wall s':>7} {'ok':>4}  irregular (allowed)"
    ]
    reference = results[first]
    ref_ndr = _median([o.ndr_pps for o in reference])
    ref_pdr = _median([o.pdr_pps for o in reference])
    for label, outcomes in results.items():
        ndr = _median([o.ndr_pps for o in outcomes])
        pdr = _median([o.pdr_pps for o in outcomes])
        trials = statistics.median(o.trials for o in outcomes)
        wall = statistics.median(o.wall_s for o in outcomes)
        ok = sum(o.ok for o in outcomes)
        irregular = sorted({tag for o in outcomes for tag in o.irregular})
        lines.append(
            f"{label:<9} {kpps(ndr):>9} {kpps(pdr):>9} {_ratio(ndr, ref_ndr):>{width}} "
            f"{_ratio(pdr, ref_pdr):>{width}} {trials:>6g} {wall:>7.1f} {ok:>2}/{len(outcomes)}  "
            f"{', '.join(irregular) or '-'}"
        )
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Run every DUT's searches in turn and print the table; 1 when one failed."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--profile", default="ethip4-ip4base", help="traffic profile")
    parser.add_argument("--final", type=float, default=1.0, help="final trial duration [s]")
    parser.add_argument(
        "--sum", type=float, default=5.0, help="full-length seconds per load [s] (suites: 21)"
    )
    parser.add_argument("--rounds", type=int, default=1, help="searches per DUT")
    parser.add_argument(
        "--dut", action="append", choices=[label for label, _ in DUTS],
        help="only these DUTs (repeat; default all three)",
    )  # fmt: skip
    args = parser.parse_args(argv)
    chosen = [(label, path) for label, path in DUTS if not args.dut or label in args.dut]
    results = run_rounds(chosen, args.profile, args.final, args.sum, args.rounds)
    failed = sum(not o.ok for outcomes in results.values() for o in outcomes)
    return int(failed > 0)


def run_rounds(
    chosen: Sequence[tuple[str, str]], profile: str, final_s: float, sum_s: float, rounds: int
) -> dict[str, list[Outcome]]:
    """``rounds`` searches of each (label, topology), interleaved; print each and the table."""
    results: dict[str, list[Outcome]] = {label: [] for label, _ in chosen}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        for round_index in range(rounds):
            for label, path in chosen:  # interleaved: a busy spell hits every DUT alike
                outcome = search(path, profile, final_s, sum_s, Path(tmp))
                results[label].append(outcome)
                said = f" (irregular: {', '.join(outcome.irregular)})" if outcome.irregular else ""
                print(
                    f"round {round_index + 1} {label}: exit {outcome.exit_code}, "
                    f"NDR {kpps(outcome.ndr_pps)} kpps, PDR {kpps(outcome.pdr_pps)} kpps, "
                    f"{outcome.trials} trials, {outcome.wall_s:.1f} s{said}",
                    flush=True,
                )
                if outcome.error:
                    print(outcome.error)
    print(
        f"\n{profile} 64B, final trials {final_s:g} s, duration sum {sum_s:g} s, "
        f"{rounds} round(s), {time.perf_counter() - started:.0f} s in all; medians:"
    )
    for line in table(results):
        print(line)
    return results


if __name__ == "__main__":
    raise SystemExit(main())
