"""benchmarks/memif.py: memif's NDR over af_packet's, judged against issue 23's bar.

The searches need root, TRex and VPP (the benchmark runs them); here the
rounds are given outcomes in place of ``run_rounds``.
"""

from __future__ import annotations

import pytest
from benchmarks.dut_compare import Outcome
from benchmarks.memif import TOPOLOGIES, main, ndr_ratio


def _outcome(ndr: float | None, code: int = 0) -> Outcome:
    return Outcome(code, ndr, None if ndr is None else ndr * 1.01, trials=9, wall_s=30.0)


def test_the_ratio_is_of_the_medians() -> None:
    results = {
        "af_packet": [_outcome(200e3), _outcome(300e3), _outcome(None, 1)],
        "memif": [_outcome(600e3), _outcome(400e3)],
    }
    assert ndr_ratio(results) == pytest.approx(500e3 / 250e3)
    assert ndr_ratio({**results, "memif": [_outcome(None, 1)]}) is None


@pytest.mark.parametrize(("memif_ndr", "status"), [(500e3, 0), (499e3, 1)])
def test_the_exit_status_says_whether_the_bar_is_met(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    memif_ndr: float,
    status: int,
) -> None:
    def rounds(chosen: object, *args: object) -> dict[str, list[Outcome]]:
        assert chosen == TOPOLOGIES
        return {"af_packet": [_outcome(250e3)], "memif": [_outcome(memif_ndr)]}

    monkeypatch.setattr("benchmarks.memif.run_rounds", rounds)
    assert main([]) == status
    said = capsys.readouterr().out
    assert f"memif NDR / af_packet NDR: {memif_ndr / 250e3:.2f} (bar: >= 2)" in said
    assert said.rstrip().endswith("met")
