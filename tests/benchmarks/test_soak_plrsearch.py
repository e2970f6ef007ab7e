"""The soak-beside-PLRsearch benchmark: its adapter over the sim DUT, and a short run of CSIT's
PLRsearch read from the CSIT checkout (skipped without one, or without scipy, numpy, dill:
the ``bench`` extras)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from benchmarks import soak, soak_plrsearch


def test_the_adapter_answers_in_simulated_time() -> None:
    clock = soak_plrsearch.SimClock()
    measurer = soak_plrsearch.SimMeasurer("sharp", 3, clock, overhead_s=0.5, compute_s=0.0)
    capacity = soak.make_model("sharp", 3).parameters()["capacity_pps"]
    clean = measurer.measure(5.1, capacity * 0.9)
    lossy = measurer.measure(5.2, capacity * 1.1)
    assert clock.time() == pytest.approx(5.1 + 5.2 + 2 * 0.5)
    assert clean.loss_ratio == 0.0 and clean.intended_count == pytest.approx(5.1 * capacity * 0.9)
    assert lossy.loss_ratio == pytest.approx(1 - 1 / 1.1, rel=1e-6)
    assert lossy.relative_forwarding_rate == pytest.approx(capacity, rel=1e-6)


def test_plrsearch_runs_beside_ours(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if soak_plrsearch.csit_git() is None:
        pytest.skip("no CSIT checkout: set NDRPDR_CSIT_GIT")
    if not all(importlib.util.find_spec(name) for name in ("scipy", "numpy", "dill")):
        pytest.skip("PLRsearch needs scipy, numpy and dill (pip install .[bench])")
    args = ["--models", "gradual", "--seeds", "1", "--budgets", "20", "--compute", "0.3"]
    assert soak_plrsearch.main(args) == 0
    rows = [line.split() for line in capsys.readouterr().out.splitlines()[3:]]
    assert [row[:2] for row in rows] == [["PLRsearch", "gradual"], ["ours", "gradual"]]
    assert rows[1][-2] == "0"  # ours never fails
    assert float(rows[1][2]) < 0.05
