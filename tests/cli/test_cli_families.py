"""``ndrpdr families``, and ``--profile`` / ``--cores`` as the suites use them, in process."""

from __future__ import annotations

from typing import Any

import pytest
from cli_helpers import SIM

from ndrpdr.activebed.testbed import ActiveTestbed
from ndrpdr.cli.families_cmd import families_table
from ndrpdr.cli.main import main
from ndrpdr.families import Family, all_families, get_family
from ndrpdr.families.registry import builtin_families


def test_families_lists_every_family(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["families"]) == 0
    out = capsys.readouterr().out
    paragraphs = out.strip().split("\n\n")
    assert [p.splitlines()[0].split()[0] for p in paragraphs] == [f.id for f in all_families()]


def test_families_says_where_each_runs(capsys: pytest.CaptureFixture[str]) -> None:
    ids = [
        "ethip4-ip4base",
        "ethip4udp-ip4base-iacl50sf-10kflows",
        "ethip6srhip6-ip6base-srv6enc2sids",
    ]
    assert main(["families", *ids]) == 0
    base, acl, srv6 = capsys.readouterr().out.strip().split("\n\n")
    assert "  testbeds: 2-node, 3-node" in base.splitlines()
    assert "  DUT drivers: sim, vpp, linux, testpmd, l3fwd, ovs" in base.splitlines()
    assert "  VPP plugins: acl" in acl.splitlines()
    drivers = next(line for line in srv6.splitlines() if line.startswith("  DUT drivers: "))
    assert "sim" in drivers and "linux" not in drivers  # SRv6: the sim and at most VPP
    assert "  testbeds: 3-node" in srv6.splitlines()
    assert "  tags: ETH IP6FWD FEATURE SRv6 SRv6_2SID_DECAP" in srv6.splitlines()


def _table_rows(table: str) -> list[list[str]]:
    """The list-table's rows, each a list of its cells' text."""
    rows: list[list[str]] = []
    for line in table.splitlines():
        if line.startswith("   * - "):
            rows.append([line.removeprefix("   * - ")])
        elif line.startswith("     - "):
            rows[-1].append(line.removeprefix("     - "))
    return rows


def test_the_manuals_families_table_has_a_row_per_builtin_family() -> None:
    table = families_table()
    assert table.startswith(".. list-table::\n   :header-rows: 1\n")
    header, *rows = _table_rows(table)
    assert header == ["kind", "family", "testbeds", "DUT drivers", "VPP plugins", "traffic"]
    families = builtin_families()
    assert [row[1].split("``")[1] for row in rows] == [f.id for f in families]
    assert all(len(row) == len(header) for row in rows)
    by_id = {row[1].split("``")[1]: row for row in rows}
    assert by_id["ethip4-ip4base"] == [
        "ip4",
        "``ethip4-ip4base``",
        "2-node, 3-node",
        "sim, vpp, linux, testpmd, l3fwd, ovs",
        "none",
        get_family("ethip4-ip4base").description,
    ]
    assert by_id["ethip4udp-ip4base-iacl50sf-10kflows"][4] == "acl"
    assert by_id["ethip4udp-ip4base"][1].endswith("(ours)")  # not a CSIT id
    srv6 = by_id["ethip6srhip6-ip6base-srv6enc2sids"]
    assert srv6[2] == "3-node" and "linux" not in srv6[3]


def test_an_unknown_family_names_the_known_ones(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["families", "ethip6-ip6base", "ethip7-ip7base"]) == 1
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("ndrpdr families: test family 'ethip7-ip7base' is not known: give one of")
    assert "ethip6-ip6base" in err


@pytest.mark.parametrize(("cores", "frame", "smt"), [("2", "78", True), ("1", "9000", False)])
def test_search_configures_the_family_with_cores_and_frame(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    cores: str,
    frame: str,
    smt: bool,
) -> None:
    """``--profile``, ``--cores`` and ``--no-smt`` reach the testbed as a suite's ``Nc`` test
    passes them (``smt`` false: one thread a physical core)."""
    calls: list[tuple[str, dict[str, Any]]] = []
    real = ActiveTestbed.configure_family

    def spy(self: ActiveTestbed, family: Family, **kwargs: Any) -> None:
        calls.append((family.id, kwargs))
        real(self, family, **kwargs)

    monkeypatch.setattr(ActiveTestbed, "configure_family", spy)
    argv = ["search", "--topology", str(SIM), "--profile", "ethip6-ip6base", "--cores", cores]
    argv += ["--frame-size", frame, "--no-latency", "--duration-sum", "2s", "--width", "0.05"]
    argv += [] if smt else ["--no-smt"]
    assert main(argv) == 0, capsys.readouterr().err
    expected = {"cores": int(cores), "max_frame_size_b": int(frame), "smt": smt}
    assert calls == [("ethip6-ip6base", expected)]
    assert "ethip6-ip6base" in capsys.readouterr().out


@pytest.mark.parametrize("cores", ["0", "-1"])
def test_cores_below_one_is_a_usage_error(cores: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "--topology", str(SIM), "--cores", cores]) == 2
    assert f"--cores {cores}: give 1 or more physical cores" in capsys.readouterr().err
