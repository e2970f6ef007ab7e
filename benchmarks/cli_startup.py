"""Command-line start-up benchmark: wall time of ``ndrpdr --help`` and ``ndrpdr validate``.

Each round runs, one after the other, ``python -c pass`` (the interpreter
alone), ``python -m ndrpdr --help`` and ``python -m ndrpdr validate FILE``
(default topologies/sim.yaml) as child processes, output discarded, with
this interpreter and PYTHONPATH=libraries:. The table gives each one's
median and fastest wall time over the rounds, what it costs beyond the
bare interpreter, its ratio to it, and the target: each command under
0.25 s on the machine at hand (issue 25). The target is reported, not
asserted: the exit code is 0 unless a command failed.

Run: PYTHONPATH=libraries:. python3 -m benchmarks.cli_startup [--rounds N] [--topology FILE]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.scoring import median
from benchmarks.targets import CLI_STARTUP_S, verdict

ROOT = Path(__file__).resolve().parents[1]


def _commands(topology: str) -> dict[str, list[str]]:
    """Label -> argv of what each round runs, the bare interpreter first."""
    python = sys.executable
    return {
        "python -c pass": [python, "-c", "pass"],
        "ndrpdr --help": [python, "-m", "ndrpdr", "--help"],
        f"ndrpdr validate {topology}": [python, "-m", "ndrpdr", "validate", topology],
    }


def _wall_time(argv: Sequence[str], env: dict[str, str]) -> float:
    """Seconds ``argv`` takes from start to exit (CalledProcessError if it fails)."""
    start = time.perf_counter()
    subprocess.run(argv, cwd=ROOT, env=env, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def measure(rounds: int, topology: str) -> dict[str, list[float]]:
    """Wall times per label over ``rounds`` rounds (commands interleaved, so load hits all)."""
    env = {**os.environ, "PYTHONPATH": f"{ROOT / 'libraries'}{os.pathsep}{ROOT}"}
    commands = _commands(topology)
    times: dict[str, list[float]] = {label: [] for label in commands}
    for argv in commands.values():  # one warm-up each: the file cache, .pyc files
        _wall_time(argv, env)
    for _ in range(rounds):
        for label, argv in commands.items():
            times[label].append(_wall_time(argv, env))
    return times


def report(times: dict[str, list[float]]) -> list[str]:
    """The table: median, fastest, beyond the bare interpreter, ratio, target and verdict."""
    labels = list(times)
    bare = median(times[labels[0]])
    rounds = len(times[labels[0]])
    width = max(len(label) for label in labels)
    lines = [
        f"CLI start-up, wall time over {rounds} rounds "
        f"(load average {', '.join(f'{v:.1f}' for v in os.getloadavg())})",
        f"{'command':<{width}} {'median[s]':>9} {'min[s]':>7} {'extra[s]':>8} {'x python':>8}"
        f" {'target':>7}",
    ]
    for label in labels:
        med = median(times[label])
        line = (
            f"{label:<{width}} {med:>9.3f} {min(times[label]):>7.3f} {med - bare:>8.3f}"
            f" {med / bare:>8.1f}"
        )
        if label != labels[0]:
            line += f" {f'<{CLI_STARTUP_S:g} s':>7} {verdict(med < CLI_STARTUP_S)}"
        lines.append(line)
    return lines


def main(argv: Sequence[str] | None = None) -> int:
    """Measure and print the table; 0 unless a command failed."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.cli_startup", description=__doc__)
    parser.add_argument("--rounds", type=int, default=20, help="rounds (default 20)")
    parser.add_argument(
        "--topology",
        default="topologies/sim.yaml",
        metavar="FILE",
        help="the file ndrpdr validate checks (default topologies/sim.yaml)",
    )
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"--rounds {args.rounds}: give 1 or more")
    try:
        times = measure(args.rounds, args.topology)
    except subprocess.CalledProcessError as exc:
        print(f"cli_startup: {' '.join(exc.cmd)} exited {exc.returncode}", file=sys.stderr)
        return 1
    print("\n".join(report(times)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
