"""benchmarks/dut_compare.py's table: medians side by side, ratios to the kernel, irregularities.

The searches themselves need root and the local testbed (the benchmark runs
them); here the table is built from given outcomes.
"""

from __future__ import annotations

from benchmarks.dut_compare import DUTS, Outcome, main, table


def _outcome(
    ndr: float | None, pdr: float | None, *, code: int = 0, tags: tuple[str, ...] = ()
) -> Outcome:
    return Outcome(code, ndr, pdr, trials=10, wall_s=20.0, irregular=tags)


def test_rows_hold_medians_and_ratios_to_the_kernel() -> None:
    lines = table({
        "kernel": [_outcome(200e3, 300e3, tags=("TG_LIMITED",)), _outcome(100e3, 100e3)],
        "vpp": [_outcome(75e3, 150e3), _outcome(75e3, 75e3), _outcome(None, None, code=1)],
    })  # fmt: skip
    assert lines[0].split()[:3] == ["DUT", "NDR", "kpps"]
    kernel, vpp = lines[1].split(), lines[2].split()
    assert kernel == ["kernel", "150.0", "200.0", "1.00", "1.00", "10", "20.0", "2/2", "TG_LIMITED"]
    assert vpp == ["vpp", "75.0", "112.5", "0.50", "0.56", "10", "20.0", "2/3", "-"]


def test_ok_needs_a_passed_search_with_ndr_at_most_pdr() -> None:
    assert _outcome(1.0, 2.0).ok
    assert not _outcome(3.0, 2.0).ok
    assert not _outcome(1.0, 2.0, code=1).ok
    assert not _outcome(None, 2.0).ok


def test_the_three_duts_share_one_local_testbed_shape() -> None:
    assert [label for label, _ in DUTS] == ["kernel", "testpmd", "vpp"]
    assert all(path.startswith("topologies/local-") for _, path in DUTS)
    try:
        main(["--dut", "nosuch"])
    except SystemExit as exc:
        assert exc.code == 2
    else:
        raise AssertionError("an unknown DUT was accepted")
