"""Nightly runs for the trend tests: real searches on the simulator, written as record directories.

``benchmarks.trendgen`` runs them (the noisy DUT model, a fresh measurement
seed each night): one NDRPDR test whose DUT loses 8 % of its capacity from
night ``STEP_NIGHT`` on, one NDRPDR test (with latency trials) and one MRR
test on unchanged DUTs.
"""

from __future__ import annotations

from pathlib import Path

from benchmarks.trendgen import TESTS, Plan, generate

NIGHTS = 24
STEP_NIGHT = 14
#: The stepped test, and the tests on unchanged DUTs.
STEPPED = TESTS[0]
FLAT = (TESTS[4], TESTS[1])


def write_runs(out: Path) -> list[Path]:
    """Write NIGHTS run directories (``nightly-000`` ...) into ``out``; return them in order."""
    generate(
        Plan("step", range(NIGHTS), noise_seed=5, step_night=STEP_NIGHT, step_factor=0.92),
        [STEPPED],
        out=out,
        jobs=1,
    )
    generate(Plan("noise", range(NIGHTS), noise_seed=5), FLAT, out=out, jobs=1)
    return sorted(out.iterdir())
